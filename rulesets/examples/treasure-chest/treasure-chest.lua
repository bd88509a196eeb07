-- Treasure chest: a recovery of three or more cards finds a treasure chest: you draw one
-- card more, so your hand grows, up to 8 cards (a full hand of 8 finds no chest).
--
-- For mod writers: diving.on_recover runs after a recovery and its draws. A hand bigger than
-- the ruleset's hand size can discard more cards than the recovery table lists: those gain
-- what the best fitting listed pattern gains (`diving check` lists the patterns it needs).
diving.manifest{ name = "treasure-chest", version = "1.0.0", api = 1 }

-- The most cards a chest lets a hand hold (the first paragraph says so to the players).
local FULL_HAND = 8

diving.on_recover(function(ctx, player, cards, gain, from, to)
  if #cards >= 3 and ctx:hand_size(player) < FULL_HAND then
    ctx:say(ctx:name(player) .. " finds a treasure chest")
    ctx:draw(player)
  end
end)
