-- Hostile: never put the played card anywhere (it would vanish).
diving.wrap(5, function(ctx, play, previous)
  ctx:say("where did it go?")
end)
