//! The piles on `ctx`: `ctx:discard_pile()` reads the face-up pile (allowed everywhere);
//! `ctx:take_discard(p [, card])`, `ctx:return_to_deck(card)` and `ctx:shuffle_deck()` change
//! them (in `resolve` handlers and hooks), each through the core's checked
//! [`Ctx`](crate::core::Ctx) method, which records it as an event every viewer sees as
//! [`Viewer`](crate::core::Viewer) decides (a card put back from a hand: only its owner sees
//! which).
//!
//! The piles tell a mod nothing hidden: the discard pile is face up, a card taken from it was
//! face up, and a shuffle tells no order. The one place they touch a hidden card is
//! [`return_hand_card`]: a card of the current player's hand (the one hand `ctx:hand` reads)
//! put back into the deck, where it is hidden again.

use mlua::{Lua, Table, Value};

use crate::core::{Card, Ctx, ModId, Told};

use super::super::convert::{InLua, card, seat};
use super::super::open::{take_loose, with_game, with_live_ctx};
use super::{CtxEnv, caller};

pub(super) fn register(lua: &Lua, ctx: &Table, env: &CtxEnv) -> mlua::Result<()> {
    let (owner, id) = (env.owner, env.id);
    let names = env.names.clone();
    ctx.raw_set(
        "discard_pile",
        lua.create_function(move |lua, this: Value| {
            let caller = caller(lua, owner, &this, "discard_pile")?;
            with_game(lua, caller, |game| lua.create_sequence_from(game.discard_pile().iter().map(|c| names.card(*c))))
        })?,
    )?;
    let names = env.names.clone();
    ctx.raw_set(
        "take_discard",
        lua.create_function(move |lua, (this, p, named): (Value, Value, Value)| {
            let caller = caller(lua, owner, &this, "take_discard")?;
            let named = match named {
                Value::Nil => None,
                other => Some(card(lua, &other)?),
            };
            let taken = with_live_ctx(lua, caller, "ctx:take_discard", |ctx| {
                let p = seat(lua, ctx.state().player_count(), &p)?;
                ctx.take_discard(p, named).in_lua(lua)
            })?;
            Ok(names.card(taken))
        })?,
    )?;
    ctx.raw_set(
        "return_to_deck",
        lua.create_function(move |lua, (this, c): (Value, Value)| {
            let caller = caller(lua, owner, &this, "return_to_deck")?;
            let card = card(lua, &c)?;
            with_live_ctx(lua, caller, "ctx:return_to_deck", |ctx| {
                // A card in play (the one being played, one taken from in front of a diver)
                // goes back face up; else one of the current player's hand, secretly.
                if take_loose(card).is_ok() {
                    ctx.return_to_deck(card);
                    return Ok(true);
                }
                return_hand_card(ctx, id, card).in_lua(lua)
            })
        })?,
    )?;
    ctx.raw_set(
        "shuffle_deck",
        lua.create_function(move |lua, this: Value| {
            let caller = caller(lua, owner, &this, "shuffle_deck")?;
            with_live_ctx(lua, caller, "ctx:shuffle_deck", |ctx| {
                ctx.shuffle_deck();
                Ok(())
            })
        })?,
    )
}

/// Puts `card` from the current player's hand back into the deck (shuffled): true, or false
/// when the hand does not hold it. The only hidden card the piles touch: whether the hand held
/// it tells mod `id` of that hand (a probe, as `ctx:take_hand` is), and the card is hidden
/// again once in the deck (the event shows which card to its owner only), where whoever knew
/// it knows it still ([`crate::core::knowledge`]).
fn return_hand_card(ctx: &mut Ctx<'_>, id: ModId, card: Card) -> Result<bool, crate::core::EffectError> {
    let me = ctx.state().current();
    ctx.learn_hand(id, Told::Probe, me);
    ctx.return_from_hand(card)
}
