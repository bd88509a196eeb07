-- Hostile: a handler keeps its ctx in a global; a later handler uses it (after a change of
-- its own, which must be undone).
diving.wrap(9, function(ctx, play, previous)
  kept = ctx
  previous(ctx, play)
end)
diving.wrap(5, function(ctx, play, previous)
  ctx:set_oxygen(play.player, 1)
  kept:set_depth(play.player, 50)
  previous(ctx, play)
end)
