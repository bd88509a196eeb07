//! The order of play on `ctx`: `ctx:next_player(p)` and `ctx:is_reversed()` read it (allowed
//! everywhere), `ctx:reverse()` and `ctx:give_turn(p)` change it (in `resolve` handlers and
//! hooks), each through the core's checked [`Ctx`](crate::core::Ctx) method, which records
//! the change as an event. Who moves after a turn is the core's rule point; a mod replaces it
//! with `diving.next_turn` ([`super::hooks`]).

use mlua::{Lua, Table, Value};

use super::super::convert::{InLua, seat};
use super::super::open::{with_game, with_live_ctx};
use super::{CtxEnv, caller};

pub(super) fn register(lua: &Lua, ctx: &Table, env: &CtxEnv) -> mlua::Result<()> {
    let owner = env.owner;
    ctx.raw_set(
        "next_player",
        lua.create_function(move |lua, (this, p): (Value, Value)| {
            let caller = caller(lua, owner, &this, "next_player")?;
            with_game(lua, caller, |game| {
                let p = seat(lua, game.player_count(), &p)?;
                Ok(game.seat_after(p) as i64 + 1)
            })
        })?,
    )?;
    ctx.raw_set(
        "is_reversed",
        lua.create_function(move |lua, this: Value| {
            let caller = caller(lua, owner, &this, "is_reversed")?;
            with_game(lua, caller, |game| Ok(game.is_reversed()))
        })?,
    )?;
    ctx.raw_set(
        "reverse",
        lua.create_function(move |lua, this: Value| {
            let caller = caller(lua, owner, &this, "reverse")?;
            with_live_ctx(lua, caller, "ctx:reverse", |ctx| {
                ctx.reverse();
                Ok(())
            })
        })?,
    )?;
    ctx.raw_set(
        "give_turn",
        lua.create_function(move |lua, (this, p): (Value, Value)| {
            let caller = caller(lua, owner, &this, "give_turn")?;
            with_live_ctx(lua, caller, "ctx:give_turn", |ctx| {
                let p = seat(lua, ctx.state().player_count(), &p)?;
                ctx.give_turn(p).in_lua(lua)
            })
        })?,
    )
}
