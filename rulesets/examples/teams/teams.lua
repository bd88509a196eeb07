-- Teams: two teams, the seats alternating round the table. A team wins when one of its divers
-- reaches the bottom, or at once when two of its divers are both at depth 80 or deeper:
-- roped together, they haul the treasure up.
--
-- For mod writers: the ruleset's [teams] table makes the teams; ctx:team(p) and
-- ctx:same_team(p, q) read them, ctx:win(list) ends the game won by several divers together
-- (and their teams), ctx:set_teams(list) changes who plays with whom.
diving.manifest{ name = "teams", version = "1.0.0", api = 1 }

diving.on_after_move(function(ctx, player, from, to)
  if to < 80 or ctx:is_over() then
    return
  end
  for p = 1, ctx:players() do
    if p ~= player and ctx:same_team(p, player) and ctx:depth(p) >= 80 then
      ctx:say(ctx:name(player) .. " and " .. ctx:name(p) .. " haul the treasure up together")
      ctx:win({ player, p })
      return
    end
  end
end)
