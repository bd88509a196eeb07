-- Legal: from turn 3 on, each play holds at most 16 MiB at a time (a window of 16 strings of
-- 1 MiB) and drops 100 MiB on the way, three times the memory limit, as garbage.
local chunk = string.rep("y", 1024 * 1024)
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      local window = {}
      for i = 1, 100 do window[i % 16] = chunk .. i end
    end
    previous(ctx, play)
  end)
end
