-- Hostile: does not parse.
diving.wrap(5, function(ctx, play, previous)
  previous(ctx, play
end)
