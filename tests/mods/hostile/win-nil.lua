-- Hostile: a win_check handler that returns no boolean.
diving.win_check(function(ctx, player, previous)
  if ctx:depth(player) > 1000 then return true end
end)
