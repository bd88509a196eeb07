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
//! Entries are fallible: a scripted entry may fail, and then [`Game::apply`] undoes the whole
//! action. Built-in entries never fail once an action has been checked.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use super::action::{Action, Seat, Source};
use super::card::{Card, Rank};
use super::event::Event;
use super::game::{Ctx, Game};
use super::rules::Gain;

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

/// The behaviour of one card rank.
pub trait Effect: Send + Sync {
    /// Whether `player` may play `card` now, and which choices it offers. Reads only.
    fn aim(&self, game: &Game, player: Seat, card: Card) -> Result<Aim, EffectError>;
    /// Carries out the play.
    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError>;
    /// Whether [`Effect::aim`] gives the same answer for every card this entry serves, because
    /// it looks only at the game and the player. The engine may then ask once per listing of
    /// the legal plays for all the visible cards sharing this entry. Built-in effects say
    /// yes; the default is no.
    fn aim_ignores_card(&self) -> bool {
        false
    }
    /// The entry whose [`Effect::aim`] this one's is, when it only passes the question on
    /// (a mod wrapping an entry without changing what it can target). The registry then asks
    /// that entry instead, once per listing for every rank that shares it. The default is
    /// `None`: this entry answers for itself.
    fn aim_delegate(&self) -> Option<Arc<dyn Effect>> {
        None
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

/// Every replaceable piece of behaviour, looked up at run time.
#[derive(Clone)]
pub struct Registry {
    effects: [Arc<dyn Effect>; 13],
    /// The entry that answers `aim` for each rank: the rank's own entry, or the one it passes
    /// the question on to ([`Effect::aim_delegate`]), followed once when the entry is set
    /// instead of on every listing.
    aims: [Arc<dyn Effect>; 13],
    pub oxygen_cost: OxygenCost,
    pub win_check: WinCheck,
    pub rescue: Rescue,
    pub recovery_gain: RecoveryGain,
    pub turn_start: Vec<TurnStart>,
    pub after_move: Vec<AfterMove>,
    /// True while every entry is built in (and so cannot fail after the checks).
    native: bool,
    /// True while every rank's `aim` is answered by its built-in entry (directly or through
    /// wraps that pass the question on), so what a card offers is the standard answer.
    native_aims: bool,
    /// The built-in hooks this registry started with. While a hook field still holds its
    /// built-in entry, the engine computes it directly instead of calling through the entry
    /// (the same answer, without a dynamic call on every move).
    builtin: Builtin,
}

/// The built-in hooks and entries, kept to recognise them (by address) after a client
/// replaced others.
#[derive(Clone)]
struct Builtin {
    effects: [Arc<dyn Effect>; 13],
    oxygen_cost: OxygenCost,
    win_check: WinCheck,
    rescue: Rescue,
    recovery_gain: RecoveryGain,
}

impl Registry {
    /// The standard behaviour: number cards, Jolt, Quick, Knot, and the standard hooks.
    pub fn standard() -> Registry {
        let number: Arc<dyn Effect> = Arc::new(NumberCard);
        let effects = std::array::from_fn(|i| match i + 1 {
            11 => Arc::new(Jolt) as Arc<dyn Effect>,
            12 => Arc::new(Quick),
            13 => Arc::new(Knot),
            _ => number.clone(),
        });
        // `Ctx::breathe`, `Ctx::check_win` and the recovery in `Game::resolve` compute what
        // these three entries do when they are still in place: keep them in step.
        let builtin = Builtin {
            effects: effects.clone(),
            oxygen_cost: Arc::new(|ctx, _, depth| Ok(ctx.game().rules().band_cost(depth))),
            win_check: Arc::new(|ctx, player| {
                let game = ctx.game();
                Ok(game.player(player).depth >= game.rules().max_depth)
            }),
            rescue: Arc::new(|ctx, player| {
                ctx.rescue_standard(player);
                Ok(())
            }),
            recovery_gain: Arc::new(|ctx, _, cards| Ok(ctx.game().rules().recovery_gain(cards))),
        };
        Registry {
            aims: effects.clone(),
            effects,
            oxygen_cost: Arc::clone(&builtin.oxygen_cost),
            win_check: Arc::clone(&builtin.win_check),
            rescue: Arc::clone(&builtin.rescue),
            recovery_gain: Arc::clone(&builtin.recovery_gain),
            turn_start: Vec::new(),
            after_move: Vec::new(),
            native: true,
            native_aims: true,
            builtin,
        }
    }

    /// Whether the oxygen-cost hook is still the built-in one.
    #[inline]
    pub(crate) fn builtin_oxygen_cost(&self) -> bool {
        Arc::ptr_eq(&self.oxygen_cost, &self.builtin.oxygen_cost)
    }

    /// Whether the win check is still the built-in one.
    #[inline]
    pub(crate) fn builtin_win_check(&self) -> bool {
        Arc::ptr_eq(&self.win_check, &self.builtin.win_check)
    }

    /// Whether the recovery-gain hook is still the built-in one.
    #[inline]
    pub(crate) fn builtin_recovery_gain(&self) -> bool {
        Arc::ptr_eq(&self.recovery_gain, &self.builtin.recovery_gain)
    }

    /// The entry for `rank`.
    pub fn effect(&self, rank: Rank) -> Arc<dyn Effect> {
        self.effects[rank.number() as usize - 1].clone()
    }

    pub(crate) fn effect_ref(&self, rank: Rank) -> &dyn Effect {
        &*self.effects[rank.number() as usize - 1]
    }

    /// The entry that answers [`Effect::aim`] for `rank` (see [`Effect::aim_delegate`]).
    pub(crate) fn aim_ref(&self, rank: Rank) -> &dyn Effect {
        &*self.aims[rank.number() as usize - 1]
    }

    /// Replaces the entry for `rank`. To wrap it, take [`Registry::effect`] first and call it
    /// from the new entry.
    pub fn set_effect(&mut self, rank: Rank, effect: Arc<dyn Effect>) {
        let mut aim = Arc::clone(&effect);
        while let Some(inner) = aim.aim_delegate() {
            aim = inner;
        }
        self.aims[rank.number() as usize - 1] = aim;
        self.effects[rank.number() as usize - 1] = effect;
        self.native = false;
        self.native_aims = self.aims.iter().zip(&self.builtin.effects).all(|(a, b)| Arc::ptr_eq(a, b));
    }

    /// Marks the registry as holding entries that may fail, so the engine keeps a copy of the
    /// game to restore. Call it after replacing a hook field directly.
    pub fn mark_scripted(&mut self) {
        self.native = false;
    }

    /// Whether every entry is built in.
    pub fn is_native(&self) -> bool {
        self.native
    }

    /// Whether resolving `action` runs only built-in code: the card's own entry (for a play)
    /// and every hook. Built-in code does not fail on a checked action, so the engine needs
    /// no copy of the game to restore. True for every action of a native registry
    /// ([`Registry::is_native`]); with a mod that replaces only the number cards, true for
    /// face cards and recoveries. Entries and hooks are compared by address with the
    /// built-in ones.
    pub fn resolves_natively(&self, action: &Action) -> bool {
        if self.native {
            return true;
        }
        let hooks = self.builtin_oxygen_cost()
            && self.builtin_win_check()
            && self.builtin_recovery_gain()
            && Arc::ptr_eq(&self.rescue, &self.builtin.rescue)
            && self.turn_start.is_empty()
            && self.after_move.is_empty();
        hooks
            && match action {
                Action::Play { card, .. } => {
                    let i = card.rank.number() as usize - 1;
                    Arc::ptr_eq(&self.effects[i], &self.builtin.effects[i])
                }
                Action::Recover { .. } | Action::Pass => true,
            }
    }

    /// Whether every rank's `aim` is the built-in entry's (see [`Effect::aim_delegate`]):
    /// then every card of a rank offers what the standard rules say.
    pub fn has_native_aims(&self) -> bool {
        self.native_aims
    }
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::standard()
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry").field("native", &self.native).finish_non_exhaustive()
    }
}

/// A–10: move down by the value, doubled on a match (D8–D12); J in front turns it upwards
/// (D13), else Q in front adds the Quick extra and a push (D14, D15).
pub struct NumberCard;

impl Effect for NumberCard {
    fn aim_ignores_card(&self) -> bool {
        true
    }

