//! Mods: Lua files that change the game by registering entries in the core's
//! [`Registry`] through the `diving` table (the API reference is `rulesets/MODDING.md`).
//!
//! [`load_mods`] builds one [`Sandbox`] per registry, loads the files in order and turns every
//! registration into a registry entry: a [`LuaEffect`] for `diving.effect` / `diving.wrap`, a
//! hook closure for the others. Each entry keeps the previous entry it replaced (Rust side), and
//! hands it to the Lua handler as a `previous` function, so mods chain. Handlers run through
//! the [bridge](super::bridge), which opens the game to them for the duration of the call.
//!
//! Architecture invariant: the Lua state never holds a strong reference to anything that owns
//! it (previous entries are reached through `Weak`), so dropping the registry frees the state.

use std::sync::{Arc, Mutex, Weak};

use mlua::{FromLuaMulti, Function, IntoLuaMulti, Lua, Table, Value};

use crate::core::effects::{AfterMove, OxygenCost, Play, RecoveryGain, Rescue, TurnStart, WinCheck};
use crate::core::{Aim, Card, Ctx, Effect, EffectError, Gain, Registry, Rules, Seat, Seats, State};

use super::bridge::{self, InLua, Names, card_arg, function_arg, rank_arg, run_read, run_write, show, site};
use super::sandbox::{Sandbox, ScriptError};

/// One mod file: the name errors use and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModSource {
    /// How errors name the file (`rulesets/mods/shark.lua`).
    pub name: String,
    pub code: Arc<str>,
}

/// A mod that could not be loaded or registered: `mod <file>:<line>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("mod {0}")]
pub struct ModError(pub ScriptError);

/// What every handler of one Lua state shares.
struct Shared {
    sandbox: Sandbox,
    ctx: Table,
    names: Arc<Names>,
}

impl Shared {
    fn call<R: FromLuaMulti>(&self, f: &Function, args: impl IntoLuaMulti) -> Result<R, EffectError> {
        self.sandbox.call(f, args).map_err(|e| EffectError(format!("mod {e}")))
    }

    fn lua(&self) -> &Lua {
        self.sandbox.lua()
    }

    fn lua_error(&self, e: mlua::Error) -> EffectError {
        let (_, message) = super::sandbox::flatten(&e);
        EffectError(format!("mod {message}"))
    }
}

/// Builds the registry for `rules` with `mods` loaded in order. With no mods, this is the
/// native standard registry (no Lua at all).
pub fn load_mods(rules: &Rules, mods: &[ModSource]) -> Result<Registry, ModError> {
    if mods.is_empty() {
        return Ok(Registry::standard());
    }
    let setup = |e: mlua::Error| ModError(ScriptError::new("mods", None, super::sandbox::flatten(&e).1));
    let sandbox = Sandbox::new("mods").map_err(ModError)?;
    let lua = sandbox.lua().clone();
    let names = Arc::new(Names::new(&lua).map_err(setup)?);
    let ctx = bridge::ctx_table(&lua, names.clone()).map_err(setup)?;
    sandbox.freeze(&ctx).map_err(ModError)?;
    let shared = Arc::new(Shared { sandbox, ctx, names });
    let building = Arc::new(Mutex::new(Some(Registry::standard())));
    let api = diving_table(&lua, rules, &shared, &building).map_err(setup)?;
    shared.sandbox.expose("diving", api).map_err(ModError)?;
    let math = bridge::seeded_math(&lua).map_err(setup)?;
    shared.sandbox.freeze(&math).map_err(ModError)?;
    shared.sandbox.expose("math", math).map_err(ModError)?;
    for source in mods {
        shared.sandbox.load(&source.name, &source.code).map_err(ModError)?;
    }
    let registry = building.lock().expect("registry lock").take().expect("registry present until here");
    Ok(registry)
}

type Building = Arc<Mutex<Option<Registry>>>;

