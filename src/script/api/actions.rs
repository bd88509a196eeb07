//! `diving.action(name, { args, describe, legal, resolve })`: a new action a player can take
//! instead of playing (`buddy bob`), installed as a registry [`ActionEntry`] whose
//! [`LuaAction`] rule asks the mod's `legal` function for each argument the listing offers
//! and runs its `resolve` through the context like any effect.
//!
//! A name is refused at load when it is a word the table already understands
//! ([`RESERVED`]: its commands and their short forms) or another mod's action, naming both.

use std::sync::Arc;

use mlua::{Function, Lua, Table, Value};

use crate::core::{
    ActionArg, ActionEntry, ActionName, ActionRule, Card, Ctx, EffectError, Seat, Secret, State, Told, Words,
};

use super::super::convert;
use super::super::open::{learn_now, run_read, run_write, secret_now, site};
use super::super::sandbox::Sandbox;
use super::{DivingEnv, Shared, upgrade};

/// The words a mod's action may not be called: every command word and short form the table
/// reads (`play`, `p`, `moves`, `help`, `?` …), `say`, its chat, the words `help` takes
/// as topics (`rules`, `jolt` …), and the words a front end takes for itself before the table
/// reads a line (a hosted table's `rematch`); nor may it be called like a card (`ah`). The
/// table's parser checks that each of its words is here (`table::parse`'s tests), so a new
/// command cannot be shadowed by a mod's action.
pub const RESERVED: &[&str] = &[
    "play", "recover", "pass", "moves", "state", "hand", "log", "undo", "hint", "review", "save", "reload", "help",
    "again", "quit", "p", "r", "m", "board", "s", "h", "exit", "q", "new", "say", "table", "t", "over",
    // `help` topics: the rules and the cards by name.
    "rules", "jolt", "quick", "knot", "number", "numbers", "ace", "a", "j", "k",
    // Taken by a front end before the table reads the line: a hosted table's rematch.
    "rematch",
];

/// The longest `describe` text, in characters.
const MAX_DESCRIBE: usize = 200;

pub(super) fn register(lua: &Lua, diving: &Table, env: &DivingEnv<'_>) -> mlua::Result<()> {
    let (w, b) = (Arc::downgrade(env.shared), env.building.clone());
    diving.raw_set(
        "action",
        lua.create_function(move |lua, (name, spec): (Value, Value)| {
            let name_text = match &name {
                Value::String(s) => s.to_string_lossy(),
                other => {
                    return Err(Sandbox::raise(
                        lua,
                        format!("diving.action needs the action's name first, got {}", convert::show(other)),
                    ));
                }
            };
            let name = ActionName::new(&name_text).map_err(|e| Sandbox::raise(lua, format!("diving.action: {e}")))?;
            // A line that starts with a card plays it (`ah`, `qs`): no action may be called so.
            if name.as_str().parse::<crate::core::Card>().is_ok() {
                return Err(Sandbox::raise(
                    lua,
                    format!("diving.action(\"{name}\") is called like a card, which typed alone plays it: choose another name"),
                ));
            }
            if RESERVED.contains(&name.as_str()) {
                return Err(Sandbox::raise(
                    lua,
                    format!(
                        "diving.action(\"{name}\") is called like `{name}`, a command (or help topic) the game \
                         already reads, which the players would no longer reach: choose another name"
                    ),
                ));
            }
            let spec = convert::spec(lua, spec, &format!("diving.action(\"{name}\", …)"))?;
            let (mut resolve, mut legal, mut describe, mut arg) = (None, None, None, (None, ActionArg::None));
            for pair in convert::fields(&spec) {
                let (key_text, value) = pair?;
                match key_text.as_str() {
                    "resolve" => resolve = Some(convert::function(lua, value, "resolve")?),
                    "legal" => legal = Some(convert::function(lua, value, "legal")?),
                    "describe" => describe = Some(describe_text(lua, name, &value)?),
                    "args" => arg = parse_args(lua, name, &value)?,
                    other => {
                        return Err(Sandbox::raise(
                            lua,
                            format!(
                                "diving.action(\"{name}\", …): unknown field `{other}` (use args, describe, legal, \
                                 resolve)"
                            ),
                        ));
                    }
                }
            }
            let resolve = resolve
                .ok_or_else(|| Sandbox::raise(lua, format!("diving.action(\"{name}\", …) needs a resolve function")))?;
            let describe = describe.unwrap_or_else(|| name.to_string());
            let shared = upgrade(lua, &w)?;
            b.check_action(lua, name)?;
            b.own(lua, format!("action {name}"), "adds");
            b.change(lua, "action", |registry| {
                let (arg_name, arg) = arg;
                let rule = LuaAction { shared, name, arg_name, legal, resolve };
                let entry = ActionEntry { name, arg, describe: describe.into(), rule: Arc::new(rule) };
                registry.add_action(entry).map_err(|e| Sandbox::raise(lua, e))
            })
        })?,
    )?;
    Ok(())
}

