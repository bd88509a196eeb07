-- Hostile: a play passed on with a target that is not a player number.
diving.wrap(5, function(ctx, play, previous)
  play.target = "Bob"
  previous(ctx, play)
end)
