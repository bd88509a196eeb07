-- Narrates 90 lines every turn: within the turn's limit, over the game's in the end.
diving.on_turn_start(function(ctx, player)
  for i = 1, 90 do ctx:say("turn " .. ctx:turn() .. ", line " .. i) end
end)
