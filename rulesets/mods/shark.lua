-- Sharks: every 7 is a shark instead of a number card (a rank given a brand-new effect).
--
-- Play a 7 at another diver who is in the water (deeper than 0). The shark chases them
-- 7 up towards the surface, and they spend oxygen for the swim at their new depth
-- (ctx:dive does the moving, the after-move hooks and the breathing). Then the shark
-- swims off: the 7 goes on the discard pile.

local CHASE = 7

diving.effect(7, {
  -- Who can be chased: a function returning a list of player numbers.
  -- An empty list means the 7 cannot be played now; the second value says why.
  targets = function(ctx, player, card)
    local prey = {}
    for p = 1, ctx:players() do
      if p ~= player and ctx:depth(p) > 0 then
        table.insert(prey, p)
      end
    end
    return prey, "the shark finds nobody in the water"
  end,

  resolve = function(ctx, play)
    local target = play.target
    ctx:say(ctx:name(target) .. " is chased by a shark!")
    ctx:discard(play.card)          -- the card being played must end somewhere
    ctx:dive(target, -CHASE)        -- negative = up
  end,
})