    fn aim(&self, game: &Game, player: Seat, _card: Card) -> Result<Aim, EffectError> {
        let me = game.player(player);
        Ok(if me.has_front(Rank::JACK) {
            Aim::Open { targets: None, order_choice: true }
        } else if me.has_front(Rank::QUEEN) {
            Aim::Open { targets: Some(game.others(player)), order_choice: false }
        } else {
            Aim::FREE
        })
    }

    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
        let Play { player, card, target, face_on_top, .. } = play;
        let value = ctx.number_value(player, card);
        let game = ctx.game();
        let rules = game.rules();
        if game.player(player).has_front(Rank::JACK) {
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
        } else if game.player(player).has_front(Rank::QUEEN) {
            let (extra, push) = (rules.quick_extra, rules.quick_push);
            let target = target.ok_or_else(|| EffectError("a Quick needs a push target".into()))?;
            ctx.emit(Event::Quickened { player, extra });
            ctx.discard(card);
            ctx.dive(player, value as i64 + extra as i64)?;
            if !ctx.game().is_over() {
                ctx.emit(Event::Pushed { player, target, by: push });
                ctx.dive(target, push as i64)?;
            }
            if ctx.game().is_over() {
                // D20: a win ends the game at once; the Q stays where it lies.
                return Ok(());
            }
            let queen = ctx.take_front(player, Rank::QUEEN).expect("checked: Q in front");
            ctx.discard(queen);
            Ok(())
        } else {
            ctx.discard(card);
            ctx.dive(player, value as i64)
        }
    }
}

