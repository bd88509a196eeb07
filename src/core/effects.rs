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
//! built-in cards and hooks are written once, in [`super::builtin`]; the engine runs that code
//! directly while an entry is in place, and the [`Effect`] a mod gets to wrap runs the same.
//!
//! The registry is the [`Hooks`] a [`Context`] asks: [`Ctx`] is the context its entries and
//! hooks receive.
//!
//! Entries are fallible: a scripted entry may fail, and then [`Game::apply`](super::Game::apply)
//! undoes the whole action. Built-in entries never fail once an action has been checked.

use std::fmt;
use std::sync::Arc;

use super::action::{Action, ActionName, Cards, Play, Seat};
use super::aim::Aim;
use super::builtin::{Builtin, builtin_cost, builtin_gain, builtin_next, builtin_win, recover};
use super::card::{Card, Rank};
use super::ctx::{self, Context, Hooks};
use super::error::EffectError;
use super::event::{EventSink, Moment, Point};
use super::knowledge::{ModId, Words};
use super::rules::{Gain, MAX_CARD_VALUE};
use super::state::State;

/// The context the registry's entries and hooks receive: a [`Context`] asking this registry,
/// with any sink (a trait object unless said otherwise).
pub type Ctx<'g, S = dyn EventSink + 'g> = Context<'g, Registry, S>;

/// A game's state lent out of a running action ([`Context::lend`]), asking this registry.
pub type Lent = ctx::Lent<Registry>;

/// `Registry::aim_slots`: the rank's entry answers `aim` (it is asked), no built-in card does.
pub(crate) const ASK: u16 = u16::MAX;

/// Which of the hooks a planner asks about are the built-in ones
/// ([`Registry::builtin_planning`]): those answer from the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planning {
    pub value: bool,
    pub cost: bool,
    pub gain: bool,
    pub win: bool,
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
    /// Why `target` (another seat, not among the targets [`Effect::aim`] offers) may not be
    /// named by `player` for `card` now, when the entry says (a mod's `targets` function may
    /// give a reason per player). The default: no reason of its own.
    fn target_refusal(&self, _state: &State, _player: Seat, _card: Card, _target: Seat) -> Option<Words> {
        None
    }
}

/// What an action a mod registered takes as its argument ([`ActionEntry::arg`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionArg {
    /// Nothing: the action is typed alone (`shout`).
    None,
    /// A diver (`buddy bob`): another one, or with `me` any one, the mover included. With
    /// `optional`, the action may also be taken without one (then listed first without).
    Diver { me: bool, optional: bool },
    /// A card of the mover's hand (`toss 7h`); with `optional`, also none.
    Card { optional: bool },
}

impl ActionArg {
    /// The divers `player` may name among `players`, before the action's own legality.
    pub fn seats(self, players: usize, player: Seat) -> impl Iterator<Item = Seat> {
        let me = matches!(self, ActionArg::Diver { me: true, .. });
        let any = matches!(self, ActionArg::Diver { .. });
        (0..players).filter(move |&s| any && (me || s != player))
    }

    /// The cards of `hand` it may name, each once, in hand order (none unless it takes a card).
    pub fn cards(self, hand: &[Card]) -> impl Iterator<Item = Card> + '_ {
        let any = matches!(self, ActionArg::Card { .. });
        hand.iter().enumerate().filter(move |&(i, c)| any && !hand[..i].contains(c)).map(|(_, &c)| c)
    }

    /// Whether the action may be taken naming nothing.
    pub fn allows_none(self) -> bool {
        matches!(self, ActionArg::None | ActionArg::Diver { optional: true, .. } | ActionArg::Card { optional: true })
    }
}

/// What an action a mod registered does: whether it may be taken, with which argument, and
/// carrying it out. The registry's entry for the action ([`ActionEntry`]).
pub trait ActionRule: Send + Sync {
    /// Whether `player` may take the action now at `target` or with `card` (of the seats or
    /// hand cards its [`ActionArg`] allows): `Ok(Ok(()))`, or `Ok(Err(reason))` in the
    /// players' words. Reads only.
    fn legal(
        &self,
        state: &State,
        player: Seat,
        target: Option<Seat>,
        card: Option<Card>,
    ) -> Result<Result<(), Words>, EffectError>;
    /// Carries it out, through the context (a card named is still in the hand).
    fn resolve(
        &self,
        ctx: &mut Ctx<'_>,
        player: Seat,
        target: Option<Seat>,
        card: Option<Card>,
    ) -> Result<(), EffectError>;
}

