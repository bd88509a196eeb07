-- peek.lua: a turn-end hook that tries to read the next player's hand (refused: hands are
-- secret), the player whose turn ends being 1 on turn 1.
diving.on_turn_end(function(ctx, player)
  local other = player % ctx:players() + 1
  ctx:say(table.concat(ctx:hand(other), " "))
end)
