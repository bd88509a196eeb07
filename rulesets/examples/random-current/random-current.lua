-- Random current: at the start of each turn, one time in six a current carries the diver
-- 3 deeper.
--
-- For mod writers: ctx:random draws from the game's own seeded numbers, so a game replays.
diving.manifest{ name = "random-current", version = "1.0.0", api = 1 }

diving.on_turn_start(function(ctx, player)
  if ctx:random(6) == 1 then
    ctx:say("a current carries " .. ctx:name(player) .. " down")
    ctx:dive(player, 3)
  end
end)
