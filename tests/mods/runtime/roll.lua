-- A 5 dives a further random 1 to 20: the roll comes from the game's seeded generator.
diving.wrap(5, function(ctx, play, previous)
  previous(ctx, play)
  if not ctx:is_over() then
    local roll = ctx:random(20) + 1
    ctx:say("the five rolls " .. roll)
    ctx:dive(play.player, roll)
  end
end)
