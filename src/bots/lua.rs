//! Lua bots: a script (`scripts/*.lua`) that chooses a move from the view and the legal moves,
//! run in the same [`Sandbox`] as mods (safe libraries only, a step budget per call, a memory
//! limit). The API is documented in `scripts/README.md`.
//!
//! The script returns a table with a `choose(view, moves)` function (or defines a global
//! `choose`); it gets plain read-only data — its seat's view and the list of legal moves, each
//! with a few precomputed hints — and returns the number of the move it wants. Costs, gains and
//! wins (the hints, `diving.cost` through `view.rules.cost`) are what the rules in force say:
//! read from the engine's per-ruleset tables while the hooks are the built-in ones, asked of
//! the hooks ([`Forecast`]) before the call when a mod replaced them — never worked out again
//! here. A script that fails, loops or answers nonsense gives a
//! [`BotError`] naming the file and line; the bot never sees the game itself, so it cannot peek
//! or cheat.
//!
//! Every `choose` call starts from a freshly loaded script (its bytecode, compiled once from
//! the text that loaded) with `math.random` seeded from the game's seed for the bot and the
//! turn, so a Lua bot is reproducible and keeps nothing from one call to the next: the shell,
//! which builds a bot for every move, and the simulator, which keeps it for a game, play it
//! alike. Everything read back from the script (its `choose`, the answer) is read within the
//! call's budget, and an answer that is not a move is described in a few words.

use std::path::Path;
use std::sync::Arc;

use mlua::{Function, Lua, Table, Value};

use crate::core::{Action, Forecast, Gain, Planning, Rank, Source, Tables, View};
use crate::limits::{self, FileKind};
use crate::script::{Loaded, Sandbox, ScriptError};

use super::{Bot, BotError, derive_seed};

/// The shipped bot scripts, built into the binary: `bot:cautious.lua` works from any directory.
const SHIPPED: &[(&str, &str)] = &[
    ("cautious.lua", include_str!("../../scripts/cautious.lua")),
    ("reckless.lua", include_str!("../../scripts/reckless.lua")),
];

/// Helpers every bot script can use as the global `diving` (the same names as for mods).
const PRELUDE: &str = r#"
local diving = {}
local faces = { A = 1, J = 11, Q = 12, K = 13 }
function diving.rank(card)
  local r = string.sub(card, 1, -2)
  return faces[r] or tonumber(r)
end
function diving.suit(card)
  return string.sub(card, -1)
end
function diving.value(card)
  local r = diving.rank(card)
  if r and r <= 10 then return r end
  return nil
end
function diving.cost(view, depth)
  return view.rules.cost(depth)
end
return diving
"#;

/// A bot whose choices come from a Lua script.
pub struct LuaBot {
    name: String,
    file: String,
    /// The script, compiled once; loaded afresh for every call.
    bytecode: Vec<u8>,
    sandbox: Sandbox,
    /// `function(value, env)`: the `choose` of what a script returned, or its global one.
    find_choose: Function,
    /// The seed of the game being played.
    seed: u64,
    actions: Vec<Action>,
    /// `view.rules.cost` for the tables of the rules last played (made again when they
    /// change).
    cost: Option<(Arc<Tables>, Function)>,
}

impl std::fmt::Debug for LuaBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LuaBot").field("file", &self.file).finish_non_exhaustive()
    }
}

impl LuaBot {
    /// Loads the bot script at `path`; a shipped script (`cautious.lua`, `scripts/reckless.lua`)
    /// is found even when no such file exists here.
    pub fn load(path: &str, seed: u64) -> Result<LuaBot, BotError> {
        let file_name = Path::new(path).file_name().map_or(path.to_string(), |f| f.to_string_lossy().into_owned());
        let code = match limits::read_text(Path::new(path), FileKind::LuaBot) {
            Ok(code) => code,
            Err(e) => match SHIPPED.iter().find(|(name, _)| *name == file_name) {
                Some((_, code))
                    if e.is_not_found() && (!path.contains(['/', '\\']) || path.starts_with("scripts/")) =>
                {
                    code.to_string()
                }
                _ => {
                    let shipped: Vec<&str> = SHIPPED.iter().map(|(n, _)| *n).collect();
                    let hint = if e.is_not_found() {
                        format!(" (shipped bots: {})", shipped.join(", "))
                    } else {
                        String::new()
                    };
                    return Err(BotError::Failed {
                        name: path.to_string(),
                        message: format!("cannot read the script: {e}{hint}"),
                    });
                }
            },
        };
        LuaBot::from_code(path, &code, seed)
    }

