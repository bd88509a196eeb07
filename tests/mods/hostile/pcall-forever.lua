-- Hostile: keep catching the budget error and looping again.
diving.wrap(5, function(ctx, play, previous)
  while true do
    pcall(function() while true do end end)
  end
end)
