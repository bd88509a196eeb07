-- self-ace.lua: an ace becomes a card of a mod's own whose only target is its player (under
-- a Quick, the divers it may push, as the built-in ace), and which does just what the
-- built-in ace does: a pure pass-through.
diving.effect(1, {
  targets = function(ctx, player, card)
    if ctx:under_quick(player) then
      local others = {}
      for p = 1, ctx:players() do
        if p ~= player then table.insert(others, p) end
      end
      return others
    end
    return { player }
  end,
  resolve = function(ctx, play, previous)
    if play.target == play.player then play.target = nil end
    previous(ctx, play)
  end,
})
