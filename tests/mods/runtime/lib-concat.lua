-- Behaves for two turns, then joins a long list again and again.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      local list = table.create(100000, "word")
      for i = 1, 1e7 do local text = table.concat(list, " ") end
    end
    previous(ctx, play)
  end)
end
