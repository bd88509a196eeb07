-- Jolt immunity: a diver with a Quick (Q) in front of them cannot be Jolted: the Quick
-- carries them out of reach.
--
-- For mod writers: the targets function keeps the built-in Jolt's rule (another diver,
-- deeper than you, with no J in front) and gives a reason for each diver it leaves out, so
-- that `play JS @Bob` says why Bob cannot be aimed at.
diving.manifest{ name = "jolt-immunity", version = "1.0.0", api = 1 }

diving.effect("J", {
  targets = function(ctx, player, card)
    local targets, why = {}, {}
    for p = 1, ctx:players() do
      if p ~= player then
        if ctx:depth(p) <= ctx:depth(player) then
          why[p] = "they are not deeper than you"
        elseif ctx:has_front(p, "J") then
          why[p] = "they already have a J in front"
        elseif ctx:has_front(p, "Q") then
          why[p] = ctx:name(p) .. " is immune: a Quick carries them out of reach"
        else
          table.insert(targets, p)
        end
      end
    end
    return targets, why
  end,
  resolve = function(ctx, play, previous)
    previous(ctx, play)
  end,
})
