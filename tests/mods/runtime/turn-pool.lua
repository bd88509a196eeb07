-- Forty turn-start hooks, each far within its own budget (and its second) but together over
-- the turn's, from turn 3.
for hook = 1, 40 do
  diving.on_turn_start(function(ctx, player)
    if ctx:turn() > 2 then
      local n = 0
      for i = 1, 100000 do n += i end
    end
  end)
end
