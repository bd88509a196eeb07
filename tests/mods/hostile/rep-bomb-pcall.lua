-- Hostile: a huge string inside pcall, then carry on.
diving.wrap(5, function(ctx, play, previous)
  pcall(function() return ("x"):rep(1e9) end)
  previous(ctx, play)
end)
