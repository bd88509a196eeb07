//! Which game the running handler may touch, and how: the thread-local slot behind every
//! `ctx` function, the nesting of handlers and the cards they have in play.
//!
//! Lua cannot hold a Rust reference, so while a handler runs, the game it works on is
//! *open* on the current thread, in a thread-local slot the `ctx` functions (created once per
//! Lua state) look up on every call:
//! - an effect or hook ([`run_write`]) gets the game *lent*: [`Ctx::lend`] moves the state
//!   into an owned [`Lent`], which is parked in the slot while the handler runs and handed
//!   back when it returns. A `ctx` function takes the loan out of the slot ([`with_ctx`]),
//!   acts on it through [`Lent::ctx`] (the same checked methods as any effect) and puts it
//!   back;
//! - a `targets` or `playable` function ([`run_read`]) only has `&State`: it gets a copy, made
//!   with `clone_from` into a spare state kept in the slot (no allocation once warm), and the
//!   write functions refuse to run.
//!
//! Nothing in the slot points anywhere: it owns what it holds, so no access can dangle or
//! alias. A nested handler (a hook run by `ctx:dive` inside an effect) runs while the outer
//! `ctx` function holds the outer loan; it lends from the context it was given, parks its own
//! loan, and puts back what it found when it ends, like a stack. Guards restore the slot and
//! the nesting depth on every exit path (a value, an error, a budget error, a panic).
//!
//! Each handler call is given a `ctx` object of its own ([`CtxObject`], made by
//! [`super::args`]), kept with what it has open; a `ctx` function checks that it was called on
//! that object. So a `ctx` function fails with a Lua error naming the calling line when
//! nothing is open, when called from inside another `ctx` function, or when called on the
//! `ctx` of another call (one kept in a variable from an earlier call, or the outer handler's
//! inside a nested one).
//!
//! The slot also keeps cards conserved: the card being played, and every card a handler
//! takes from in front of a diver, is *loose* until the handler discards it or places it
//! in front of someone; `ctx:discard` and `ctx:place_front` accept only loose cards
//! ([`take_loose`]), and a handler that ends with a loose card, or with a different number of
//! cards in the game, fails.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mlua::{Function, Lua, Table};

use crate::core::{Card, Ctx, EffectError, Lent, ModId, Seat, Secret, State, Told};

use super::sandbox::{self, Sandbox};

/// What the running handler on this thread may touch, and the `ctx` object it was given.
enum Open {
    /// No handler runs.
    Closed,
    /// A `targets` or `playable` function runs: it reads this copy of the game.
    Read(State, CtxObject),
    /// An effect or hook runs: the game is lent to it.
    Write(Lent, CtxObject),
    /// A `ctx` function has taken the loan out of the slot to act on it.
    Busy,
}

/// The Lua state a `ctx` function belongs to: one per set of loaded mods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Owner(u64);

