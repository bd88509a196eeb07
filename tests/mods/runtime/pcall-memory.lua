-- Behaves for two turns, then runs out of memory inside pcall and carries on. A megabyte a
-- step, so the limit comes in a few dozen steps, long before the clock on a loaded machine.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      local ok = pcall(function()
        local hoard, chunk = {}, string.rep("x", 1024 * 1024)
        for i = 1, 1e9 do hoard[i] = chunk .. i end
      end)
    end
    previous(ctx, play)
  end)
end
