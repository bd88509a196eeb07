//! `diving.describe` says in a player's words what a rank does (shown by the help and the
//! board). `diving.effect` and `diving.wrap`: a rank's behaviour written in Lua, installed as a
//! [`LuaEffect`] registry entry that keeps the entry it replaced and hands it to the handler
//! as `previous`, so mods chain.

use std::sync::{Arc, Weak};

use mlua::{Function, Lua, Table, Value};

use crate::core::{Aim, Card, Ctx, Effect, EffectError, Pending, Play, Seat, Seats, Secret, State, Told, Words};

use super::super::convert::{self, InLua};
use super::super::open::{self, Caller, run_read, run_write, site};
use super::super::sandbox::Sandbox;
use super::{DivingEnv, Shared, upgrade};

pub(super) fn register(lua: &Lua, diving: &Table, env: &DivingEnv<'_>) -> mlua::Result<()> {
    let (w, b) = (Arc::downgrade(env.shared), env.building.clone());
    diving.raw_set(
        "effect",
        lua.create_function(move |lua, (rank, spec): (Value, Value)| {
            let rank = convert::rank(lua, &rank)?;
            let shared = upgrade(lua, &w)?;
            let spec = convert::spec(lua, spec, "diving.effect")?;
            let mut resolve = None;
            let mut targets = Targets::None;
            let mut playable = None;
            for pair in convert::fields(&spec) {
                let (key_text, value) = pair?;
                match key_text.as_str() {
                    "resolve" => resolve = Some(convert::function(lua, value, "resolve")?),
                    "playable" => playable = Some(convert::function(lua, value, "playable")?),
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
            b.check_replacement(lua, rank)?;
            b.own(lua, format!("card {rank}"), "replaces");
            b.change(lua, "effect", |registry| {
                let effect = LuaEffect::new(&shared, registry.effect(rank), targets, playable, resolve)?;
                registry.set_effect(rank, Arc::new(effect));
                Ok(())
            })
        })?,
    )?;
    let b = env.building.clone();
    diving.raw_set(
        "describe",
        lua.create_function(move |lua, (rank, text): (Value, Value)| {
            let rank = convert::rank(lua, &rank)?;
            let text = match &text {
                Value::String(s) => s.to_string_lossy(),
                other => {
                    return Err(Sandbox::raise(
                        lua,
                        format!("diving.describe needs the card's text, got {}", convert::show(other)),
                    ));
                }
            };
            if let Some(why) = crate::limits::unshowable(&text) {
                return Err(Sandbox::raise(
                    lua,
                    format!("diving.describe({rank}, …): the text holds {why}; write plain text (it is shown to every player)"),
                ));
            }
            let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let length = text.chars().count();
            if text.is_empty() || length > MAX_DESCRIPTION {
                return Err(Sandbox::raise(
                    lua,
                    format!(
                        "diving.describe({rank}, …) needs a text of 1 to {MAX_DESCRIPTION} characters, got {length}: \
                         say it shorter (it is shown whole, never cut)"
                    ),
                ));
            }
            b.own(lua, format!("words of {rank}"), "describes");
            b.change(lua, "describe", |registry| {
                registry.describe(rank, &text);
                Ok(())
            })
        })?,
    )?;
    let (w, b) = (Arc::downgrade(env.shared), env.building.clone());
    diving.raw_set(
        "wrap",
        lua.create_function(move |lua, (rank, resolve): (Value, Value)| {
            let rank = convert::rank(lua, &rank)?;
            let resolve = convert::function(lua, resolve, "diving.wrap's handler")?;
            let shared = upgrade(lua, &w)?;
            b.own(lua, format!("card {rank}"), "wraps");
            b.change(lua, "wrap", |registry| {
                let effect = LuaEffect::new(&shared, registry.effect(rank), Targets::Inherit, None, resolve)?;
                registry.set_effect(rank, Arc::new(effect));
                Ok(())
            })
        })?,
    )?;
    Ok(())
}

/// How a Lua effect chooses its targets.
enum Targets {
    /// As the entry it replaced (for `diving.wrap`).
    Inherit,
    /// No target.
    None,
    /// Any other player.
    Others,
    /// `function(ctx, player, card, offered)` returning a list of player numbers (and the
    /// reasons for those left out); `offered` is the list the replaced entry offers (the
    /// built-in card's, D13), so that a mod can filter it instead of writing the rule again.
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
                format!("targets must be \"none\", \"other\" or a function, got {}", convert::show(other)),
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
        let (args, caller) = (Arc::clone(&shared.args), Caller { owner: shared.owner, ctx: None });
        let previous_fn = shared.lua().create_function(move |lua, (_, play): (Value, Value)| {
            let prev = weak.upgrade().ok_or_else(|| Sandbox::raise(lua, "the previous handler is gone"))?;
            let Value::Table(play) = play else {
                return Err(Sandbox::raise(
                    lua,
                    format!("previous(ctx, play) needs the play table, got {}", convert::show(&play)),
                ));
            };
            let players = open::with_game(lua, caller, |game| Ok(game.player_count()))?;
            let play = args.read_play(lua, players, &play)?;
            open::hand_over(lua, play.card)?;
            open::with_live_ctx(lua, caller, "previous", |ctx| prev.resolve(ctx, play).in_lua(lua))
                .inspect_err(|_| open::take_back(play.card))
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

    /// A failure is the answer: the core's listing takes a card whose entry fails to answer
    /// as unplayable and keeps the failure ([`Moves::failure`](crate::core::Moves::failure)),
    /// where the clients read it.
    fn aim(&self, game: &State, player: Seat, card: Card) -> Result<Aim, EffectError> {
        self.aim_of(game, player, card)
    }

    /// A `targets` function's second value, when it is a table, gives a reason per player
    /// number (`{[2] = "Bob is immune"}`); when it is text, it is the reason for every player
    /// it leaves out. A failure to answer gives no reason (the listing reports the failure).
    fn target_refusal(&self, game: &State, player: Seat, card: Card, target: Seat) -> Option<Words> {
        let shared = &self.shared;
        match &self.targets {
            Targets::Inherit if self.playable.is_none() => self.previous.target_refusal(game, player, card, target),
            Targets::Function(f) => {
                let offered = self.offered(game, player, card).ok()?;
                let ((_, reason), secret): ((Value, Value), Secret) = run_read(game, f, shared.ctx().ok()?, |c| {
                    told(shared, player, card)?;
                    let answer = shared.call_reading(f, (c, player as i64 + 1, self.card_value(card), offered))?;
                    Ok((answer, open::secret_now(shared.id)))
                })
                .ok()?;
                let own = match &reason {
                    Value::Table(t) => t.raw_get::<Value>(target as i64 + 1).ok().as_ref().and_then(reason_text),
                    other => reason_text(other),
                }
                .map(|text| Words::new(text, secret));
                // A diver the mod left out without a word, and the replaced entry kept out
                // too: the replaced entry's reason (a filtered built-in card's D13).
                own.or_else(|| {
                    let previous = self.previous.aim(game, player, card).ok()?;
                    let kept_out =
                        !matches!(previous, Aim::Open { targets: Some(seats), .. } if seats.contains(target));
                    kept_out.then(|| self.previous.target_refusal(game, player, card, target)).flatten()
                })
            }
            _ => None,
        }
    }

    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
        let shared = &self.shared;
        let (object, table) = shared.play(&play)?;
        run_write(ctx, &self.resolve, Some(play.card), object, |c| {
            shared.call::<()>(&self.resolve, (c, table, &self.previous_fn))
        })
    }
}

/// The longest text `diving.describe` takes, in characters.
const MAX_DESCRIPTION: usize = 300;

/// Most player numbers a targets function may return.
const MAX_TARGETS: usize = 64;

/// The mod is asked about `card` of `player`'s hand (when it is there: a table card is
/// public): it knows the card from now on, in the copy the question is asked on.
fn told(shared: &Shared, player: Seat, card: Card) -> Result<(), EffectError> {
    open::learn_now(shared.id, Told::Hand, player, Some(card))
}

/// A reason a mod gives (why a card cannot be played), cut to a line.
fn reason_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.to_string_lossy().chars().filter(|c| !c.is_control()).take(200).collect()),
        _ => None,
    }
}

