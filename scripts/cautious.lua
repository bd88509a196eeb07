-- cautious.lua: a careful diver. It takes a win when it sees one, never makes a move that
-- would get it rescued, and keeps enough air for one more move before it dives again.
-- Between equally good moves it keeps the deeper one; when it must breathe, it takes the
-- recovery that gives the most oxygen for the weakest cards.

local bot = {}

-- How much a card is worth keeping: number cards by value, face cards high.
local function keep(card)
  local value = diving.value(card)
  if value then return value end
  return 7
end

local function recovery_score(move)
  local score = move.gain * 100
  for _, card in ipairs(move.cards) do
    score = score + (6 - keep(card)) -- weak cards are good to discard
  end
  return score
end

function bot.choose(view, moves)
  local me = view.me
  local best, best_score = nil, nil
  local breathe, breathe_score = nil, nil

  for i, move in ipairs(moves) do
    if move.kind == "play" and move.wins then
      return i
    end
    local score = nil
    if move.kind == "play" and move.depth and not move.rescued then
      -- Keep a reserve: after this move, one more move from here must still be safe.
      local reserve = diving.cost(view, math.min(move.depth + 10, view.rules.max_depth))
      if move.oxygen > reserve then
        score = (move.depth - me.depth) * 10 + move.oxygen
      end
    elseif move.kind == "play" and diving.rank(move.card) == 11 then
      -- A Jolt on a diver close to the bottom.
      local target = view.divers[move.target]
      if target.depth >= view.rules.max_depth - 30 then
        score = 200 + target.depth
      end
    elseif move.kind == "recover" then
      local s = recovery_score(move)
      if breathe_score == nil or s > breathe_score then
        breathe, breathe_score = i, s
      end
    end
    if score and (best_score == nil or score > best_score) then
      best, best_score = i, score
    end
  end

  if best then return best end
  if breathe then return breathe end
  -- Nothing safe and nothing to discard: any move will do.
  return 1
end

return bot
