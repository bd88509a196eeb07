//! The effect registry: what each card rank does and every rule marked *(hook)* in the
//! decisions, as replaceable entries.
//!
//! The engine never matches on a rank to decide what a card does: it looks the rank up in the
//! game's [`Registry`]. The built-in behaviour (D8–D19) is only the default entries, built by
//! [`Registry::standard`]. A client (the Lua layer, a test) can [`set_effect`](Registry::set_effect)
//! to replace or wrap an entry (the previous entry is returned by [`Registry::effect`], so a
//! wrapper can call it), give a rank a brand-new effect, replace a hook, or add turn-start and
//! after-move hooks.
//!
//! The registry alone decides what is built in: its fields are private, every change goes
//! through a setter, and the engine asks it whether an action runs only built-in code. The
//! built-in cards (`Builtin`) and hooks are written once, here; the engine runs that code
//! directly while an entry is in place, and the [`Effect`] a mod gets to wrap runs the same.
//!
//! Entries are fallible: a scripted entry may fail, and then [`Game::apply`](super::Game::apply)
//! undoes the whole action. Built-in entries never fail once an action has been checked.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use super::action::{Action, Cards, Seat, Source};
use super::card::{Card, Rank};
use super::ctx::Ctx;
use super::event::{Event, EventSink};
use super::rules::Gain;
use super::state::State;

/// A failure inside an effect or hook (a scripted one, or a forbidden change such as a depth
/// out of range). The message says where, when it can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectError(pub String);

impl fmt::Display for EffectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EffectError {}

/// A set of seats, as a bit mask (seat 0 is bit 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Seats(pub u64);

impl Seats {
    pub fn insert(&mut self, seat: Seat) {
        self.0 |= 1 << seat;
    }
    pub fn contains(self, seat: Seat) -> bool {
        seat < 64 && self.0 & (1 << seat) != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    /// The seats in increasing order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let seat = bits.trailing_zeros() as Seat;
                bits &= bits - 1;
                seat
            })
        })
    }
}

impl FromIterator<Seat> for Seats {
    fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> Seats {
        let mut seats = Seats::default();
        for s in iter {
            seats.insert(s);
        }
        seats
    }
}

/// What a card asks of the player who wants to play it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Aim {
    /// It cannot be played now, and why.
    Blocked(Cow<'static, str>),
    /// It can be played, with these choices.
    Open {
        /// `Some(seats)`: a target must be picked among these. `None`: no target.
        targets: Option<Seats>,
        /// Whether the player may choose the order of cards going onto the discard.
        order_choice: bool,
    },
}

impl Aim {
    pub const FREE: Aim = Aim::Open { targets: None, order_choice: false };
}

/// The tricks waiting in front of a diver (D13–D16), as the built-in rules read them: what
/// their next number card or recovery will do. The built-in number card and its offer read
/// them here, and so do mods (`ctx:pending`), so the two cannot disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pending {
    /// A J lies in front: the next number card moves the diver up, and they choose the
    /// discard order (D13).
    pub jolt: bool,
    /// A Q lies in front and no J: the next number card is a Quick, adding the Quick extra and
    /// pushing another diver down (D14, D15). A J comes first, so `jolt` and `quick` are
    /// never both true.
    pub quick: bool,
    /// A K lies in front: the next recovery gains nothing (D16).
    pub knot: bool,
}

impl Pending {
    /// What lies in wait in front of `player`.
    #[inline(always)]
    pub fn of(player: &super::state::Player) -> Pending {
        let jolt = player.has_front(Rank::JACK);
        Pending { jolt, quick: !jolt && player.has_front(Rank::QUEEN), knot: player.has_front(Rank::KING) }
    }
}

/// A card being played, as the effect sees it: already out of the hand or slot, not yet
/// anywhere else. The effect must put it somewhere (discard or someone's front).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Play {
    pub player: Seat,
    pub card: Card,
    pub from: Source,
    pub target: Option<Seat>,
    pub face_on_top: bool,
}

