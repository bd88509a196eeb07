-- Test mod: the first of two wraps of the 2 (see chain-b.lua).
diving.wrap(2, function(ctx, play, previous)
  ctx:say("a before")
  previous(ctx, play)
  ctx:say("a after")
end)
