-- Behaves for two turns, then copies a big string again and again.
local big = string.rep("x", 1000000)
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      for i = 1, 1e7 do local copy = big:sub(2) end
    end
    previous(ctx, play)
  end)
end
