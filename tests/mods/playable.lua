-- Test mod: playable. A 3 can only be played from depth 10 on; it still moves you as a
-- number card (the resolve calls previous).
diving.effect(3, {
  playable = function(ctx, player, card)
    if ctx:depth(player) >= 10 then
      return true
    end
    return false, "a 3 needs depth 10"
  end,
  resolve = function(ctx, play, previous)
    previous(ctx, play)
  end,
})
