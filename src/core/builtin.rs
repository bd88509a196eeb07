//! The built-in behaviour (D8–D19), written once: the number cards, Jolt, Quick and Knot
//! (`Builtin`: what each offers, and what playing it does), the recovery with its Knot half,
//! and the built-in hooks (the oxygen cost of a depth, the gain of a discard, the win).
//!
//! The registry ([`super::effects`]) holds these as its default entries and runs their code
//! directly while an entry is in place; the entry a mod receives to wrap runs the same code.
//! This code asks the rule points it needs (the gain of a recovery) through the context's
//! [`Hooks`], so it is the same code under the standard rules and under a mod's hooks.

use super::action::{Cards, Play, Seat};
use super::aim::Aim;
use super::card::{Card, Rank};
use super::ctx::{Context, Hooks};
use super::error::EffectError;
use super::event::{DrawCause, Event, EventSink, Moment};
use super::knowledge::Words;
use super::rules::Gain;
use super::seats::Seats;
use super::state::State;

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

/// The built-in hook D10: the band cost of the new depth.
pub(super) fn builtin_cost(state: &State, depth: u32) -> u32 {
    state.tables().cost(depth)
}

/// The built-in hook D19: the gain of the discard's suit pattern.
pub(super) fn builtin_gain(state: &State, cards: &[Card]) -> Gain {
    state.tables().gain(cards)
}

/// The built-in hook D11/D20: the bottom wins.
pub(super) fn builtin_win(state: &State, player: Seat) -> bool {
    state.player(player).depth >= state.rules().max_depth
}

/// The built-in hook D4: the seat an effect gave the turn to, else the next seat round the
/// table in the direction of play. Asked for another seat than the current one (a mod's
/// order counting on from a later seat), the seat after it.
#[inline]
pub(super) fn builtin_next(state: &State, player: Seat) -> Seat {
    match state.given_turn() {
        Some(given) if player == state.current() => given,
        _ => state.seat_after(player),
    }
}

/// The built-in cards. Their code is here once: the engine calls it directly while the entry
/// is in place, and the entry a mod receives to wrap (the registry's `BuiltinCard`) calls the same.
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

    pub(super) fn of(rank: Rank) -> Builtin {
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
            Err(reason) => Aim::Blocked(Words::public(reason)),
        }
    }

    /// [`Builtin::aim`] as its parts: the targets and the order choice, or why not. Each kind
    /// looks only at what it needs: the Jolt at every diver's depth, the others at who has
    /// which card in front.
    #[inline(always)]
    pub(crate) fn offer(self, state: &State, player: Seat) -> Result<(Option<Seats>, bool), &'static str> {
        self.offer_among(state, player, state.targetable(player))
    }

    /// [`Builtin::offer`] with the seats the built-in cards may name for `player`
    /// ([`State::targetable`]) worked out by the caller: a listing asks the four kinds at once,
    /// and works that out once for them (asked in each, the call it makes with teams kept the
    /// four offers from being unrolled).
    #[inline(always)]
    pub(crate) fn offer_among(
        self,
        state: &State,
        player: Seat,
        targetable: Seats,
    ) -> Result<(Option<Seats>, bool), &'static str> {
        let me = state.player(player);
        match self {
            Builtin::Number if Pending::of(me).jolt => Ok((None, true)),
            Builtin::Number if Pending::of(me).quick => Ok((Some(targetable), false)),
            Builtin::Number => Ok((None, false)),
            Builtin::Quick if me.has_front(Rank::QUEEN) => Err("you already have a Q in front of you"),
            Builtin::Quick => Ok((None, false)),
            Builtin::Jolt => {
                let deeper = Seats(seats_where(state, |p| p.depth > me.depth).0 & targetable.0);
                let targets = Seats(deeper.0 & !state.seats_with_front(Rank::JACK).0);
                if targets.is_empty() {
                    Err("a Jolt needs another diver deeper than you with no J in front")
                } else {
                    Ok((Some(targets), false))
                }
            }
            Builtin::Knot => {
                let targets = Seats(targetable.0 & !state.seats_with_front(Rank::KING).0);
                if targets.is_empty() {
                    Err("a Knot needs another diver with no K in front")
                } else {
                    Ok((Some(targets), false))
                }
            }
        }
    }

    /// Why `target` (another seat) may not be named for a card of this kind.
    pub(super) fn refusal(self, state: &State, player: Seat, target: Seat) -> &'static str {
        let t = state.player(target);
        match self {
            _ if !state.targetable(player).contains(target) => "they are on your team",
            Builtin::Jolt if t.has_front(Rank::JACK) => "they already have a J in front",
            Builtin::Jolt if t.depth <= state.player(player).depth => "they are not deeper than you",
            Builtin::Knot if t.has_front(Rank::KING) => "they already have a K in front",
            _ => "the rules do not allow it",
        }
    }

    pub(super) fn question(self) -> &'static str {
        match self {
            Builtin::Jolt => "whom do you Jolt",
            Builtin::Knot => "whom do you Knot",
            Builtin::Number => "whom does your Quick push down",
            Builtin::Quick => "which player",
        }
    }

    #[inline(always)]
    pub(super) fn resolve<H: Hooks, S: EventSink + ?Sized>(
        self,
        ctx: &mut Context<'_, H, S>,
        play: Play,
    ) -> Result<(), EffectError> {
        match self {
            Builtin::Number => number_card(ctx, play),
            Builtin::Quick => ctx.place_front(play.player, play.player, play.card),
            Builtin::Jolt | Builtin::Knot => {
                let target = play.target.ok_or_else(|| EffectError::new(format!("{} needs a target", play.card)))?;
                ctx.place_front(play.player, target, play.card)
            }
        }
    }
}

