-- Treasure wreck: a hook that changes the win condition (D11, D20).
--
-- A wreck lies at depth 77. A diver who ends a move exactly on it finds the treasure and
-- wins at once — as well as anyone who reaches the bottom. An after-move hook tells the
-- table when someone swims past the wreck without stopping.

local WRECK = 77

diving.win_check(function(ctx, player, previous)
  if ctx:depth(player) == WRECK then
    ctx:say(ctx:name(player) .. " finds the treasure in the wreck!")
    return true
  end
  return previous(ctx, player)      -- the usual check: the bottom
end)

diving.on_after_move(function(ctx, player, from, to)
  if from < WRECK and to > WRECK then
    ctx:say(ctx:name(player) .. " swims past the wreck")
  end
end)
