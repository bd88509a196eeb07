//! `ctx` reading: `ctx:players()` … `ctx:winner()`, allowed in every handler (targets and
//! playable functions included). Each reads the open game ([`with_game`]) and nothing else;
//! the pending tricks (`ctx:pending`, `ctx:under_quick`) are the core's [`Pending`], the same
//! reading the built-in number card makes. `ctx:hand(p)` reads a hand, only the current
//! player's: the one hand the game is acting on (a draw hook learns the card it drew as its
//! argument), so that no handler, a `targets` function least of all, can make what is legal
//! or narrated depend on a hand its seat's owner is not the one to see.

use mlua::{Lua, Table, Value};

use crate::core::Pending;

use super::super::convert::InLua;
use super::super::convert::{rank, seat};
use super::super::open::{learn_now, with_game};
use super::super::sandbox::Sandbox;
use super::{CtxEnv, caller};
use crate::core::Told;

pub(super) fn register(lua: &Lua, ctx: &Table, env: &CtxEnv) -> mlua::Result<()> {
    let (owner, id) = (env.owner, env.id);
    macro_rules! read {
        ($name:literal, |$lua:ident, $game:ident, $args:ident: $ty:ty| $body:expr) => {
            ctx.raw_set(
                $name,
                lua.create_function(move |$lua, (this, $args): (Value, $ty)| {
                    let caller = caller($lua, owner, &this, $name)?;
                    with_game($lua, caller, |$game| $body)
                })?,
            )?;
        };
    }
    read!("players", |lua, game, _a: ()| Ok(game.player_count() as i64));
    read!("current", |lua, game, _a: ()| Ok(game.current() as i64 + 1));
    read!("turn", |lua, game, _a: ()| Ok(game.turn() as i64));
    read!("name", |lua, game, p: Value| {
        let p = seat(lua, game.player_count(), &p)?;
        Ok(game.name(p).to_string())
    });
    read!("depth", |lua, game, p: Value| {
        let p = seat(lua, game.player_count(), &p)?;
        Ok(game.player(p).depth as i64)
    });
    read!("oxygen", |lua, game, p: Value| {
        let p = seat(lua, game.player_count(), &p)?;
        Ok(game.player(p).oxygen as i64)
    });
    read!("hand_size", |lua, game, p: Value| {
        let p = seat(lua, game.player_count(), &p)?;
        Ok(game.player(p).hand.len() as i64)
    });
    let names = env.names.clone();
    read!("front", |lua, game, p: Value| {
        let p = seat(lua, game.player_count(), &p)?;
        lua.create_sequence_from(game.player(p).front.iter().map(|c| names.card(*c)))
    });
    read!("has_front", |lua, game, a: (Value, Value)| {
        let p = seat(lua, game.player_count(), &a.0)?;
        let rank = rank(lua, &a.1)?;
        Ok(game.player(p).has_front(rank))
    });
    // The hand read is the mod's knowledge from now on ([`crate::core::knowledge`]).
    let names = env.names.clone();
    ctx.raw_set(
        "hand",
        lua.create_function(move |lua, (this, p): (Value, Value)| {
            let caller = caller(lua, owner, &this, "hand")?;
            let (hand, p) = with_game(lua, caller, |game| {
                let p = seat(lua, game.player_count(), &p)?;
                if p != game.current() {
                    return Err(Sandbox::raise(
                        lua,
                        format!(
                            "ctx:hand({}) is refused: hands are secret, and a handler reads only the hand of the player whose turn it is ({})",
                            p + 1,
                            game.current() + 1
                        ),
                    ));
                }
                Ok((lua.create_sequence_from(game.player(p).hand.iter().map(|c| names.card(*c)))?, p))
            })?;
            learn_now(id, Told::Hand, p, None).in_lua(lua)?;
            Ok(hand)
        })?,
    )?;
    let names = env.names.clone();
    read!("discard_top", |lua, game, _a: ()| Ok(game.discard_top().map(|c| names.card(c))));
    read!("deck_size", |lua, game, _a: ()| Ok(game.deck_size() as i64));
    read!("max_depth", |lua, game, _a: ()| Ok(game.rules().max_depth as i64));
    read!("max_oxygen", |lua, game, _a: ()| Ok(game.rules().max_oxygen as i64));
    read!("is_over", |lua, game, _a: ()| Ok(game.is_over()));
    read!("pending", |lua, game, p: Value| {
        let p = seat(lua, game.player_count(), &p)?;
        let pending = Pending::of(game.player(p));
        let t = lua.create_table()?;
        t.raw_set("jolt", pending.jolt)?;
        t.raw_set("quick", pending.quick)?;
        t.raw_set("knot", pending.knot)?;
        Ok(t)
    });
    read!("under_quick", |lua, game, p: Value| {
        let p = seat(lua, game.player_count(), &p)?;
        Ok(Pending::of(game.player(p)).quick)
    });
    read!("winner", |lua, game, _a: ()| Ok(game.winner().map(|s| s as i64 + 1)));
    Ok(())
}
