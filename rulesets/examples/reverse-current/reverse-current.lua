-- Reverse current: a 2 moves you as usual, then the current turns and play goes the other
-- way round the table. With two divers it gives you another turn instead.
--
-- For mod writers: ctx:reverse() turns the direction of play round (the game says so to
-- every seat), ctx:give_turn(p) hands the next turn to p, and ctx:next_player(p) says who
-- follows p now. Who moves next is the core's rule point: diving.next_turn replaces it.
diving.manifest{ name = "reverse-current", version = "1.0.0", api = 1 }

diving.describe(2, "moves you 2 down (doubled on a match), then turns the current round: play goes the other way round the table (with two divers: you play again)")

diving.wrap(2, function(ctx, play, previous)
  previous(ctx, play)
  if ctx:is_over() then
    return
  end
  if ctx:players() == 2 then
    ctx:say("the current carries " .. ctx:name(play.player) .. " on")
    ctx:give_turn(play.player)
  else
    ctx:say("the current turns")
    ctx:reverse()
  end
end)
