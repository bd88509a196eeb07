-- Tries to reseed math.random: refused, since mods share the game's RNG.
diving.on_turn_start(function(ctx, player)
  math.randomseed(42)
end)
