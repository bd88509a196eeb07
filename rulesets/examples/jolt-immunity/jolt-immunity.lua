-- Jolt immunity: a diver with a Quick (Q) in front of them cannot be Jolted: the Quick
-- carries them out of reach.
--
-- For mod writers: the targets function filters the targets the built-in Jolt offers (its
-- fourth argument: another diver, deeper than you, with no J in front, D13) and gives a
-- reason for each diver it leaves out, so that `play JS @Bob` says why Bob cannot be aimed
-- at. A diver the built-in Jolt already keeps out is refused with the built-in reason.
diving.manifest{ name = "jolt-immunity", version = "1.0.0", api = 1 }

diving.effect("J", {
  targets = function(ctx, player, card, offered)
    local targets, why = {}, {}
    for _, p in ipairs(offered) do
      if ctx:has_front(p, "Q") then
        why[p] = ctx:name(p) .. " is immune: a Quick carries them out of reach"
      else
        table.insert(targets, p)
      end
    end
    return targets, why
  end,
  resolve = function(ctx, play, previous)
    previous(ctx, play)
  end,
})
