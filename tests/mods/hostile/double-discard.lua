-- Hostile: discard the played card twice.
diving.wrap(5, function(ctx, play, previous)
  ctx:discard(play.card)
  ctx:discard(play.card)
end)