impl Owner {
    pub(crate) fn new() -> Owner {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Owner(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The `ctx` object one handler call is given (a frozen table of its own), and its state.
pub(crate) struct CtxObject {
    pub(crate) owner: Owner,
    pub(crate) table: Table,
    /// What the mods of the handler's registry share.
    pub(crate) script: Arc<Script>,
}

/// What the mods of one registry share while they run: what the handlers of the turn
/// running now have used of its limits, and, for the registry of a copy of a game, why it
/// cannot run (its mods' globals could not be copied into it). Kept per registry, not per
/// thread, so a copy of the game (a bot's look-ahead) counts on its own and never spends or
/// resets the original's turn.
#[derive(Default)]
pub(crate) struct Script {
    turn: Mutex<TurnUse>,
    broken: AtomicBool,
    why: Mutex<Option<String>>,
}

impl Script {
    /// Starts as `from` stands now (the registry of a copy of its game), or broken with
    /// `failure` when the copy could not be made.
    pub(crate) fn copy_from(&self, from: &Script, failure: Option<String>) {
        *self.turn.lock().unwrap_or_else(|p| p.into_inner()) = from.turn_use();
        let failure = failure.or_else(|| from.broken());
        self.broken.store(failure.is_some(), Ordering::Relaxed);
        *self.why.lock().unwrap_or_else(|p| p.into_inner()) = failure;
    }

    /// Why the handlers of this registry cannot run, if they cannot.
    pub(crate) fn broken(&self) -> Option<String> {
        if !self.broken.load(Ordering::Relaxed) {
            return None;
        }
        self.why.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn turn_use(&self) -> TurnUse {
        *self.turn.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set_turn_use(&self, used: TurnUse) {
        *self.turn.lock().unwrap_or_else(|p| p.into_inner()) = used;
    }
}

/// Who asks for the open game: a function of the Lua state `owner`, called on the `ctx`
/// object `ctx` (`ctx:depth(1)`) or on none (`math.random`, a `previous` function).
#[derive(Clone, Copy)]
pub(crate) struct Caller<'a> {
    pub(crate) owner: Owner,
    pub(crate) ctx: Option<&'a Table>,
}

impl CtxObject {
    /// Whether `caller` may use the handler call this object was given to. The tables are
    /// compared only within one Lua state (mlua refuses to compare across states).
    fn admits(&self, caller: Caller<'_>) -> bool {
        self.owner == caller.owner && caller.ctx.is_none_or(|t| *t == self.table)
    }
}

/// Most handlers nested inside one another (a hook that dives, running hooks that dive …).
pub(crate) const MAX_NESTING: usize = 24;
/// Most changes (`ctx:say`, `ctx:dive` …) the handlers of one turn may make.
pub(crate) const MAX_WRITES: u32 = 10_000;
/// Steps all the handlers of one turn may run together (each call also has its own budget).
pub(crate) const TURN_STEPS: u64 = 4_000_000;
/// Lines of narration (`ctx:say`) the handlers of one turn may add.
pub(crate) const MAX_SAID_LINES: u32 = 100;
/// Bytes of narration the handlers of one turn may add.
pub(crate) const MAX_SAID_BYTES: usize = 8 * 1024;
/// Cards the handlers of one turn may draw with `ctx:draw`.
pub(crate) const MAX_DRAWS: u32 = 16;

/// Which turn of which game the handlers that run now belong to: the turn number, the seat
/// and the game's tables. The handlers of one turn are its start hooks and those of the
/// action played in it (the game cannot tell the script layer where an action starts, but
/// every action ends its turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TurnKey {
    turn: u32,
    seat: usize,
    tables: usize,
}

impl TurnKey {
    fn of(state: &State) -> TurnKey {
        TurnKey { turn: state.turn(), seat: state.current(), tables: Arc::as_ptr(state.tables()) as usize }
    }
}

/// What the handlers of one turn have used.
#[derive(Debug, Clone, Copy, Default)]
struct TurnUse {
    key: Option<TurnKey>,
    steps_left: u64,
    writes: u32,
    said_lines: u32,
    said_bytes: usize,
    draws: u32,
}

/// The current thread's handlers: what is open to the innermost one, and what they share.
struct Slot {
    open: Open,
    /// Cards in play: out of their place, not yet discarded or placed (bottom: outermost).
    /// Each with the line of the mod that took it out of its place (`None`: the card being
    /// played, or one given back), for the error of a handler that leaves it there.
    loose: Vec<(Card, Option<u32>)>,
    /// How many handlers are running, nested in one another.
    depth: usize,
    /// What the handlers of the turn running now have used.
    turn: TurnUse,
    /// The last read copy, kept so the next one reuses its buffers.
    spare: Option<State>,
}

thread_local! {
    static SLOT: RefCell<Slot> = const {
        RefCell::new(Slot {
            open: Open::Closed,
            loose: Vec::new(),
            depth: 0,
            turn: TurnUse { key: None, steps_left: 0, writes: 0, said_lines: 0, said_bytes: 0, draws: 0 },
            spare: None,
        })
    };
}

/// One more handler in the nesting, for as long as it runs.
struct Nesting;

impl Nesting {
    fn enter() -> Result<Nesting, EffectError> {
        let depth = SLOT.with_borrow_mut(|s| {
            if s.depth == 0 {
                s.loose.clear();
            }
            s.depth += 1;
            s.depth
        });
        let nesting = Nesting;
        if depth > MAX_NESTING {
            return Err(EffectError::new(format!(
                "handlers nested more than {MAX_NESTING} deep (a hook that triggers itself?)"
            )));
        }
        Ok(nesting)
    }
}

impl Drop for Nesting {
    fn drop(&mut self) {
        SLOT.with_borrow_mut(|s| s.depth -= 1);
    }
}

/// What a handler has open, parked in the slot for the length of its call. The slot holds
/// what it held before again once this is unparked or dropped.
struct Parked {
    /// What the slot held before (taken when it is put back).
    previous: Option<Open>,
}

impl Parked {
    fn park(open: Open) -> Parked {
        Parked { previous: Some(SLOT.with_borrow_mut(|s| std::mem::replace(&mut s.open, open))) }
    }

    /// Puts back what the slot held before and returns what the handler had open.
    fn unpark(mut self) -> Open {
        let previous = self.previous.take().unwrap_or(Open::Closed);
        SLOT.with_borrow_mut(|s| std::mem::replace(&mut s.open, previous))
    }
}

impl Drop for Parked {
    /// On an early exit (a panic through the handler call): what the handler had open is
    /// dropped, after the slot is put back.
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            let ours = SLOT.with_borrow_mut(|s| std::mem::replace(&mut s.open, previous));
            drop(ours);
        }
    }
}

/// The loan, out of the slot while a `ctx` function acts on it; back in the slot when dropped.
struct Taken(Option<(Lent, CtxObject)>);

impl Taken {
    /// Takes the open loan for `caller`'s change named `what`.
    fn take(lua: &Lua, caller: Caller<'_>, what: &str) -> mlua::Result<Taken> {
        let taken = SLOT.with_borrow_mut(|s| match std::mem::replace(&mut s.open, Open::Busy) {
            Open::Write(lent, object) if object.admits(caller) && s.turn.writes < MAX_WRITES => {
                s.turn.writes += 1;
                Ok((lent, object))
            }
            other => {
                let refusal = Refusal::of(&other, caller);
                s.open = other;
                Err(refusal)
            }
        });
        match taken {
            Ok(loan) => Ok(Taken(Some(loan))),
            Err(refusal) => Err(refusal.raise(lua, what)),
        }
    }