/// An action a mod registered (`diving.action`): its name, what it takes, what it says it
/// does, and its rule. Listed by [`Moves`](super::Moves) after the recoveries.
#[derive(Clone)]
pub struct ActionEntry {
    pub name: ActionName,
    pub arg: ActionArg,
    /// One line for the players' help (`buddy PLAYER: pass 1 oxygen to another diver`).
    pub describe: Arc<str>,
    pub rule: Arc<dyn ActionRule>,
}

impl fmt::Debug for ActionEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ActionEntry").field("name", &self.name).field("arg", &self.arg).finish_non_exhaustive()
    }
}

/// Oxygen spent by `player` after a move to `depth` (D10).
pub type OxygenCost = Arc<dyn Fn(&mut Ctx<'_>, Seat, u32) -> Result<u32, EffectError> + Send + Sync>;
/// What `card` is worth when `player` plays it now, before doubling (D8).
pub type CardValue = Arc<dyn Fn(&mut Ctx<'_>, Seat, Card) -> Result<u32, EffectError> + Send + Sync>;
/// Whether `player` has won after moving (D11, D20).
pub type WinCheck = Arc<dyn Fn(&mut Ctx<'_>, Seat) -> Result<bool, EffectError> + Send + Sync>;
/// What happens to `player` when their oxygen reaches 0 (D12).
pub type Rescue = Arc<dyn Fn(&mut Ctx<'_>, Seat) -> Result<(), EffectError> + Send + Sync>;
/// Oxygen gained by `player` discarding `cards` (D19).
pub type RecoveryGain = Arc<dyn Fn(&mut Ctx<'_>, Seat, &[Card]) -> Result<Gain, EffectError> + Send + Sync>;
/// Who moves after `player`'s turn (D4).
pub type NextTurn = Arc<dyn Fn(&mut Ctx<'_>, Seat) -> Result<Seat, EffectError> + Send + Sync>;
/// Runs when `player`'s turn starts.
pub type TurnStart = Arc<dyn Fn(&mut Ctx<'_>, Seat) -> Result<(), EffectError> + Send + Sync>;
/// Runs at a rule point ([`Moment`]: a card drawn, a breath, a rescue, a reshuffle, a
/// recovery, a turn's end), after it happened.
pub type Reaction = Arc<dyn Fn(&mut Ctx<'_>, &Moment<'_>) -> Result<(), EffectError> + Send + Sync>;
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
    card_value: Option<CardValue>,
    oxygen_cost: Option<OxygenCost>,
    win_check: Option<WinCheck>,
    rescue: Option<Rescue>,
    recovery_gain: Option<RecoveryGain>,
    next_turn: Option<NextTurn>,
    turn_start: Vec<TurnStart>,
    after_move: Vec<AfterMove>,
    /// Per [`Point`] (in [`Point::ALL`] order), the reactions to it, in the order added.
    reactions: [Vec<Reaction>; Point::ALL.len()],
    /// Per rank (by number − 1), what a mod says the card does, for the players' help.
    descriptions: [Option<Arc<str>>; 13],
    /// The actions mods registered, in the order added (the listing's order).
    actions: Vec<ActionEntry>,
    /// Whether every rank has its own built-in entry, no hook acts on a play beyond the
    /// cost, gain and win (no after-move hook, no replaced rescue) and no mod added an action
    /// (which a planner weighs by resolving it): then a planner's model of the rules is what
    /// every move does ([`Registry::plays_as_modelled`]). Kept by every setter.
    modelled: bool,
    /// Per rank (bit `number`), whether a checked play of it runs only built-in code that
    /// cannot fail ([`Registry::resolves_natively`]); bit 0: whether a recovery or a pass
    /// does. Kept by every setter, so that the engine's every move reads one field.
    native: u16,
    /// Per [`Point`] (bit `point as u8`), whether a reaction to it is registered: read at
    /// every draw and breath, so kept beside `native` instead of read from `reactions`.
    reacting: u16,
    /// The built-in card entries, to recognise where an `aim` delegation ends.
    builtins: [Arc<dyn Effect>; 4],
    /// For entries that keep state outside the game (a mod's Lua variables): how a copy of a
    /// game gets its own copy of that state. `None`: nothing to copy.
    copier: Option<Arc<dyn Copier>>,
    /// The mods' names, by [`ModId`] (what a mod's words and reveals are shown under).
    mod_names: Vec<Arc<str>>,
}

/// How a registry whose entries keep state of their own, outside the [`State`] (a mod's Lua
/// variables), gives each copy of a game its own copy of that state, so that what a copy
/// does (a bot's look-ahead, a preview) never reaches the game it was copied from.
pub trait Copier: Send + Sync {
    /// A registry with the same entries, running on state of its own that starts as a copy of
    /// this registry's state as it is now. It is used by no other game.
    fn copy(&self) -> Arc<Registry>;

    /// Puts this registry's state back to what `kept` holds: a copy this copier made
    /// ([`Copier::copy`]) that has not run since. What the state holds that a copy does not
    /// take (a mod's top-level `local`s) stays as it is. Whether it could: not when `kept`
    /// is no copy this copier made or one that could not be made (then nothing changed), or
    /// when putting it back failed half-way (then the state is part restored, and only `kept`
    /// holds the state from before).
    fn restore(&self, kept: &Registry) -> bool;
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
                None => ASK,
            }),
            cards,
            card_value: None,
            oxygen_cost: None,
            win_check: None,
            rescue: None,
            recovery_gain: None,
            next_turn: None,
            turn_start: Vec::new(),
            after_move: Vec::new(),
            reactions: Default::default(),
            descriptions: Default::default(),
            actions: Vec::new(),
            modelled: true,
            native: u16::MAX,
            reacting: 0,
            builtins,
            copier: None,
            mod_names: Vec::new(),
        }
    }

    /// Works out what the engine and the planners read on every move
    /// ([`Registry::plays_as_modelled`], [`Registry::resolves_natively`]) again after a change.
    /// Every setter ends with it.
    fn refresh(&mut self) {
        self.modelled = self.after_move.is_empty()
            && self.actions.is_empty()
            && self.rescue.is_none()
            && self.reactions.iter().all(Vec::is_empty)
            && Rank::all().all(|rank| self.entry(rank).builtin == Some(Builtin::of(rank)));
        self.reacting = 0;
        for (point, reactions) in self.reactions.iter().enumerate() {
            if !reactions.is_empty() {
                self.reacting |= 1 << point;
            }
        }
        self.native = 0;
        if self.hooks_are_builtin() {
            self.native = 1;
            for rank in Rank::all() {
                let own = Builtin::of(rank);
                if self.entry(rank).builtin == Some(own) && self.aim_slots[usize::from(rank.number())] == own as u16 {
                    self.native |= 1 << rank.number();
                }
            }
        }
    }

    /// Names the mods whose entries these are, in load order (by [`ModId`]).
    pub fn name_mods(&mut self, names: Vec<Arc<str>>) {
        self.mod_names = names;
    }

    /// The name of mod `by` (`a mod` when it was not named).
    pub fn mod_name(&self, by: ModId) -> &str {
        self.mod_names.get(usize::from(by.0)).map_or("a mod", |n| n)
    }

    /// The mods' names, in load order.
    pub fn mod_names(&self) -> &[Arc<str>] {
        &self.mod_names
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

    /// Whether the entries keep state outside the game (a mod's Lua variables, with a
    /// [`Copier`] for them): [`Game::apply`](super::Game::apply) then keeps a copy of that
    /// state too while an action runs, to go back to if the action fails.
    pub fn keeps_state(&self) -> bool {
        self.copier.is_some()
    }

    /// Puts the state these entries keep back to what `kept` holds, a copy taken with
    /// [`Registry::for_copy`] that has not run since ([`Copier::restore`]): how a failed action
    /// goes back without losing what the copy does not take. Whether it could; when it could
    /// not, only `kept` holds the state from before.
    pub fn restore(&self, kept: &Registry) -> bool {
        self.copier.as_ref().is_some_and(|copier| copier.restore(kept))
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
            AimBy::Entry(_) => ASK,
        };
        self.cards[i] = Entry { effect, builtin, aim };
        self.refresh();
    }

    /// The card-value hook now in force (the built-in one, the rules' value of the rank, as
    /// a closure), to wrap it.
    pub fn card_value(&self) -> CardValue {
        self.card_value.clone().unwrap_or_else(|| Arc::new(|ctx, _, card| Ok(ctx.state().tables().value(card))))
    }
    pub fn set_card_value(&mut self, hook: CardValue) {
        self.card_value = Some(hook);
        self.refresh();
    }
    /// The oxygen-cost hook now in force (the built-in one as a closure), to wrap it.
    pub fn oxygen_cost(&self) -> OxygenCost {
        self.oxygen_cost.clone().unwrap_or_else(|| Arc::new(|ctx, _, depth| Ok(builtin_cost(ctx.state(), depth))))
    }
    pub fn set_oxygen_cost(&mut self, hook: OxygenCost) {
        self.oxygen_cost = Some(hook);
        self.refresh();
    }
    /// The win check now in force, to wrap it.
    pub fn win_check(&self) -> WinCheck {
        self.win_check.clone().unwrap_or_else(|| Arc::new(|ctx, player| Ok(builtin_win(ctx.state(), player))))
    }
    pub fn set_win_check(&mut self, hook: WinCheck) {
        self.win_check = Some(hook);
        self.refresh();
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
        self.refresh();
    }
    /// The recovery-gain hook now in force, to wrap it.
    pub fn recovery_gain(&self) -> RecoveryGain {
        self.recovery_gain.clone().unwrap_or_else(|| Arc::new(|ctx, _, cards| Ok(builtin_gain(ctx.state(), cards))))
    }
    pub fn set_recovery_gain(&mut self, hook: RecoveryGain) {
        self.recovery_gain = Some(hook);
        self.refresh();
    }
    /// The turn order now in force (who moves after a player's turn), to wrap it.
    pub fn next_turn(&self) -> NextTurn {
        self.next_turn.clone().unwrap_or_else(|| Arc::new(|ctx, player| Ok(builtin_next(ctx.state(), player))))
    }
    pub fn set_next_turn(&mut self, hook: NextTurn) {
        self.next_turn = Some(hook);
        self.refresh();
    }
    /// Whether the turn order is the built-in one (D4, with the reversals and turns effects
    /// gave): the engine then steps to the next seat itself.
    #[inline(always)]
    pub(crate) fn orders_natively(&self) -> bool {
        self.next_turn.is_none()
    }
    /// Adds a hook that runs when a turn starts (after the ones already added).
    pub fn add_turn_start(&mut self, hook: TurnStart) {
        self.turn_start.push(hook);
        self.refresh();
    }
    /// Adds a hook that runs when a turn starts, before the ones already added (a test's or
    /// scenario's set-up that the ruleset's own hooks then see).
    pub fn add_turn_start_first(&mut self, hook: TurnStart) {
        self.turn_start.insert(0, hook);
        self.refresh();
    }
    /// Adds a reaction to `point` (after the ones already added).
    pub fn add_reaction(&mut self, point: Point, hook: Reaction) {
        self.reactions[point as usize].push(hook);
        self.refresh();
    }

    /// Adds a hook that runs after a diver moved (after the ones already added).
    pub fn add_after_move(&mut self, hook: AfterMove) {
        self.after_move.push(hook);
        self.refresh();
    }

    /// Whether the oxygen cost, the recovery gain and the win check are the built-in hooks,
    /// which answer from the [`Tables`](super::Tables) and the depth alone: then a planner
    /// (a bot) may read the tables, worked out once per ruleset, for what the hooks would say.
    /// Otherwise it asks them through a [`Forecast`](super::Forecast).
    #[inline]
    pub fn plans_from_tables(&self) -> bool {
        self.card_value.is_none()
            && self.oxygen_cost.is_none()
            && self.recovery_gain.is_none()
            && self.win_check.is_none()
    }

    /// Which of the hooks a planner asks about are still the built-in ones (each of those
    /// may be read from the tables while the others are asked).
    pub fn builtin_planning(&self) -> Planning {
        Planning {
            value: self.card_value.is_none(),
            cost: self.oxygen_cost.is_none(),
            gain: self.recovery_gain.is_none(),
            win: self.win_check.is_none(),
        }
    }

    /// Whether a planner that knows the built-in cards, and asks the cost, gain and win of the
    /// hooks in force ([`Registry::builtin_planning`], a [`Forecast`](super::Forecast)), knows
    /// what every play does: every rank has its own built-in entry, and no hook acts on a play
    /// beyond those three (no after-move hook, no replaced rescue). Otherwise a planner weighs
    /// a play whose rank is not [`modelled`](Registry::plays_rank_as_modelled) by resolving it
    /// ([`Forecast::play`](super::Forecast::play)). Read on every move of a bot: one field.
    #[inline(always)]
    pub fn plays_as_modelled(&self) -> bool {
        self.modelled
    }

    /// Whether a planner's model says what a play of `rank` does: the rank has its own
    /// built-in entry and no after-move or rescue hook acts on its moves.
    pub fn plays_rank_as_modelled(&self, rank: Rank) -> bool {
        self.modelled
            || (self.after_move.is_empty()
                && self.rescue.is_none()
                && self.reactions.iter().all(Vec::is_empty)
                && self.entry(rank).builtin == Some(Builtin::of(rank)))
    }

    /// What a planner's model of a play of `rank` stands for: this registry with that rank's
    /// own built-in entry, and without the after-move hooks and a replaced rescue (the cost,
    /// gain and win hooks, which the model asks, and the turn-start hooks stay). Resolving a
    /// play under both and comparing says what the rules in force add to the model
    /// ([`Forecast::play_modelled`](super::Forecast::play_modelled)).
    pub fn modelled(&self, rank: Rank) -> Registry {
        let mut modelled = self.clone();
        let builtin = Builtin::of(rank);
        modelled.set_effect(rank, Arc::clone(&self.builtins[builtin as usize]));
        modelled.after_move.clear();
        modelled.rescue = None;
        modelled.reactions = Default::default();
        modelled.refresh();
        modelled
    }

    /// Adds an action (listed after the ones already added); refused when an action of that
    /// name is registered already.
    pub fn add_action(&mut self, entry: ActionEntry) -> Result<(), String> {
        if self.action(entry.name).is_some() {
            return Err(format!("an action called {} is registered already", entry.name));
        }
        self.actions.push(entry);
        self.refresh();
        Ok(())
    }

    /// The actions mods registered, in listing order. Empty for the standard rules: the
    /// listing and `apply` then test this one slice and nothing else.
    #[inline(always)]
    pub fn actions(&self) -> &[ActionEntry] {
        &self.actions
    }

    /// The registered action called `name`.
    pub fn action(&self, name: ActionName) -> Option<&ActionEntry> {
        self.actions.iter().find(|a| a.name == name)
    }

    /// Carries out `player`'s registered action `name` at `target` or with `card` (checked).
    pub(crate) fn resolve_act<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        player: Seat,
        name: ActionName,
        target: Option<Seat>,
        card: Option<Card>,
    ) -> Result<(), EffectError> {
        let entry = self.action(name).ok_or_else(|| EffectError::new(format!("there is no action called {name}")))?;
        entry.rule.resolve(&mut ctx.reborrow(), player, target, card)
    }

    /// Whether every hook is the built-in one and none was added.
    fn hooks_are_builtin(&self) -> bool {
        self.card_value.is_none()
            && self.oxygen_cost.is_none()
            && self.win_check.is_none()
            && self.rescue.is_none()
            && self.recovery_gain.is_none()
            && self.next_turn.is_none()
            && self.turn_start.is_empty()
            && self.after_move.is_empty()
            && self.reactions.iter().all(Vec::is_empty)
    }

    /// Whether this is the standard behaviour: every rank has its own built-in entry and
    /// every hook is the built-in one.
    pub fn is_native(&self) -> bool {
        self.hooks_are_builtin()
            && self.actions.is_empty()
            && Rank::all().all(|rank| self.entry(rank).builtin == Some(Builtin::of(rank)))
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
    #[inline(always)]
    pub(crate) fn resolves_natively(&self, action: &Action) -> bool {
        let bit = match action {
            Action::Play { card, .. } => card.rank.number(),
            Action::Recover { .. } | Action::Pass => 0,
            // A mod's rule: never native.
            Action::Act { .. } => return false,
        };
        self.native & (1 << bit) != 0
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
    pub(crate) fn target_refusal(&self, state: &State, player: Seat, card: Card, target: Seat) -> Words {
        match self.aim_of(card.rank) {
            Ok(builtin) => Words::public(builtin.refusal(state, player, target)),
            Err(entry) => entry
                .target_refusal(state, player, card, target)
                .unwrap_or_else(|| Words::public("the rules do not allow it")),
        }
    }

    /// Says what cards of `rank` do, in a player's words (a mod's `diving.describe`): the
    /// help, the board and the rules page show it instead of the standard rules' text.
    pub fn describe(&mut self, rank: Rank, text: &str) {
        self.descriptions[rank.number() as usize - 1] = Some(Arc::from(text));
    }

    /// What a mod says cards of `rank` do, if one did ([`Registry::describe`]).
    pub fn description(&self, rank: Rank) -> Option<&str> {
        self.descriptions[rank.number() as usize - 1].as_deref()
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

    /// Runs the turn-start hooks: none in the standard rules, which is tested where every
    /// turn starts (the loop itself is out of line).
    #[inline(always)]
    pub(crate) fn turn_started<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        player: Seat,
    ) -> Result<(), EffectError> {
        if self.turn_start.is_empty() { Ok(()) } else { self.run_turn_start(ctx, player) }
    }

    #[inline(never)]
    fn run_turn_start<S: EventSink + ?Sized>(&self, ctx: &mut Ctx<'_, S>, player: Seat) -> Result<(), EffectError> {
        for hook in &self.turn_start {
            hook(&mut ctx.reborrow(), player)?;
            if ctx.state().is_over() {
                break;
            }
        }
        Ok(())
    }
}

/// The registry answers the rule points a context asks: the built-in rule while no mod
/// replaced it, else the replacement (and every added after-move hook, in order).
impl Hooks for Registry {
    #[inline(always)]
    fn values_natively(&self) -> bool {
        self.card_value.is_none()
    }

    #[inline(always)]
    fn card_value<S: EventSink + ?Sized>(
        &self,
        ctx: &mut Ctx<'_, S>,
        player: Seat,
        card: Card,
    ) -> Result<u32, EffectError> {
        match &self.card_value {
            None => Ok(ctx.state().tables().value(card)),
            Some(hook) => {
                let value = hook(&mut ctx.reborrow(), player, card)?;
                if value > MAX_CARD_VALUE {
                    return Err(EffectError::new(format!(
                        "{card} cannot be worth {value}: a card is worth at most {MAX_CARD_VALUE}"
                    )));
                }
                Ok(value)
            }
        }
    }

    fn cost<S: EventSink + ?Sized>(&self, ctx: &mut Ctx<'_, S>, player: Seat, depth: u32) -> Result<u32, EffectError> {
        match &self.oxygen_cost {
            None => Ok(builtin_cost(ctx.state(), depth)),
            Some(hook) => hook(&mut ctx.reborrow(), player, depth),
        }
    }

    fn won<S: EventSink + ?Sized>(&self, ctx: &mut Ctx<'_, S>, player: Seat) -> Result<bool, EffectError> {
        match &self.win_check {
            None => Ok(builtin_win(ctx.state(), player)),
            Some(hook) => hook(&mut ctx.reborrow(), player),
        }
    }

    fn run_rescue<S: EventSink + ?Sized>(&self, ctx: &mut Ctx<'_, S>, player: Seat) -> Result<(), EffectError> {
        match &self.rescue {
            None => {
                ctx.rescue_standard(player);
                Ok(())
            }
            Some(hook) => hook(&mut ctx.reborrow(), player),
        }
    }

    fn gain_of<S: EventSink + ?Sized>(
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

    fn next_turn<S: EventSink + ?Sized>(&self, ctx: &mut Ctx<'_, S>, player: Seat) -> Result<Seat, EffectError> {
        match &self.next_turn {
            None => Ok(builtin_next(ctx.state(), player)),
            Some(hook) => hook(&mut ctx.reborrow(), player),
        }
    }

    #[inline(always)]
    fn reacts(&self, point: Point) -> bool {
        self.reacting & (1 << point as u16) != 0
    }

    fn react<S: EventSink + ?Sized>(&self, ctx: &mut Ctx<'_, S>, moment: &Moment<'_>) -> Result<(), EffectError> {
        for hook in &self.reactions[moment.point() as usize] {
            if ctx.state().is_over() {
                break;
            }
            hook(&mut ctx.reborrow(), moment)?;
        }
        Ok(())
    }

    fn moved<S: EventSink + ?Sized>(
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

    /// The built-in rule's reason (D13: not deeper, a J already in front; a K already in
    /// front), so that an entry wrapping this one can give it for the targets it keeps out.
    fn target_refusal(&self, state: &State, player: Seat, _card: Card, target: Seat) -> Option<Words> {
        Some(Words::public(self.0.refusal(state, player, target)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::action::Source;
    use crate::core::card::Suit;

    fn natives(registry: &Registry) -> Vec<bool> {
        let mut all: Vec<bool> = Rank::all()
            .map(|rank| registry.resolves_natively(&Action::play(Card::new(rank, Suit::Hearts), Source::Hand)))
            .collect();
        all.push(registry.resolves_natively(&Action::Pass));
        all
    }

    /// The engine skips the undo copy on what `resolves_natively` says, read from a field
    /// that every setter keeps: each setter must say "not native" for what it changes.
    #[test]
    fn every_setter_keeps_what_resolves_natively() {
        let standard = Registry::standard();
        assert!(natives(&standard).iter().all(|&n| n), "the standard rules run natively");

        type Setter = Box<dyn Fn(&mut Registry)>;
        let hooks: Vec<(&str, Setter)> = vec![
            ("card value", Box::new(|r| r.set_card_value(Arc::new(|_, _, _| Ok(1))))),
            ("oxygen cost", Box::new(|r| r.set_oxygen_cost(Arc::new(|_, _, _| Ok(1))))),
            ("win check", Box::new(|r| r.set_win_check(Arc::new(|_, _| Ok(false))))),
            ("rescue", Box::new(|r| r.set_rescue(Arc::new(|_, _| Ok(()))))),
            ("recovery gain", Box::new(|r| r.set_recovery_gain(Arc::new(|_, _, _| Ok(Gain::Amount(0)))))),
            ("next turn", Box::new(|r| r.set_next_turn(Arc::new(|_, player| Ok(player))))),
            ("turn start", Box::new(|r| r.add_turn_start(Arc::new(|_, _| Ok(()))))),
            ("turn start first", Box::new(|r| r.add_turn_start_first(Arc::new(|_, _| Ok(()))))),
            ("after move", Box::new(|r| r.add_after_move(Arc::new(|_, _, _, _| Ok(()))))),
            ("reaction", Box::new(|r| r.add_reaction(Point::TurnEnded, Arc::new(|_, _| Ok(()))))),
        ];
        for (name, set) in hooks {
            let mut registry = Registry::standard();
            set(&mut registry);
            assert!(natives(&registry).iter().all(|&n| !n), "after setting the {name} hook nothing runs natively");
        }

        // Each point reacts once a reaction to it is added, and only that point.
        for point in Point::ALL {
            let mut registry = Registry::standard();
            assert!(Point::ALL.iter().all(|&p| !registry.reacts(p)));
            registry.add_reaction(point, Arc::new(|_, _| Ok(())));
            for other in Point::ALL {
                assert_eq!(registry.reacts(other), other == point, "{other:?} after a reaction to {point:?}");
            }
        }

        // A built-in card under another rank can fail: only that rank loses the fast path.
        let (six, seven) = (Rank::new(6).unwrap(), Rank::new(7).unwrap());
        let mut registry = Registry::standard();
        registry.set_effect(seven, registry.effect(Rank::JACK));
        let expected: Vec<bool> = Rank::all().map(|rank| rank != seven).chain([true]).collect();
        assert_eq!(natives(&registry), expected);
        // Putting the rank's own entry back gives it back.
        registry.set_effect(seven, registry.effect(six));
        assert!(natives(&registry).iter().all(|&n| n));
    }
}
