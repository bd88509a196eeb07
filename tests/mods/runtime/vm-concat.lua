-- Behaves for two turns, then builds a big string with `..` again and again: the VM copies
-- it, no library function is called.
local big = string.rep("x", 100000)
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      for i = 1, 1e7 do local copy = big .. "y" end
    end
    previous(ctx, play)
  end)
end
