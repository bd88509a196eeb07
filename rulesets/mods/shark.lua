-- Sharks: every 7 is a shark, not a number card. Play it at another diver who is in the
-- water (deeper than 0): the shark chases them 7 up towards the surface, and they spend
-- oxygen for their new depth.
--
-- A rank given a brand-new effect. ctx:dive does the moving, the after-move hooks and the
-- breathing; the line the mod says comes first, so the narration reads "ann plays 7H — a
-- shark chases bob towards the surface: depth 20 → 13, oxygen 10 → 9". Then the shark swims
-- off: the 7 goes on the discard pile.

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
    ctx:say("a shark chases " .. ctx:name(target) .. " towards the surface")
    ctx:discard(play.card)          -- the card being played must end somewhere
    ctx:dive(target, -CHASE)        -- negative = up
  end,
})
