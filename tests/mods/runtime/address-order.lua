-- Keys a table by tables (issue 35): `pairs` gave them in the order of their memory
-- addresses, so three runs of one seeded sim gave three reports.
local order = {}
for i = 1, 8 do
  order[{ n = i }] = i
end
diving.wrap(5, function(ctx, play, previous)
  local first
  for k, v in pairs(order) do
    first = v
    break
  end
  ctx:say("the first is " .. first)
  previous(ctx, play)
end)
