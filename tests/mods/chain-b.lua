-- Test mod: the second wrap of the 2; its `previous` is chain-a's wrapper.
diving.wrap(2, function(ctx, play, previous)
  ctx:say("b before")
  previous(ctx, play)
  ctx:say("b after")
end)