    fn ctx(&mut self) -> Option<Ctx<'_>> {
        self.0.as_mut().map(|(lent, _)| lent.ctx())
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        if let Some((lent, object)) = self.0.take() {
            let busy = SLOT.with_borrow_mut(|s| std::mem::replace(&mut s.open, Open::Write(lent, object)));
            drop(busy);
        }
    }
}

/// Why a `ctx` function cannot run now.
enum Refusal {
    Closed,
    /// The ctx object belongs to another handler call (an earlier one kept in a variable, or
    /// the outer one of a nested call).
    Stale,
    ReadOnly,
    Busy,
    TooMany,
}

impl Refusal {
    /// Why `caller` cannot change the game with `open` in the slot.
    fn of(open: &Open, caller: Caller<'_>) -> Refusal {
        match open {
            Open::Closed => Refusal::Closed,
            Open::Read(_, object) | Open::Write(_, object) if !object.admits(caller) => Refusal::Stale,
            Open::Read(..) => Refusal::ReadOnly,
            // A loan the caller may use, refused only for the number of changes.
            Open::Write(..) => Refusal::TooMany,
            Open::Busy => Refusal::Busy,
        }
    }

    /// The refusal of `what`: a ctx function's name (`dive` or `ctx:dive`) or
    /// `math.random`.
    fn raise(self, lua: &Lua, what: &str) -> mlua::Error {
        let shown = if what.contains([':', '.']) { what.to_string() } else { format!("ctx:{what}") };
        match self {
            Refusal::Closed if what.starts_with("math.") => Sandbox::raise(
                lua,
                format!(
                    "{what} can only be used while a handler runs, not at the top level of the mod file (it runs \
                     once, when the ruleset loads, before any game has random numbers): draw inside a handler, \
                     with ctx:random(n) or {what}, and compute constants without randomness"
                ),
            ),
            Refusal::Closed => Sandbox::raise(
                lua,
                "ctx can only be used while a handler runs: call ctx functions inside the functions you register \
                 with diving.effect, diving.wrap or a hook, not at the top level of the mod file or from a ctx \
                 kept in a variable",
            ),
            Refusal::Stale => Sandbox::raise(
                lua,
                "this ctx belongs to another handler call (a ctx is good only during the call it is given to)",
            ),
            Refusal::ReadOnly => Sandbox::raise(
                lua,
                format!("{shown} cannot be used here: target and playable functions only read the game"),
            ),
            Refusal::Busy => Sandbox::raise(lua, "ctx cannot be used from inside another ctx function"),
            Refusal::TooMany => Sandbox::raise(lua, format!("more than {MAX_WRITES} changes in one turn")),
        }
    }
}

