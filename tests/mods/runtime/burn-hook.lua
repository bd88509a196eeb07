-- A legal hook that burns about 850,000 steps at every turn's start, within its budget of a
-- million (issue 35): one bot:mcts:20 move took 39 s of it.
diving.on_turn_start(function(ctx, player)
  local n = 0
  for i = 1, 850000 do
    n += 1
  end
end)
