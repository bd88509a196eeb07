-- Keeps a count in a global (the state MODDING.md allows): every third 5 dives 3 further.
fives = 0
diving.wrap(5, function(ctx, play, previous)
  fives += 1
  previous(ctx, play)
  if fives % 3 == 0 and not ctx:is_over() then
    ctx:say("the third five dives 3 further")
    ctx:dive(play.player, 3)
  end
end)
