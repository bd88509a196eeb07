-- Hostile: wrong argument types.
diving.wrap(5, function(ctx, play, previous)
  previous(ctx, play)
  ctx:dive(play.player, "deep")
end)