    /// A bot from the text of its script, as if read from the file `path`.
    pub fn from_code(path: &str, code: &str, seed: u64) -> Result<LuaBot, BotError> {
        let name = Path::new(path).file_name().map_or(path.to_string(), |f| f.to_string_lossy().into_owned());
        let fail = |e: ScriptError| BotError::Failed { name: name.clone(), message: e.to_string() };
        let sandbox = Sandbox::new(path).map_err(fail)?;
        let prelude = sandbox.load("diving prelude", PRELUDE).map_err(fail)?;
        sandbox.expose("diving", prelude.value).map_err(fail)?;
        let find_choose: Function = sandbox
            .load("diving prelude", FIND_CHOOSE)
            .map_err(fail)?
            .value
            .as_function()
            .cloned()
            .ok_or_else(|| fail(ScriptError::new(path, None, "cannot set up the bot")))?;
        let loaded = sandbox.load(path, code).map_err(fail)?;
        find(&sandbox, &find_choose, path, loaded).map_err(fail)?;
        let bytecode = Sandbox::compile(path, code).map_err(fail)?;
        Ok(LuaBot {
            name: name.clone(),
            file: path.to_string(),
            bytecode,
            sandbox,
            find_choose,
            seed,
            actions: Vec::new(),
            cost: None,
        })
    }

    fn failed(&self, message: impl Into<String>) -> BotError {
        BotError::Failed { name: self.name.clone(), message: message.into() }
    }

    /// Seeds the state's `math.random`, so the bot's randomness comes from its seed.
    fn seed_random(&self, seed: u64) -> Result<(), ScriptError> {
        let lua = self.sandbox.lua();
        let setup = |e: mlua::Error| ScriptError::new(self.file.clone(), None, e.to_string());
        let math: Table = lua.globals().get("math").map_err(setup)?;
        let randomseed: Function = math.get("randomseed").map_err(setup)?;
        // Luau takes a 32-bit seed; fold the 64 bits in.
        let folded = ((seed >> 32) ^ seed) as u32 as i32;
        self.sandbox.call::<()>(&randomseed, folded)
    }

    /// The view and the moves as Lua tables.
    fn tables(&mut self, view: &View<'_>) -> mlua::Result<(Table, Table, Vec<Table>)> {
        let mut air = if view.plans_from_tables() {
            Air::Tables(view.tables())
        } else {
            Air::Asked(view.tables(), view.builtin_planning(), Box::new(view.forecast()))
        };
        let cost = match &mut air {
            Air::Asked(tables, builtin, forecast) if !builtin.cost => {
                asked_cost_function(self.sandbox.lua(), view, tables, forecast)?
            }
            _ => self.cost_function(view)?,
        };
        let lua = self.sandbox.lua();
        let view_table = view_table(lua, view, cost)?;
        let mut moves = Vec::with_capacity(self.actions.len());
        for (i, action) in self.actions.iter().enumerate() {
            moves.push(move_table(lua, view, i + 1, action, &mut air)?);
        }
        let list = seq(lua, moves.iter().cloned())?;
        Ok((view_table, list, moves))
    }

    /// `view.rules.cost(depth)`: the oxygen cost of a move ending at `depth` (D10), read from
    /// the engine's tables for the view's rules. Made once per ruleset.
    fn cost_function(&mut self, view: &View<'_>) -> mlua::Result<Function> {
        if let Some((tables, cost)) = &self.cost
            && Arc::ptr_eq(tables, view.tables())
        {
            return Ok(cost.clone());
        }
        let tables = Arc::clone(view.tables());
        let cost = self.sandbox.lua().create_function({
            let tables = Arc::clone(&tables);
            let max_depth = f64::from(tables.rules().max_depth);
            // Any number, as the bands read it: above the surface the first band, below the
            // bottom the last (the bands end at the bottom), between two depths the deeper.
            move |_, depth: f64| Ok(tables.cost(depth.ceil().clamp(0.0, max_depth) as u32))
        })?;
        self.cost = Some((tables, cost.clone()));
        Ok(cost)
    }
}

