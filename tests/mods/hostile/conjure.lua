-- Hostile: discard a card that is not in play (conjure an ace).
diving.wrap(5, function(ctx, play, previous)
  previous(ctx, play)
  ctx:discard("AS")
end)
