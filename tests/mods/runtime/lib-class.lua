-- Behaves for two turns, then matches a 30 kB bracket class over a 30 kB string: each byte
-- of the subject is compared with the whole class between two interrupts (issue 35).
local class = "^[" .. string.rep("a", 30000) .. "b]*"
local subject = string.rep("b", 30000)
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      for i = 1, 1000 do local m = subject:match(class) end
    end
    previous(ctx, play)
  end)
end
