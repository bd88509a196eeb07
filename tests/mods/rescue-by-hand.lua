-- A 7 empties the player's lungs and rescues them through the rescue hook.
diving.wrap(7, function(ctx, play, previous)
  previous(ctx, play)
  if ctx:is_over() then return end
  ctx:set_oxygen(play.player, 0)
  ctx:rescue(play.player)
end)
