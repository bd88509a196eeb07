-- Uses Luau's math.random, which mods get from the game's seeded RNG.
diving.on_turn_start(function(ctx, player)
  ctx:say(string.format("%d %d %.6f", math.random(6), math.random(10, 20), math.random()))
end)
