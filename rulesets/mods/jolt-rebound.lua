-- Rebound Jolt: a Jolt override. Instead of lying in front of its target until their next
-- number card (D13), a J now strikes at once.
--
-- Play a J at another diver deeper than you: they are jolted up by half the distance
-- between you (rounded up), and breathe at their new depth. The J is discarded.

diving.effect("J", {
  targets = function(ctx, player, card)
    local deeper = {}
    for p = 1, ctx:players() do
      if p ~= player and ctx:depth(p) > ctx:depth(player) then
        table.insert(deeper, p)
      end
    end
    return deeper, "a Jolt needs another diver deeper than you"
  end,

  resolve = function(ctx, play)
    local gap = ctx:depth(play.target) - ctx:depth(play.player)
    local up = math.ceil(gap / 2)
    ctx:say(ctx:name(play.target) .. " is jolted up " .. up)
    ctx:discard(play.card)
    ctx:dive(play.target, -up)
  end,
})
