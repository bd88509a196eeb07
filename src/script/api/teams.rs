//! Teams and results on `ctx`: `ctx:team(p)`, `ctx:same_team(p, q)` and `ctx:winners()` read
//! (allowed everywhere); `ctx:set_teams(list)`, `ctx:win(p or list)` and `ctx:end_in_draw()`
//! change (in `resolve` handlers and hooks), each through the core's checked
//! [`Ctx`](crate::core::Ctx) method, which records the change as an event.

use mlua::{Lua, Table, Value};

use crate::core::Seats;

use super::super::convert::{InLua, seat, show, whole};
use super::super::open::{with_game, with_live_ctx};
use super::super::sandbox::Sandbox;
use super::{CtxEnv, caller};

pub(super) fn register(lua: &Lua, ctx: &Table, env: &CtxEnv) -> mlua::Result<()> {
    let owner = env.owner;
    ctx.raw_set(
        "team",
        lua.create_function(move |lua, (this, p): (Value, Value)| {
            let caller = caller(lua, owner, &this, "team")?;
            with_game(lua, caller, |game| {
                let p = seat(lua, game.player_count(), &p)?;
                Ok(game.teams().map(|t| t.team(p) as i64 + 1))
            })
        })?,
    )?;
    ctx.raw_set(
        "same_team",
        lua.create_function(move |lua, (this, p, q): (Value, Value, Value)| {
            let caller = caller(lua, owner, &this, "same_team")?;
            with_game(lua, caller, |game| {
                let (p, q) = (seat(lua, game.player_count(), &p)?, seat(lua, game.player_count(), &q)?);
                Ok(game.team_of(p).contains(q))
            })
        })?,
    )?;
    ctx.raw_set(
        "winners",
        lua.create_function(move |lua, this: Value| {
            let caller = caller(lua, owner, &this, "winners")?;
            with_game(lua, caller, |game| lua.create_sequence_from(game.winners().iter().map(|s| s as i64 + 1)))
        })?,
    )?;
    ctx.raw_set(
        "set_teams",
        lua.create_function(move |lua, (this, list): (Value, Value)| {
            let caller = caller(lua, owner, &this, "set_teams")?;
            with_live_ctx(lua, caller, "ctx:set_teams", |ctx| {
                let teams = numbers(lua, &list, "ctx:set_teams needs a list of team numbers, one per player")?;
                let teams: Vec<usize> = teams
                    .into_iter()
                    .map(|t| {
                        usize::try_from(t - 1)
                            .map_err(|_| Sandbox::raise(lua, format!("team {t} is not a team number (1, 2 …)")))
                    })
                    .collect::<mlua::Result<_>>()?;
                ctx.set_teams(&teams).in_lua(lua)
            })
        })?,
    )?;
    ctx.raw_set(
        "win",
        lua.create_function(move |lua, (this, who): (Value, Value)| {
            let caller = caller(lua, owner, &this, "win")?;
            with_live_ctx(lua, caller, "ctx:win", |ctx| {
                let players = ctx.state().player_count();
                let list = match &who {
                    Value::Table(_) => numbers(lua, &who, "ctx:win needs a player number or a list of them")?,
                    _ => vec![whole(lua, &who, "ctx:win's player")?],
                };
                let mut winners = Seats::default();
                for p in list {
                    winners.insert(seat(lua, players, &Value::Integer(p))?);
                }
                ctx.win(winners).in_lua(lua)
            })
        })?,
    )?;
    ctx.raw_set(
        "end_in_draw",
        lua.create_function(move |lua, this: Value| {
            let caller = caller(lua, owner, &this, "end_in_draw")?;
            with_live_ctx(lua, caller, "ctx:end_in_draw", |ctx| ctx.end_in_draw().in_lua(lua))
        })?,
    )
}

/// A Lua list of whole numbers (at most 64).
fn numbers(lua: &Lua, value: &Value, what: &str) -> mlua::Result<Vec<i64>> {
    let Value::Table(t) = value else {
        return Err(Sandbox::raise(lua, format!("{what}, got {}", show(value))));
    };
    if t.raw_len() > 64 {
        return Err(Sandbox::raise(lua, format!("{what}, got a list of {} (at most 64)", t.raw_len())));
    }
    t.sequence_values::<Value>().map(|v| whole(lua, &v?, what)).collect()
}
