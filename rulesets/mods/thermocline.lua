-- Thermocline: below 60% of the way down (depth 60 in the standard game) the water is
-- cold, and every move that ends there costs one more oxygen than the depth bands say.
--
-- A hook that changes the oxygen cost (D10): it asks `previous` what the bands say and adds
-- one. The game cannot know why a breath cost more, so the mod says it: the line goes with
-- the breath ("oxygen 6 → 1 (cold water below the thermocline: 1 more oxygen)").

local cold_below = math.floor(diving.rules.max_depth * 0.6)

diving.oxygen_cost(function(ctx, player, depth, previous)
  local cost = previous(ctx, player, depth)   -- what the bands say
  if depth > cold_below then
    cost = cost + 1
    ctx:say("cold water below the thermocline: 1 more oxygen")
  end
  return cost                                 -- a whole number, 0 or more
end)
