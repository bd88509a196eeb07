-- Hostile: replace a function of the shared string library.
diving.wrap(5, function(ctx, play, previous)
  string.upper = function() return "pwned" end
  previous(ctx, play)
end)
