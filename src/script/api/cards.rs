//! `diving.rank`, `diving.suit` and `diving.value`: what a card is, from its name, and what
//! the ruleset makes it worth.

use mlua::{Lua, Table, Value};

use super::super::convert::card;
use super::super::names::suit_letter;
use super::DivingEnv;

pub(super) fn register(lua: &Lua, diving: &Table, env: &DivingEnv<'_>) -> mlua::Result<()> {
    diving.raw_set("rank", lua.create_function(|lua, c: Value| Ok(card(lua, &c)?.rank.number() as i64))?)?;
    diving.raw_set("suit", lua.create_function(|lua, c: Value| Ok(suit_letter(card(lua, &c)?.suit)))?)?;
    // The ruleset's value of the rank (a number card's, or a face card's it gives one); a
    // mod's `card_value` hook may say otherwise in a game (`ctx:card_value`).
    let values = env.rules.values;
    diving.raw_set(
        "value",
        lua.create_function(move |lua, c: Value| {
            let card = card(lua, &c)?;
            let value = values[usize::from(card.rank.number()) - 1];
            Ok((card.rank.is_number() || value > 0).then_some(i64::from(value)))
        })?,
    )
}