/// The behaviour of one card rank: a registry entry.
pub trait Effect: Send + Sync {
    /// Whether `player` may play `card` now, and which choices it offers. Reads only.
    fn aim(&self, state: &State, player: Seat, card: Card) -> Result<Aim, EffectError>;
    /// Carries out the play.
    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError>;
    /// Whether [`Effect::aim`] gives the same answer for every card this entry serves, because
    /// it looks only at the state and the player. The engine may then ask once per listing of
    /// the legal plays for all the visible cards sharing this entry. The default is no.
    fn aim_ignores_card(&self) -> bool {
        false
    }
    /// The entry whose [`Effect::aim`] this one's is, when it only passes the question on
    /// (a mod wrapping an entry without changing what it can target). The registry then asks
    /// that entry instead. The default is `None`: this entry answers for itself.
    fn aim_delegate(&self) -> Option<Arc<dyn Effect>> {
        None
    }
    /// The question a player is asked when a play of this card needs a target, without the
    /// card and the names (`whom do you Jolt`).
    fn target_question(&self) -> &str {
        "which player"
    }
}

/// Oxygen spent by `player` after a move to `depth` (D10).
pub type OxygenCost = Arc<dyn Fn(&mut Ctx<'_>, Seat, u32) -> Result<u32, EffectError> + Send + Sync>;
/// Whether `player` has won after moving (D11, D20).
pub type WinCheck = Arc<dyn Fn(&mut Ctx<'_>, Seat) -> Result<bool, EffectError> + Send + Sync>;
/// What happens to `player` when their oxygen reaches 0 (D12).
pub type Rescue = Arc<dyn Fn(&mut Ctx<'_>, Seat) -> Result<(), EffectError> + Send + Sync>;
/// Oxygen gained by `player` discarding `cards` (D19).
pub type RecoveryGain = Arc<dyn Fn(&mut Ctx<'_>, Seat, &[Card]) -> Result<Gain, EffectError> + Send + Sync>;
/// Runs when `player`'s turn starts.
pub type TurnStart = Arc<dyn Fn(&mut Ctx<'_>, Seat) -> Result<(), EffectError> + Send + Sync>;
/// Runs after `player` moved from one depth to another, before the win check.
pub type AfterMove = Arc<dyn Fn(&mut Ctx<'_>, Seat, u32, u32) -> Result<(), EffectError> + Send + Sync>;

/// Every replaceable piece of behaviour: an entry per rank and every hook.
///
/// The fields are private: an entry or hook is changed only through its setter, and the
/// registry itself keeps track of what is still built in. The engine runs a built-in entry's
/// code directly (the same function its [`Effect`] implementation calls), and keeps an undo
/// copy only for actions that run anything else.
#[derive(Clone)]
pub struct Registry {
    cards: [Entry; 13],
    /// Per rank, the built-in card answering its `aim` as its [`Builtin`] index (`ASK`: an
    /// entry answers): what `cards[r].aim` says, kept beside it by `set_effect` for the
    /// listing to read per rank.
    aim_slots: [u16; 16],
    /// `None`: the built-in hook.
    oxygen_cost: Option<OxygenCost>,
    win_check: Option<WinCheck>,
    rescue: Option<Rescue>,
    recovery_gain: Option<RecoveryGain>,
    turn_start: Vec<TurnStart>,
    after_move: Vec<AfterMove>,
    /// The built-in card entries, to recognise where an `aim` delegation ends.
    builtins: [Arc<dyn Effect>; 4],
    /// For entries that keep state outside the game (a mod's Lua variables): how a copy of a
    /// game gets its own copy of that state. `None`: nothing to copy.
    copier: Option<Arc<dyn Copier>>,
}

/// How a registry whose entries keep state of their own, outside the [`State`] (a mod's Lua
/// variables), gives each copy of a game its own copy of that state, so that what a copy
/// does (a bot's look-ahead, a preview) never reaches the game it was copied from.
pub trait Copier: Send + Sync {
    /// A registry with the same entries, running on state of its own that starts as a copy of
    /// this registry's state as it is now. It is used by no other game.
    fn copy(&self) -> Arc<Registry>;
}

/// One rank's entry.
#[derive(Clone)]
struct Entry {
    effect: Arc<dyn Effect>,
    /// The built-in card this entry is, whose code the engine then runs directly; `None` for
    /// any other entry (a wrap of a built-in card included).
    builtin: Option<Builtin>,
    /// Who answers `aim` for this rank, with the delegation followed once, when it was set.
    aim: AimBy,
}

#[derive(Clone)]
enum AimBy {
    Builtin(Builtin),
    Entry(Arc<dyn Effect>),
}

impl Registry {
    /// The standard behaviour: number cards, Jolt, Quick, Knot, and the standard hooks.
    pub fn standard() -> Registry {
        let builtins: [Arc<dyn Effect>; 4] = Builtin::ALL.map(|b| Arc::new(BuiltinCard(b)) as Arc<dyn Effect>);
        let cards = std::array::from_fn(|i| {
            let builtin = Builtin::of(Rank::new(i as u8 + 1).expect("13 ranks"));
            Entry {
                effect: Arc::clone(&builtins[builtin as usize]),
                builtin: Some(builtin),
                aim: AimBy::Builtin(builtin),
            }
        });
        Registry {
            aim_slots: std::array::from_fn(|i| match Rank::new(i as u8) {
                Some(rank) => Builtin::of(rank) as u16,
                None => super::legal::ASK,
            }),
            cards,
            oxygen_cost: None,
            win_check: None,
            rescue: None,
            recovery_gain: None,
            turn_start: Vec::new(),
            after_move: Vec::new(),
            builtins,
            copier: None,
        }
    }

    /// Sets how a copy of a game gets its own copy of the state these entries keep (see
    /// [`Copier`]).
    pub fn set_copier(&mut self, copier: Arc<dyn Copier>) {
        self.copier = Some(copier);
    }

    /// The registry a copy of a game running with `registry` runs with: the same one, or,
    /// when the entries keep state of their own, one with a copy of that state.
    pub fn for_copy(registry: &Arc<Registry>) -> Arc<Registry> {
        match &registry.copier {
            None => Arc::clone(registry),
            Some(copier) => copier.copy(),
        }
    }

    fn entry(&self, rank: Rank) -> &Entry {
        &self.cards[rank.number() as usize - 1]
    }

    /// The entry for `rank`. To wrap it, take it first and call it from the new entry.
    pub fn effect(&self, rank: Rank) -> Arc<dyn Effect> {
        Arc::clone(&self.entry(rank).effect)
    }

    /// Replaces the entry for `rank`.
    pub fn set_effect(&mut self, rank: Rank, effect: Arc<dyn Effect>) {
        let mut aim = Arc::clone(&effect);
        while let Some(inner) = aim.aim_delegate() {
            aim = inner;
        }
        let aim = match self.builtins.iter().position(|b| Arc::ptr_eq(b, &aim)) {
            Some(i) => AimBy::Builtin(Builtin::ALL[i]),
            None => AimBy::Entry(aim),
        };
        let builtin = self.builtins.iter().position(|b| Arc::ptr_eq(b, &effect)).map(|i| Builtin::ALL[i]);
        let i = rank.number() as usize - 1;
        self.aim_slots[usize::from(rank.number())] = match aim {
            AimBy::Builtin(b) => b as u16,
            AimBy::Entry(_) => super::legal::ASK,
        };
        self.cards[i] = Entry { effect, builtin, aim };
    }

    /// The oxygen-cost hook now in force (the built-in one as a closure), to wrap it.
    pub fn oxygen_cost(&self) -> OxygenCost {
        self.oxygen_cost.clone().unwrap_or_else(|| Arc::new(|ctx, _, depth| Ok(builtin_cost(ctx.state(), depth))))
    }
    pub fn set_oxygen_cost(&mut self, hook: OxygenCost) {
        self.oxygen_cost = Some(hook);
    }
    /// The win check now in force, to wrap it.
    pub fn win_check(&self) -> WinCheck {
        self.win_check.clone().unwrap_or_else(|| Arc::new(|ctx, player| Ok(builtin_win(ctx.state(), player))))
    }
    pub fn set_win_check(&mut self, hook: WinCheck) {
        self.win_check = Some(hook);
    }
    /// The rescue now in force, to wrap it.
    pub fn rescue(&self) -> Rescue {
        self.rescue.clone().unwrap_or_else(|| {
            Arc::new(|ctx, player| {
                ctx.rescue_standard(player);
                Ok(())
            })
        })
    }
    pub fn set_rescue(&mut self, hook: Rescue) {
        self.rescue = Some(hook);
    }
    /// The recovery-gain hook now in force, to wrap it.
    pub fn recovery_gain(&self) -> RecoveryGain {
        self.recovery_gain.clone().unwrap_or_else(|| Arc::new(|ctx, _, cards| Ok(builtin_gain(ctx.state(), cards))))
    }
    pub fn set_recovery_gain(&mut self, hook: RecoveryGain) {
        self.recovery_gain = Some(hook);
    }
    /// Adds a hook that runs when a turn starts (after the ones already added).
    pub fn add_turn_start(&mut self, hook: TurnStart) {
        self.turn_start.push(hook);
    }
    /// Adds a hook that runs after a diver moved (after the ones already added).
    pub fn add_after_move(&mut self, hook: AfterMove) {
        self.after_move.push(hook);
    }

    /// Whether the oxygen cost, the recovery gain and the win check are the built-in hooks,
    /// which answer from the [`Tables`](super::Tables) and the depth alone: then a planner
    /// (a bot) may read the tables, worked out once per ruleset, for what the hooks would say.
    /// Otherwise it asks them through a [`Forecast`](super::Forecast).
    #[inline]
    pub fn plans_from_tables(&self) -> bool {
        self.oxygen_cost.is_none() && self.recovery_gain.is_none() && self.win_check.is_none()
    }

    /// Which of the hooks a planner asks about are still the built-in ones (each of those
    /// may be read from the tables while the others are asked).
    pub fn builtin_planning(&self) -> super::forecast::Planning {
        super::forecast::Planning {
            cost: self.oxygen_cost.is_none(),
            gain: self.recovery_gain.is_none(),
            win: self.win_check.is_none(),
        }
    }

    /// Whether every hook is the built-in one and none was added.
    fn hooks_are_builtin(&self) -> bool {
        self.oxygen_cost.is_none()
            && self.win_check.is_none()
            && self.rescue.is_none()
            && self.recovery_gain.is_none()
            && self.turn_start.is_empty()
            && self.after_move.is_empty()
    }

    /// Whether this is the standard behaviour: every rank has its own built-in entry and
    /// every hook is the built-in one.
    pub fn is_native(&self) -> bool {
        self.hooks_are_builtin() && Rank::all().all(|rank| self.entry(rank).builtin == Some(Builtin::of(rank)))
    }

    /// Whether every rank's `aim` is its own built-in card's (directly or through wraps that
    /// pass the question on, [`Effect::aim_delegate`]): then every card offers what the
    /// standard rules say.
    pub fn has_native_aims(&self) -> bool {
        Rank::all().all(|rank| matches!(self.entry(rank).aim, AimBy::Builtin(b) if b == Builtin::of(rank)))
    }

    /// Whether resolving `action` (once checked) runs only built-in code that cannot fail:
    /// for a play, the rank's own built-in card answering both `aim` and the play (a built-in
    /// card under another rank can fail: a Jolt's aim does not know a Q cannot stack), and
    /// every hook. The engine then needs no copy of the state to go back to.
    #[inline]
    pub(crate) fn resolves_natively(&self, action: &Action) -> bool {
        self.hooks_are_builtin()
            && match action {
                Action::Play { card, .. } => {
                    let own = Builtin::of(card.rank);
                    let entry = self.entry(card.rank);
                    entry.builtin == Some(own) && self.aim_slots[usize::from(card.rank.number())] == own as u16
                }
                Action::Recover { .. } | Action::Pass => true,
            }
    }

    // ----- what the engine asks -----

    /// Per rank (by number, in 16 slots), the [`Builtin`] index of the built-in card
    /// answering its `aim`, or the listing's `ASK` where an entry answers
    /// ([`Registry::aim_of`] for every rank at once).
    #[inline(always)]
    pub(crate) fn aim_slots(&self) -> &[u16; 16] {
        &self.aim_slots
    }

    /// The built-in card answering `aim` for `rank`, or the entry to ask.
    #[inline(always)]
    pub(crate) fn aim_of(&self, rank: Rank) -> Result<Builtin, &dyn Effect> {
        match &self.entry(rank).aim {
            AimBy::Builtin(b) => Ok(*b),
            AimBy::Entry(e) => Err(&**e),
        }
    }

    /// Why `target` may not be named by `player` for `card` now (the seat exists and is not
    /// the player's own).
    pub(crate) fn target_refusal(&self, state: &State, player: Seat, card: Card, target: Seat) -> String {
        match self.aim_of(card.rank) {
            Ok(builtin) => builtin.refusal(state, player, target).into(),
            Err(_) => "the rules do not allow it".into(),
        }
    }

    /// Whether cards of `rank` do what the standard rules say (no mod replaced their entry):
    /// the shell explains such cards by the rules' text.
    pub fn is_builtin_card(&self, rank: Rank) -> bool {
        self.entry(rank).builtin == Some(Builtin::of(rank))
    }

    /// The question asked for a target of `rank` (`whom do you Jolt`).
    pub fn target_question(&self, rank: Rank) -> &str {
        match &self.entry(rank).aim {
            AimBy::Builtin(b) => b.question(),
            AimBy::Entry(e) => e.target_question(),
        }
    }

    /// Whether a recovery by `player` now lets them choose the discard order (a K in front
    /// of them goes onto the pile too, D16).
    #[inline]
    pub(crate) fn recovery_order_choice(&self, state: &State, player: Seat) -> bool {
        state.player(player).has_front(Rank::KING)
    }

    /// Carries out `play` with the card's entry.
    #[inline(always)]
    pub(crate) fn resolve_play<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        play: Play,
    ) -> Result<(), EffectError> {
        let entry = self.entry(play.card.rank);
        match entry.builtin {
            Some(builtin) => builtin.resolve(ctx, play),
            None => entry.effect.resolve(&mut ctx.reborrow(), play),
        }
    }

    /// Carries out `player`'s recovery with `cards` (D16, D19).
    #[inline(always)]
    pub(crate) fn recover<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        player: Seat,
        cards: &Cards,
        face_on_top: bool,
    ) -> Result<(), EffectError> {
        recover(ctx, player, cards, face_on_top)
    }

    pub(crate) fn cost<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        player: Seat,
        depth: u32,
    ) -> Result<u32, EffectError> {
        match &self.oxygen_cost {
            None => Ok(builtin_cost(ctx.state(), depth)),
            Some(hook) => hook(&mut ctx.reborrow(), player, depth),
        }
    }

    pub(crate) fn won<S: EventSink + ?Sized>(&self, ctx: &mut Ctx<'_, S>, player: Seat) -> Result<bool, EffectError> {
        match &self.win_check {
            None => Ok(builtin_win(ctx.state(), player)),
            Some(hook) => hook(&mut ctx.reborrow(), player),
        }
    }

    pub(crate) fn run_rescue<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        player: Seat,
    ) -> Result<(), EffectError> {
        match &self.rescue {
            None => {
                ctx.rescue_standard(player);
                Ok(())
            }
            Some(hook) => hook(&mut ctx.reborrow(), player),
        }
    }

    pub(crate) fn gain_of<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        player: Seat,
        cards: &[Card],
    ) -> Result<Gain, EffectError> {
        match &self.recovery_gain {
            None => Ok(builtin_gain(ctx.state(), cards)),
            Some(hook) => hook(&mut ctx.reborrow(), player, cards),
        }
    }

    pub(crate) fn turn_started<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        player: Seat,
    ) -> Result<(), EffectError> {
        for hook in &self.turn_start {
            hook(&mut ctx.reborrow(), player)?;
            if ctx.state().is_over() {
                break;
            }
        }
        Ok(())
    }

    pub(crate) fn moved<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        player: Seat,
        from: u32,
        to: u32,
    ) -> Result<(), EffectError> {
        for hook in &self.after_move {
            hook(&mut ctx.reborrow(), player, from, to)?;
        }
        Ok(())
    }
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::standard()
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry").field("native", &self.is_native()).finish_non_exhaustive()
    }
}

