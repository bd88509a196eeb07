//! Lua values to typed Rust, at the boundary: player numbers to seats, ranks, cards, whole
//! numbers, functions and card lists. Each conversion fails with an error that says what was
//! expected and shows what came (`the distance must be a whole number, got "deep"`), raised
//! with [`Sandbox::raise`] so that it names the calling line of the mod.
//!
//! Also the two ways an error crosses between the core and Lua: [`effect_to_lua`] (and
//! [`InLua`]) for an [`EffectError`] raised inside a handler.

use mlua::{Function, Lua, Value};

use crate::core::{Card, EffectError, Rank, Seat};

use super::sandbox::{Passthrough, Sandbox, ScriptError, split_location};

/// A whole number; `what` names it in the error (`the depth`, `play.slot`).
pub(crate) fn whole(lua: &Lua, value: &Value, what: &str) -> mlua::Result<i64> {
    match value {
        Value::Integer(n) => Ok(*n),
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => Ok(*n as i64),
        other => Err(Sandbox::raise(lua, format!("{what} must be a whole number, got {}", show(other)))),
    }
}

/// An amount a hook returned (oxygen): a whole number 0…1 000 000, or `None` (the hook then
/// names its own handler in the error).
pub(crate) fn amount(value: &Value) -> Option<u32> {
    match value {
        Value::Integer(n) if (0..=1_000_000).contains(n) => Some(*n as u32),
        Value::Number(n) if n.fract() == 0.0 && (0.0..=1e6).contains(n) => Some(*n as u32),
        _ => None,
    }
}

/// A seat from a Lua player number (1-based) among `players`.
pub(crate) fn seat(lua: &Lua, players: usize, value: &Value) -> mlua::Result<Seat> {
    seat_numbered(lua, players, whole(lua, value, "the player")?)
}

/// The seat of player number `player` (1-based) among `players`.
pub(crate) fn seat_numbered(lua: &Lua, players: usize, player: i64) -> mlua::Result<Seat> {
    if player < 1 || player as usize > players {
        return Err(Sandbox::raise(lua, format!("there is no player {player} (players are 1…{players})")));
    }
    Ok(player as usize - 1)
}

/// A rank: a number 1…13 or text `A 2 … 10 T J Q K`.
pub(crate) fn rank(lua: &Lua, value: &Value) -> mlua::Result<Rank> {
    parse_rank(value).ok_or_else(|| {
        Sandbox::raise(
            lua,
            format!("{} is not a rank (use 1…13 or \"A\", \"2\" … \"10\", \"J\", \"Q\", \"K\")", show(value)),
        )
    })
}

fn parse_rank(value: &Value) -> Option<Rank> {
    match value {
        Value::Integer(n) => u8::try_from(*n).ok().and_then(Rank::new),
        Value::Number(n) if n.fract() == 0.0 && *n >= 1.0 && *n <= 13.0 => Rank::new(*n as u8),
        Value::String(s) => {
            let text = s.to_str().ok()?.trim().to_ascii_uppercase();
            let n = match text.as_str() {
                "A" => 1,
                "T" => 10,
                "J" => 11,
                "Q" => 12,
                "K" => 13,
                digits => digits.parse().ok()?,
            };
            Rank::new(n)
        }
        _ => None,
    }
}

/// A card written like `"7H"` or `"QS"`.
pub(crate) fn card(lua: &Lua, value: &Value) -> mlua::Result<Card> {
    let parsed = match value {
        Value::String(s) => s.to_str().ok().and_then(|t| t.parse::<Card>().ok()),
        _ => None,
    };
    parsed.ok_or_else(|| Sandbox::raise(lua, format!("{} is not a card (write it like \"7H\" or \"QS\")", show(value))))
}

/// A list of cards.
pub(crate) fn cards(lua: &Lua, value: &Value) -> mlua::Result<Vec<Card>> {
    let Value::Table(t) = value else {
        return Err(Sandbox::raise(lua, format!("expected a list of cards, got {}", show(value))));
    };
    let mut cards = Vec::new();
    for v in t.sequence_values::<Value>() {
        cards.push(card(lua, &v?)?);
    }
    Ok(cards)
}

/// A function (a handler); `what` names it in the error.
pub(crate) fn function(lua: &Lua, value: Value, what: &str) -> mlua::Result<Function> {
    match value {
        Value::Function(f) => Ok(f),
        other => Err(Sandbox::raise(lua, format!("{what} must be a function, got {}", show(&other)))),
    }
}

/// The spec table a mod passed to `call` (`diving.effect`, `diving.action(…)`), or the error
/// that names what it got instead.
pub(crate) fn spec(lua: &Lua, spec: Value, call: &str) -> mlua::Result<mlua::Table> {
    match spec {
        Value::Table(t) => Ok(t),
        other => {
            Err(Sandbox::raise(lua, format!("{call} needs a table {{ resolve = function … }}, got {}", show(&other))))
        }
    }
}

/// The fields of a spec table a mod passed (`{ resolve = …, targets = … }`), each key as
/// text (a key that is not a string shown as a value is, for the "unknown field" message).
pub(crate) fn fields(spec: &mlua::Table) -> impl Iterator<Item = mlua::Result<(String, Value)>> + '_ {
    spec.pairs::<Value, Value>().map(|pair| {
        let (key, value) = pair?;
        let key = match &key {
            Value::String(s) => s.to_string_lossy(),
            other => show(other),
        };
        Ok((key, value))
    })
}

/// A short description of a Lua value for error messages.
pub(crate) fn show(value: &Value) -> String {
    match value {
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(n) => n.to_string(),
        // `1e300` and `1e-300`, not their 300 digits (Rust writes a float in full).
        Value::Number(n) if *n != 0.0 && !(1e-6..1e15).contains(&n.abs()) => format!("{n:e}"),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("\"{}\"", crate::limits::quoted(&s.to_string_lossy())),
        other => other.type_name().to_string(),
    }
}

/// An [`EffectError`] raised inside Lua: a nested handler's message (`mod <file>:<line>: …`)
/// goes through unchanged, anything else is located at the calling line.
///
/// What reaches Lua is what everyone may read of it ([`EffectError`]'s `Display`): a handler
/// that catches a nested mod's failure must not read words that mod wrote knowing hidden
/// cards.
pub(crate) fn effect_to_lua(lua: &Lua, e: EffectError) -> mlua::Error {
    let text = e.to_string();
    match text.strip_prefix("mod ") {
        // The nested handler's failure, located by the program when it failed.
        Some(located) => {
            let error = split_location(located).unwrap_or_else(|| match located.split_once(": ") {
                Some((file, message)) => ScriptError::new(file, None, message),
                None => ScriptError::new("", None, located),
            });
            mlua::Error::external(Passthrough(error))
        }
        None => Sandbox::raise(lua, text),
    }
}

/// A change's result, with its error raised inside Lua ([`effect_to_lua`]).
pub(crate) trait InLua<T> {
    fn in_lua(self, lua: &Lua) -> mlua::Result<T>;
}

impl<T> InLua<T> for Result<T, EffectError> {
    fn in_lua(self, lua: &Lua) -> mlua::Result<T> {
        self.map_err(|e| effect_to_lua(lua, e))
    }
}
