-- Behaves for two turns, then makes a ctx function fail a million times inside pcall.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    if ctx:turn() > 2 then
      for i = 1, 1e6 do pcall(ctx.say, "no colon") end
    end
    previous(ctx, play)
  end)
end
