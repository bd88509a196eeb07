-- Hostile: a targets function that returns no list.
diving.effect(5, {
  targets = function(ctx, player, card)
    return "everyone"
  end,
  resolve = function(ctx, play) ctx:discard(play.card) end,
})