/// `describe`: one line, shown whole.
fn describe_text(lua: &Lua, name: ActionName, value: &Value) -> mlua::Result<String> {
    let Value::String(s) = value else {
        return Err(Sandbox::raise(
            lua,
            format!("diving.action(\"{name}\", …): describe must be text, got {}", convert::show(value)),
        ));
    };
    let text = s.to_string_lossy();
    if let Some(why) = crate::limits::unshowable(&text) {
        return Err(Sandbox::raise(
            lua,
            format!(
                "diving.action(\"{name}\", …): describe holds {why}; write plain text (it is shown to every player)"
            ),
        ));
    }
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let length = text.chars().count();
    if text.is_empty() || length > MAX_DESCRIBE {
        return Err(Sandbox::raise(
            lua,
            format!(
                "diving.action(\"{name}\", …): describe needs 1 to {MAX_DESCRIBE} characters, got {length} (it is \
                 shown whole, never cut)"
            ),
        ));
    }
    Ok(text)
}

/// `args`: nothing, or one named argument: a diver, `{ target = "other" }` (another diver),
/// `"diver"` (any, the mover included), or a card of the hand, `{ card = "card" }`; each with
/// `?` when it may be left out.
fn parse_args(lua: &Lua, name: ActionName, value: &Value) -> mlua::Result<(Option<String>, ActionArg)> {
    let bad = |what: String| {
        Sandbox::raise(
            lua,
            format!(
                "diving.action(\"{name}\", …): args takes one named diver or card, {{ target = \"other\" }} (or \
                 \"other?\", \"diver\", \"diver?\", \"card\", \"card?\"); {what}"
            ),
        )
    };
    let table = match value {
        Value::Nil => return Ok((None, ActionArg::None)),
        Value::Table(t) => t,
        other => return Err(bad(format!("got {}", convert::show(other)))),
    };
    let mut found = None;
    for pair in table.pairs::<Value, Value>() {
        let (key, kind) = pair?;
        let key = match &key {
            Value::String(s) => s.to_string_lossy(),
            other => return Err(bad(format!("got the key {}", convert::show(other)))),
        };
        if found.is_some() {
            return Err(bad("got more than one".into()));
        }
        let kind_text = match &kind {
            Value::String(s) => s.to_string_lossy(),
            other => return Err(bad(format!("got {key} = {}", convert::show(other)))),
        };
        let arg = match kind_text.as_str() {
            "other" => ActionArg::Diver { me: false, optional: false },
            "other?" => ActionArg::Diver { me: false, optional: true },
            "diver" => ActionArg::Diver { me: true, optional: false },
            "diver?" => ActionArg::Diver { me: true, optional: true },
            "card" => ActionArg::Card { optional: false },
            "card?" => ActionArg::Card { optional: true },
            other => return Err(bad(format!("got {key} = \"{other}\""))),
        };
        found = Some((key, arg));
    }
    Ok(found.map_or((None, ActionArg::None), |(key, arg)| (Some(key), arg)))
}

/// An action's rule written in Lua.
struct LuaAction {
    shared: Arc<Shared>,
    name: ActionName,
    /// The key its argument has in the `args` table handed to `legal` and `resolve`.
    arg_name: Option<String>,
    legal: Option<Function>,
    resolve: Function,
}

impl LuaAction {
    /// The `args` table: `player` (who acts) and the argument under its name: a player
    /// number, or a card (`"7H"`).
    fn args(&self, player: Seat, target: Option<Seat>, card: Option<Card>) -> Result<Table, EffectError> {
        let shared = &self.shared;
        let t = shared.lua().create_table().map_err(|e| shared.lua_error(e))?;
        t.raw_set("player", player as i64 + 1).map_err(|e| shared.lua_error(e))?;
        if let (Some(key), Some(target)) = (&self.arg_name, target) {
            t.raw_set(key.as_str(), target as i64 + 1).map_err(|e| shared.lua_error(e))?;
        }
        if let (Some(key), Some(card)) = (&self.arg_name, card) {
            t.raw_set(key.as_str(), shared.names.card(card)).map_err(|e| shared.lua_error(e))?;
        }
        Ok(t)
    }
}

impl ActionRule for LuaAction {
    fn legal(
        &self,
        state: &State,
        player: Seat,
        target: Option<Seat>,
        card: Option<Card>,
    ) -> Result<Result<(), Words>, EffectError> {
        let Some(legal) = &self.legal else { return Ok(Ok(())) };
        let shared = &self.shared;
        let args = self.args(player, target, card)?;
        let ((ok, reason), secret): ((Value, Value), Secret) = run_read(state, legal, shared.ctx()?, |c| {
            // A card of the mover's hand it is asked about is the mod's knowledge.
            if let Some(card) = card {
                learn_now(shared.id, Told::Hand, player, Some(card))?;
            }
            let answer = shared.call_reading(legal, (c, args))?;
            Ok((answer, secret_now(shared.id)))
        })?;
        match ok {
            Value::Boolean(true) => Ok(Ok(())),
            Value::Boolean(false) | Value::Nil => Ok(Err(match &reason {
                Value::String(s) => Words::new(
                    s.to_string_lossy().chars().filter(|c| !c.is_control()).take(200).collect::<String>(),
                    secret,
                ),
                _ => Words::public(format!("the mod does not allow {} now", self.name)),
            })),
            other => Err(EffectError::new(format!(
                "mod {}: a legal function must return true, or false and a reason, got {}",
                site(legal),
                convert::show(&other)
            ))),
        }
    }

    fn resolve(
        &self,
        ctx: &mut Ctx<'_>,
        player: Seat,
        target: Option<Seat>,
        card: Option<Card>,
    ) -> Result<(), EffectError> {
        let shared = &self.shared;
        let args = self.args(player, target, card)?;
        run_write(ctx, &self.resolve, None, shared.ctx()?, |c| shared.call::<()>(&self.resolve, (c, args)))
    }
}
