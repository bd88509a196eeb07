-- Behaves: every number card builds a small table (about 2 MiB) and plays as usual.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    local scratch = {}
    for i = 1, 60000 do scratch[i] = { i } end
    previous(ctx, play)
  end)
end