// ----- the built-in behaviour -----

/// The built-in hook D10: the band cost of the new depth.
fn builtin_cost(state: &State, depth: u32) -> u32 {
    state.tables().cost(depth)
}

/// The built-in hook D19: the gain of the discard's suit pattern.
fn builtin_gain(state: &State, cards: &[Card]) -> Gain {
    state.tables().gain(cards)
}

/// The built-in hook D11/D20: the bottom wins.
fn builtin_win(state: &State, player: Seat) -> bool {
    state.player(player).depth >= state.rules().max_depth
}

/// The built-in cards. Their code is here once: the engine calls it directly while the entry
/// is in place, and [`BuiltinCard`], the entry a mod receives to wrap, calls the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    /// A–10: move down by the value, doubled on a match (D8–D12); J in front turns it upwards
    /// (D13), else Q in front adds the Quick extra and a push (D14, D15).
    Number,
    /// J: placed in front of another diver strictly deeper than you with no J (D13).
    Jolt,
    /// Q: placed in front of yourself if you have no Q (D14).
    Quick,
    /// K: placed in front of another diver with no K (D16); their next recovery gains nothing.
    Knot,
}

impl Builtin {
    pub(crate) const ALL: [Builtin; 4] = [Builtin::Number, Builtin::Jolt, Builtin::Quick, Builtin::Knot];

