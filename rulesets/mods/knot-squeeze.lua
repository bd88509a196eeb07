-- Squeezing Knot: extends the built-in Knot (D16) by wrapping it.
--
-- diving.wrap keeps the Knot's targeting and hands us `previous`, the Knot as it was
-- (the built-in one, or another mod's wrapper if one was loaded first). We let it place
-- the K as usual, then the knot squeezes one breath out of the target — never their last.

diving.wrap("K", function(ctx, play, previous)
  previous(ctx, play)               -- the usual Knot: the K goes in front of the target
  local target = play.target
  local air = ctx:oxygen(target)
  if air > 1 then
    ctx:set_oxygen(target, air - 1)  -- checked: 0 … max_oxygen, or the mod fails
    ctx:say("the knot squeezes a breath out of " .. ctx:name(target))
  end
end)