/// Where the hints come from: the tables, or the hooks a mod replaced (see the module doc).
enum Air<'t> {
    Tables(&'t Tables),
    /// The tables, which hooks are built in (those are read from the tables), and the rest.
    Asked(&'t Tables, Planning, Box<Forecast>),
}

impl Air<'_> {
    /// How far `card` moves `seat` when played on `top` (D8: its value, doubled on a match).
    fn value_on(&mut self, seat: usize, card: crate::core::Card, top: Option<crate::core::Card>) -> u32 {
        let value = match self {
            Air::Asked(tables, builtin, forecast) if !builtin.value => {
                forecast.card_value(seat, card).unwrap_or_else(|_| tables.value(card))
            }
            Air::Tables(tables) | Air::Asked(tables, ..) => tables.value(card),
        };
        value << u32::from(card.doubles_on(top))
    }

    /// The oxygen the view's seat spends after a move ending at `depth`.
    fn cost(&mut self, seat: usize, depth: u32) -> u32 {
        match self {
            Air::Asked(tables, builtin, forecast) if !builtin.cost => {
                forecast.cost(seat, depth).unwrap_or_else(|_| tables.cost(depth))
            }
            Air::Tables(tables) | Air::Asked(tables, ..) => tables.cost(depth),
        }
    }

    fn wins(&mut self, seat: usize, depth: u32, max: u32) -> bool {
        match self {
            Air::Asked(_, builtin, forecast) if !builtin.win => forecast.wins_at(seat, depth).unwrap_or(depth >= max),
            Air::Tables(_) | Air::Asked(..) => depth >= max,
        }
    }

    fn gain(&mut self, seat: usize, cards: &[crate::core::Card]) -> Gain {
        match self {
            Air::Asked(tables, builtin, forecast) if !builtin.gain => {
                forecast.gain(seat, cards).unwrap_or_else(|_| tables.gain(cards))
            }
            Air::Tables(tables) | Air::Asked(tables, ..) => tables.gain(cards),
        }
    }
}

/// `view.rules.cost(depth)` when a mod replaced the oxygen cost (or another planning hook):
/// the hook's answer for the view's seat at every depth, asked before the call (a mod's Lua
/// never runs inside the bot's).
fn asked_cost_function(lua: &Lua, view: &View<'_>, tables: &Tables, forecast: &mut Forecast) -> mlua::Result<Function> {
    let max_depth = view.rules().max_depth;
    let seat = view.seat();
    let costs: Vec<u32> = (0..=max_depth.min(ASKED_DEPTHS))
        .map(|depth| forecast.cost(seat, depth).unwrap_or_else(|_| tables.cost(depth)))
        .collect();
    let deep = tables.cost(max_depth);
    lua.create_function(move |_, depth: f64| {
        let depth = depth.ceil().clamp(0.0, f64::from(max_depth)) as usize;
        Ok(costs.get(depth).copied().unwrap_or(deep))
    })
}

/// How many depths a replaced cost hook is asked about for `view.rules.cost` (deeper ones get
/// the bottom's band cost).
const ASKED_DEPTHS: u32 = 1000;

/// Finds the `choose` function of what a script returned, or its global one, with Lua's own
/// reads (a metamethod of the returned table runs within the budget of the call).
const FIND_CHOOSE: &str = r#"
return function(value, env)
  if type(value) == "table" then
    local choose = value.choose
    if type(choose) == "function" then return choose end
  end
  local choose = env.choose
  if type(choose) == "function" then return choose end
  return nil
end
"#;

/// The `choose` function of a loaded script.
fn find(sandbox: &Sandbox, find_choose: &Function, path: &str, loaded: Loaded) -> Result<Function, ScriptError> {
    let found: Option<Function> = sandbox.call(find_choose, (loaded.value, loaded.env))?;
    found.ok_or_else(|| {
        ScriptError::new(
            path,
            None,
            "a bot script must return a table with a choose(view, moves) function (or define a global choose)",
        )
    })
}

