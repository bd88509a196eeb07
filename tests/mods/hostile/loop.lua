-- Hostile: an endless loop.
diving.wrap(5, function(ctx, play, previous)
  local n = 0
  while true do n = n + 1 end
end)
