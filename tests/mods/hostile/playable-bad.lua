-- Hostile: a playable function that returns a number.
diving.effect(5, {
  playable = function(ctx, player, card)
    return 1
  end,
  resolve = function(ctx, play) ctx:discard(play.card) end,
})
