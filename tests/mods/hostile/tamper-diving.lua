-- Hostile: replace a registration function at load time.
diving.wrap = function() end
