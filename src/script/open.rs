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
//! the nesting depth on every exit path (a value, an error, a budget error, a panic). A `ctx`
//! function called while nothing is open, or from inside another `ctx` function, fails with
//! a Lua error naming the calling line.
//!
//! The slot also keeps cards conserved: the card being played, and every card a handler
//! takes from in front of a diver, is *loose* until the handler discards it or places it
//! in front of someone; `ctx:discard` and `ctx:place_front` accept only loose cards
//! ([`take_loose`]), and a handler that ends with a loose card, or with a different number of
//! cards in the game, fails.

use std::cell::RefCell;

use mlua::{Function, Lua};

use crate::core::{Card, Ctx, EffectError, Lent, State};

use super::sandbox::Sandbox;

/// What the running handler on this thread may touch.
enum Open {
    /// No handler runs.
    Closed,
    /// A `targets` or `playable` function runs: it reads this copy of the game.
    Read(State),
    /// An effect or hook runs: the game is lent to it.
    Write(Lent),
    /// A `ctx` function has taken the loan out of the slot to act on it.
    Busy,
}

/// Most handlers nested inside one another (a hook that dives, running hooks that dive …).
const MAX_NESTING: usize = 24;
/// Most changes (`ctx:say`, `ctx:dive` …) the handlers of one action may make.
const MAX_WRITES: u32 = 10_000;

/// The current thread's handlers: what is open to the innermost one, and what they share.
struct Slot {
    open: Open,
    /// Cards in play: out of their place, not yet discarded or placed (bottom: outermost).
    loose: Vec<Card>,
    /// How many handlers are running, nested in one another.
    depth: usize,
    /// Changes made by the handlers of the action running now.
    writes: u32,
    /// The last read copy, kept so the next one reuses its buffers.
    spare: Option<State>,
}

thread_local! {
    static SLOT: RefCell<Slot> = const {
        RefCell::new(Slot { open: Open::Closed, loose: Vec::new(), depth: 0, writes: 0, spare: None })
    };
}

/// One more handler in the nesting, for as long as it runs.
struct Nesting;

