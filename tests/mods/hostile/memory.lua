-- Hostile: a memory bomb (a table that grows forever).
diving.wrap(5, function(ctx, play, previous)
  local t = {}
  while true do t[#t + 1] = { #t, #t, #t, #t, #t, #t, #t, #t } end
end)
