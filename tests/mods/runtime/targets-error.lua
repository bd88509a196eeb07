-- A 7 that chooses its targets, fine for two turns and then failing.
diving.effect(7, {
  targets = function(ctx, player, card)
    if ctx:turn() > 2 then
      error("no targets today")
    end
    return { player % ctx:players() + 1 }
  end,
  resolve = function(ctx, play)
    ctx:discard(play.card)
  end,
})
