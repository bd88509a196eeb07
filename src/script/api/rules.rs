//! `diving.version` and `diving.rules`: the API version and the ruleset's numbers (card values
//! included, by rank symbol: `diving.rules.values.A`), read-only.

use mlua::{Lua, Table};

use super::super::manifest::API_VERSION;
use super::DivingEnv;

pub(super) fn register(lua: &Lua, diving: &Table, env: &DivingEnv<'_>) -> mlua::Result<()> {
    diving.raw_set("version", API_VERSION)?;
    let rules = env.rules;
    let t = lua.create_table()?;
    t.raw_set("min_players", rules.min_players as i64)?;
    t.raw_set("max_players", rules.max_players as i64)?;
    t.raw_set("decks", rules.decks.map(i64::from))?;
    t.raw_set("hand_size", rules.hand_size as i64)?;
    t.raw_set("table_size", rules.table_size as i64)?;
    t.raw_set("max_depth", rules.max_depth as i64)?;
    t.raw_set("max_oxygen", rules.max_oxygen as i64)?;
    t.raw_set("quick_extra", rules.quick_extra as i64)?;
    t.raw_set("quick_push", rules.quick_push as i64)?;
    t.raw_set("max_turns", rules.max_turns as i64)?;
    t.raw_set("depth_unit", rules.depth_unit.as_str())?;
    t.raw_set("depth_scale", rules.depth_scale as i64)?;
    let values = lua.create_table()?;
    for rank in crate::core::Rank::all() {
        values.raw_set(rank.symbol(), rules.value(rank) as i64)?;
    }
    values.set_readonly(true);
    t.raw_set("values", values)?;
    t.set_readonly(true);
    diving.raw_set("rules", t)
}
