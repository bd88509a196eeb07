-- Behaves for two turns, then draws every card of the deck into the player's hand.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    previous(ctx, play)
    if ctx:turn() > 2 then
      while ctx:draw(play.player) do end
    end
  end)
end
