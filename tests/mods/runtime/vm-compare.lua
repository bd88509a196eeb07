-- Behaves for two turns, then compares two 4 MB strings that differ in their last byte, over
-- and over: one step per comparison, each reading 4 MB (issue 35).
local a = string.rep("x", 4000000) .. "a"
local b = string.rep("x", 4000000) .. "b"
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      local n = 0
      for i = 1, 1e6 do if a < b then n += 1 end end
    end
    previous(ctx, play)
  end)
end
