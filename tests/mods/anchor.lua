-- Test mod: place_front, take_front, discard, draw and has_front.
-- The 5 is an anchor played at another diver; at the start of their turn they cut it
-- loose (it goes on the discard pile) and draw a card.
diving.effect(5, {
  targets = "other",
  resolve = function(ctx, play)
    ctx:place_front(play.target, play.card)
    ctx:say(ctx:name(play.target) .. " is anchored")
  end,
})

diving.on_turn_start(function(ctx, player)
  if not ctx:has_front(player, 5) then
    return
  end
  local card = ctx:take_front(player, 5)
  ctx:discard(card)
  local drew = ctx:draw(player)
  ctx:say(ctx:name(player) .. " cuts the anchor " .. card .. (drew and " and draws" or ""))
end)
