-- Builds a global 20,000 tables deep while it loads (issue 35): copying it for a copy of the
-- game (a bot's look-ahead, check, the shell's first board) overflowed the stack.
deep = {}
local t = deep
for i = 1, 20000 do
  t.next = {}
  t = t.next
end
diving.wrap(5, function(ctx, play, previous) previous(ctx, play) end)
