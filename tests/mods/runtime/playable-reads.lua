-- A 5 can be played only once each diver has played one: the count its resolve keeps in a
-- global, read by its playable function.
played = {}
diving.effect(5, {
  playable = function(ctx, player, card)
    for p = 1, ctx:players() do
      if p ~= player and (played[p] or 0) < (played[player] or 0) then
        return false, "wait until everyone has played a 5"
      end
    end
    return true
  end,
  resolve = function(ctx, play)
    played[play.player] = (played[play.player] or 0) + 1
    ctx:discard(play.card)
  end,
})
