-- Sharks: a 7 drawn into your hand is shown to the table and costs you 2 oxygen (at 0 you are
-- rescued).
--
-- For mod writers: diving.on_draw runs after every card drawn into a hand (the replacement
-- after a play, the cards after a recovery, a ctx:draw), with the drawer, the card and why.
-- With { ranks = { 7 } } it runs only for 7s, and the game shows each 7 to the table before
-- the handler runs (a rank filter makes its ranks public when drawn: which cards the mod is
-- told of must not tell anything hidden), so the mod knows nothing hidden and its words are
-- read by every seat (MODDING.md, "Secrets"). Its own ctx:reveal then shows nothing more (a
-- card already shown is not shown twice); it says what the rule does, and keeps the 7 shown
-- should the filter ever go.
diving.manifest{ name = "sharks", version = "1.1.0", api = 1 }

diving.on_draw(function(ctx, player, card, cause)
  ctx:reveal(player, card)
  local air = math.max(0, ctx:oxygen(player) - 2)
  ctx:say("a shark bites " .. ctx:name(player))
  ctx:set_oxygen(player, air)
  if air == 0 then
    ctx:rescue(player)
  end
end, { ranks = { 7 } })
