-- Ten turn-start hooks, each within its own budget but together over the turn's, from turn 3.
for hook = 1, 10 do
  diving.on_turn_start(function(ctx, player)
    if ctx:turn() > 2 then
      local n = 0
      for i = 1, 400000 do n += i end
    end
  end)
end
