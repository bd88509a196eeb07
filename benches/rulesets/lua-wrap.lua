-- lua-wrap.lua: every number card (A–10) still does exactly what it did; the game just goes
-- through Lua to get there.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    previous(ctx, play)
  end)
end
