-- Hostile: give ctx a metatable.
diving.wrap(5, function(ctx, play, previous)
  setmetatable(ctx, { __index = function() return 1 end })
  previous(ctx, play)
end)
