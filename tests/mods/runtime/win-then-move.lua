-- Behaves for two turns, then makes the player win and goes on moving the divers.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    previous(ctx, play)
    if ctx:turn() > 2 and not ctx:is_over() then
      ctx:set_depth(play.player, ctx:max_depth())
      ctx:check_win(play.player)
      ctx:set_depth(play.player, 0)
    end
  end)
end