/// Runs `f` on the registry being built, or fails when the mod has finished loading.
fn register(
    lua: &Lua,
    building: &Building,
    what: &str,
    f: impl FnOnce(&mut Registry) -> mlua::Result<()>,
) -> mlua::Result<()> {
    let mut guard = building.lock().expect("registry lock");
    match guard.as_mut() {
        Some(registry) => f(registry),
        None => Err(Sandbox::raise(lua, format!("diving.{what} can only be called while the mod file loads"))),
    }
}

fn upgrade(lua: &Lua, shared: &Weak<Shared>) -> mlua::Result<Arc<Shared>> {
    shared.upgrade().ok_or_else(|| Sandbox::raise(lua, "the mods are unloaded"))
}

/// Sets `diving.<name>(handler)`: checks that the handler is a function, then lets `install`
/// turn it into a registry entry while the mod file loads.
fn handler_api(
    lua: &Lua,
    t: &Table,
    name: &'static str,
    shared: &Arc<Shared>,
    building: &Building,
    install: impl Fn(&Lua, Function, Arc<Shared>, &mut Registry) -> mlua::Result<()> + Send + 'static,
) -> mlua::Result<()> {
    let (w, b) = (Arc::downgrade(shared), building.clone());
    let what = format!("diving.{name}'s handler");
    let api = lua.create_function(move |lua, f: Value| {
        let f = function_arg(lua, f, &what)?;
        let shared = upgrade(lua, &w)?;
        register(lua, &b, name, |r| {
            install(lua, f, shared, r)?;
            Ok(())
        })
    })?;
    t.raw_set(name, api)
}

/// A hook called with a game and a player: the shape of `win_check` and `rescue`.
type PlayerHook<R> = Arc<dyn Fn(&mut Ctx<'_>, Seat) -> Result<R, EffectError> + Send + Sync>;

/// The `previous` function a player hook's handler receives: `previous(ctx, player)` runs the
/// entry it replaced on the game the handler is working on.
fn previous_for_player<R: mlua::IntoLuaMulti + 'static>(lua: &Lua, previous: &PlayerHook<R>) -> mlua::Result<Function> {
    let weak = Arc::downgrade(previous);
    lua.create_function(move |lua, (_, p): (Value, Value)| {
        let prev = weak.upgrade().ok_or_else(|| Sandbox::raise(lua, "the previous handler is gone"))?;
        bridge::with_open_ctx(lua, |ctx| {
            let p = bridge::seat_arg(lua, ctx.state(), &p)?;
            prev(ctx, p).in_lua(lua)
        })
    })
}

