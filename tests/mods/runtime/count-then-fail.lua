-- Counts fives in a global, and refuses 5C after counting it: a refused action must not
-- keep the count. Every third five dives 3 further.
fives = 0
diving.wrap(5, function(ctx, play, previous)
  fives += 1
  if play.card == "5C" then error("5C is refused after counting it") end
  previous(ctx, play)
  if fives % 3 == 0 and not ctx:is_over() then
    ctx:say("the third five dives 3 further")
    ctx:dive(play.player, 3)
  end
end)