/// A read-only sequence table.
fn seq<T: mlua::IntoLua>(lua: &Lua, items: impl IntoIterator<Item = T>) -> mlua::Result<Table> {
    let t = lua.create_sequence_from(items)?;
    t.set_readonly(true);
    Ok(t)
}

fn seat_number(seat: usize) -> i64 {
    seat as i64 + 1
}

/// The seat's view as a read-only table (see `scripts/README.md`), with `cost` for
/// `view.rules.cost`.
fn view_table(lua: &Lua, view: &View<'_>, cost: Function) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let rules = view.rules();
    t.raw_set("seat", seat_number(view.seat()))?;
    t.raw_set("players", view.player_count() as i64)?;
    t.raw_set("turn", i64::from(view.turn()))?;
    t.raw_set("hand", seq(lua, view.hand().iter().map(|c| c.to_string()))?)?;
    let table = lua.create_table()?;
    for (i, slot) in view.table().iter().enumerate() {
        match slot {
            Some(c) => table.raw_set(i + 1, c.to_string())?,
            None => table.raw_set(i + 1, false)?,
        }
    }
    table.set_readonly(true);
    t.raw_set("table", table)?;
    if let Some(top) = view.discard_top() {
        t.raw_set("discard_top", top.to_string())?;
    }
    t.raw_set("discard", seq(lua, view.discard_pile().iter().map(|c| c.to_string()))?)?;
    t.raw_set("deck_size", view.deck_size() as i64)?;
    let r = lua.create_table()?;
    r.raw_set("max_depth", i64::from(rules.max_depth))?;
    r.raw_set("max_oxygen", i64::from(rules.max_oxygen))?;
    r.raw_set("hand_size", rules.hand_size as i64)?;
    r.raw_set("table_size", rules.table_size as i64)?;
    r.raw_set("quick_extra", i64::from(rules.quick_extra))?;
    r.raw_set("quick_push", i64::from(rules.quick_push))?;
    let bands = lua.create_table()?;
    for (i, band) in rules.oxygen_bands.iter().enumerate() {
        let b = lua.create_table()?;
        b.raw_set("to", i64::from(band.to))?;
        b.raw_set("cost", i64::from(band.cost))?;
        b.set_readonly(true);
        bands.raw_set(i + 1, b)?;
    }
    bands.set_readonly(true);
    r.raw_set("bands", bands)?;
    r.raw_set("cost", cost)?;
    r.set_readonly(true);
    t.raw_set("rules", r)?;
    let divers = lua.create_table()?;
    for s in 0..view.player_count() {
        let d = view.diver(s);
        let dt = lua.create_table()?;
        dt.raw_set("seat", seat_number(s))?;
        dt.raw_set("name", view.names()[s].as_str())?;
        dt.raw_set("depth", i64::from(d.depth))?;
        dt.raw_set("oxygen", i64::from(d.oxygen))?;
        dt.raw_set("hand_size", d.hand_size as i64)?;
        dt.raw_set("front", seq(lua, d.front.iter().map(|c| c.to_string()))?)?;
        dt.set_readonly(true);
        if s == view.seat() {
            t.raw_set("me", dt.clone())?;
        }
        divers.raw_set(s + 1, dt)?;
    }
    divers.set_readonly(true);
    t.raw_set("divers", divers)?;
    t.set_readonly(true);
    Ok(t)
}

