-- Keeps a count in a local across calls (and games): every third 5 dives 3 further.
local fives = 0
diving.wrap(5, function(ctx, play, previous)
  fives += 1
  previous(ctx, play)
  if fives % 3 == 0 and not ctx:is_over() then
    ctx:dive(play.player, 3)
  end
end)
