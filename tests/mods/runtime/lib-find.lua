-- Behaves for two turns, then searches a big string again and again (plain find).
local big = string.rep("x", 1000000)
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      for i = 1, 1e7 do string.find(big, "y", 1, true) end
    end
    previous(ctx, play)
  end)
end
