-- a typo in a diving name
diving.wrap_effect(7, function(ctx, play, previous) previous(ctx, play) end)
