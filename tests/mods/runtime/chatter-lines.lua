-- Behaves for two turns, then narrates 200 short lines in one turn.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    previous(ctx, play)
    if ctx:turn() > 2 then
      for i = 1, 200 do ctx:say("line " .. i) end
    end
  end)
end
