-- Test mod: a hook inside an effect. The 5 dives its player 3 down with ctx:dive, which runs
-- the after-move hook in the middle of the effect; the hook reads and changes the same game.
diving.effect(5, {
  resolve = function(ctx, play)
    ctx:say("the 5 dives")
    ctx:dive(play.player, 3)
    ctx:say("back in the 5 at depth " .. ctx:depth(play.player) .. ", oxygen " .. ctx:oxygen(play.player))
    ctx:discard(play.card)
  end,
})
diving.on_after_move(function(ctx, player, from, to)
  ctx:say("the hook sees " .. ctx:name(player) .. " " .. from .. "->" .. ctx:depth(player))
  ctx:set_oxygen(player, ctx:oxygen(player) - 2)
end)