/// The `diving` table: registration functions, card helpers and the rules.
fn diving_table(lua: &Lua, rules: &Rules, shared: &Arc<Shared>, building: &Building) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.raw_set("version", 1)?;

    let rules_table = lua.create_table()?;
    rules_table.raw_set("min_players", rules.min_players as i64)?;
    rules_table.raw_set("max_players", rules.max_players as i64)?;
    rules_table.raw_set("decks", rules.decks.map(i64::from))?;
    rules_table.raw_set("hand_size", rules.hand_size as i64)?;
    rules_table.raw_set("table_size", rules.table_size as i64)?;
    rules_table.raw_set("max_depth", rules.max_depth as i64)?;
    rules_table.raw_set("max_oxygen", rules.max_oxygen as i64)?;
    rules_table.raw_set("quick_extra", rules.quick_extra as i64)?;
    rules_table.raw_set("quick_push", rules.quick_push as i64)?;
    rules_table.raw_set("max_turns", rules.max_turns as i64)?;
    rules_table.raw_set("depth_unit", rules.depth_unit.as_str())?;
    rules_table.raw_set("depth_scale", rules.depth_scale as i64)?;
    rules_table.set_readonly(true);
    t.raw_set("rules", rules_table)?;

    // Card helpers.
    t.raw_set("rank", lua.create_function(|lua, card: Value| Ok(card_arg(lua, &card)?.rank.number() as i64))?)?;
    t.raw_set("suit", lua.create_function(|lua, card: Value| Ok(bridge::suit_letter(card_arg(lua, &card)?.suit)))?)?;
    t.raw_set("value", lua.create_function(|lua, card: Value| Ok(card_arg(lua, &card)?.value().map(i64::from)))?)?;

    // Effects.
    let (w, b) = (Arc::downgrade(shared), building.clone());
    t.raw_set(
        "effect",
        lua.create_function(move |lua, (rank, spec): (Value, Value)| {
            let rank = rank_arg(lua, &rank)?;
            let shared = upgrade(lua, &w)?;
            let spec = match spec {
                Value::Table(t) => t,
                other => {
                    return Err(Sandbox::raise(
                        lua,
                        format!("diving.effect needs a table {{ resolve = function … }}, got {}", show(&other)),
                    ));
                }
            };
            let mut resolve = None;
            let mut targets = Targets::None;
            let mut playable = None;
            for pair in spec.pairs::<Value, Value>() {
                let (key, value) = pair?;
                let key_text = match &key {
                    Value::String(s) => s.to_string_lossy(),
                    other => show(other),
                };
                match key_text.as_str() {
                    "resolve" => resolve = Some(function_arg(lua, value, "resolve")?),
                    "playable" => playable = Some(function_arg(lua, value, "playable")?),
                    "targets" => targets = Targets::parse(lua, value)?,
                    other => {
                        return Err(Sandbox::raise(
                            lua,
                            format!("diving.effect: unknown field `{other}` (use resolve, targets, playable)"),
                        ));
                    }
                }
            }
            let resolve = resolve.ok_or_else(|| Sandbox::raise(lua, "diving.effect needs a resolve function"))?;
            register(lua, &b, "effect", |registry| {
                let effect = LuaEffect::new(&shared, registry.effect(rank), targets, playable, resolve)?;
                registry.set_effect(rank, Arc::new(effect));
                Ok(())
            })
        })?,
    )?;
    let (w, b) = (Arc::downgrade(shared), building.clone());
    t.raw_set(
        "wrap",
        lua.create_function(move |lua, (rank, resolve): (Value, Value)| {
            let rank = rank_arg(lua, &rank)?;
            let resolve = function_arg(lua, resolve, "diving.wrap's handler")?;
            let shared = upgrade(lua, &w)?;
            register(lua, &b, "wrap", |registry| {
                let effect = LuaEffect::new(&shared, registry.effect(rank), Targets::Inherit, None, resolve)?;
                registry.set_effect(rank, Arc::new(effect));
                Ok(())
            })
        })?,
    )?;

    // Hooks added to a list.
    handler_api(lua, &t, "on_turn_start", shared, building, |_, f, shared, r| {
        let hook: TurnStart = Arc::new(move |ctx: &mut Ctx<'_>, player: Seat| {
            run_write(ctx, &f, None, || shared.call::<()>(&f, (shared.ctx.clone(), player as i64 + 1)))
        });
        r.add_turn_start(hook);
        Ok(())
    })?;
    handler_api(lua, &t, "on_after_move", shared, building, |_, f, shared, r| {
        let hook: AfterMove = Arc::new(move |ctx: &mut Ctx<'_>, player: Seat, from: u32, to: u32| {
            run_write(ctx, &f, None, || {
                shared.call::<()>(&f, (shared.ctx.clone(), player as i64 + 1, from as i64, to as i64))
            })
        });
        r.add_after_move(hook);
        Ok(())
    })?;

    // Hooks that replace the previous one (which the handler may call).
    handler_api(lua, &t, "oxygen_cost", shared, building, |lua, f, shared, r| {
        let previous = r.oxygen_cost();
        let weak = Arc::downgrade(&previous);
        let previous_fn = lua.create_function(move |lua, (_, p, depth): (Value, Value, Value)| {
            let prev = weak.upgrade().ok_or_else(|| Sandbox::raise(lua, "the previous handler is gone"))?;
            let depth = u32::try_from(whole(lua, &depth, "the depth")?)
                .map_err(|_| Sandbox::raise(lua, "the depth must be 0 or more"))?;
            bridge::with_open_ctx(lua, |ctx| {
                let p = bridge::seat_arg(lua, ctx.state(), &p)?;
                prev(ctx, p, depth).in_lua(lua)
            })
        });
        let previous_fn = previous_fn?;
        let site = site(&f);
        let hook: OxygenCost = Arc::new(move |ctx: &mut Ctx<'_>, player: Seat, depth: u32| {
            let _keep = &previous;
            let value: Value = run_write(ctx, &f, None, || {
                shared.call(&f, (shared.ctx.clone(), player as i64 + 1, depth as i64, previous_fn.clone()))
            })?;
            match value {
                Value::Integer(n) if (0..=1_000_000).contains(&n) => Ok(n as u32),
                Value::Number(n) if n.fract() == 0.0 && (0.0..=1e6).contains(&n) => Ok(n as u32),
                other => Err(EffectError(format!(
                    "mod {site}: the oxygen_cost handler must return a whole number of oxygen ≥ 0, got {}",
                    show(&other)
                ))),
            }
        });
        r.set_oxygen_cost(hook);
        Ok(())
    })?;
    handler_api(lua, &t, "win_check", shared, building, |lua, f, shared, r| {
        let previous = r.win_check();
        let previous_fn = previous_for_player(lua, &previous)?;
        let site = site(&f);
        let hook: WinCheck = Arc::new(move |ctx: &mut Ctx<'_>, player: Seat| {
            let _keep = &previous;
            let value: Value = run_write(ctx, &f, None, || {
                shared.call(&f, (shared.ctx.clone(), player as i64 + 1, previous_fn.clone()))
            })?;
            match value {
                Value::Boolean(b) => Ok(b),
                other => Err(EffectError(format!(
                    "mod {site}: the win_check handler must return true or false, got {}",
                    show(&other)
                ))),
            }
        });
        r.set_win_check(hook);
        Ok(())
    })?;
    handler_api(lua, &t, "rescue", shared, building, |lua, f, shared, r| {
        let previous = r.rescue();
        let previous_fn = previous_for_player(lua, &previous)?;
        let hook: Rescue = Arc::new(move |ctx: &mut Ctx<'_>, player: Seat| {
            let _keep = &previous;
            run_write(ctx, &f, None, || {
                shared.call::<()>(&f, (shared.ctx.clone(), player as i64 + 1, previous_fn.clone()))
            })
        });
        r.set_rescue(hook);
        Ok(())
    })?;
    handler_api(lua, &t, "recovery_gain", shared, building, |lua, f, shared, r| {
        let names = shared.names.clone();
        let previous = r.recovery_gain();
        let weak = Arc::downgrade(&previous);
        let previous_fn = lua.create_function(move |lua, (_, p, cards): (Value, Value, Value)| {
            let prev = weak.upgrade().ok_or_else(|| Sandbox::raise(lua, "the previous handler is gone"))?;
            let cards = card_list(lua, &cards)?;
            let gain = bridge::with_open_ctx(lua, |ctx| {
                let p = bridge::seat_arg(lua, ctx.state(), &p)?;
                prev(ctx, p, &cards).in_lua(lua)
            })?;
            Ok(match gain {
                Gain::Amount(n) => Value::Integer(n as i64),
                Gain::Max => Value::String(lua.create_string("max")?),
            })
        });
        let previous_fn = previous_fn?;
        let site = site(&f);
        let hook: RecoveryGain = Arc::new(move |ctx: &mut Ctx<'_>, player: Seat, cards: &[Card]| {
            let _keep = &previous;
            let lua = shared.lua();
            let list =
                lua.create_sequence_from(cards.iter().map(|c| names.card(*c))).map_err(|e| shared.lua_error(e))?;
            let value: Value = run_write(ctx, &f, None, || {
                shared.call(&f, (shared.ctx.clone(), player as i64 + 1, list, previous_fn.clone()))
            })?;
            match value {
                Value::Integer(n) if (0..=1_000_000).contains(&n) => Ok(Gain::Amount(n as u32)),
                Value::Number(n) if n.fract() == 0.0 && (0.0..=1e6).contains(&n) => Ok(Gain::Amount(n as u32)),
                Value::String(s) if s.as_bytes().as_ref() == b"max" => Ok(Gain::Max),
                other => Err(EffectError(format!(
                    "mod {site}: the recovery_gain handler must return a whole number ≥ 0 or \"max\", got {}",
                    show(&other)
                ))),
            }
        });
        r.set_recovery_gain(hook);
        Ok(())
    })?;
    Ok(t)
}

