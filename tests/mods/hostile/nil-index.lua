-- Hostile: a plain bug.
diving.wrap(5, function(ctx, play, previous)
  local t = nil
  return t.field
end)
