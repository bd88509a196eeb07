-- Hostile: a recovery_gain handler that returns a negative gain.
diving.recovery_gain(function(ctx, player, cards, previous)
  return -3
end)
