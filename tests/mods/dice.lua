-- Test mod: random. Each turn starts with a die roll from the game's seeded RNG.
diving.on_turn_start(function(ctx, player)
  ctx:say("roll " .. ctx:random(6))
end)