fn whole(lua: &Lua, value: &Value, what: &str) -> mlua::Result<i64> {
    match value {
        Value::Integer(n) => Ok(*n),
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => Ok(*n as i64),
        other => Err(Sandbox::raise(lua, format!("{what} must be a whole number, got {}", show(other)))),
    }
}

fn card_list(lua: &Lua, value: &Value) -> mlua::Result<Vec<Card>> {
    let Value::Table(t) = value else {
        return Err(Sandbox::raise(lua, format!("expected a list of cards, got {}", show(value))));
    };
    let mut cards = Vec::new();
    for v in t.sequence_values::<Value>() {
        cards.push(card_arg(lua, &v?)?);
    }
    Ok(cards)
}

/// How a Lua effect chooses its targets.
enum Targets {
    /// As the entry it replaced (for `diving.wrap`).
    Inherit,
    /// No target.
    None,
    /// Any other player.
    Others,
    /// `function(ctx, player, card)` returning a list of player numbers.
    Function(Function),
}

impl Targets {
    fn parse(lua: &Lua, value: Value) -> mlua::Result<Targets> {
        match &value {
            Value::Nil => Ok(Targets::None),
            Value::String(s) => match s.to_string_lossy().as_str() {
                "none" => Ok(Targets::None),
                "other" => Ok(Targets::Others),
                other => Err(Sandbox::raise(
                    lua,
                    format!("targets must be \"none\", \"other\" or a function, got \"{other}\""),
                )),
            },
            Value::Function(f) => Ok(Targets::Function(f.clone())),
            other => Err(Sandbox::raise(
                lua,
                format!("targets must be \"none\", \"other\" or a function, got {}", show(other)),
            )),
        }
    }
}

