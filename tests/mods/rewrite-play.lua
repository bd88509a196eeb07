-- Test mod: handlers that change the play table before passing it on. A number card pushed by
-- a Quick lands on the last player whoever was named; a 5 is passed on with its card written
-- in lower case and its player as a float, which still mean the same card and player.
for rank = 6, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if play.target then
      play.target = ctx:players()
    end
    previous(ctx, play)
  end)
end
diving.wrap(5, function(ctx, play, previous)
  play.card = string.lower(play.card)
  play.player = play.player + 0.0
  previous(ctx, play)
end)
