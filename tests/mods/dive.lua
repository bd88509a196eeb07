-- Test mod: dive. The 4 is a towline: it pulls another diver 10 down (they breathe there).
diving.effect(4, {
  targets = "other",
  resolve = function(ctx, play)
    ctx:discard(play.card)
    ctx:dive(play.target, 10)
  end,
})