/// A rank's behaviour written in Lua.
pub struct LuaEffect {
    shared: Arc<Shared>,
    targets: Targets,
    playable: Option<Function>,
    resolve: Function,
    /// The entry this one replaced; kept alive here, reached from Lua through `previous_fn`.
    previous: Arc<dyn Effect>,
    previous_fn: Function,
}

impl LuaEffect {
    fn new(
        shared: &Arc<Shared>,
        previous: Arc<dyn Effect>,
        targets: Targets,
        playable: Option<Function>,
        resolve: Function,
    ) -> mlua::Result<LuaEffect> {
        let weak: Weak<dyn Effect> = Arc::downgrade(&previous);
        let names = shared.names.clone();
        let previous_fn = shared.lua().create_function(move |lua, (_, play): (Value, Value)| {
            let prev = weak.upgrade().ok_or_else(|| Sandbox::raise(lua, "the previous handler is gone"))?;
            let Value::Table(play) = play else {
                return Err(Sandbox::raise(
                    lua,
                    format!("previous(ctx, play) needs the play table, got {}", show(&play)),
                ));
            };
            let players = bridge::with_open_game(lua, |game| Ok(game.player_count()))?;
            let play = names.read_play(lua, players, &play)?;
            bridge::hand_over(lua, play.card)?;
            bridge::with_open_ctx(lua, |ctx| prev.resolve(ctx, play).in_lua(lua))
                .inspect_err(|_| bridge::take_back(play.card))
        })?;
        Ok(LuaEffect { shared: shared.clone(), targets, playable, resolve, previous, previous_fn })
    }

