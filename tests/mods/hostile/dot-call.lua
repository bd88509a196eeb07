-- A common slip: ctx.depth instead of ctx:depth.
diving.wrap(5, function(ctx, play, previous)
  previous(ctx, play)
  local d = ctx.depth(play.player)
end)
