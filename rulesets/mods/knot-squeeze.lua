-- Squeezing Knot: a K works as usual (its target's next recovery gains no oxygen) and
-- squeezes a breath out of its target at once, never their last.
--
-- Extends the built-in Knot (D16) by wrapping it: diving.wrap keeps the Knot's targeting and
-- hands us `previous`, the Knot as it was (the built-in one, or another mod's wrapper if one
-- was loaded first). We let it place the K as usual, then the knot squeezes. The line is said
-- before the oxygen changes, so the narration joins them: "ann plays KH in front of bob — the
-- knot squeezes a breath out of bob: oxygen 10 → 9".

diving.wrap("K", function(ctx, play, previous)
  previous(ctx, play)               -- the usual Knot: the K goes in front of the target
  local target = play.target
  local air = ctx:oxygen(target)
  if air > 1 then
    ctx:say("the knot squeezes a breath out of " .. ctx:name(target))
    ctx:set_oxygen(target, air - 1)  -- checked: 0 … max_oxygen, or the mod fails
  end
end)
