//! `math`: Luau's own library, except that `math.random` draws from the game's seeded RNG
//! (Luau seeds its generator from the clock, which would make games unrepeatable) and
//! `math.randomseed` is refused. The usual forms work inside a handler: `math.random()`
//! (a number in [0, 1)), `math.random(n)` (1…n) and `math.random(m, n)` (m…n).

use mlua::{Lua, Table, Value};

use super::super::convert::whole;
use super::super::open::{Caller, with_ctx};
use super::super::sandbox::Sandbox;
use super::CtxEnv;

/// Fills `math` with Luau's math library and the seeded `random`.
pub(super) fn register(lua: &Lua, math: &Table, env: &CtxEnv) -> mlua::Result<()> {
    let luau: Table = lua.globals().get("math")?;
    for pair in luau.pairs::<Value, Value>() {
        let (key, value) = pair?;
        math.raw_set(key, value)?;
    }
    let caller = Caller { owner: env.owner, ctx: None };
    let random = lua.create_function(move |lua, args: mlua::Variadic<Value>| {
        const SPAN: i64 = 1_000_000_000;
        let (low, high) = match args.len() {
            0 => {
                let n = with_ctx(lua, caller, "math.random", |ctx| Ok(ctx.random(SPAN as u32)))?;
                return Ok(Value::Number(n as f64 / SPAN as f64));
            }
            1 => (1, whole(lua, &args[0], "math.random's bound")?),
            _ => (whole(lua, &args[0], "math.random's low bound")?, whole(lua, &args[1], "math.random's high bound")?),
        };
        let span = high.saturating_sub(low).saturating_add(1);
        if !(1..=SPAN).contains(&span) {
            return Err(Sandbox::raise(lua, format!("math.random({low}, {high}) needs 1 to {SPAN} possible values")));
        }
        let n = with_ctx(lua, caller, "math.random", |ctx| Ok(ctx.random(span as u32)))?;
        Ok(Value::Integer(low + n as i64))
    })?;
    math.raw_set("random", random)?;
    let randomseed = lua.create_function(|lua, _: mlua::Variadic<Value>| -> mlua::Result<()> {
        Err(Sandbox::raise(lua, "math.randomseed is not available: mods draw from the game's seeded random numbers"))
    })?;
    math.raw_set("randomseed", randomseed)
}
