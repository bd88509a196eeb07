-- Salvage: instead of playing, you may take the number card on top of the discard pile into
-- your hand; your weakest card (the number card worth least) is shuffled back into the deck,
-- without the others seeing which.
--
-- For mod writers: ctx:take_discard(p) takes the discard top (or a named card of the pile)
-- into a hand, in sight of everyone; ctx:return_to_deck(card) shuffles a card back into the
-- deck (from the mover's hand, only they see which); ctx:discard_pile() reads the pile.
diving.manifest{ name = "salvage", version = "1.0.0", api = 1 }

diving.action("salvage", {
  describe = "salvage: instead of playing, take the number card on top of the discard pile into your hand; your weakest card goes back into the deck",
  legal = function(ctx, args)
    local top = ctx:discard_top()
    if #ctx:discard_pile() < 2 then
      return false, "the discard pile's only card stays"
    end
    if diving.value(top) == nil then
      return false, "only a number card can be salvaged, not " .. top
    end
    return true
  end,
  resolve = function(ctx, args)
    local me = args.player
    -- The weakest card of the hand before the salvage: the number card worth least (else the
    -- first card).
    local hand = ctx:hand(me)
    local weakest, worth = hand[1], math.huge
    for _, card in ipairs(hand) do
      if diving.value(card) ~= nil and ctx:card_value(me, card) < worth then
        weakest, worth = card, ctx:card_value(me, card)
      end
    end
    ctx:take_discard(me)
    ctx:return_to_deck(weakest)
  end,
})
