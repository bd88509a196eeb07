//! The bridge between a running handler and the game: the `ctx` object mods see.
//!
//! Lua cannot hold a Rust reference, so while a handler runs, the game it works on is
//! *open* on the current thread, in a thread-local slot the `ctx` functions (created once per
//! Lua state) look up on every call:
//! - an effect or hook ([`run_write`]) gets the game *lent*: [`Ctx::lend`] moves the state
//!   into an owned [`Lent`], which is parked in the slot while the handler runs and handed
//!   back when it returns. A `ctx` function takes the loan out of the slot, acts on it through
//!   [`Lent::ctx`] (the same checked methods as any effect) and puts it back;
//! - a `targets` or `playable` function ([`run_read`]) only has `&State`: it gets a copy, made
//!   with `clone_from` into a spare state kept in the slot (no allocation once warm), and the
//!   write functions refuse to run.
//!
//! Nothing in the slot points anywhere: it owns what it holds, so no access can dangle or
//! alias, and there is no `unsafe` here. A nested handler (a hook run by `ctx:dive` inside an
//! effect) runs while the outer `ctx` function holds the outer loan; it lends from the context
//! it was given and parks its own loan, and puts back what it found when it ends, like a stack.
//! Guards restore the slot and the nesting depth on every exit path (a value, an error, a
//! budget error, a panic). A `ctx` function called while nothing is open, or from inside
//! another `ctx` function, fails with a Lua error naming the calling line.
//!
//! The bridge also keeps cards conserved: the card being played, and every card a handler
//! takes from in front of a diver, is *loose* until the handler discards it or places it
//! in front of someone; `ctx:discard` and `ctx:place_front` accept only loose cards, and a
//! handler that ends with a loose card, or with a different number of cards in the game, fails.

use std::cell::RefCell;

use mlua::{Function, Lua, LuaString, Table, Value};

