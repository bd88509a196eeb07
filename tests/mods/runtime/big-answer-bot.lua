-- A bot that behaves for two of its turns, then answers with an 8 MB string.
local bot = {}
function bot.choose(view, moves)
  if view.turn > 4 then
    return string.rep("x", 8 * 1024 * 1024)
  end
  return 1
end
return bot
