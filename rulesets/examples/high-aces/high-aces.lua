-- High aces: an ace is worth 11 (doubled on a match like any card) — unless 11 would carry
-- you past the bottom, when it is worth 1, as a soft ace in blackjack.
--
-- For mod writers: the ruleset's [values] table makes the ace worth 11 for every built-in
-- rule (the dive, doubling, the Jolt, the Quick), the bots, the previews and the help.
-- diving.card_value changes what one card is worth to one player now; previous gives the
-- ruleset's value.
diving.manifest{ name = "high-aces", version = "1.0.0", api = 1 }

diving.card_value(function(ctx, player, card, previous)
  local value = previous(ctx, player, card)
  if diving.rank(card) == 1 and ctx:depth(player) + value > ctx:max_depth() then
    return 1
  end
  return value
end)
