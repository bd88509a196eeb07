-- Hostile: a depth out of range.
diving.wrap(5, function(ctx, play, previous)
  previous(ctx, play)
  ctx:set_depth(play.player, -5)
end)
