-- Thermocline: a hook that changes the oxygen cost (D10).
--
-- Below the thermocline (60% of the way down) the water is cold, and every move that
-- ends there costs one more oxygen than the band says.

local cold_below = math.floor(diving.rules.max_depth * 0.6)

diving.oxygen_cost(function(ctx, player, depth, previous)
  local cost = previous(ctx, player, depth)   -- what the bands say
  if depth > cold_below then
    cost = cost + 1
  end
  return cost                                 -- a whole number, 0 or more
end)
