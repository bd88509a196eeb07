-- Test mod: oxygen_cost. Every move costs 1 less than the bands say (never below 0).
diving.oxygen_cost(function(ctx, player, depth, previous)
  return math.max(0, previous(ctx, player, depth) - 1)
end)