    fn of(rank: Rank) -> Builtin {
        match rank {
            Rank::JACK => Builtin::Jolt,
            Rank::QUEEN => Builtin::Quick,
            Rank::KING => Builtin::Knot,
            _ => Builtin::Number,
        }
    }

    /// What a card of this kind offers `player` now.
    #[inline(always)]
    pub(crate) fn aim(self, state: &State, player: Seat) -> Aim {
        match self.offer(state, player) {
            Ok((targets, order_choice)) => Aim::Open { targets, order_choice },
            Err(reason) => Aim::Blocked(reason.into()),
        }
    }

    /// [`Builtin::aim`] as its parts: the targets and the order choice, or why not. Each kind
    /// looks only at what it needs: the Jolt at every diver's depth, the others at who has
    /// which card in front.
    #[inline(always)]
    pub(crate) fn offer(self, state: &State, player: Seat) -> Result<(Option<Seats>, bool), &'static str> {
        let me = state.player(player);
        match self {
            Builtin::Number if Pending::of(me).jolt => Ok((None, true)),
            Builtin::Number if Pending::of(me).quick => Ok((Some(state.others(player)), false)),
            Builtin::Number => Ok((None, false)),
            Builtin::Quick if me.has_front(Rank::QUEEN) => Err("you already have a Q in front of you"),
            Builtin::Quick => Ok((None, false)),
            Builtin::Jolt => {
                let deeper = seats_where(state, player, |p| p.depth > me.depth);
                let targets = Seats(deeper.0 & !state.seats_with_front(Rank::JACK).0);
                if targets.is_empty() {
                    Err("a Jolt needs another diver deeper than you with no J in front")
                } else {
                    Ok((Some(targets), false))
                }
            }
            Builtin::Knot => {
                let targets = Seats(state.others(player).0 & !state.seats_with_front(Rank::KING).0);
                if targets.is_empty() {
                    Err("a Knot needs another diver with no K in front")
                } else {
                    Ok((Some(targets), false))
                }
            }
        }
    }

    /// Why `target` (another seat) may not be named for a card of this kind.
    fn refusal(self, state: &State, player: Seat, target: Seat) -> &'static str {
        let t = state.player(target);
        match self {
            Builtin::Jolt if t.has_front(Rank::JACK) => "they already have a J in front",
            Builtin::Jolt if t.depth <= state.player(player).depth => "they are not deeper than you",
            Builtin::Knot if t.has_front(Rank::KING) => "they already have a K in front",
            _ => "the rules do not allow it",
        }
    }

    fn question(self) -> &'static str {
        match self {
            Builtin::Jolt => "whom do you Jolt",
            Builtin::Knot => "whom do you Knot",
            Builtin::Number => "whom does your Quick push down",
            Builtin::Quick => "which player",
        }
    }

    #[inline(always)]
    fn resolve<S: EventSink + ?Sized>(self, ctx: &mut Ctx<'_, S>, play: Play) -> Result<(), EffectError> {
        match self {
            Builtin::Number => number_card(ctx, play),
            Builtin::Quick => ctx.place_front(play.player, play.player, play.card),
            Builtin::Jolt | Builtin::Knot => {
                let target = play.target.ok_or_else(|| EffectError(format!("{} needs a target", play.card)))?;
                ctx.place_front(play.player, target, play.card)
            }
        }
    }
}

