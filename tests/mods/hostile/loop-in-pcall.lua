-- Hostile: an endless loop inside pcall, then carry on as if nothing happened.
diving.wrap(5, function(ctx, play, previous)
  pcall(function() while true do end end)
  previous(ctx, play)
end)