impl Nesting {
    fn enter() -> Result<Nesting, EffectError> {
        let depth = SLOT.with_borrow_mut(|s| {
            if s.depth == 0 {
                s.writes = 0;
                s.loose.clear();
            }
            s.depth += 1;
            s.depth
        });
        let nesting = Nesting;
        if depth > MAX_NESTING {
            return Err(EffectError(format!(
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
struct Taken(Option<Lent>);

impl Taken {
    /// Takes the open loan for a change named `what`.
    fn take(lua: &Lua, what: &str) -> mlua::Result<Taken> {
        let taken = SLOT.with_borrow_mut(|s| match std::mem::replace(&mut s.open, Open::Busy) {
            Open::Write(lent) if s.writes >= MAX_WRITES => {
                s.open = Open::Write(lent);
                Err(Refusal::TooMany)
            }
            Open::Write(lent) => {
                s.writes += 1;
                Ok(lent)
            }
            other => {
                let refusal = Refusal::of(&other);
                s.open = other;
                Err(refusal)
            }
        });
        match taken {
            Ok(lent) => Ok(Taken(Some(lent))),
            Err(refusal) => Err(refusal.raise(lua, what)),
        }
    }

    fn ctx(&mut self) -> Option<Ctx<'_>> {
        self.0.as_mut().map(Lent::ctx)
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        if let Some(lent) = self.0.take() {
            let busy = SLOT.with_borrow_mut(|s| std::mem::replace(&mut s.open, Open::Write(lent)));
            drop(busy);
        }
    }
}

/// Why a `ctx` function cannot run now.
enum Refusal {
    Closed,
    ReadOnly,
    Busy,
    TooMany,
}

impl Refusal {
    fn of(open: &Open) -> Refusal {
        match open {
            Open::Closed => Refusal::Closed,
            Open::Read(_) => Refusal::ReadOnly,
            Open::Write(_) | Open::Busy => Refusal::Busy,
        }
    }

    fn raise(self, lua: &Lua, what: &str) -> mlua::Error {
        match self {
            Refusal::Closed => Sandbox::raise(lua, "ctx can only be used while a handler runs"),
            Refusal::ReadOnly => Sandbox::raise(
                lua,
                format!("ctx:{what} cannot be used here: target and playable functions only read the game"),
            ),
            Refusal::Busy => Sandbox::raise(lua, "ctx cannot be used from inside another ctx function"),
            Refusal::TooMany => Sandbox::raise(lua, format!("more than {MAX_WRITES} changes in one action")),
        }
    }
}

fn loose_len() -> usize {
    SLOT.with_borrow(|s| s.loose.len())
}

/// `mod <file>:<line>: ` in front of an error about `handler` as a whole.
fn located(handler: &Function, e: EffectError) -> EffectError {
    EffectError(format!("mod {}: {}", site(handler), e.0))
}

/// Runs `call` with the game of `ctx` lent to the handler. `played` is the card an effect
/// handler receives (loose until the handler puts it somewhere). The handler fails if it
/// leaves a card loose or changes the number of cards in the game.
pub(crate) fn run_write<R>(
    ctx: &mut Ctx<'_>,
    handler: &Function,
    played: Option<Card>,
    call: impl FnOnce() -> Result<R, EffectError>,
) -> Result<R, EffectError> {
    let nesting = Nesting::enter().map_err(|e| located(handler, e))?;
    let base = loose_len();
    let total = ctx.state().card_count() + base + usize::from(played.is_some());
    if let Some(card) = played {
        SLOT.with_borrow_mut(|s| s.loose.push(card));
    }
    let result = ctx.lend(|lent| {
        let parked = Parked::park(Open::Write(lent));
        let result = call();
        match parked.unpark() {
            Open::Write(lent) => (lent, result),
            _ => unreachable!("a ctx function puts the loan back before it returns"),
        }
    });
    let (left, now) = SLOT.with_borrow_mut(|s| {
        let left: Vec<Card> = s.loose.get(base..).map(<[Card]>::to_vec).unwrap_or_default();
        let now = ctx.state().card_count() + s.loose.len();
        s.loose.truncate(base);
        (left, now)
    });
    drop(nesting);
    let value = result?;
    if !left.is_empty() {
        let cards: Vec<String> = left.iter().map(Card::to_string).collect();
        return Err(located(
            handler,
            EffectError(format!(
                "the handler ended with {} still in play: discard it or place it in front of someone",
                cards.join(" ")
            )),
        ));
    }
    if now != total {
        return Err(located(
            handler,
            EffectError(format!("the handler changed the number of cards in the game ({total} → {now})")),
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
    call: impl FnOnce() -> Result<R, EffectError>,
) -> Result<R, EffectError> {
    let _nesting = Nesting::enter().map_err(|e| located(handler, e))?;
    let copy = match SLOT.with_borrow_mut(|s| s.spare.take()) {
        Some(mut spare) => {
            spare.clone_from(game);
            spare
        }
        None => game.clone(),
    };
    let parked = Parked::park(Open::Read(copy));
    let result = call();
    if let Open::Read(copy) = parked.unpark() {
        SLOT.with_borrow_mut(|s| s.spare = Some(copy));
    }
    result
}

/// The open game, for reading. `f` must not call into Lua.
pub(crate) fn with_game<R>(lua: &Lua, f: impl FnOnce(&State) -> mlua::Result<R>) -> mlua::Result<R> {
    SLOT.with(|slot| {
        let Ok(slot) = slot.try_borrow() else {
            return Err(Refusal::Busy.raise(lua, "read"));
        };
        match &slot.open {
            Open::Read(game) => f(game),
            Open::Write(lent) => f(lent.state()),
            other => Err(Refusal::of(other).raise(lua, "read")),
        }
    })
}

/// Runs `f` on the open context, for a change named `what`.
pub(crate) fn with_ctx<R>(lua: &Lua, what: &str, f: impl FnOnce(&mut Ctx<'_>) -> mlua::Result<R>) -> mlua::Result<R> {
    let mut taken = Taken::take(lua, what)?;
    match taken.ctx() {
        Some(mut ctx) => f(&mut ctx),
        None => Err(Refusal::Busy.raise(lua, what)),
    }
}

/// Removes the latest loose copy of `card`; false if it is not loose.
fn remove_loose(card: Card) -> bool {
    SLOT.with_borrow_mut(|s| match s.loose.iter().rposition(|c| *c == card) {
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
    SLOT.with_borrow_mut(|s| s.loose.push(card));
}

/// Removes a loose card for `ctx:discard` / `ctx:place_front`.
pub(crate) fn take_loose(card: Card) -> Result<(), EffectError> {
    if remove_loose(card) {
        Ok(())
    } else {
        Err(EffectError(format!(
            "{card} is not in play: only the card being played and cards taken with ctx:take_front can be moved"
        )))
    }
}

#[cfg(test)]
mod tests {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::Arc;

    use mlua::Table;

    use crate::core::{Game, Registry, Rules, Setup, SetupError};

    use super::*;

    /// A sandbox with the ctx functions as the global `ctx`, and the globals of `code`.
    fn with_ctx_global(code: &str) -> (Arc<Sandbox>, Table) {
        let sandbox = Sandbox::new("test").unwrap();
        let ctx = super::super::api::ctx_for_tests(sandbox.lua()).unwrap();
        sandbox.freeze(&ctx).unwrap();
        sandbox.expose("ctx", ctx).unwrap();
        let env = sandbox.load("t.lua", code).unwrap().env;
        (Arc::new(sandbox), env)
    }

    /// A game whose first turn start runs the Lua function `start` as a write handler and
    /// whose after-move hook is `after_move`.
    fn game(
        sandbox: &Arc<Sandbox>,
        start: Function,
        after_move: impl Fn(&mut Ctx<'_>) -> Result<(), EffectError> + Send + Sync + 'static,
    ) -> Result<Game, SetupError> {
        let mut registry = Registry::standard();
        let s = Arc::clone(sandbox);
        registry.add_turn_start(Arc::new(move |ctx: &mut Ctx<'_>, _| {
            run_write(ctx, &start, None, || s.call::<()>(&start, ()).map_err(|e| EffectError(format!("mod {e}"))))
        }));
        registry.add_after_move(Arc::new(move |ctx: &mut Ctx<'_>, _, _, _| after_move(ctx)));
        let setup = Setup { names: vec!["Ann".into(), "Bob".into()], seed: 1, deck: None };
        Game::new(Arc::new(Rules::default()), Arc::new(registry), setup)
    }

    const CLOSED: &str = "t.lua:2: ctx can only be used while a handler runs";

    #[test]
    fn ctx_used_while_no_handler_runs_is_an_error() {
        let (sandbox, env) = with_ctx_global("function peek()\n  return ctx:depth(1)\nend");
        let peek: Function = env.get("peek").unwrap();
        assert_eq!(sandbox.call::<i64>(&peek, ()).unwrap_err().to_string(), CLOSED);
    }

    /// Lua code run from inside a `ctx` function without a handler call of its own (here by a
    /// Rust after-move hook under `ctx:dive`) finds the loan taken: a clean error, and the slot
    /// is as it was afterwards.
    #[test]
    fn ctx_used_from_inside_a_ctx_function_is_an_error() {
        let code = "function start() ctx:dive(1, 5) end\nfunction peek() return ctx:depth(1) end";
        let (sandbox, env) = with_ctx_global(code);
        let (start, peek): (Function, Function) = (env.get("start").unwrap(), env.get("peek").unwrap());
        let s = Arc::clone(&sandbox);
        let p = peek.clone();
        let e = game(&sandbox, start, move |_| {
            s.call::<i64>(&p, ()).map(drop).map_err(|e| EffectError(format!("mod {e}")))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "mod t.lua:2: ctx cannot be used from inside another ctx function");
        assert_eq!(sandbox.call::<i64>(&peek, ()).unwrap_err().to_string(), CLOSED);
    }

    /// A panic under a handler (here in a Rust hook under `ctx:dive`) goes through Lua and
    /// leaves the slot closed and the nesting at zero.
    #[test]
    fn a_panic_under_a_handler_leaves_the_slot_closed() {
        let code = "function start() ctx:dive(1, 5) end\nfunction peek() return ctx:depth(1) end";
        let (sandbox, env) = with_ctx_global(code);
        let (start, peek): (Function, Function) = (env.get("start").unwrap(), env.get("peek").unwrap());
        let outcome = catch_unwind(AssertUnwindSafe(|| game(&sandbox, start, |_| panic!("a bug under a handler"))));
        assert!(outcome.is_err(), "the panic goes through");
        assert_eq!(sandbox.call::<i64>(&peek, ()).unwrap_err().to_string(), CLOSED);
        assert_eq!(SLOT.with_borrow(|s| s.depth), 0);
    }
}
