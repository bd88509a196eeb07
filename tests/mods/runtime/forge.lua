-- Behaves for two turns, then fails with a message that names another file.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      error("mod other.lua:1: it was the other mod", 0)
    end
    previous(ctx, play)
  end)
end
