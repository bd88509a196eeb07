-- Hostile: replace a ctx function for everyone.
diving.wrap(5, function(ctx, play, previous)
  ctx.set_depth = function() end
  previous(ctx, play)
end)
