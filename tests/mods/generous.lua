-- Test mod: recovery_gain. Discarding any heart fills you up; otherwise the usual table.
diving.recovery_gain(function(ctx, player, cards, previous)
  for _, card in ipairs(cards) do
    if diving.suit(card) == "H" then
      return "max"
    end
  end
  return previous(ctx, player, cards)
end)
