-- Test mod: number_value, and wrapping every number card.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    ctx:say(play.card .. " is worth " .. ctx:number_value(play.player, play.card))
    previous(ctx, play)
  end)
end
