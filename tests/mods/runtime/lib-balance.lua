-- Behaves for two turns, then looks for a balanced pair in 200k `(`: one step per start
-- position, but each start scans the rest of the string (issue 35).
local open = string.rep("(", 200000)
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      local found = open:find("%b()")
    end
    previous(ctx, play)
  end)
end
