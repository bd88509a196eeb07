-- Hostile: reach the string metatable to change every string's methods.
diving.wrap(5, function(ctx, play, previous)
  getmetatable("").__index = { upper = function() return "pwned" end }
  previous(ctx, play)
end)