fn loose_len() -> usize {
    SLOT.with_borrow(|s| s.loose.len())
}

/// `mod <file>:<line>: message`, a failure at `line` of `handler`'s file whose line and
/// message may tell of `secret` ([`EffectError::located`]).
fn located_at(handler: &Function, line: u32, message: &str, secret: Secret) -> EffectError {
    let file = handler.info().short_src.unwrap_or_else(|| "?".into());
    EffectError::located(&format!("mod {file}"), Some(line), message, secret)
}

/// `mod <file>:<line>: ` in front of an error about `handler` as a whole.
fn located(handler: &Function, e: EffectError) -> EffectError {
    e.prefixed(&format!("mod {}: ", site(handler)))
}

/// Runs `call` with the game of `ctx` lent to the handler. `played` is the card an effect
/// handler receives (loose until the handler puts it somewhere). The handler fails if it
/// leaves a card loose or changes the number of cards in the game.
pub(crate) fn run_write<R>(
    ctx: &mut Ctx<'_>,
    handler: &Function,
    played: Option<Card>,
    object: CtxObject,
    call: impl FnOnce(Table) -> Result<R, EffectError>,
) -> Result<R, EffectError> {
    let top = SLOT.with_borrow(|s| s.depth == 0);
    let script = top.then(|| Arc::clone(&object.script));
    if let Some(script) = &script {
        begin_turn(ctx.state(), script);
    }
    let nesting = Nesting::enter().map_err(|e| located(handler, e));
    let result = nesting.and_then(|nesting| run_nested(ctx, handler, played, object, call, nesting));
    if let Some(script) = &script {
        end_turn(result.is_err(), script);
    }
    result
}

/// Opens the step pool of the turn `state` is in, with what `script`'s handlers used of it
/// so far, counting afresh if it is another turn than their last one.
fn begin_turn(state: &State, script: &Script) {
    let key = TurnKey::of(state);
    let mut used = script.turn_use();
    if used.key != Some(key) {
        used = TurnUse { key: Some(key), steps_left: TURN_STEPS, ..TurnUse::default() };
    }
    SLOT.with_borrow_mut(|s| s.turn = used);
    sandbox::pool::open(used.steps_left, TURN_STEPS);
}

/// Closes the turn's pool after a handler and keeps what the turn used with `script`. A
/// failed handler cancels its action, so the turn's count starts again with the next handler.
fn end_turn(failed: bool, script: &Script) {
    let left = sandbox::pool::close().unwrap_or(0);
    let used = SLOT.with_borrow_mut(|s| {
        s.turn.steps_left = left;
        if failed {
            s.turn.key = None;
        }
        s.turn
    });
    script.set_turn_use(used);
}

/// Counts `n` more cards drawn by handlers this turn; an error past [`MAX_DRAWS`].
pub(crate) fn count_draw() -> Result<(), EffectError> {
    SLOT.with_borrow_mut(|s| {
        if s.turn.draws >= MAX_DRAWS {
            return Err(EffectError::new(format!("more than {MAX_DRAWS} cards drawn by handlers in one turn")));
        }
        s.turn.draws += 1;
        Ok(())
    })
}

/// Counts a line of narration of `bytes` bytes; an error past the turn's narration limits.
pub(crate) fn count_said(bytes: usize) -> Result<(), EffectError> {
    SLOT.with_borrow_mut(|s| {
        if s.turn.said_lines >= MAX_SAID_LINES {
            return Err(EffectError::new(format!("more than {MAX_SAID_LINES} lines of narration in one turn")));
        }
        if s.turn.said_bytes + bytes > MAX_SAID_BYTES {
            return Err(EffectError::new(format!("more than {MAX_SAID_BYTES} bytes of narration in one turn")));
        }
        s.turn.said_lines += 1;
        s.turn.said_bytes += bytes;
        Ok(())
    })
}

