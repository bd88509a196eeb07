-- Test mod: on_after_move narrates every move.
diving.on_after_move(function(ctx, player, from, to)
  ctx:say(ctx:name(player) .. " " .. from .. "->" .. to)
end)
