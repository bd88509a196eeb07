-- Hostile: a hook that fails inside an effect. The 5 changes things, then dives 3 with
-- ctx:dive, which runs the after-move hook; the hook changes more and fails. Other moves
-- pass the hook cleanly.
diving.effect(5, {
  resolve = function(ctx, play)
    ctx:set_oxygen(play.player, 4)
    ctx:dive(play.player, 3)
    ctx:discard(play.card)
  end,
})
diving.on_after_move(function(ctx, player, from, to)
  if to - from == 3 then
    ctx:set_depth(player, 50)
    error("the hook fails at depth " .. ctx:depth(player))
  end
  ctx:say("the hook passes")
end)