/// The other seats than `player` whose diver passes `test`.
#[inline(always)]
fn seats_where(state: &State, player: Seat, test: impl Fn(&super::state::Player) -> bool) -> Seats {
    let mut seats = 0u64;
    for (seat, p) in state.players().iter().enumerate() {
        seats |= u64::from(test(p)) << seat;
    }
    Seats(seats & state.others(player).0)
}

/// A built-in card as a registry entry: what [`Registry::effect`] returns for a rank that
/// still has its built-in behaviour, so that a wrap can call it.
struct BuiltinCard(Builtin);

impl Effect for BuiltinCard {
    fn aim(&self, state: &State, player: Seat, _card: Card) -> Result<Aim, EffectError> {
        Ok(self.0.aim(state, player))
    }

    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
        self.0.resolve(ctx, play)
    }

    fn aim_ignores_card(&self) -> bool {
        true
    }

    fn target_question(&self) -> &str {
        self.0.question()
    }
}

/// A–10 (D8–D15).
#[inline(always)]
fn number_card<S: EventSink + ?Sized>(ctx: &mut Ctx<'_, S>, play: Play) -> Result<(), EffectError> {
    let Play { player, card, target, face_on_top, .. } = play;
    let value = ctx.number_value(player, card);
    let pending = Pending::of(ctx.state().player(player));
    if pending.jolt {
        let jack = ctx.take_front(player, Rank::JACK).expect("checked: J in front");
        ctx.emit(Event::Jolted { player });
        if face_on_top {
            ctx.discard(card);
            ctx.discard(jack);
        } else {
            ctx.discard(jack);
            ctx.discard(card);
        }
        ctx.dive(player, -(value as i64))
    } else if pending.quick {
        let (extra, push) = (ctx.state().rules().quick_extra, ctx.state().rules().quick_push);
        let target = target.ok_or_else(|| EffectError("a Quick needs a push target".into()))?;
        ctx.emit(Event::Quickened { player, extra });
        ctx.discard(card);
        ctx.dive(player, value as i64 + extra as i64)?;
        if !ctx.state().is_over() {
            ctx.emit(Event::Pushed { player, target, by: push });
            ctx.dive(target, push as i64)?;
        }
        if ctx.state().is_over() {
            // D20: a win ends the game at once; the Q stays where it lies.
            return Ok(());
        }
        // The hooks the dives ran may have taken the Q away themselves.
        if let Some(queen) = ctx.take_front(player, Rank::QUEEN) {
            ctx.discard(queen);
        }
        Ok(())
    } else {
        ctx.discard(card);
        ctx.dive(player, value as i64)
    }
}

