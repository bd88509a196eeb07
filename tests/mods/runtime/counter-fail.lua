-- Keeps a count in a local across calls and games, and fails at the 400th 5.
local fives = 0
diving.wrap(5, function(ctx, play, previous)
  fives += 1
  if fives == 400 then
    error("the 400th five")
  end
  previous(ctx, play)
end)