/// The seats whose diver passes `test`.
#[inline(always)]
fn seats_where(state: &State, test: impl Fn(&super::state::Player) -> bool) -> Seats {
    let mut seats = 0u64;
    for (seat, p) in state.players().iter().enumerate() {
        seats |= u64::from(test(p)) << seat;
    }
    Seats(seats)
}

/// A–10 (D8–D15).
#[inline(always)]
fn number_card<H: Hooks, S: EventSink + ?Sized>(ctx: &mut Context<'_, H, S>, play: Play) -> Result<(), EffectError> {
    let Play { player, card, target, face_on_top, .. } = play;
    let value = ctx.number_value(player, card)?;
    let pending = Pending::of(ctx.state().player(player));
    if pending.jolt {
        let from = ctx.state().player(player).depth;
        let jack = ctx.take_front(player, Rank::JACK).expect("checked: J in front");
        ctx.emit(Event::Jolted { player });
        if face_on_top {
            ctx.discard(card);
            ctx.discard(jack);
        } else {
            ctx.discard(jack);
            ctx.discard(card);
        }
        ctx.dive(player, -(value as i64))?;
        if !ctx.state().is_over() {
            ctx.react(Moment::Jolted { player, from, to: from.saturating_sub(value) })?;
        }
        Ok(())
    } else if pending.quick {
        let (extra, push) = (ctx.state().rules().quick_extra, ctx.state().rules().quick_push);
        let target = target.ok_or_else(|| EffectError::new("a Quick needs a push target"))?;
        ctx.emit(Event::Quickened { player, extra });
        ctx.discard(card);
        let (from, max) = (ctx.state().player(player).depth, ctx.state().rules().max_depth);
        let to = from.saturating_add(value).saturating_add(extra).min(max);
        ctx.dive(player, value as i64 + extra as i64)?;
        let pushed_from = ctx.state().player(target).depth;
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
        let pushed_to = pushed_from.saturating_add(push).min(max);
        ctx.react(Moment::Quickened { player, from, to, target, pushed_from, pushed_to })
    } else {
        ctx.discard(card);
        ctx.dive(player, value as i64)
    }
}

/// A recovery (D19): the cards go onto the pile, a K in front goes with them and cancels the
/// gain (D16), the gain hook says how much oxygen comes back, and the player draws as many
/// cards as they discarded.
#[inline(always)]
pub(super) fn recover<H: Hooks, S: EventSink + ?Sized>(
    ctx: &mut Context<'_, H, S>,
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
            let hooks = ctx.hooks();
            hooks.gain_of(ctx, player, cards)?
        }
    };
    let max = ctx.state().rules().max_oxygen;
    let to = match gain {
        Gain::Amount(n) => from.saturating_add(n).min(max),
        Gain::Max => max,
    };
    ctx.recovered(player, cards, gain, from, to);
    for _ in 0..cards.len() {
        if !ctx.draw_for(player, DrawCause::Recovery)? {
            break;
        }
    }
    if knot.is_some() {
        ctx.react(Moment::Knotted { player, cards: &cards[..] })?;
    }
    ctx.react(Moment::Recovered { player, cards: &cards[..], gain, from, to })
}
