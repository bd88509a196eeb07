//! `diving.rank`, `diving.suit` and `diving.value`: what a card is, from its name.

use mlua::{Lua, Table, Value};

use super::super::convert::card;
use super::super::names::suit_letter;
use super::DivingEnv;

pub(super) fn register(lua: &Lua, diving: &Table, _env: &DivingEnv<'_>) -> mlua::Result<()> {
    diving.raw_set("rank", lua.create_function(|lua, c: Value| Ok(card(lua, &c)?.rank.number() as i64))?)?;
    diving.raw_set("suit", lua.create_function(|lua, c: Value| Ok(suit_letter(card(lua, &c)?.suit)))?)?;
    diving.raw_set("value", lua.create_function(|lua, c: Value| Ok(card(lua, &c)?.value().map(i64::from)))?)
}
