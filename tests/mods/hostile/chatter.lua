-- Hostile: floods the game log.
diving.wrap(5, function(ctx, play, previous)
  for i = 1, 100000 do ctx:say("spam " .. i) end
  previous(ctx, play)
end)
