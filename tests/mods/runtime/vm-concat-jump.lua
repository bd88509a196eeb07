-- Behaves for two turns, then builds one string past the memory limit with a single `..`
-- (35 MiB from a 7 MiB one), a few lines into its handler.
local big = string.rep("x", 7 * 1024 * 1024)
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      local n = #big
      local huge = big .. big .. big .. big .. big
      n = #huge
    end
    previous(ctx, play)
  end)
end