impl LuaEffect {
    /// What the replaced entry offers `player` for `card`, as a list of player numbers for
    /// the `targets` function's fourth argument (empty when it offers no target or blocks).
    fn offered(&self, game: &State, player: Seat, card: Card) -> Result<mlua::Table, EffectError> {
        let seats = match self.previous.aim(game, player, card)? {
            Aim::Open { targets: Some(seats), .. } => seats.iter().map(|s| s as i64 + 1).collect(),
            _ => Vec::new(),
        };
        self.shared.lua().create_sequence_from(seats).map_err(|e| self.shared.lua_error(e))
    }

    fn aim_of(&self, game: &State, player: Seat, card: Card) -> Result<Aim, EffectError> {
        let shared = &self.shared;
        if let Some(playable) = &self.playable {
            let ((ok, reason), secret): ((Value, Value), Secret) = run_read(game, playable, shared.ctx()?, |c| {
                told(shared, player, card)?;
                let answer = shared.call_reading(playable, (c, player as i64 + 1, self.card_value(card)))?;
                Ok((answer, open::secret_now(shared.id)))
            })?;
            match ok {
                Value::Boolean(true) => {}
                Value::Boolean(false) | Value::Nil => {
                    return Ok(Aim::Blocked(match reason_text(&reason) {
                        Some(text) => Words::new(text, secret),
                        None => Words::public(format!("the mod does not allow {card} now")),
                    }));
                }
                other => {
                    return Err(EffectError::new(format!(
                        "mod {}: a playable function must return true or false, got {}",
                        site(playable),
                        convert::show(&other)
                    )));
                }
            }
        }
        // D13: a jolted diver chooses the discard order of their number card and the J,
        // whatever the card's targets are (the built-in card reads `face_on_top` then).
        let order_choice = card.rank.is_number() && Pending::of(game.player(player)).jolt;
        match &self.targets {
            Targets::Inherit => self.previous.aim(game, player, card),
            Targets::None => Ok(Aim::Open { targets: None, order_choice }),
            Targets::Others => {
                let seats = game.others(player);
                Ok(if seats.is_empty() {
                    Aim::Blocked(Words::public("there is nobody to target"))
                } else {
                    Aim::Open { targets: Some(seats), order_choice }
                })
            }
            Targets::Function(f) => {
                let offered = self.offered(game, player, card)?;
                let ((list, reason), secret): ((Value, Value), Secret) = run_read(game, f, shared.ctx()?, |c| {
                    told(shared, player, card)?;
                    let answer = shared.call_reading(f, (c, player as i64 + 1, self.card_value(card), offered))?;
                    Ok((answer, open::secret_now(shared.id)))
                })?;
                let bad = |what: String| {
                    EffectError::new(format!(
                        "mod {}: a targets function must return a list of player numbers, {what}",
                        site(f)
                    ))
                };
                let mut seats = Seats::default();
                match list {
                    Value::Table(t) if t.raw_len() > MAX_TARGETS => {
                        return Err(bad(format!("got a list of {} (at most {MAX_TARGETS})", t.raw_len())));
                    }
                    Value::Table(t) => {
                        for v in t.sequence_values::<Value>() {
                            let v = v.map_err(|e| shared.lua_error(e))?;
                            match v {
                                Value::Integer(n) if n >= 1 && (n as usize) <= game.player_count() => {
                                    seats.insert(n as usize - 1)
                                }
                                other => return Err(bad(format!("got {} in the list", convert::show(&other)))),
                            }
                        }
                    }
                    Value::Nil => {}
                    other => return Err(bad(format!("got {}", convert::show(&other)))),
                }
                Ok(if seats.is_empty() {
                    // With reasons per player, the reasons of those left out say why none is
                    // left (they were dropped: "JS has no target now", issue 44).
                    let per_player = match &reason {
                        Value::Table(t) => {
                            let reasons: Vec<String> = (1..=game.player_count() as i64)
                                .filter_map(|p| t.raw_get::<Value>(p).ok().as_ref().and_then(reason_text))
                                .take(8)
                                .collect();
                            (!reasons.is_empty()).then(|| format!("no target: {}", reasons.join("; ")))
                        }
                        _ => None,
                    };
                    Aim::Blocked(match reason_text(&reason).or(per_player) {
                        Some(text) => Words::new(text, secret),
                        None => Words::public(format!("{card} has no target now")),
                    })
                } else {
                    Aim::Open { targets: Some(seats), order_choice }
                })
            }
        }
    }
}
