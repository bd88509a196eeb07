-- Buddy line: instead of playing, pass 1 oxygen to a deeper diver; they pull you down the
-- line, up to 3 deeper (never past them). Typed `buddy bob` (or `buddy 2`).
--
-- For mod writers: diving.action adds an action of its own, listed by `moves`, typed in the
-- shell, sent in JSON and over the network, and chosen by the bots. `legal` is asked once per
-- diver the action may name, and its reason is what a refused `buddy bob` says.
diving.manifest{ name = "buddy-line", version = "1.0.0", api = 1 }

diving.action("buddy", {
  args = { target = "other" },
  describe = "buddy PLAYER: instead of playing, pass 1 oxygen to a deeper diver, who pulls you up to 3 deeper",
  legal = function(ctx, args)
    local me, buddy = args.player, args.target
    if ctx:oxygen(me) < 2 then
      return false, "you have no oxygen to spare"
    end
    if ctx:depth(buddy) <= ctx:depth(me) then
      return false, ctx:name(buddy) .. " is not deeper than you"
    end
    if ctx:oxygen(buddy) >= ctx:max_oxygen() then
      return false, ctx:name(buddy) .. " has full air"
    end
    return true
  end,
  resolve = function(ctx, args)
    local me, buddy = args.player, args.target
    ctx:say(ctx:name(buddy) .. " takes 1 oxygen from " .. ctx:name(me) .. " and pulls them down the line")
    ctx:set_oxygen(me, ctx:oxygen(me) - 1)
    ctx:set_oxygen(buddy, ctx:oxygen(buddy) + 1)
    ctx:dive(me, math.min(3, ctx:depth(buddy) - ctx:depth(me)))
  end,
})
