-- Heavy knot: while a K lies in front of you, every move costs you 1 more oxygen (and your
-- next recovery still gains nothing).
--
-- For mod writers: an oxygen_cost hook that reads the cards in front, said in brackets after
-- the breath; diving.describe gives the K its new words in `help K` and on the board.
diving.manifest{ name = "heavy-knot", version = "1.0.0", api = 1 }

diving.describe("K", "put it in front of another diver with no K: until their next recovery (which gains nothing), each of their moves costs 1 more oxygen")

diving.oxygen_cost(function(ctx, player, depth, previous)
  local cost = previous(ctx, player, depth)
  if ctx:has_front(player, "K") then
    ctx:say("the knot weighs on " .. ctx:name(player) .. ": 1 more oxygen")
    cost = cost + 1
  end
  return cost
end)