fn run_nested<R>(
    ctx: &mut Ctx<'_>,
    handler: &Function,
    played: Option<Card>,
    object: CtxObject,
    call: impl FnOnce(Table) -> Result<R, EffectError>,
    nesting: Nesting,
) -> Result<R, EffectError> {
    let base = loose_len();
    let total = ctx.state().card_count() + base + usize::from(played.is_some());
    if let Some(card) = played {
        SLOT.with_borrow_mut(|s| s.loose.push((card, None)));
    }
    let table = object.table.clone();
    let result = ctx.lend(|lent| {
        let parked = Parked::park(Open::Write(lent, object));
        let result = call(table);
        match parked.unpark() {
            Open::Write(lent, _) => (lent, result),
            _ => unreachable!("a ctx function puts the loan back before it returns"),
        }
    });
    let (left, now) = SLOT.with_borrow_mut(|s| {
        let left: Vec<(Card, Option<u32>)> = s.loose.get(base..).map(<[_]>::to_vec).unwrap_or_default();
        let now = ctx.state().card_count() + s.loose.len();
        s.loose.truncate(base);
        (left, now)
    });
    drop(nesting);
    let value = result?;
    if !left.is_empty() {
        let cards: Vec<String> = left.iter().map(|(c, _)| c.to_string()).collect();
        let message = format!(
            "the handler ended with {} still in play: discard it or place it in front of someone",
            cards.join(" ")
        );
        // A card other than the one played may have been taken from the mover's hand
        // (`ctx:take_hand`), and the move fails, so nobody else saw it: the message, and the
        // line the mod chose to take it at, are the mover's to read.
        let secret = if left.iter().any(|&(c, _)| Some(c) != played) {
            Secret::hand(ctx.state().current())
        } else {
            Secret::NONE
        };
        // At the line that took the card out of its place, when one did; else where the
        // handler ended (its last line), not where it begins.
        let taken = left.iter().find_map(|(_, line)| *line);
        return Err(match taken.or_else(|| handler.info().last_line_defined.map(|l| l as u32)) {
            Some(line) => located_at(handler, line, &message, secret),
            None => EffectError::located(&format!("mod {}", site(handler)), None, &message, secret),
        });
    }
    if now != total {
        return Err(located(
            handler,
            EffectError::new(format!("the handler changed the number of cards in the game ({total} → {now})")),
        ));
    }
    Ok(value)
}

/// `file:line` where `f` is defined, for errors about the handler as a whole.
pub(crate) fn site(f: &Function) -> String {
    let info = f.info();
    match (info.short_src, info.line_defined) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => file,
        _ => "?".into(),
    }
}

/// Runs `call` with a copy of `game` open for reading only (targets and playability).
pub(crate) fn run_read<R>(
    game: &State,
    handler: &Function,
    object: CtxObject,
    call: impl FnOnce(Table) -> Result<R, EffectError>,
) -> Result<R, EffectError> {
    let _nesting = Nesting::enter().map_err(|e| located(handler, e))?;
    let copy = match SLOT.with_borrow_mut(|s| s.spare.take()) {
        Some(mut spare) => {
            spare.clone_from(game);
            spare
        }
        None => game.clone(),
    };
    let table = object.table.clone();
    let parked = Parked::park(Open::Read(copy, object));
    let result = call(table);
    if let Open::Read(copy, _) = parked.unpark() {
        SLOT.with_borrow_mut(|s| s.spare = Some(copy));
    }
    result
}

/// The open game, for `caller` to read. `f` must not call into Lua.
pub(crate) fn with_game<R>(
    lua: &Lua,
    caller: Caller<'_>,
    f: impl FnOnce(&State) -> mlua::Result<R>,
) -> mlua::Result<R> {
    SLOT.with(|slot| {
        let Ok(slot) = slot.try_borrow() else {
            return Err(Refusal::Busy.raise(lua, "read"));
        };
        match &slot.open {
            Open::Read(game, object) if object.admits(caller) => f(game),
            Open::Write(lent, object) if object.admits(caller) => f(lent.state()),
            other => Err(Refusal::of(other, caller).raise(lua, "read")),
        }
    })
}

/// What mod `by`'s words may tell of now, by the game open to the running handler (its
/// knowledge, [`crate::core::knowledge`]). With no game open (a failure outside any handler)
/// or the game taken by a `ctx` function, the deck: words nobody at the table may read.
pub(crate) fn secret_now(by: ModId) -> Secret {
    SLOT.with(|slot| {
        let Ok(mut slot) = slot.try_borrow_mut() else { return Secret::deck() };
        match &mut slot.open {
            Open::Read(state, _) => state.secret_of(by),
            Open::Write(lent, _) => lent.ctx().secret_of(by),
            Open::Closed | Open::Busy => Secret::deck(),
        }
    })
}