/// A recovery (D19): the cards go onto the pile, a K in front goes with them and cancels the
/// gain (D16), the gain hook says how much oxygen comes back, and the player draws as many
/// cards as they discarded.
#[inline(always)]
fn recover<S: EventSink + ?Sized>(
    ctx: &mut Ctx<'_, S>,
    player: Seat,
    cards: &Cards,
    face_on_top: bool,
) -> Result<(), EffectError> {
    let from = ctx.state().player(player).oxygen;
    let knot = ctx.take_front(player, Rank::KING);
    if knot.is_some() {
        ctx.emit(Event::Knotted { player });
    }
    if let (Some(k), false) = (knot, face_on_top) {
        ctx.discard(k);
    }
    // Each card leaves the hand for the pile in one loop (its length is random).
    for &card in cards {
        ctx.discard_from_hand(player, card);
    }
    if let (Some(k), true) = (knot, face_on_top) {
        ctx.discard(k);
    }
    let gain = match knot {
        Some(_) => Gain::Amount(0),
        None => {
            let registry = ctx.registry();
            registry.gain_of(ctx, player, cards)?
        }
    };
    let max = ctx.state().rules().max_oxygen;
    let to = match gain {
        Gain::Amount(n) => from.saturating_add(n).min(max),
        Gain::Max => max,
    };
    ctx.recovered(player, cards, gain, from, to);
    for _ in 0..cards.len() {
        if !ctx.draw_to_hand(player)? {
            break;
        }
    }
    Ok(())
}
