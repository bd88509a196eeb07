-- Behaves for two turns, then moves a billion slots in one call.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      table.move({}, 1, 2^31, 2)
    end
    previous(ctx, play)
  end)
end
