-- costly-sevens.lua: a 7 moves you as usual, and then costs you 2 more oxygen (a diver it
-- leaves at 0 is rescued). The cost is in the effect, not in a hook a bot could ask.
diving.wrap(7, function(ctx, play, previous)
  previous(ctx, play)
  if ctx:is_over() then return end
  local me = play.player
  local air = math.max(0, ctx:oxygen(me) - 2)
  ctx:say("the 7 costs " .. ctx:name(me) .. " two more breaths")
  ctx:set_oxygen(me, air)
  if air == 0 then ctx:rescue(me) end
end)
