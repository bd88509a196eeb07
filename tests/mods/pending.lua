-- Number cards narrate the tricks waiting in front of the player before they resolve.
for rank = 1, 10 do
  diving.wrap(rank, function(ctx, play, previous)
    local p = ctx:pending(play.player)
    ctx:say(`quick={ctx:under_quick(play.player)} jolt={p.jolt} q={p.quick} knot={p.knot}`)
    previous(ctx, play)
  end)
end
