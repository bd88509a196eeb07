-- Test mod: set_depth, set_oxygen, breathe and check_win.
-- The 3 is a decompression stop: you go to depth 42 with 3 oxygen, then breathe there.
diving.effect(3, {
  resolve = function(ctx, play)
    local me = play.player
    ctx:discard(play.card)
    ctx:set_depth(me, 42)
    ctx:set_oxygen(me, 3)
    ctx:breathe(me)
    ctx:say("won? " .. tostring(ctx:check_win(me)))
  end,
})
