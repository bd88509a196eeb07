-- reckless.lua: a diver in a hurry. It plays a Quick whenever it can, then always takes the
-- deepest move, and only stops to breathe when every move would get it rescued. Ties are
-- broken at random (math.random is seeded from the bot's seed, so games still replay).

local bot = {}

function bot.choose(view, moves)
  local best, best_depth, ties = nil, -1, 0
  local quick = nil
  local breathe, breathe_gain = nil, -1

  for i, move in ipairs(moves) do
    if move.kind == "play" then
      if move.wins then return i end
      if diving.rank(move.card) == 12 then
        quick = quick or i
      elseif move.depth and not move.rescued then
        if move.depth > best_depth then
          best, best_depth, ties = i, move.depth, 1
        elseif move.depth == best_depth then
          -- Reservoir sampling: each tied move is kept with equal chance.
          ties = ties + 1
          if math.random(ties) == 1 then best = i end
        end
      end
    elseif move.kind == "recover" and move.gain > breathe_gain then
      breathe, breathe_gain = i, move.gain
    end
  end

  return quick or best or breathe or 1
end

return bot
