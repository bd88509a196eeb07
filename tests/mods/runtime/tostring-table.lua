-- Writes tables into the narration (issue 35): `tostring({})` wrote the table's memory
-- address, so a game's save, whose step hashes cover the narration, did not load in another
-- process ("the file was edited").
local kept = {}
diving.wrap(5, function(ctx, play, previous)
  ctx:say("kept " .. tostring(kept) .. " and made " .. tostring({}) .. string.format(" and %s", {}))
  previous(ctx, play)
end)
