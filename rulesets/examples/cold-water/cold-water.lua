-- Cold water: a diver who ends their turn below depth 70 loses 1 oxygen to the cold (never
-- the last one).
--
-- For mod writers: diving.on_turn_end runs once the mover's action is done.
diving.manifest{ name = "cold-water", version = "1.0.0", api = 1 }

diving.on_turn_end(function(ctx, player)
  local air = ctx:oxygen(player)
  if ctx:depth(player) > 70 and air > 1 then
    ctx:say("the cold water chills " .. ctx:name(player))
    ctx:set_oxygen(player, air - 1)
  end
end)
