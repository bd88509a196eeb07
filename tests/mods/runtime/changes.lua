-- Behaves for two turns, then asks the game for 20000 random numbers.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      for i = 1, 20000 do ctx:random(6) end
    end
    previous(ctx, play)
  end)
end
