-- Hostile: a targets function that tries to change the game.
diving.effect(5, {
  targets = function(ctx, player, card)
    ctx:set_depth(player, 99)
    return { 2 }
  end,
  resolve = function(ctx, play) ctx:discard(play.card) end,
})
