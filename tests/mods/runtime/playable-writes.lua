-- Counts in a global how often its playable function is asked: listing the moves would
-- change the mod's state.
asked = 0
diving.effect(5, {
  playable = function(ctx, player, card)
    asked = asked + 1
    return true
  end,
  resolve = function(ctx, play) ctx:discard(play.card) end,
})
