-- Hostile: one huge string.
diving.wrap(5, function(ctx, play, previous)
  local s = string.rep("x", 2 ^ 31)
  ctx:say(#s)
end)
