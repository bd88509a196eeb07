-- Hostile: registers from inside a handler, after loading.
diving.wrap(5, function(ctx, play, previous)
  diving.wrap(6, function() end)
  previous(ctx, play)
end)
