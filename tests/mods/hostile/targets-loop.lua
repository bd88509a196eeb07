-- Hostile: a targets function that never ends.
diving.effect(5, {
  targets = function(ctx, player, card)
    while true do end
  end,
  resolve = function(ctx, play) ctx:discard(play.card) end,
})
