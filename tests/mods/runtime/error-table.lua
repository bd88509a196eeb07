-- Behaves for two turns, then fails with a table as its error value.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      error({ code = 42 })
    end
    previous(ctx, play)
  end)
end
