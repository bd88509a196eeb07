-- Hostile: a pattern match that backtracks for ever.
diving.wrap(5, function(ctx, play, previous)
  local s = string.rep("a", 50000)
  return string.find(s, ".-.-.-.-.-.-.-b")
end)
