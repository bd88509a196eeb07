-- Test mod: rescue that narrates and then calls the standard rescue.
diving.rescue(function(ctx, player, previous)
  ctx:say("help is coming for " .. ctx:name(player))
  previous(ctx, player)
end)
