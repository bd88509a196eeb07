-- Behaves for two turns, then builds a 12 MiB scratch table (within its own limit) and plays
-- as usual.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      local scratch = {}
      for i = 1, 12 do scratch[i] = string.rep(tostring(i), 1024 * 1024) end
    end
    previous(ctx, play)
  end)
end
