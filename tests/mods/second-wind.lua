-- Test mod: rescue. A rescued diver only goes halfway up (and gets full oxygen).
diving.rescue(function(ctx, player, previous)
  local depth = ctx:depth(player)
  ctx:set_depth(player, depth // 2)
  ctx:set_oxygen(player, ctx:max_oxygen())
  ctx:say(ctx:name(player) .. " gets a second wind at " .. (depth // 2))
end)
