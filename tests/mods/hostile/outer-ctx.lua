-- Hostile: an after-move hook that reads through the ctx of the effect it runs inside.
diving.effect(5, {
  resolve = function(ctx, play)
    outer = ctx
    ctx:dive(play.player, 3)
    ctx:discard(play.card)
  end,
})
diving.on_after_move(function(ctx, player, from, to)
  if outer then ctx:say("outer sees " .. outer:depth(player)) end
end)
