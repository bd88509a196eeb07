-- Counts the cards played in this game in a global and fails if there are ever more plays
-- than turns: which only happens if plays made on copies of the game (a bot's look-ahead)
-- reach this game's variables.
plays = 0
diving.on_turn_start(function(ctx, player)
  if ctx:turn() == 1 then plays = 0 end
end)
for rank = 1, 13 do
  diving.wrap(rank, function(ctx, play, previous)
    plays += 1
    if plays > ctx:turn() then
      error("more plays than turns: " .. plays .. " plays by turn " .. ctx:turn())
    end
    previous(ctx, play)
  end)
end
