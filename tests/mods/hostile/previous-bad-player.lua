-- Hostile: a win check that hands its previous function a name instead of a player number.
diving.win_check(function(ctx, player, previous)
  return previous(ctx, ctx:name(player))
end)