/// One legal move as a read-only table, with hints under the standard effects (costs, gains
/// and wins as the rules in force say).
fn move_table(lua: &Lua, view: &View<'_>, index: usize, action: &Action, air: &mut Air<'_>) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let (rules, seat) = (view.rules(), view.seat());
    let me = view.diver(view.seat());
    t.raw_set("index", index as i64)?;
    t.raw_set("text", action.to_string())?;
    match action {
        Action::Play { card, from, target, face_on_top } => {
            t.raw_set("kind", "play")?;
            t.raw_set("card", card.to_string())?;
            match from {
                Source::Hand => t.raw_set("from", "hand")?,
                Source::Table(slot) => {
                    t.raw_set("from", "table")?;
                    t.raw_set("slot", *slot as i64 + 1)?;
                }
            }
            if let Some(target) = target {
                t.raw_set("target", seat_number(*target))?;
            }
            t.raw_set("over", *face_on_top)?;
            if card.rank.is_number() {
                let value = air.value_on(seat, *card, view.discard_top());
                t.raw_set("value", i64::from(value))?;
                let (depth, wins) = if me.has_front(Rank::JACK) {
                    (me.depth.saturating_sub(value), false)
                } else {
                    let extra = if me.has_front(Rank::QUEEN) { rules.quick_extra } else { 0 };
                    let to = me.depth.saturating_add(value).saturating_add(extra).min(rules.max_depth);
                    (to, air.wins(seat, to, rules.max_depth))
                };
                let oxygen = if wins { me.oxygen } else { me.oxygen.saturating_sub(air.cost(seat, depth)) };
                t.raw_set("depth", i64::from(depth))?;
                t.raw_set("oxygen", i64::from(oxygen))?;
                t.raw_set("wins", wins)?;
                t.raw_set("rescued", !wins && oxygen == 0)?;
            }
        }
        Action::Recover { cards, face_on_top } => {
            t.raw_set("kind", "recover")?;
            t.raw_set("cards", seq(lua, cards.iter().map(|c| c.to_string()))?)?;
            t.raw_set("over", *face_on_top)?;
            let room = rules.max_oxygen.saturating_sub(me.oxygen);
            let gain = if me.has_front(Rank::KING) {
                0
            } else {
                match air.gain(seat, cards) {
                    Gain::Amount(g) => g.min(room),
                    Gain::Max => room,
                }
            };
            t.raw_set("gain", i64::from(gain))?;
            t.raw_set("oxygen", i64::from(me.oxygen + gain))?;
        }
        Action::Pass => t.raw_set("kind", "pass")?,
        Action::Act { name, target, card } => {
            t.raw_set("kind", "act")?;
            t.raw_set("name", name.as_str())?;
            if let Some(target) = target {
                t.raw_set("target", seat_number(*target))?;
            }
            if let Some(card) = card {
                t.raw_set("card", card.to_string())?;
            }
        }
    }
    t.set_readonly(true);
    Ok(t)
}

impl Bot for LuaBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn start_game(&mut self, seed: u64) {
        self.seed = seed;
    }

    fn choose(&mut self, view: &View<'_>) -> Result<Action, BotError> {
        self.actions = view.legal_actions();
        if self.actions.is_empty() {
            return Err(self.failed("it is not this bot's turn"));
        }
        let (view_table, list, moves) =
            self.tables(view).map_err(|e| self.failed(format!("cannot build the view: {e}")))?;
        // A fresh copy of the script for every call, so nothing carries over.
        self.seed_random(derive_seed(self.seed, u64::from(view.turn()))).map_err(|e| self.failed(e.to_string()))?;
        let loaded = self.sandbox.load_compiled(&self.file, &self.bytecode).map_err(|e| self.failed(e.to_string()))?;
        let choose =
            find(&self.sandbox, &self.find_choose, &self.file, loaded).map_err(|e| self.failed(e.to_string()))?;
        let answer: Value = self.sandbox.call(&choose, (view_table, list)).map_err(|e| self.failed(e.to_string()))?;
        let n = self.actions.len();
        let index = match &answer {
            Value::Integer(i) => Some(*i),
            Value::Number(x) if x.fract() == 0.0 => Some(*x as i64),
            Value::Table(t) => moves.iter().position(|m| m.to_pointer() == t.to_pointer()).map(|i| i as i64 + 1),
            _ => None,
        };
        match index {
            Some(i) if (1..=n as i64).contains(&i) => Ok(self.actions.swap_remove(i as usize - 1)),
            _ => Err(self.failed(format!(
                "choose must return the number of a move, 1 to {n}, or one of the moves (it returned {})",
                describe(&answer)
            ))),
        }
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Number(x) => x.to_string(),
        Value::String(s) => {
            let bytes = s.as_bytes();
            let text: String =
                String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).chars().filter(|c| !c.is_control()).collect();
            if bytes.len() > 40 { format!("\"{text}…\" ({} bytes)", bytes.len()) } else { format!("\"{text}\"") }
        }
        other => format!("a {}", other.type_name()),
    }
}