use crate::core::{Card, Ctx, EffectError, Lent, Rank, Seat, Source, State, Suit};

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
/// Longest narration line.
const MAX_SAY: usize = 300;

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
fn with_game<R>(lua: &Lua, f: impl FnOnce(&State) -> mlua::Result<R>) -> mlua::Result<R> {
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
fn with_ctx<R>(lua: &Lua, what: &str, f: impl FnOnce(&mut Ctx<'_>) -> mlua::Result<R>) -> mlua::Result<R> {
    let mut taken = Taken::take(lua, what)?;
    match taken.ctx() {
        Some(mut ctx) => f(&mut ctx),
        None => Err(Refusal::Busy.raise(lua, what)),
    }
}

/// An [`EffectError`] raised inside Lua: a nested handler's message goes through unchanged,
/// anything else is located at the calling line.
pub(crate) fn effect_to_lua(lua: &Lua, e: EffectError) -> mlua::Error {
    match e.0.strip_prefix("mod ") {
        Some(located) => mlua::Error::external(super::sandbox::Passthrough(located.to_string())),
        None => Sandbox::raise(lua, e.0),
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

// ----- conversions -----

/// A seat from a Lua player number (1-based), checked against the number of players.
fn seat(lua: &Lua, players: usize, player: i64) -> mlua::Result<Seat> {
    let n = players;
    if player < 1 || player as usize > n {
        return Err(Sandbox::raise(lua, format!("there is no player {player} (players are 1…{n})")));
    }
    Ok(player as usize - 1)
}

/// Reads a rank: a number 1…13 or text `A 2 … 10 T J Q K`.
pub(crate) fn parse_rank(value: &Value) -> Option<Rank> {
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

pub(crate) fn rank_arg(lua: &Lua, value: &Value) -> mlua::Result<Rank> {
    parse_rank(value).ok_or_else(|| {
        Sandbox::raise(
            lua,
            format!("{} is not a rank (use 1…13 or \"A\", \"2\" … \"10\", \"J\", \"Q\", \"K\")", show(value)),
        )
    })
}

pub(crate) fn card_arg(lua: &Lua, value: &Value) -> mlua::Result<Card> {
    let parsed = match value {
        Value::String(s) => s.to_str().ok().and_then(|t| t.parse::<Card>().ok()),
        _ => None,
    };
    parsed.ok_or_else(|| Sandbox::raise(lua, format!("{} is not a card (write it like \"7H\" or \"QS\")", show(value))))
}

/// A short description of a Lua value for error messages.
pub(crate) fn show(value: &Value) -> String {
    match value {
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(n) => n.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("\"{}\"", s.to_string_lossy().chars().take(40).collect::<String>()),
        other => other.type_name().to_string(),
    }
}

/// The `math` table mods see: Luau's own, except that `math.random` draws from the game's
/// seeded RNG (Luau seeds its generator from the clock, which would make games unrepeatable)
/// and `math.randomseed` is refused. The usual forms work inside a handler: `math.random()`
/// (a number in [0, 1)), `math.random(n)` (1…n) and `math.random(m, n)` (m…n).
pub(crate) fn seeded_math(lua: &Lua) -> mlua::Result<Table> {
    let math: Table = lua.globals().get("math")?;
    let copy = lua.create_table()?;
    for pair in math.pairs::<Value, Value>() {
        let (key, value) = pair?;
        copy.raw_set(key, value)?;
    }
    let random = lua.create_function(|lua, args: mlua::Variadic<Value>| {
        const SPAN: i64 = 1_000_000_000;
        let (low, high) = match args.len() {
            0 => {
                let n = with_ctx(lua, "random", |ctx| Ok(ctx.random(SPAN as u32)))?;
                return Ok(Value::Number(n as f64 / SPAN as f64));
            }
            1 => (1, int_arg(lua, &args[0], "math.random's bound")?),
            _ => (
                int_arg(lua, &args[0], "math.random's low bound")?,
                int_arg(lua, &args[1], "math.random's high bound")?,
            ),
        };
        let span = high.saturating_sub(low).saturating_add(1);
        if !(1..=SPAN).contains(&span) {
            return Err(Sandbox::raise(lua, format!("math.random({low}, {high}) needs 1 to {SPAN} possible values")));
        }
        let n = with_ctx(lua, "random", |ctx| Ok(ctx.random(span as u32)))?;
        Ok(Value::Integer(low + n as i64))
    })?;
    copy.raw_set("random", random)?;
    let randomseed = lua.create_function(|lua, _: mlua::Variadic<Value>| -> mlua::Result<()> {
        Err(Sandbox::raise(lua, "math.randomseed is not available: mods draw from the game's seeded random numbers"))
    })?;
    copy.raw_set("randomseed", randomseed)?;
    Ok(copy)
}

fn int_arg(lua: &Lua, value: &Value, what: &str) -> mlua::Result<i64> {
    match value {
        Value::Integer(n) => Ok(*n),
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => Ok(*n as i64),
        other => Err(Sandbox::raise(lua, format!("{what} must be a whole number, got {}", show(other)))),
    }
}

/// The 52 card names as Lua strings, made once so handing a card to Lua allocates nothing.
pub(crate) struct Names {
    cards: Vec<LuaString>,
    pub(crate) keys: Keys,
    /// Builds a `play` table from its fields in one call (setting the fields one by one
    /// from Rust costs a protected call each under the memory limit).
    make_play: Function,
    /// Reads a `play` table back in one call, as plain numbers (see `PLAY`).
    unpack_play: Function,
}

/// The `play` table's constructor and reader, given the card names, ranks and suit letters
/// by card number (1…52, `Names::number`) and the names back to numbers. Only numbers and
/// booleans cross to Rust: a string crossing costs a registry reference each way, and a
/// card name would have to be parsed. Absent fields (`slot`, `target`) are passed as nil,
/// which a table constructor leaves unset. The reader uses `rawget`, as `Table::raw_get`
/// does; a field it cannot turn into a number is read again from Rust for the error.
const PLAY: &str = "local cards, ranks, suits, numbers = ... \
    local rawget = rawget \
    local function make(player, card, on_table, slot, target, on_top) \
        return { player = player, card = cards[card], rank = ranks[card], suit = suits[card], \
        from = on_table and 'table' or 'hand', slot = slot, target = target, on_top = on_top } end \
    local function unpack(p) \
        return rawget(p, 'player'), numbers[rawget(p, 'card')], rawget(p, 'target'), rawget(p, 'slot'), \
        rawget(p, 'on_top') == true end \
    return make, unpack";

/// Field names of the `play` table.
pub(crate) struct Keys {
    pub player: LuaString,
    pub card: LuaString,
    pub slot: LuaString,
    pub target: LuaString,
    pub on_top: LuaString,
}

impl Names {
    pub(crate) fn new(lua: &Lua) -> mlua::Result<Names> {
        let cards: Vec<LuaString> =
            Names::all_cards().map(|card| lua.create_string(card.to_string())).collect::<mlua::Result<_>>()?;
        let s = |t: &str| lua.create_string(t);
        let keys = Keys {
            player: s("player")?,
            card: s("card")?,
            slot: s("slot")?,
            target: s("target")?,
            on_top: s("on_top")?,
        };
        // What `PLAY` needs by card number, and the names back to numbers.
        let names = lua.create_sequence_from(cards.iter().cloned())?;
        let ranks = lua.create_sequence_from(Names::all_cards().map(|card| card.rank.number()))?;
        let suits = lua.create_sequence_from(Names::all_cards().map(|card| suit_letter(card.suit)))?;
        let numbers = lua.create_table_from(Names::all_cards().map(|card| (card.to_string(), Names::number(card))))?;
        let (make_play, unpack_play) =
            lua.load(PLAY).set_name("=play").call::<(Function, Function)>((names, ranks, suits, numbers))?;
        Ok(Names { cards, keys, make_play, unpack_play })
    }

    /// Every card in card-number order: `Names::number` is its position, from 1.
    fn all_cards() -> impl Iterator<Item = Card> {
        Suit::ALL.into_iter().flat_map(|suit| Rank::all().map(move |rank| Card::new(rank, suit)))
    }

    /// The card with this number (see [`Names::number`]).
    fn card_numbered(number: i64) -> Option<Card> {
        let i = usize::try_from(number.checked_sub(1)?).ok()?;
        let suit = *Suit::ALL.get(i / 13)?;
        Some(Card::new(Rank::new((i % 13 + 1) as u8)?, suit))
    }

    /// A card's number, 1…52, in the order of `all_cards`.
    fn number(card: Card) -> i64 {
        (card.suit.index() * 13 + card.rank.number() as usize) as i64
    }

    pub(crate) fn card(&self, card: Card) -> LuaString {
        self.cards[Names::number(card) as usize - 1].clone()
    }

    /// The `play` table a resolve handler receives.
    pub(crate) fn play_table(&self, _lua: &Lua, play: &crate::core::Play) -> mlua::Result<Table> {
        let (on_table, slot) = match play.from {
            Source::Hand => (false, None),
            Source::Table(slot) => (true, Some(slot as i64 + 1)),
        };
        self.make_play.call((
            play.player as i64 + 1,
            Names::number(play.card),
            on_table,
            slot,
            play.target.map(|t| t as i64 + 1),
            play.face_on_top,
        ))
    }

    /// Reads back a `play` table a handler passes to `previous`.
    pub(crate) fn read_play(&self, lua: &Lua, players: usize, t: &Table) -> mlua::Result<crate::core::Play> {
        let (player, card, target, slot, face_on_top): (Value, Value, Value, Value, bool) = self.unpack_play.call(t)?;
        // Fields as `play_table` wrote them (or changed to other valid numbers) are taken as
        // they are; anything else is read again below, for the same answer or error as ever.
        let fast = || -> Option<mlua::Result<crate::core::Play>> {
            let Value::Integer(player) = player else { return None };
            let Value::Integer(number) = card else { return None };
            let card = Names::card_numbered(number)?;
            let target = match target {
                Value::Nil => None,
                Value::Integer(n) => Some(n),
                _ => return None,
            };
            let from = match slot {
                Value::Nil => Source::Hand,
                Value::Integer(n) => Source::Table((n.max(1) - 1) as usize),
                _ => return None,
            };
            Some((|| {
                let player = seat(lua, players, player)?;
                let target = target.map(|n| seat(lua, players, n)).transpose()?;
                Ok(crate::core::Play { player, card, from, target, face_on_top })
            })())
        };
        if let Some(play) = fast() {
            return play;
        }
        self.read_play_slowly(lua, players, t)
    }

    /// [`Names::read_play`] field by field, with an error naming the first bad field.
    fn read_play_slowly(&self, lua: &Lua, players: usize, t: &Table) -> mlua::Result<crate::core::Play> {
        let k = &self.keys;
        let player = seat(lua, players, int_arg(lua, &t.raw_get::<Value>(&k.player)?, "play.player")?)?;
        let card = card_arg(lua, &t.raw_get::<Value>(&k.card)?)?;
        let target = match t.raw_get::<Value>(&k.target)? {
            Value::Nil => None,
            v => Some(seat(lua, players, int_arg(lua, &v, "play.target")?)?),
        };
        let from = match t.raw_get::<Value>(&k.slot)? {
            Value::Nil => Source::Hand,
            v => Source::Table((int_arg(lua, &v, "play.slot")?.max(1) - 1) as usize),
        };
        let face_on_top = matches!(t.raw_get::<Value>(&k.on_top)?, Value::Boolean(true));
        Ok(crate::core::Play { player, card, from, target, face_on_top })
    }
}

pub(crate) fn suit_letter(suit: Suit) -> &'static str {
    match suit {
        Suit::Spades => "S",
        Suit::Hearts => "H",
        Suit::Diamonds => "D",
        Suit::Clubs => "C",
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

/// Runs a built-in step on the open context (for `previous` functions).
pub(crate) fn with_open_ctx<R>(lua: &Lua, f: impl FnOnce(&mut Ctx<'_>) -> mlua::Result<R>) -> mlua::Result<R> {
    with_ctx(lua, "previous", f)
}

/// Runs `f` with the open game (for `previous` functions that must read it first); `f` must
/// not call into Lua.
pub(crate) fn with_open_game<R>(lua: &Lua, f: impl FnOnce(&State) -> mlua::Result<R>) -> mlua::Result<R> {
    with_game(lua, f)
}

// ----- the ctx object -----

/// Builds the `ctx` table: one set of functions per Lua state, frozen by the caller.
pub(crate) fn ctx_table(lua: &Lua, names: std::sync::Arc<Names>) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    macro_rules! read {
        ($name:literal, |$lua:ident, $game:ident, $args:ident: $ty:ty| $body:expr) => {
            t.raw_set(
                $name,
                lua.create_function(move |$lua, (this, $args): (Value, $ty)| {
                    colon($lua, &this, $name)?;
                    with_game($lua, |$game| $body)
                })?,
            )?;
        };
    }
    macro_rules! write {
        ($name:literal, |$lua:ident, $args:ident: $ty:ty| $body:expr) => {
            t.raw_set(
                $name,
                lua.create_function(move |$lua, (this, $args): (Value, $ty)| {
                    colon($lua, &this, $name)?;
                    $body
                })?,
            )?;
        };
    }
    let _ = &names;

    // Reading.
    read!("players", |lua, game, _a: ()| Ok(game.player_count() as i64));
    read!("current", |lua, game, _a: ()| Ok(game.current() as i64 + 1));
    read!("turn", |lua, game, _a: ()| Ok(game.turn() as i64));
    read!("name", |lua, game, p: Value| {
        let p = seat_arg(lua, game, &p)?;
        Ok(game.name(p).to_string())
    });
    read!("depth", |lua, game, p: Value| {
        let p = seat_arg(lua, game, &p)?;
        Ok(game.player(p).depth as i64)
    });
    read!("oxygen", |lua, game, p: Value| {
        let p = seat_arg(lua, game, &p)?;
        Ok(game.player(p).oxygen as i64)
    });
    read!("hand_size", |lua, game, p: Value| {
        let p = seat_arg(lua, game, &p)?;
        Ok(game.player(p).hand.len() as i64)
    });
    let n = names.clone();
    read!("front", |lua, game, p: Value| {
        let p = seat_arg(lua, game, &p)?;
        lua.create_sequence_from(game.player(p).front.iter().map(|c| n.card(*c)))
    });
    read!("has_front", |lua, game, a: (Value, Value)| {
        let p = seat_arg(lua, game, &a.0)?;
        let rank = rank_arg(lua, &a.1)?;
        Ok(game.player(p).has_front(rank))
    });
    let n = names.clone();
    read!("discard_top", |lua, game, _a: ()| Ok(game.discard_top().map(|c| n.card(c))));
    read!("deck_size", |lua, game, _a: ()| Ok(game.deck_size() as i64));
    read!("max_depth", |lua, game, _a: ()| Ok(game.rules().max_depth as i64));
    read!("max_oxygen", |lua, game, _a: ()| Ok(game.rules().max_oxygen as i64));
    read!("is_over", |lua, game, _a: ()| Ok(game.is_over()));
    read!("winner", |lua, game, _a: ()| Ok(game.winner().map(|s| s as i64 + 1)));

    // Changing.
    write!("set_depth", |lua, a: (Value, Value)| {
        with_ctx(lua, "set_depth", |ctx| {
            let (p, d) = args2(lua, ctx.state(), &a, "the depth")?;
            ctx.set_depth(p, d).in_lua(lua)
        })
    });
    write!("set_oxygen", |lua, a: (Value, Value)| {
        with_ctx(lua, "set_oxygen", |ctx| {
            let (p, o) = args2(lua, ctx.state(), &a, "the oxygen")?;
            ctx.set_oxygen(p, o).in_lua(lua)
        })
    });
    write!("dive", |lua, a: (Value, Value)| {
        with_ctx(lua, "dive", |ctx| {
            let (p, d) = args2(lua, ctx.state(), &a, "the distance")?;
            ctx.dive(p, d).in_lua(lua)
        })
    });
    write!("breathe", |lua, p: Value| {
        with_ctx(lua, "breathe", |ctx| {
            let p = seat_arg(lua, ctx.state(), &p)?;
            ctx.breathe(p).in_lua(lua)
        })
    });
    write!("check_win", |lua, p: Value| {
        with_ctx(lua, "check_win", |ctx| {
            let p = seat_arg(lua, ctx.state(), &p)?;
            ctx.check_win(p).in_lua(lua)
        })
    });
    write!("discard", |lua, c: Value| {
        let card = card_arg(lua, &c)?;
        with_ctx(lua, "discard", |ctx| {
            take_loose(card).in_lua(lua)?;
            ctx.discard(card);
            Ok(())
        })
    });
    write!("place_front", |lua, a: (Value, Value)| {
        let card = card_arg(lua, &a.1)?;
        with_ctx(lua, "place_front", |ctx| {
            let target = seat_arg(lua, ctx.state(), &a.0)?;
            take_loose(card).in_lua(lua)?;
            let player = ctx.state().current();
            ctx.place_front(player, target, card).inspect_err(|_| take_back(card)).in_lua(lua)
        })
    });
    let n = names.clone();
    write!("take_front", |lua, a: (Value, Value)| {
        let rank = rank_arg(lua, &a.1)?;
        let card = with_ctx(lua, "take_front", |ctx| {
            let p = seat_arg(lua, ctx.state(), &a.0)?;
            Ok(ctx.take_front(p, rank))
        })?;
        Ok(card.map(|c| {
            take_back(c);
            n.card(c)
        }))
    });
    write!("draw", |lua, p: Value| {
        with_ctx(lua, "draw", |ctx| {
            let p = seat_arg(lua, ctx.state(), &p)?;
            ctx.draw_to_hand(p).in_lua(lua)
        })
    });
    write!("say", |lua, text: Value| {
        let text = match &text {
            Value::String(s) => s.to_string_lossy(),
            Value::Integer(_) | Value::Number(_) | Value::Boolean(_) => show(&text),
            other => return Err(Sandbox::raise(lua, format!("ctx:say needs text, got {}", show(other)))),
        };
        let mut text: String = text.chars().take(MAX_SAY).collect();
        text.retain(|c| !c.is_control() || c == '\t');
        with_ctx(lua, "say", |ctx| {
            ctx.say(text);
            Ok(())
        })
    });
    write!("random", |lua, n: Value| {
        let n = int_arg(lua, &n, "ctx:random's bound")?;
        if !(1..=1_000_000_000).contains(&n) {
            return Err(Sandbox::raise(lua, format!("ctx:random(n) needs 1 ≤ n ≤ 1000000000, got {n}")));
        }
        with_ctx(lua, "random", |ctx| Ok(ctx.random(n as u32) as i64 + 1))
    });
    write!("number_value", |lua, a: (Value, Value)| {
        let card = card_arg(lua, &a.1)?;
        if card.value().is_none() {
            return Err(Sandbox::raise(lua, format!("{card} is not a number card")));
        }
        with_ctx(lua, "number_value", |ctx| {
            let p = seat_arg(lua, ctx.state(), &a.0)?;
            Ok(ctx.number_value(p, card) as i64)
        })
    });
    Ok(t)
}

/// Checks that a ctx function was called with a colon (`ctx:depth(1)`, not `ctx.depth(1)`).
fn colon(lua: &Lua, this: &Value, name: &str) -> mlua::Result<()> {
    match this {
        Value::Table(_) => Ok(()),
        _ => Err(Sandbox::raise(lua, format!("call ctx functions with a colon: ctx:{name}(…)"))),
    }
}

/// Removes a loose card for `ctx:discard` / `ctx:place_front`.
fn take_loose(card: Card) -> Result<(), EffectError> {
    if remove_loose(card) {
        Ok(())
    } else {
        Err(EffectError(format!(
            "{card} is not in play: only the card being played and cards taken with ctx:take_front can be moved"
        )))
    }
}

/// A seat from a Lua player number, checked against the game.
pub(crate) fn seat_arg(lua: &Lua, game: &State, p: &Value) -> mlua::Result<Seat> {
    seat(lua, game.player_count(), int_arg(lua, p, "the player")?)
}

fn args2(lua: &Lua, game: &State, a: &(Value, Value), what: &str) -> mlua::Result<(Seat, i64)> {
    Ok((seat_arg(lua, game, &a.0)?, int_arg(lua, &a.1, what)?))
}

/// Calls a Lua function that must be a handler.
pub(crate) fn function_arg(lua: &Lua, value: Value, what: &str) -> mlua::Result<Function> {
    match value {
        Value::Function(f) => Ok(f),
        other => Err(Sandbox::raise(lua, format!("{what} must be a function, got {}", show(&other)))),
    }
}

#[cfg(test)]
mod tests {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::Arc;

    use crate::core::{Game, Registry, Rules, Setup, SetupError};

    use super::*;

    /// A sandbox with the ctx functions as the global `ctx`, and the globals of `code`.
    fn with_ctx_global(code: &str) -> (Arc<Sandbox>, Table) {
        let sandbox = Sandbox::new("test").unwrap();
        let ctx = ctx_table(sandbox.lua(), Arc::new(Names::new(sandbox.lua()).unwrap())).unwrap();
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

    #[test]
    fn card_numbers_run_1_to_52_in_card_order() {
        for (i, card) in Names::all_cards().enumerate() {
            assert_eq!(Names::number(card), i as i64 + 1, "{card}");
            assert_eq!(Names::card_numbered(i as i64 + 1), Some(card));
        }
        assert_eq!(Names::all_cards().count(), 52);
        assert_eq!(Names::card_numbered(0), None);
        assert_eq!(Names::card_numbered(53), None);
    }
}
