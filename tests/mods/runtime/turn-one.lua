-- Says which turn begins, from turn 1 on (turn 1's hook runs while the game is dealt).
diving.on_turn_start(function(ctx, player)
  ctx:say("turn " .. ctx:turn() .. " begins")
end)
