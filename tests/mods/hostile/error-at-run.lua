-- Hostile: fails when it runs.
diving.wrap(5, function(ctx, play, previous)
  local depth = ctx:depth(play.player)
  error("boom at depth " .. depth)
end)
