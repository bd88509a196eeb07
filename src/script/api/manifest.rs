//! `diving.manifest{ name = …, version = …, api = …, requires = …, conflicts = … }`: what a
//! mod says about itself (see [`Manifest`]). Called once, before the file registers anything,
//! so that the ruleset can read every mod's manifest first and resolve the set.

use mlua::{Lua, Table, Value};

use super::super::manifest::Manifest;
use super::super::sandbox::Sandbox;
use super::DivingEnv;

pub(super) fn register(lua: &Lua, diving: &Table, env: &DivingEnv<'_>) -> mlua::Result<()> {
    let building = env.building.clone();
    let manifest = lua.create_function(move |lua, value: Value| {
        let line = Sandbox::calling_line(lua);
        let manifest = Manifest::from_lua(lua, &value, line)?;
        building.declare(lua, manifest)
    })?;
    diving.raw_set("manifest", manifest)
}
