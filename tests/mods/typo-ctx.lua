-- a typo in a ctx name, found when the handler runs
diving.wrap(9, function(ctx, play, previous)
  local d = ctx:depht(play.player)
  previous(ctx, play)
end)
