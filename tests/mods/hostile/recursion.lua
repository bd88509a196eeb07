-- Hostile: an after-move hook that moves again, for ever.
diving.on_after_move(function(ctx, player, from, to)
  ctx:dive(player, 0)
end)
