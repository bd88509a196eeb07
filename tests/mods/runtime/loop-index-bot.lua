-- A bot whose returned table loops when its `choose` is looked up.
return setmetatable({}, { __index = function(t, key) while true do end end })
