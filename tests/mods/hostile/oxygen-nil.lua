-- Hostile: an oxygen_cost handler that forgets to return.
diving.oxygen_cost(function(ctx, player, depth, previous)
  local cost = previous(ctx, player, depth)
end)
