-- Behaves for two turns, then an after-move hook that dives, which runs the hook again.
diving.on_after_move(function(ctx, player, from, to)
  if ctx:turn() > 2 then
    ctx:dive(player, 1)
  end
end)
