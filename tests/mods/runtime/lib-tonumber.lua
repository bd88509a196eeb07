-- Behaves for two turns, then converts a 4 MB string of digits, over and over (issue 35).
local digits = string.rep("7", 4000000)
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      for i = 1, 1000 do local n = tonumber(digits) end
    end
    previous(ctx, play)
  end)
end
