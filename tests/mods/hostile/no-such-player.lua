-- Hostile: a player who does not exist.
diving.wrap(5, function(ctx, play, previous)
  previous(ctx, play)
  ctx:dive(9, 10)
end)
