-- Behaves for two turns, then inserts at the front of a long list again and again.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      local list = table.create(100000, 0)
      for i = 1, 1e7 do table.insert(list, 1, i) table.remove(list, 1) end
    end
    previous(ctx, play)
  end)
end
