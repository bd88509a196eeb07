-- Hostile: recursion without end.
local function down(n)
  return 1 + down(n + 1)
end
diving.wrap(5, function(ctx, play, previous)
  return down(1)
end)
