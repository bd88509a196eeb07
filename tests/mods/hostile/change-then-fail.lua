-- Hostile: change the game, then fail: nothing may be kept.
diving.wrap(5, function(ctx, play, previous)
  previous(ctx, play)
  ctx:set_depth(play.player, 50)
  ctx:say("half way")
  error("failed after changing things")
end)
