//! `ctx` changing: `ctx:dive`, `ctx:discard`, `ctx:say` …, allowed in `resolve` handlers and
//! hooks. Each takes the loan of the open game ([`with_ctx`]), converts its arguments, calls
//! the core's checked [`Ctx`](crate::core::Ctx) method and puts the loan back; the moves of
//! cards go through the loose cards of the slot, so that cards stay conserved.

use mlua::{Lua, Table, Value};

use super::super::convert::{InLua, card, rank, seat, show, whole};

use super::super::open::{count_draw, count_said, take_back, take_loose, take_up, with_ctx, with_live_ctx};
use super::super::sandbox::Sandbox;
use super::{CtxEnv, caller};
use crate::core::Told;

/// Longest narration line.
const MAX_SAY: usize = 300;

pub(super) fn register(lua: &Lua, ctx: &Table, env: &CtxEnv) -> mlua::Result<()> {
    let (owner, id) = (env.owner, env.id);
    macro_rules! write {
        ($name:literal, |$lua:ident, $caller:ident, $args:ident: $ty:ty| $body:expr) => {
            ctx.raw_set(
                $name,
                lua.create_function(move |$lua, (this, $args): (Value, $ty)| {
                    let $caller = caller($lua, owner, &this, $name)?;
                    $body
                })?,
            )?;
        };
    }
    write!("set_depth", |lua, caller, a: (Value, Value)| {
        with_live_ctx(lua, caller, "ctx:set_depth", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &a.0)?;
            ctx.set_depth(p, whole(lua, &a.1, "the depth")?).in_lua(lua)
        })
    });
    write!("set_oxygen", |lua, caller, a: (Value, Value)| {
        with_live_ctx(lua, caller, "ctx:set_oxygen", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &a.0)?;
            ctx.set_oxygen(p, whole(lua, &a.1, "the oxygen")?).in_lua(lua)
        })
    });
    write!("dive", |lua, caller, a: (Value, Value)| {
        with_live_ctx(lua, caller, "ctx:dive", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &a.0)?;
            ctx.dive(p, whole(lua, &a.1, "the distance")?).in_lua(lua)
        })
    });
    write!("breathe", |lua, caller, p: Value| {
        with_live_ctx(lua, caller, "ctx:breathe", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &p)?;
            ctx.breathe(p).in_lua(lua)
        })
    });
    write!("rescue", |lua, caller, p: Value| {
        with_live_ctx(lua, caller, "ctx:rescue", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &p)?;
            ctx.rescue(p).in_lua(lua)
        })
    });
    write!("check_win", |lua, caller, p: Value| {
        with_ctx(lua, caller, "check_win", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &p)?;
            ctx.check_win(p).in_lua(lua)
        })
    });
    write!("discard", |lua, caller, c: Value| {
        let card = card(lua, &c)?;
        with_ctx(lua, caller, "discard", |ctx| {
            take_loose(card).in_lua(lua)?;
            ctx.discard(card);
            Ok(())
        })
    });
    write!("place_front", |lua, caller, a: (Value, Value)| {
        let card = card(lua, &a.1)?;
        with_ctx(lua, caller, "place_front", |ctx| {
            let target = seat(lua, ctx.state().player_count(), &a.0)?;
            take_loose(card).in_lua(lua)?;
            let player = ctx.state().current();
            ctx.place_front(player, target, card).inspect_err(|_| take_back(card)).in_lua(lua)
        })
    });
    let names = env.names.clone();
    write!("take_front", |lua, caller, a: (Value, Value)| {
        let rank = rank(lua, &a.1)?;
        let card = with_ctx(lua, caller, "take_front", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &a.0)?;
            Ok(ctx.take_front(p, rank))
        })?;
        Ok(card.map(|c| {
            take_up(lua, c);
            names.card(c)
        }))
    });
    write!("take_hand", |lua, caller, c: Value| {
        let card = card(lua, &c)?;
        let taken = with_ctx(lua, caller, "take_hand", |ctx| {
            // Whether the card is there tells of the hand: the mod knows it as if it read it
            // (a card taken is in play, and seen, from now on).
            let me = ctx.state().current();
            ctx.learn_hand(id, Told::Probe, me);
            Ok(ctx.take_from_hand(card))
        })?;
        if taken {
            take_up(lua, card);
        }
        Ok(taken)
    });
    write!("draw", |lua, caller, p: Value| {
        with_live_ctx(lua, caller, "ctx:draw", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &p)?;
            count_draw().in_lua(lua)?;
            ctx.draw_to_hand(p).in_lua(lua)
        })
    });
    write!("say", |lua, caller, text: Value| {
        let text = match &text {
            Value::String(s) => s.to_string_lossy(),
            Value::Integer(_) | Value::Number(_) | Value::Boolean(_) => show(&text),
            other => return Err(Sandbox::raise(lua, format!("ctx:say needs text, got {}", show(other)))),
        };
        // Colour codes and text-reversing characters go whole, as chat's do (only the control
        // characters went: `[31m` and a right-to-left override reached every reader).
        let text: String = text.chars().take(MAX_SAY).collect();
        let text = crate::limits::clean_line(&text);
        with_ctx(lua, caller, "say", |ctx| {
            count_said(text.len()).in_lua(lua)?;
            ctx.say(id, text);
            Ok(())
        })
    });
    write!("reveal", |lua, caller, a: (Value, Value)| {
        let card = card(lua, &a.1)?;
        with_live_ctx(lua, caller, "ctx:reveal", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &a.0)?;
            ctx.reveal(id, p, card).in_lua(lua)
        })
    });
    write!("random", |lua, caller, n: Value| {
        let n = whole(lua, &n, "ctx:random's bound")?;
        if !(1..=1_000_000_000).contains(&n) {
            return Err(Sandbox::raise(lua, format!("ctx:random(n) needs 1 ≤ n ≤ 1000000000, got {n}")));
        }
        with_ctx(lua, caller, "random", |ctx| Ok(ctx.random(n as u32) as i64 + 1))
    });
    write!("card_value", |lua, caller, a: (Value, Value)| {
        let card = card(lua, &a.1)?;
        with_ctx(lua, caller, "card_value", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &a.0)?;
            ctx.card_value(p, card).in_lua(lua).map(i64::from)
        })
    });
    write!("number_value", |lua, caller, a: (Value, Value)| {
        let card = card(lua, &a.1)?;
        if card.value().is_none() {
            return Err(Sandbox::raise(lua, format!("{card} is not a number card")));
        }
        with_ctx(lua, caller, "number_value", |ctx| {
            let p = seat(lua, ctx.state().player_count(), &a.0)?;
            ctx.number_value(p, card).in_lua(lua).map(i64::from)
        })
    });
    Ok(())
}