/// J: placed in front of another diver strictly deeper than you with no J (D13).
pub struct Jolt;

impl Effect for Jolt {
    fn aim_ignores_card(&self) -> bool {
        true
    }

    fn aim(&self, game: &Game, player: Seat, _card: Card) -> Result<Aim, EffectError> {
        let depth = game.player(player).depth;
        let targets: Seats = game
            .others(player)
            .iter()
            .filter(|&s| game.player(s).depth > depth && !game.player(s).has_front(Rank::JACK))
            .collect();
        Ok(if targets.is_empty() {
            Aim::Blocked("a Jolt needs another diver deeper than you with no J in front".into())
        } else {
            Aim::Open { targets: Some(targets), order_choice: false }
        })
    }

    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
        place_on_target(ctx, play)
    }
}

/// Q: placed in front of yourself if you have no Q (D14).
pub struct Quick;

impl Effect for Quick {
    fn aim_ignores_card(&self) -> bool {
        true
    }

    fn aim(&self, game: &Game, player: Seat, _card: Card) -> Result<Aim, EffectError> {
        Ok(if game.player(player).has_front(Rank::QUEEN) {
            Aim::Blocked("you already have a Q in front of you".into())
        } else {
            Aim::FREE
        })
    }

    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
        ctx.place_front(play.player, play.player, play.card)
    }
}

/// K: placed in front of another diver with no K (D16); their next recovery gains nothing.
pub struct Knot;

impl Effect for Knot {
    fn aim_ignores_card(&self) -> bool {
        true
    }

    fn aim(&self, game: &Game, player: Seat, _card: Card) -> Result<Aim, EffectError> {
        let targets: Seats = game.others(player).iter().filter(|&s| !game.player(s).has_front(Rank::KING)).collect();
        Ok(if targets.is_empty() {
            Aim::Blocked("a Knot needs another diver with no K in front".into())
        } else {
            Aim::Open { targets: Some(targets), order_choice: false }
        })
    }

    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
        place_on_target(ctx, play)
    }
}

