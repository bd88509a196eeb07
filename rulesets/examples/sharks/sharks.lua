-- Sharks: a 7 drawn into your hand costs you 2 oxygen (at 0 you are rescued).
--
-- For mod writers: diving.on_draw runs after every card drawn into a hand (the replacement
-- after a play, the cards after a recovery, a ctx:draw), with the drawer, the card and why.
diving.manifest{ name = "sharks", version = "1.0.0", api = 1 }

diving.on_draw(function(ctx, player, card, cause)
  if diving.rank(card) ~= 7 then
    return
  end
  local air = math.max(0, ctx:oxygen(player) - 2)
  ctx:say("a shark bites " .. ctx:name(player))
  ctx:set_oxygen(player, air)
  if air == 0 then
    ctx:rescue(player)
  end
end)
