-- Holds 200,000 small tables (issue 35): every copy of the game (each playout of a search, a
-- preview) copies them all. Copying is charged to the budget, so a search thinks less.
keep = {}
for i = 1, 200000 do
  keep[i] = { i }
end
diving.wrap(5, function(ctx, play, previous) previous(ctx, play) end)
