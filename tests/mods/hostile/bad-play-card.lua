-- Hostile: a play passed on with something that is not a card.
diving.wrap(5, function(ctx, play, previous)
  play.card = "ZZ"
  previous(ctx, play)
end)
