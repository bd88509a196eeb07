-- Takes a card out of the hand and leaves it in play: the error names the line that took it.
diving.wrap(7, function(ctx, play, previous)
  previous(ctx, play)
  local taken = ctx:take_hand(ctx:hand(play.player)[1])
  local n = 1
end)
