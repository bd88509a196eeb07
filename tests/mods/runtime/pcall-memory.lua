-- Behaves for two turns, then runs out of memory inside pcall and carries on.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      local ok = pcall(function()
        local hoard = {}
        for i = 1, 1e9 do hoard[i] = string.rep("x", 1000) .. i end
      end)
    end
    previous(ctx, play)
  end)
end