/// Mod `by` is told, `how`, `card` of `seat`'s hand (or, with no card, the whole hand), in
/// the game open to the running handler: a read copy's knowledge ends with the copy, a
/// loan's is the game's. An error when no game is open to record it in (a bug: the callers
/// run inside a handler call).
pub(crate) fn learn_now(by: ModId, how: Told, seat: Seat, card: Option<Card>) -> Result<(), EffectError> {
    SLOT.with(|slot| {
        let Ok(mut slot) = slot.try_borrow_mut() else {
            return Err(EffectError::new("a hidden card was told while the game was busy"));
        };
        match &mut slot.open {
            Open::Read(state, _) => match card {
                Some(card) => state.learn(by, how, seat, card),
                None => state.learn_hand(by, how, seat),
            },
            Open::Write(lent, _) => match card {
                Some(card) => lent.ctx().learn(by, how, seat, card),
                None => lent.ctx().learn_hand(by, how, seat),
            },
            Open::Closed | Open::Busy => {
                return Err(EffectError::new("a hidden card was told with no game open"));
            }
        }
        Ok(())
    })
}

/// Runs `f` on the open context, for `caller`'s change named `what`.
pub(crate) fn with_ctx<R>(
    lua: &Lua,
    caller: Caller<'_>,
    what: &str,
    f: impl FnOnce(&mut Ctx<'_>) -> mlua::Result<R>,
) -> mlua::Result<R> {
    let mut taken = Taken::take(lua, caller, what)?;
    match taken.ctx() {
        Some(mut ctx) => f(&mut ctx),
        None => Err(Refusal::Busy.raise(lua, what)),
    }
}

/// Runs `f` on the open context like [`with_ctx`], for a change that moves divers, oxygen or
/// cards into hands: refused once the game is over (a handler that made someone win cannot
/// go on changing the game, so the winner stays at the bottom and nobody is left at 0
/// oxygen unrescued).
pub(crate) fn with_live_ctx<R>(
    lua: &Lua,
    caller: Caller<'_>,
    what: &str,
    f: impl FnOnce(&mut Ctx<'_>) -> mlua::Result<R>,
) -> mlua::Result<R> {
    with_ctx(lua, caller, what, |ctx| {
        if ctx.state().is_over() {
            let who = match ctx.state().winner() {
                // The default player is called "you": "you have won", not "you has won".
                Some(p) if ctx.state().name(p).eq_ignore_ascii_case("you") => "you have won".to_string(),
                Some(p) => format!("{} has won", ctx.state().name(p)),
                None => "it ended in a draw".to_string(),
            };
            return Err(Sandbox::raise(
                lua,
                format!("{what} cannot change the game: it is over ({who}); check ctx:is_over() after a move"),
            ));
        }
        f(ctx)
    })
}

/// Removes the latest loose copy of `card`; false if it is not loose.
fn remove_loose(card: Card) -> bool {
    SLOT.with_borrow_mut(|s| match s.loose.iter().rposition(|(c, _)| *c == card) {
        Some(i) => {
            s.loose.remove(i);
            true
        }
        None => false,
    })
}

/// Takes `card` out of the loose cards (it is being handed to a built-in effect).
pub(crate) fn hand_over(lua: &Lua, card: Card) -> mlua::Result<()> {
    if remove_loose(card) {
        Ok(())
    } else {
        Err(Sandbox::raise(lua, format!("{card} is not in play (it was already discarded or placed)")))
    }
}

/// Gives a loose card back (the built-in effect it was handed to failed before placing it).
pub(crate) fn take_back(card: Card) {
    SLOT.with_borrow_mut(|s| s.loose.push((card, None)));
}

/// Makes `card` loose: the calling mod took it out of its place (`ctx:take_front`,
/// `ctx:take_hand`), at the line that called, which an error names if it is left there.
pub(crate) fn take_up(lua: &Lua, card: Card) {
    let line = Sandbox::calling_line(lua);
    SLOT.with_borrow_mut(|s| s.loose.push((card, line)));
}

/// Removes a loose card for `ctx:discard` / `ctx:place_front`.
pub(crate) fn take_loose(card: Card) -> Result<(), EffectError> {
    if remove_loose(card) {
        Ok(())
    } else {
        Err(EffectError::new(format!(
            "{card} is not in play: only the card being played and cards taken with ctx:take_front can be moved"
        )))
    }
}

#[cfg(test)]
mod tests {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::Arc;

    use crate::core::{Game, Registry, Rules, Setup, SetupError};
    use crate::script::args::HandlerArgs;

    use super::*;

    /// `start(ctx)` keeps its ctx in `saved` and dives; `peek()` reads through `saved`.
    const CODE: &str = "function start(ctx) saved = ctx ctx:dive(1, 5) end\nfunction peek() return saved:depth(1) end";

    /// What the tests run: a sandbox with the ctx functions, and `start` and `peek` of `CODE`.
    struct Scene {
        sandbox: Arc<Sandbox>,
        owner: Owner,
        args: Arc<HandlerArgs>,
        start: Function,
        peek: Function,
    }

    fn scene() -> Scene {
        let sandbox = Sandbox::new("test").unwrap();
        let (owner, args) = super::super::api::ctx_for_tests(sandbox.lua()).unwrap();
        let env = sandbox.load("t.lua", CODE).unwrap().env;
        let (start, peek) = (env.get("start").unwrap(), env.get("peek").unwrap());
        Scene { sandbox: Arc::new(sandbox), owner, args: Arc::new(args), start, peek }
    }

    impl Scene {
        /// `peek()` now.
        fn peek(&self) -> Result<i64, String> {
            self.sandbox.call::<i64>(&self.peek, ()).map_err(|e| e.to_string())
        }

        /// A game whose first turn start runs `start` as a write handler and whose
        /// after-move hook is `after_move`.
        fn game(
            &self,
            after_move: impl Fn(&mut Ctx<'_>) -> Result<(), EffectError> + Send + Sync + 'static,
        ) -> Result<Game, SetupError> {
            let mut registry = Registry::standard();
            let (sandbox, args, owner, start) =
                (Arc::clone(&self.sandbox), Arc::clone(&self.args), self.owner, self.start.clone());
            registry.add_turn_start(Arc::new(move |ctx: &mut Ctx<'_>, _| {
                let object = CtxObject { owner, table: args.ctx().unwrap(), script: Arc::default() };
                run_write(ctx, &start, None, object, |c| {
                    sandbox.call::<()>(&start, c).map_err(|e| EffectError::new(format!("mod {e}")))
                })
            }));
            registry.add_after_move(Arc::new(move |ctx: &mut Ctx<'_>, _, _, _| after_move(ctx)));
            let setup = Setup { names: vec!["Ann".into(), "Bob".into()], seed: 1, deck: None };
            Game::new(Arc::new(Rules::default()), Arc::new(registry), setup)
        }
    }

    const CLOSED: &str = "t.lua:2: ctx can only be used while a handler runs: call ctx functions inside the \
                          functions you register with diving.effect, diving.wrap or a hook, not at the top \
                          level of the mod file or from a ctx kept in a variable";

    #[test]
    fn a_ctx_used_after_its_handler_call_is_an_error() {
        let lua = scene();
        lua.game(|_| Ok(())).unwrap();
        assert_eq!(lua.peek().unwrap_err(), CLOSED);
    }

    /// Lua code run from inside a `ctx` function without a handler call of its own (here by a
    /// Rust after-move hook under `ctx:dive`) finds the loan taken: a clean error, and the slot
    /// is as it was afterwards.
    #[test]
    fn a_ctx_used_from_inside_a_ctx_function_is_an_error() {
        let lua = scene();
        let (sandbox, peek) = (Arc::clone(&lua.sandbox), lua.peek.clone());
        let e = lua
            .game(move |_| sandbox.call::<i64>(&peek, ()).map(drop).map_err(|e| EffectError::new(format!("mod {e}"))))
            .unwrap_err();
        assert_eq!(e.to_string(), "mod t.lua:2: ctx cannot be used from inside another ctx function");
        assert_eq!(lua.peek().unwrap_err(), CLOSED);
    }

    /// A panic under a handler (here in a Rust hook under `ctx:dive`) goes through Lua and
    /// leaves the slot closed and the nesting at zero.
    #[test]
    fn a_panic_under_a_handler_leaves_the_slot_closed() {
        let lua = scene();
        let outcome = catch_unwind(AssertUnwindSafe(|| lua.game(|_| panic!("a bug under a handler"))));
        assert!(outcome.is_err(), "the panic goes through");
        assert_eq!(lua.peek().unwrap_err(), CLOSED);
        assert_eq!(SLOT.with_borrow(|s| s.depth), 0);
    }
}
