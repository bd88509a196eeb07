-- Behaves for two turns, then narrates 40 lines of 300 characters in one turn.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    previous(ctx, play)
    if ctx:turn() > 2 then
      for i = 1, 40 do ctx:say(string.rep("x", 300)) end
    end
  end)
end
