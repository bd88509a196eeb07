-- A bot that counts its calls in a local: it starts afresh every call, so it always plays
-- the first move.
local calls = 0
local bot = {}
function bot.choose(view, moves)
  calls += 1
  return calls
end
return bot