    fn card_value(&self, card: Card) -> Value {
        Value::String(self.shared.names.card(card))
    }
}

impl Effect for LuaEffect {
    /// Without a `playable` or `targets` function the mod's aim is fixed and ignores the card.
    fn aim_ignores_card(&self) -> bool {
        self.playable.is_none() && matches!(self.targets, Targets::None | Targets::Others)
    }

    /// Without a `playable` function and with inherited targets, the aim is the wrapped entry's.
    fn aim_delegate(&self) -> Option<Arc<dyn Effect>> {
        match (&self.playable, &self.targets) {
            (None, Targets::Inherit) => Some(Arc::clone(&self.previous)),
            _ => None,
        }
    }

    fn aim(&self, game: &State, player: Seat, card: Card) -> Result<Aim, EffectError> {
        let shared = &self.shared;
        if let Some(playable) = &self.playable {
            let (ok, reason): (Value, Value) = run_read(game, playable, || {
                shared.call(playable, (shared.ctx.clone(), player as i64 + 1, self.card_value(card)))
            })?;
            match ok {
                Value::Boolean(true) => {}
                Value::Boolean(false) | Value::Nil => {
                    let reason = match reason {
                        Value::String(s) => s.to_string_lossy(),
                        _ => format!("the mod does not allow {card} now"),
                    };
                    return Ok(Aim::Blocked(reason.into()));
                }
                other => {
                    return Err(EffectError(format!(
                        "mod {}: a playable function must return true or false, got {}",
                        site(playable),
                        show(&other)
                    )));
                }
            }
        }
        match &self.targets {
            Targets::Inherit => self.previous.aim(game, player, card),
            Targets::None => Ok(Aim::FREE),
            Targets::Others => {
                let seats = game.others(player);
                Ok(if seats.is_empty() {
                    Aim::Blocked("there is nobody to target".into())
                } else {
                    Aim::Open { targets: Some(seats), order_choice: false }
                })
            }
            Targets::Function(f) => {
                let (list, reason): (Value, Value) = run_read(game, f, || {
                    shared.call(f, (shared.ctx.clone(), player as i64 + 1, self.card_value(card)))
                })?;
                let bad = |what: String| {
                    EffectError(format!(
                        "mod {}: a targets function must return a list of player numbers, {what}",
                        site(f)
                    ))
                };
                let mut seats = Seats::default();
                match list {
                    Value::Table(t) => {
                        for v in t.sequence_values::<Value>() {
                            let v = v.map_err(|e| shared.lua_error(e))?;
                            match v {
                                Value::Integer(n) if n >= 1 && (n as usize) <= game.player_count() => {
                                    seats.insert(n as usize - 1)
                                }
                                other => return Err(bad(format!("got {} in the list", show(&other)))),
                            }
                        }
                    }
                    Value::Nil => {}
                    other => return Err(bad(format!("got {}", show(&other)))),
                }
                Ok(if seats.is_empty() {
                    let reason = match reason {
                        Value::String(s) => s.to_string_lossy(),
                        _ => format!("{card} has no target now"),
                    };
                    Aim::Blocked(reason.into())
                } else {
                    Aim::Open { targets: Some(seats), order_choice: false }
                })
            }
        }
    }

    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
        let shared = &self.shared;
        let table = shared.names.play_table(shared.lua(), &play).map_err(|e| shared.lua_error(e))?;
        run_write(ctx, &self.resolve, Some(play.card), || {
            shared.call::<()>(&self.resolve, (&shared.ctx, table, &self.previous_fn))
        })
    }
}