fn place_on_target(ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
    let target = play.target.ok_or_else(|| EffectError(format!("{} needs a target", play.card)))?;
    ctx.place_front(play.player, target, play.card)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::core::{Action, Game, Rules, Setup};

    /// Plays seat 1's first legal play on a fresh seeded game with `registry`, and returns
    /// seat 1's oxygen and depth and whether the game was won.
    fn first_move(registry: Registry) -> (u32, u32, bool) {
        let setup = Setup { names: vec!["a".into(), "b".into()], seed: 5, deck: None };
        let mut game = Game::new(Arc::new(Rules::default()), Arc::new(registry), setup).unwrap();
        let action = game.legal_actions().into_iter().find(|a| matches!(a, Action::Play { .. })).unwrap();
        game.apply(&action).unwrap();
        let me = game.player(0);
        (me.oxygen, me.depth, game.is_over())
    }

    /// The engine computes the built-in hooks directly while they are in place; a hook field
    /// replaced by a client (even without `mark_scripted`) must still be the one that runs.
    #[test]
    fn replaced_hooks_run_even_where_the_builtin_ones_are_inlined() {
        let (oxygen, depth, won) = first_move(Registry::standard());
        assert!(oxygen < 10 && depth > 0 && !won, "a first move costs oxygen and does not win");

        let mut free_air = Registry::standard();
        free_air.oxygen_cost = Arc::new(|_, _, _| Ok(0));
        assert_eq!(first_move(free_air).0, 10);

        let mut instant = Registry::standard();
        instant.win_check = Arc::new(|_, _| Ok(true));
        assert!(first_move(instant).2);

        let mut cloned = Registry::standard().clone();
        assert!(cloned.builtin_oxygen_cost() && cloned.builtin_win_check() && cloned.builtin_recovery_gain());
        cloned.recovery_gain = Arc::new(|_, _, _| Ok(crate::core::Gain::Max));
        assert!(!cloned.builtin_recovery_gain());
    }

    /// Only actions that run nothing but built-in code skip the engine's undo copy.
    #[test]
    fn an_action_resolves_natively_when_its_entry_and_every_hook_are_built_in() {
        let card = |t: &str| t.parse::<Card>().unwrap();
        let number = Action::play(card("7H"), Source::Hand);
        let jolt = Action::Play { card: card("JH"), from: Source::Table(0), target: Some(1), face_on_top: false };
        let recover = Action::Recover { cards: [card("2S")].into_iter().collect(), face_on_top: false };
        let all = [&number, &jolt, &recover, &Action::Pass];
        let standard = Registry::standard();
        assert!(all.iter().all(|a| standard.resolves_natively(a)));

        // A wrapped number card: its plays need the copy, the rest do not.
        let mut wrapped = Registry::standard();
        struct Wrap(Arc<dyn Effect>);
        impl Effect for Wrap {
            fn aim(&self, game: &Game, player: Seat, card: Card) -> Result<Aim, EffectError> {
                self.0.aim(game, player, card)
            }
            fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
                self.0.resolve(ctx, play)
            }
        }
        wrapped.set_effect(Rank::new(7).unwrap(), Arc::new(Wrap(wrapped.effect(Rank::new(7).unwrap()))));
        assert!(!wrapped.resolves_natively(&number));
        assert!(wrapped.resolves_natively(&jolt) && wrapped.resolves_natively(&recover));

        // Any hook that is not the built-in one makes every action need the copy.
        let hooked: [fn(&mut Registry); 6] = [
            |r| r.oxygen_cost = Arc::new(|_, _, _| Ok(1)),
            |r| r.win_check = Arc::new(|_, _| Ok(false)),
            |r| r.rescue = Arc::new(|_, _| Ok(())),
            |r| r.recovery_gain = Arc::new(|_, _, _| Ok(Gain::Max)),
            |r| r.turn_start.push(Arc::new(|_, _| Ok(()))),
            |r| r.after_move.push(Arc::new(|_, _, _, _| Ok(()))),
        ];
        for (i, hook) in hooked.iter().enumerate() {
            let mut registry = wrapped.clone();
            hook(&mut registry);
            assert!(!registry.resolves_natively(&jolt) && !registry.resolves_natively(&recover), "hook {i}");
        }
    }

    /// A wrap that passes the `aim` question on keeps the built-in aims; an entry that
    /// answers it itself does not, until the built-in entry is back.
    #[test]
    fn native_aims_follow_the_entries_that_answer_aim() {
        struct Wrap(Arc<dyn Effect>, bool);
        impl Effect for Wrap {
            fn aim(&self, game: &Game, player: Seat, card: Card) -> Result<Aim, EffectError> {
                self.0.aim(game, player, card)
            }
            fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
                self.0.resolve(ctx, play)
            }
            fn aim_delegate(&self) -> Option<Arc<dyn Effect>> {
                self.1.then(|| Arc::clone(&self.0))
            }
        }
        let mut registry = Registry::standard();
        assert!(registry.has_native_aims() && registry.is_native());
        let knot = registry.effect(Rank::KING);
        registry.set_effect(Rank::KING, Arc::new(Wrap(Arc::clone(&knot), true)));
        assert!(registry.has_native_aims() && !registry.is_native());
        let quick = registry.effect(Rank::QUEEN);
        registry.set_effect(Rank::QUEEN, Arc::new(Wrap(Arc::clone(&quick), false)));
        assert!(!registry.has_native_aims());
        registry.set_effect(Rank::QUEEN, quick);
        assert!(registry.has_native_aims());
        registry.set_effect(Rank::QUEEN, registry.effect(Rank::JACK));
        assert!(!registry.has_native_aims(), "a rank answered by another rank's entry");
    }
}
