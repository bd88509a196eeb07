-- Hostile: oxygen out of range.
diving.wrap(5, function(ctx, play, previous)
  previous(ctx, play)
  ctx:set_oxygen(play.player, 99)
end)
