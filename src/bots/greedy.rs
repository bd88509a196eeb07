//! `greedy`: a one-move heuristic that reads the standard rules, and the engine's tables of
//! oxygen costs and recovery gains, from the view.
//!
//! Every legal play and the best recovery get a score in tenths of a depth unit, and the best
//! score wins:
//! - a number card that reaches the bottom wins at once, so it is taken straight away;
//! - a number card that would leave the diver with no oxygen (a rescue) is never chosen while
//!   something else is legal; the others score the depth they gain (the deepest move wins),
//!   plus what a Quick push does to its target;
//! - a Jolt scores the swing it causes on a deeper diver, more when they are near the bottom;
//!   a Quick scores its extra depth; a Knot scores what its weights say (zero by default: in
//!   self-play a Knot paid only when nothing else did);
//! - a recovery scores the oxygen it brings, worth more where each move costs more, and the
//!   weak cards it gets rid of; it is only worked out when it could beat the best play. It
//!   puts a face card on top of the discard (face cards match only by suit, D8).
//!
//! It is deterministic: the same view always gives the same action. The weights were tuned
//! by playing variants against each other.
//!
//! The scores above are its model of the built-in cards. It plays the rules in force: the
//! oxygen cost, the gain and the win are asked of the hooks a mod replaced (a [`Forecast`]),
//! and a play the model does not know (a rank whose entry is not its built-in card, or any
//! play once an after-move hook, a rescue or a reaction to a rule point acts on moves:
//! [`View::plays_as_modelled`]) is weighed by its consequences (`Turn::weighed`): resolved
//! on a copy of the position dealt from the bot's own view, and again as the model's
//! built-in card, and scored by the model plus what the two positions differ by. An action a
//! mod registered (`buddy bob`) is weighed the same way, resolved on such a copy. While every
//! entry is built in, that path is one test a move, and the fast scorer below runs as it is.
//!
//! The plays are scored in one loop over the playable cards the engine lists, each with its
//! own offer (`Turn::best_play`): what a play's target adds to its score is worked out once
//! per class of cards (number cards, J, Q, K) and offer, so once per class under the
//! standard effects, and each card's score is selected without a branch. Its test oracle
//! scores every listed play one by one (`Turn::best_play_listed`, in test builds only).

use std::cell::RefCell;
use std::hint::select_unpredictable;
use std::sync::Arc;

use crate::core::{
    Action, ActionError, Card, Diver, Event, Forecast, Gain, Moves, Outcome, Planning, Playable, Rank, Rules, Seat,
    Seats, Source, Suit, Tables, View, cards_in_mask,
};
use crate::script::decision;

use super::{Bot, BotError};

/// Score of a play that wins on the spot.
const WIN: i64 = i64::MAX;

/// Sentinel for "no choice yet".
const NONE: i64 = i64::MIN;

/// What one oxygen of another diver is worth (tenths of depth): as a Quick push weighs the
/// breath it costs its target.
const OTHERS_OXYGEN: i64 = 3;

/// What moving again next is worth (tenths of depth): about one move's depth.
const ANOTHER_TURN: i64 = 80;

/// How much an average card is worth keeping (tenths of depth).
const AVERAGE_KEEP: i64 = 55;

/// The numbers behind the greedy scores, in tenths of a depth unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weights {
    /// A Jolt on a deeper diver, plus `jolt_lead` tenths per unit they lead by.
    pub jolt: i64,
    pub jolt_lead: i64,
    /// Extra for a Jolt on a diver within reach of the bottom.
    pub jolt_urgent: i64,
    /// A Quick in front of yourself.
    pub quick: i64,
    /// A Knot, plus extra on a diver with little oxygen or deep down.
    pub knot: i64,
    pub knot_low_oxygen: i64,
    pub knot_deep: i64,
    /// The depth one move covers (tenths); one oxygen is worth this divided by a move's cost.
    pub move_depth: i64,
    /// Added to every recovery (it does not move the diver).
    pub recovery: i64,
    /// How much a diver wants to keep a J, Q and K; number cards are worth their value.
    pub keep_faces: [i64; 3],
    /// Oxygen left after a move counts up to this many tenths (a tie-break).
    pub spare_oxygen: u32,
}

impl Default for Weights {
    /// Tuned by self-play: each change was kept when it won clearly more than half of 10,000
    /// to 20,000 games against the previous weights (seats alternated). These beat the first
    /// hand-set weights in 74% of games, and games got shorter (52 → 36 turns).
    fn default() -> Weights {
        Weights {
            jolt: 60,
            jolt_lead: 10,
            jolt_urgent: 120,
            quick: 160,
            knot: 0,
            knot_low_oxygen: 0,
            knot_deep: 0,
            move_depth: 300,
            recovery: -150,
            keep_faces: [100, 90, 30],
            spare_oxygen: 3,
        }
    }
}

/// The greedy bot. Between moves it keeps only reusable buffers and what it worked out from
/// the tables of the rules it last played (held by `Arc`, so it is worked out again whenever
/// the tables change).
#[derive(Debug, Default, Clone)]
pub struct GreedyBot {
    weights: Weights,
    model: Option<Model>,
    /// Per subset of a hand of 5 to 8 cards (by mask): the discard value, and the gain-table
    /// index.
    losses: Vec<i64>,
    indices: Vec<u32>,
    /// What the last move's weighing found: a listed move a mod failed on (reported, never
    /// skipped in silence), and how many moves it weighed by the model alone because the
    /// move's budget of mod work ran low.
    findings: Findings,
}

/// What weighing a move by its consequences found ([`GreedyBot::pick_weighing`]).
#[derive(Debug, Default, Clone)]
struct Findings {
    /// The first listed move a mod failed on, and the failure (boxed: it is rare, and the
    /// findings are reset on every move).
    failure: Option<Box<(Action, crate::core::EffectError)>>,
    /// Moves weighed by resolving them on a copy, and moves scored by the model alone since the
    /// decision's budget of mod work ran low ([`crate::script::decision`]).
    resolved: u32,
    skipped: u32,
}

/// What the bot works out once per ruleset. The oxygen cost of a depth and the gain of a
/// discard are the engine's own tables ([`Tables`]); the rest is the bot's: what those are
/// worth under its weights.
#[derive(Debug, Clone)]
struct Model {
    tables: Arc<Tables>,
    /// What one oxygen is worth at `depth` (tenths): a move's depth over a move's cost there.
    /// Worked out once, since a division is slow in the recovery scores.
    worths: Vec<i64>,
    move_depth: i64,
    /// What one card of each suit adds to an index into the gain table
    /// ([`Tables::gain_step`]); `None` when the ruleset has none (hands of more than 8).
    steps: Option<[u32; 4]>,
    /// By gain-table index: the most any non-empty part of those cards gains (0 for none;
    /// `Gain::Max` as `u32::MAX`, so that `gain.min(room)` is the oxygen actually gained).
    best_gains: Vec<u32>,
    /// What discarding a card of each rank is worth (`AVERAGE_KEEP` minus its keep value), by
    /// rank number: a lookup, where a `match` on the rank mispredicted on random hands.
    losses: [i64; 14],
}

/// The part of a move's budget of mod work (in hundredths) below which greedy stops weighing
/// moves by resolving them and scores the rest by its model.
const LOW_BUDGET: u64 = 25;

/// Depths beyond this get what one oxygen is worth by a division instead of a table.
const WORTH_TABLE_DEPTH: u32 = 1 << 16;

impl Model {
    fn new(tables: &Arc<Tables>, w: &Weights) -> Model {
        let move_depth = w.move_depth;
        let max_depth = tables.rules().max_depth.min(WORTH_TABLE_DEPTH);
        let worths = (0..=max_depth).map(|d| move_depth / i64::from(tables.cost(d).max(1))).collect();
        let steps = match Suit::ALL.map(|suit| tables.gain_step(suit)) {
            [Some(s), Some(h), Some(d), Some(c)] => Some([s, h, d, c].map(|step| step as u32)),
            _ => None,
        };
        let mut best_gains = Vec::new();
        if let Some(steps) = steps {
            // Every part of a set of cards is the set less one card, or a part of that: the
            // best gain of each index follows from those of the indices one card below it.
            // Indices of more cards than a discard can hold are worked out too, and never read.
            let base = tables.indexed_cards() + 1;
            best_gains = vec![0; base.pow(4)];
            for index in 1..best_gains.len() {
                let mut best = tables.gain_at(index).map_or(0, gain_number);
                for step in steps.map(|s| s as usize) {
                    if (index / step) % base != 0 {
                        best = best.max(best_gains[index - step]);
                    }
                }
                best_gains[index] = best;
            }
        }
        let mut losses = [0; 14];
        for rank in Rank::all() {
            losses[usize::from(rank.number())] = AVERAGE_KEEP - keep_value(w, tables, Card::new(rank, Suit::Spades));
        }
        Model { tables: Arc::clone(tables), worths, move_depth, steps, best_gains, losses }
    }

    /// `AVERAGE_KEEP` minus what keeping `card` is worth.
    fn loss(&self, card: Card) -> i64 {
        self.losses[usize::from(card.rank.number())]
    }

    fn rules(&self) -> &Rules {
        self.tables.rules()
    }

    /// What one oxygen is worth to a diver at `depth`.
    fn worth(&self, depth: u32) -> i64 {
        match self.worths.get(depth as usize) {
            Some(&w) => w,
            None => self.move_depth / i64::from(self.tables.cost(depth).max(1)),
        }
    }

    /// The gain-table steps, when every part of `hand` can be looked up by index: the
    /// ruleset has a table and the hand holds no more cards than a discard it indexes.
    fn indexed_steps(&self, hand: &[Card]) -> Option<[u32; 4]> {
        self.steps.filter(|_| hand.len() <= self.tables.indexed_cards())
    }
}

/// What the rules in force say about a move being weighed: the oxygen it costs, whether it
/// wins, what a discard brings. The engine's tables answer while those hooks are the built-in
/// ones ([`View::plans_from_tables`]); otherwise the hooks are asked ([`Asked`]). The scorer is
/// compiled for each, so the tables' answers cost what a table read does.
trait Air {
    /// Whether a discard's gain may be read from the gain table by its index (the built-in
    /// gain hook).
    fn indexed(&self) -> bool;
    /// How far `card` moves `seat` when played on `top` (D8: its value, doubled on a match).
    fn value_on(&self, seat: Seat, card: Card, top: Option<Card>) -> u32;
    /// The oxygen `seat` spends after a move ending at `depth`.
    fn cost(&self, seat: Seat, depth: u32) -> u32;
    /// Whether `seat` wins on reaching `depth` (`max` is the bottom).
    fn wins(&self, seat: Seat, depth: u32, max: u32) -> bool;
    /// What discarding `cards` brings `seat` (before a Knot and the maximum).
    fn gain(&self, seat: Seat, cards: &[Card]) -> Gain;
    /// What one oxygen is worth to `seat` at `depth`: a move's depth over a move's cost.
    fn worth(&self, model: &Model, seat: Seat, depth: u32) -> i64 {
        model.move_depth / i64::from(self.cost(seat, depth).max(1))
    }
}

impl Air for Tables {
    #[inline(always)]
    fn indexed(&self) -> bool {
        true
    }
    #[inline(always)]
    fn value_on(&self, _: Seat, card: Card, top: Option<Card>) -> u32 {
        Tables::value_on(self, card, top)
    }
    #[inline(always)]
    fn cost(&self, _: Seat, depth: u32) -> u32 {
        Tables::cost(self, depth)
    }
    #[inline(always)]
    fn wins(&self, _: Seat, depth: u32, max: u32) -> bool {
        depth >= max
    }
    #[inline(always)]
    fn gain(&self, _: Seat, cards: &[Card]) -> Gain {
        Tables::gain(self, cards)
    }
    #[inline(always)]
    fn worth(&self, model: &Model, _: Seat, depth: u32) -> i64 {
        model.worth(depth)
    }
}

/// The hooks in force for one move: the built-in ones read from the tables, the replaced
/// ones asked through a [`Forecast`] (made at the first question), each cost and win answer
/// kept for the rest of the move. A question the hook fails on gets the tables' answer (the
/// engine refuses a move whose hook fails, so the bot's guess about it matters little).
struct Asked<'t> {
    view: View<'t>,
    tables: &'t Tables,
    builtin: Planning,
    forecast: RefCell<Option<Forecast>>,
    costs: RefCell<Vec<(Seat, u32, u32)>>,
    wins: RefCell<Vec<(Seat, u32, bool)>>,
    values: RefCell<Vec<(Seat, Card, u32)>>,
}

impl<'t> Asked<'t> {
    fn new(view: &View<'t>) -> Asked<'t> {
        Asked {
            view: *view,
            tables: view.tables(),
            builtin: view.builtin_planning(),
            forecast: RefCell::default(),
            costs: RefCell::default(),
            wins: RefCell::default(),
            values: RefCell::default(),
        }
    }

    fn ask<R>(&self, question: impl FnOnce(&mut Forecast) -> R) -> R {
        let mut forecast = self.forecast.borrow_mut();
        question(forecast.get_or_insert_with(|| self.view.forecast()))
    }
}

impl Air for Asked<'_> {
    fn indexed(&self) -> bool {
        self.builtin.gain
    }
    fn value_on(&self, seat: Seat, card: Card, top: Option<Card>) -> u32 {
        if self.builtin.value {
            return self.tables.value_on(card, top);
        }
        let known = self.values.borrow().iter().find(|&&(s, c, _)| (s, c) == (seat, card)).map(|&(_, _, v)| v);
        let value = known.unwrap_or_else(|| {
            let value = self.ask(|f| f.card_value(seat, card)).unwrap_or_else(|_| self.tables.value(card));
            self.values.borrow_mut().push((seat, card, value));
            value
        });
        value << u32::from(card.doubles_on(top))
    }
    fn cost(&self, seat: Seat, depth: u32) -> u32 {
        if self.builtin.cost {
            return self.tables.cost(depth);
        }
        if let Some(&(_, _, cost)) = self.costs.borrow().iter().find(|&&(s, d, _)| (s, d) == (seat, depth)) {
            return cost;
        }
        let cost = self.ask(|f| f.cost(seat, depth)).unwrap_or_else(|_| self.tables.cost(depth));
        self.costs.borrow_mut().push((seat, depth, cost));
        cost
    }
    fn wins(&self, seat: Seat, depth: u32, max: u32) -> bool {
        if self.builtin.win {
            return depth >= max;
        }
        if let Some(&(_, _, wins)) = self.wins.borrow().iter().find(|&&(s, d, _)| (s, d) == (seat, depth)) {
            return wins;
        }
        let wins = self.ask(|f| f.wins_at(seat, depth)).unwrap_or(depth >= max);
        self.wins.borrow_mut().push((seat, depth, wins));
        wins
    }
    fn gain(&self, seat: Seat, cards: &[Card]) -> Gain {
        if self.builtin.gain {
            return self.tables.gain(cards);
        }
        self.ask(|f| f.gain(seat, cards)).unwrap_or_else(|_| self.tables.gain(cards))
    }
}

/// A gain as a number, `Gain::Max` as `u32::MAX`: `gain_number(gain).min(room)` is the oxygen
/// a diver with `room` below the maximum gets.
fn gain_number(gain: Gain) -> u32 {
    match gain {
        Gain::Amount(g) => g,
        Gain::Max => u32::MAX,
    }
}

impl GreedyBot {
    pub fn new() -> GreedyBot {
        GreedyBot::default()
    }

    /// A greedy bot with other weights (for tuning experiments).
    pub fn with_weights(weights: Weights) -> GreedyBot {
        GreedyBot { weights, ..GreedyBot::default() }
    }

    /// Works the model out again when the view's tables are not the ones it was worked out
    /// from. The test is inlined (it runs every move); the work is not.
    #[inline(always)]
    fn refresh(&mut self, view: &View<'_>) {
        if self.model.as_ref().is_none_or(|m| !Arc::ptr_eq(&m.tables, view.tables())) {
            self.read_tables(view);
        }
    }

    #[cold]
    #[inline(never)]
    fn read_tables(&mut self, view: &View<'_>) {
        self.model = Some(Model::new(view.tables(), &self.weights));
    }

    /// The greedy choice for the seat of `view` (it must be that seat's turn), weighed with
    /// the rules in force: the tables while the hooks are built in, else the hooks themselves.
    pub fn pick(&mut self, view: &View<'_>) -> Action {
        self.refresh(view);
        if !view.plays_as_modelled() {
            return self.pick_weighing(view);
        }
        if view.plans_from_tables() {
            self.pick_with(view, &**view.tables())
        } else {
            self.pick_with(view, &Asked::new(view))
        }
    }

    fn pick_with<A: Air>(&mut self, view: &View<'_>, air: &A) -> Action {
        let moves = view.moves();
        let turn = self.turn(view, &moves, air);
        let (w, model, me) = (turn.w, turn.model, view.diver(view.seat()));

        // Only the chosen play becomes an `Action`. A winning play scores `WIN`, above every
        // other score, so the first one listed is the best play.
        let Plays { best, play: best_play, fallback } = turn.best_play();
        if best == WIN
            && let Some(play) = best_play
        {
            return play_action(&moves, play);
        }

        // A recovery can only win when its best possible score beats the best play.
        // (A gain hook to ask gives no bound: every recovery is weighed.)
        let bound = (!view.hand().is_empty())
            .then(|| if air.indexed() { recovery_bound(w, model, view, &me, air) } else { i64::MAX });
        debug_assert!(bound.is_none_or(|b| self.best_recovery(view, air).0 <= b), "a recovery scores above its bound");
        if let Some(bound) = bound
            && (best_play.is_none() || bound > best)
        {
            let (recovery_score, mask) = self.best_recovery(view, air);
            if best_play.is_none() || recovery_score > best {
                // Built only when chosen, straight into the return value.
                return recovery_action(view, &me, mask);
            }
        }
        match best_play.or(fallback) {
            Some(play) => play_action(&moves, play),
            None => Action::Pass,
        }
    }

    /// [`GreedyBot::pick`] when a mod's card or a hook acting on moves makes some plays do
    /// what the bot's model does not know: those are weighed by their consequences
    /// ([`Turn::weighed`]), the others scored as always, one listed play at a time.
    #[cold]
    #[inline(never)]
    fn pick_weighing(&mut self, view: &View<'_>) -> Action {
        if view.plans_from_tables() {
            self.pick_weighing_with(view, &**view.tables())
        } else {
            self.pick_weighing_with(view, &Asked::new(view))
        }
    }

    fn pick_weighing_with<A: Air>(&mut self, view: &View<'_>, air: &A) -> Action {
        let moves = view.moves();
        let turn = self.turn(view, &moves, air);
        let me = view.diver(view.seat());
        let forecast = view.forecast();
        let findings = RefCell::new(Findings::default());
        let (mut best, mut best_play, mut fallback) = turn.best_play_listed(&moves, Some((&forecast, &findings)));
        // A mod's actions, weighed by what they lead to, as a play the model does not know.
        for act in moves.acts() {
            match turn.weighed(&forecast, &findings, act, None, 0) {
                Some(score) if score > best => (best, best_play) = (score, Some(*act)),
                Some(_) => {}
                None => {
                    fallback.get_or_insert(*act);
                }
            }
        }
        if best == WIN
            && let Some(play) = best_play
        {
            return play;
        }
        // Every recovery is weighed, without the bound `pick_with` prunes by, and with a
        // closure of its own: the hot path's recovery scan and bound then have one caller
        // each and stay inlined into it (shared with this cold path, they were not: +2%
        // instructions per greedy game).
        if !view.hand().is_empty() {
            let mut recovery = (NONE, 0u32);
            self.scored_recoveries(view, air, |score, mask| {
                if score > recovery.0 {
                    recovery = (score, mask);
                }
            });
            if best_play.is_none() || recovery.0 > best {
                self.findings = findings.into_inner();
                return recovery_action(view, &me, recovery.1);
            }
        }
        self.findings = findings.into_inner();
        best_play.or(fallback).unwrap_or(Action::Pass)
    }

    /// [`Bot::choose`] when plays are weighed by resolving them ([`GreedyBot::pick_weighing`]):
    /// a listed move a mod fails on is the mod's failure, reported as one made in play.
    #[cold]
    #[inline(never)]
    fn choose_weighing(&mut self, view: &View<'_>) -> Result<Action, BotError> {
        self.findings = Findings::default();
        let action = self.pick(view);
        if let Some(failure) = self.findings.failure.take() {
            let (action, error) = *failure;
            return Err(BotError::ModFailed { name: "greedy".into(), action, error });
        }
        Ok(action)
    }

    /// What this move's plays are scored against (after [`GreedyBot::refresh`]). Inlined: out
    /// of line, its answer (a score's every input) went through memory on every move.
    #[inline(always)]
    fn turn<'a, 'v, A: Air>(&'a self, view: &'a View<'v>, moves: &'a Moves<'v>, air: &'a A) -> Turn<'a, 'v, A> {
        let model = self.model.as_ref().expect("refreshed");
        let rules = model.rules();
        let me = view.diver(view.seat());
        Turn {
            w: &self.weights,
            model,
            view,
            moves,
            seat: view.seat(),
            depth: me.depth,
            oxygen: me.oxygen,
            jolted: me.has_front(Rank::JACK),
            quick: me.has_front(Rank::QUEEN),
            top: view.discard_top(),
            max: rules.max_depth,
            extra: if me.has_front(Rank::QUEEN) { rules.quick_extra } else { 0 },
            spare: self.weights.spare_oxygen,
            air,
            mates: view.teammates(view.seat()),
        }
    }

    /// The score of the best recovery for this diver, and its hand mask.
    fn best_recovery<A: Air>(&mut self, view: &View<'_>, air: &A) -> (i64, u32) {
        let mut best = (NONE, 0u32);
        self.scored_recoveries(view, air, |score, mask| {
            if score > best.0 {
                best = (score, mask);
            }
        });
        best
    }

    /// The `k` best recoveries by the greedy score, best first (for the search bot's root).
    pub(crate) fn ranked_recoveries(&mut self, view: &View<'_>, k: usize) -> Vec<Action> {
        if view.hand().is_empty() {
            return Vec::new();
        }
        self.refresh(view);
        let mut all = Vec::new();
        if view.plans_from_tables() {
            self.scored_recoveries(view, &**view.tables(), |score, mask| all.push((score, mask)));
        } else {
            self.scored_recoveries(view, &Asked::new(view), |score, mask| all.push((score, mask)));
        }
        // Ties keep mask order, so the ranking is deterministic.
        all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let me = view.diver(view.seat());
        all.into_iter().take(k).map(|(_, mask)| recovery_action(view, &me, mask)).collect()
    }

    /// Calls `each(score, mask)` for every non-empty subset of the hand (of its first 16
    /// cards), in mask order.
    fn scored_recoveries<A: Air>(&mut self, view: &View<'_>, air: &A, mut each: impl FnMut(i64, u32)) {
        let model = self.model.as_ref().expect("refreshed");
        let rules = model.rules();
        let me = view.diver(view.seat());
        let hand = view.hand();
        let n = hand.len().min(16);
        // A knotted diver gains nothing (D16).
        let room = if me.has_front(Rank::KING) { 0 } else { rules.max_oxygen.saturating_sub(me.oxygen) };
        let mut weighing = Weighing {
            card_loss: [0; 16],
            card_step: [0; 16],
            room,
            worth: air.worth(model, view.seat(), me.depth),
            recovery: self.weights.recovery,
        };
        for (i, &c) in hand[..n].iter().enumerate() {
            weighing.card_loss[i] = model.loss(c);
        }
        let size = 1usize << n;
        let Some(steps) = model.indexed_steps(hand).filter(|_| air.indexed()) else {
            // More cards than the gain table indexes (hands of more than 8, or extra cards a
            // mod dealt), or a gain hook to ask: ask for each discard.
            let mut cards = Vec::new();
            for mask in 1..size {
                cards.clear();
                cards.extend((0..n).filter(|i| mask & (1 << i) != 0).map(|i| hand[i]));
                let loss: i64 = (0..n).filter(|i| mask & (1 << i) != 0).map(|i| weighing.card_loss[i]).sum();
                let gain = gain_number(air.gain(view.seat(), &cards)).min(room);
                each(i64::from(gain) * weighing.worth + loss + weighing.recovery, mask as u32);
            }
            return;
        };
        for (i, &c) in hand[..n].iter().enumerate() {
            weighing.card_step[i] = steps[c.suit.index()];
        }
        // Buffers a power of two long, so that the loop needs no bounds checks: on the stack
        // for the standard hand, else kept between moves (an indexed hand holds at most 8).
        match n {
            0..=4 => weighing.weigh(&mut [0; 16], &mut [0; 16], size, &model.tables, &mut each),
            _ => {
                let (losses, indices) = buffers::<256>(&mut self.losses, &mut self.indices);
                weighing.weigh(losses, indices, size, &model.tables, &mut each);
            }
        }
    }
}

/// The first `N` entries of the weighing buffers, grown to that length when shorter.
fn buffers<'b, const N: usize>(
    losses: &'b mut Vec<i64>,
    indices: &'b mut Vec<u32>,
) -> (&'b mut [i64; N], &'b mut [u32; N]) {
    if losses.len() < N {
        losses.resize(N, 0);
        indices.resize(N, 0);
    }
    let losses = (&mut losses[..N]).try_into().expect("N long");
    let indices = (&mut indices[..N]).try_into().expect("N long");
    (losses, indices)
}

/// What the recoveries of one hand are weighed with (see [`GreedyBot::scored_recoveries`]).
struct Weighing {
    /// Per hand card: what discarding it is worth, and what it adds to a gain-table index.
    card_loss: [i64; 16],
    card_step: [u32; 16],
    /// The most oxygen a recovery can bring.
    room: u32,
    worth: i64,
    recovery: i64,
}

impl Weighing {
    /// Scores the subsets `1..size` of the hand, in mask order. Each subset's values are its
    /// lowest card's plus those of the rest of the subset, which comes earlier in mask order.
    /// Every index into a buffer is masked to its length (a power of two), so those reads
    /// have no bounds checks; the gain of each subset is read from the engine's table by its
    /// index.
    #[inline(always)]
    fn weigh<const SIZE: usize>(
        &self,
        losses: &mut [i64; SIZE],
        indices: &mut [u32; SIZE],
        size: usize,
        tables: &Tables,
        each: &mut impl FnMut(i64, u32),
    ) {
        debug_assert!(size <= SIZE && SIZE.is_power_of_two());
        losses[0] = 0;
        indices[0] = 0;
        for mask in 1..size {
            let (low, rest) = (mask.trailing_zeros() as usize & 15, mask & (mask - 1) & (SIZE - 1));
            let loss = losses[rest] + self.card_loss[low];
            let index = indices[rest] + self.card_step[low];
            losses[mask & (SIZE - 1)] = loss;
            indices[mask & (SIZE - 1)] = index;
            let gain = tables.gain_at(index as usize).expect("every part of an indexed hand is in the table");
            let gain = gain_number(gain).min(self.room);
            each(i64::from(gain) * self.worth + loss + self.recovery, mask as u32);
        }
    }
}

/// A listed play: the index of its card among [`Moves::playable`], and which of that card's
/// plays it is ([`Playable::play`]).
type PlayAt = (usize, usize);

/// The best score and its play (the first listed among equals), and the first play to
/// avoid (a rescue), for when nothing else is legal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plays {
    best: i64,
    play: Option<PlayAt>,
    fallback: Option<PlayAt>,
}

/// What a playable card offers: its targets and whether the discard order is a choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Offer {
    targets: Option<Seats>,
    order_choice: bool,
}

/// What the plays of one offer share within a class of cards (number cards, J, Q, K): the
/// part of a play's score that depends only on its target. Worked out once per move for each
/// offer a class is listed with: under the standard effects every card of a class offers the
/// same, so once per class.
#[derive(Debug, Clone, Copy)]
struct Shared {
    offer: Offer,
    /// Whether the offer lists a play at all (its set of targets may be empty).
    any: bool,
    /// Over the targets, the first best of the target's part (a face card's score without
    /// the table bonus; a Quick's push; 0 for other number cards) and the index of its play
    /// in the plain order. `scored` is false when no target scores.
    part: i64,
    play: usize,
    scored: bool,
    /// The first play whose target makes it one to avoid, if any.
    avoided: bool,
    avoid: usize,
}

/// The best play of [`Turn::best_play`]'s loop so far, by listing position, and the first
/// play to avoid (`usize::MAX`: none yet).
struct Best {
    score: i64,
    at: PlayAt,
    avoid_i: usize,
    avoid: usize,
}

impl Best {
    /// Keeps play `at` when it beats the best so far, and the first play to avoid, without a
    /// branch: which play is best so far is random, and a branch on it mispredicted.
    #[inline(always)]
    fn take(&mut self, at: PlayAt, score: i64, avoid: Option<usize>) {
        let better = score > self.score;
        self.score = select_unpredictable(better, score, self.score);
        self.at = select_unpredictable(better, at, self.at);
        let first_avoid = avoid.is_some() & (self.avoid_i == usize::MAX);
        self.avoid_i = select_unpredictable(first_avoid, at.0, self.avoid_i);
        self.avoid = select_unpredictable(first_avoid, avoid.unwrap_or(0), self.avoid);
    }
}

/// The action of a listed play.
fn play_action(moves: &Moves<'_>, (i, play): PlayAt) -> Action {
    moves.playable().nth(i).expect("a listed card").play(play)
}

impl Bot for GreedyBot {
    fn name(&self) -> &str {
        "greedy"
    }

    fn start_game(&mut self, _seed: u64) {}

    fn choose(&mut self, view: &View<'_>) -> Result<Action, BotError> {
        if view.current() != view.seat() || view.outcome() != Outcome::Running {
            return Err(BotError::Failed { name: "greedy".into(), message: "it is not this bot's turn".into() });
        }
        if view.plays_as_modelled() {
            // Nothing is weighed by resolving it, so nothing can be found: the action is built
            // where the caller reads it.
            self.findings = Findings::default();
            return Ok(self.pick(view));
        }
        self.choose_weighing(view)
    }

    fn note(&mut self) -> Option<String> {
        let Findings { resolved, skipped, .. } = std::mem::take(&mut self.findings);
        (skipped > 0).then(|| {
            format!(
                "greedy weighed {resolved} of {} moves by what they do, the rest by its model alone: the mods' work \
                 for one move ran low",
                resolved + skipped
            )
        })
    }
}

/// What a turn's plays are scored against: read once per move.
struct Turn<'a, 'v, A> {
    w: &'a Weights,
    model: &'a Model,
    view: &'a View<'v>,
    /// What the engine lists now.
    moves: &'a Moves<'v>,
    seat: Seat,
    depth: u32,
    oxygen: u32,
    jolted: bool,
    quick: bool,
    top: Option<Card>,
    /// Read out of the rules and weights once per move: the scores are worked out in a call
    /// per play, which would otherwise follow the pointers again each time.
    max: u32,
    /// The Quick's extra depth when a Q lies in front (D14), else 0.
    extra: u32,
    spare: u32,
    air: &'a A,
    /// This diver's teammates (not themself; none without teams).
    mates: Seats,
}

impl<A: Air> Turn<'_, '_, A> {
    /// The best play, scored card by card over the playable cards the engine lists, each with
    /// its own offer, in one pass. What a play's target adds to its score is the same for
    /// every card of a class with the same offer, so it is worked out once per class and
    /// offer ([`Shared`]); the rest of each card's score is selected without a branch on the
    /// card. The tests compare every choice with a scan of the listing, play by play
    /// (`Turn::best_play_listed`).
    #[expect(clippy::explicit_counter_loop, reason = "an `enumerate` over the listing was not inlined")]
    fn best_play(&self) -> Plays {
        // By class: number cards, J, Q, K.
        let mut shared: [Option<Shared>; 4] = [None; 4];
        let mut best = Best { score: NONE, at: (usize::MAX, 0), avoid_i: usize::MAX, avoid: 0 };
        // Counted by hand: an `enumerate` over the listing was not inlined (+6% instructions).
        let mut i = 0;
        for p in self.moves.playable() {
            let class = usize::from(p.card.rank.number().saturating_sub(10));
            let offer = Offer { targets: p.targets(), order_choice: p.order_choice() };
            let s = match shared[class] {
                Some(s) if s.offer == offer => s,
                _ => *shared[class].insert(self.shared(class, offer)),
            };
            self.take_card(&mut best, i, &p, &s);
            i += 1;
        }
        Plays {
            best: best.score,
            play: (best.at.0 != usize::MAX).then_some(best.at),
            fallback: (best.avoid_i != usize::MAX).then_some((best.avoid_i, best.avoid)),
        }
    }

    /// What the plays of `offer` share for cards of `class` (0 for number cards, then J, Q,
    /// K): scored target by target, in listing order. Inlined: out of line, its 56-byte
    /// answer went back through memory field by field and was read back whole at once, a
    /// stall on every call (`perf annotate`: 7% of `pick`'s samples on that load).
    #[inline(always)]
    fn shared(&self, class: usize, offer: Offer) -> Shared {
        let part = |target: Option<Seat>| match class {
            0 if self.quick && !self.jolted => Some(push_score(self.model, self.view, self.air, target?, self.mates)),
            0 => Some(0),
            _ => self.face_score([Rank::JACK, Rank::QUEEN, Rank::KING][class - 1], target),
        };
        let mut s = Shared { offer, any: false, part: 0, play: 0, scored: false, avoided: false, avoid: 0 };
        let mut take = |k: usize, target: Option<Seat>| {
            // The plain order comes first, and the order does not change these scores.
            let play = k << usize::from(offer.order_choice);
            s.any = true;
            match part(target) {
                Some(score) if !s.scored || score > s.part => (s.part, s.play, s.scored) = (score, play, true),
                Some(_) => {}
                None if !s.avoided => (s.avoided, s.avoid) = (true, play),
                None => {}
            }
        };
        match offer.targets {
            None => take(0, None),
            Some(seats) => seats.iter().enumerate().for_each(|(k, t)| take(k, Some(t))),
        }
        s
    }

    /// Takes in the plays of listed card `i`, whose offer's shared part is `s`. A number
    /// card's and a face card's scores are both worked out and one is selected, without a
    /// branch: which cards are face cards, and which play is best so far, are random, and
    /// branches on them mispredicted.
    #[inline(always)]
    fn take_card(&self, best: &mut Best, i: usize, p: &Playable, s: &Shared) {
        // Taking a table card denies it to the next player; break ties that way.
        let table_bonus = i64::from(matches!(p.from(), Source::Table(_)));
        let value = self.air.value_on(self.seat, p.card, self.top);
        // A number card's best play and its first play to avoid, by play index.
        let (number, number_play, number_avoid) = if self.jolted {
            // Below the J first (NONE + 1, the least score there is), then on top of it.
            let (rescue, up) = self.jolted_move(value, table_bonus);
            let on_top = s.offer.order_choice & !rescue;
            let score = select_unpredictable(s.any, select_unpredictable(on_top, up, NONE + 1), NONE);
            let avoid = (s.any & s.offer.order_choice & rescue).then_some(1);
            (score, usize::from(on_top), avoid)
        } else {
            let (win, rescue, down) = self.number_move(value, table_bonus);
            let (win, rescue) = (win & s.any, rescue & s.any);
            let scored = select_unpredictable(!rescue & s.scored, down + s.part, NONE);
            let score = select_unpredictable(win, WIN, scored);
            let avoid = select_unpredictable(rescue, Some(0), (!win & s.avoided).then_some(s.avoid));
            (score, select_unpredictable(win, 0, s.play), avoid)
        };
        let face = select_unpredictable(s.scored, s.part + table_bonus, NONE);
        let face_avoid = s.avoided.then_some(s.avoid);
        let is_number = p.card.rank.is_number();
        let score = select_unpredictable(is_number, number, face);
        let play = select_unpredictable(is_number, number_play, s.play);
        best.take((i, play), score, select_unpredictable(is_number, number_avoid, face_avoid));
    }

    /// Scores every listed play one by one, in the engine's listing order: the test oracle
    /// of [`Turn::best_play`], which must choose the same; and, with a `forecast` of the
    /// position, the scorer of [`GreedyBot::pick_weighing`], where a play whose rank the
    /// model does not know is [`weighed`](Turn::weighed).
    fn best_play_listed(
        &self,
        moves: &crate::core::Moves<'_>,
        forecast: Option<(&Forecast, &RefCell<Findings>)>,
    ) -> (i64, Option<Action>, Option<Action>) {
        let mut best = NONE;
        let mut best_play = None;
        let mut fallback = None;
        moves.each_play(|card, from, target, face_on_top| {
            let play = Action::Play { card, from, target, face_on_top };
            let scored = self.score_play(card, &from, target, face_on_top);
            let scored = match forecast {
                Some((forecast, findings)) if !self.view.plays_rank_as_modelled(card.rank) => {
                    self.weighed(forecast, findings, &play, scored, i64::from(matches!(from, Source::Table(_))))
                }
                _ => scored,
            };
            match scored {
                Some(s) if s > best => {
                    best = s;
                    best_play = Some(play);
                }
                Some(_) => {}
                None => {
                    if fallback.is_none() {
                        fallback = Some(play);
                    }
                }
            }
        });
        (best, best_play, fallback)
    }

    /// Oxygen this diver has left after a move ending at `depth` (0 means a rescue).
    #[inline(always)]
    fn oxygen_after(&self, depth: u32) -> u32 {
        self.oxygen.saturating_sub(self.air.cost(self.seat, depth))
    }

    /// The score of `play` under the rules in force, from `scored`, what the model says of
    /// it (the play as the rank's built-in card, [`Turn::score_play`]): the play is resolved
    /// on a copy of the position the bot can imagine from its own view ([`Forecast::play`]),
    /// and so is the model's play ([`Forecast::play_modelled`]); the score moves by what the
    /// two positions differ by ([`Turn::standing`]). So a wrap that only calls the built-in
    /// card scores as the card does, and what a mod's card or hook adds (oxygen it costs, a
    /// diver it moves, a win) counts. `None`: a play to avoid, as in `score_play` (it ends in
    /// a rescue, or the mod fails on it: the failure is kept in `weighing`, and reported).
    /// When the move's budget of mod work runs low, the model's score stands (counted in
    /// `findings`): the bot weighs fewer moves before it would fail.
    fn weighed(
        &self,
        forecast: &Forecast,
        findings: &RefCell<Findings>,
        play: &Action,
        scored: Option<i64>,
        table_bonus: i64,
    ) -> Option<i64> {
        if decision::running_low(LOW_BUDGET) {
            findings.borrow_mut().skipped += 1;
            return scored;
        }
        findings.borrow_mut().resolved += 1;
        let (after, events) = match forecast.play(play) {
            Ok(played) => played,
            // The budget ran out on this very move: not the mod's failure.
            Err(_) if decision::left() == Some(0) => return scored,
            Err(ActionError::Script(e)) => {
                findings.borrow_mut().failure.get_or_insert_with(|| Box::new((*play, e)));
                return None;
            }
            Err(_) => return None,
        };
        match after.outcome() {
            Outcome::Won { winners, .. } if winners.contains(self.seat) => return Some(WIN),
            Outcome::Won { .. } => return Some(-100_000),
            _ => {}
        }
        let rescued = |events: &[Event]| {
            events.iter().any(|e| matches!(e, Event::Rescued { player, .. } if *player == self.seat))
        };
        if rescued(&events) {
            return None;
        }
        match (scored, forecast.play_modelled(play)) {
            (Some(score), Ok((modelled, _))) if score != WIN && !modelled.is_over() => {
                Some(score.saturating_add(self.standing(&after) - self.standing(&modelled)))
            }
            // The model has nothing to build on (it would win, rescue or fail where the rules
            // in force do not): the move itself is scored, as a number card's is.
            _ => {
                let (me, now) = (after.player(self.seat), self.view.diver(self.seat));
                let own = (i64::from(me.depth) - i64::from(now.depth)) * 10 + i64::from(me.oxygen.min(self.spare));
                let others: i64 = (0..self.view.player_count())
                    .filter(|&s| s != self.seat)
                    .map(|s| {
                        let (then, now) = (after.player(s), self.view.diver(s));
                        let part = (i64::from(now.depth) - i64::from(then.depth)) * 10
                            + (i64::from(now.oxygen) - i64::from(then.oxygen)) * OTHERS_OXYGEN;
                        // A teammate going deeper is the team going deeper.
                        if self.mates.contains(s) { -part } else { part }
                    })
                    .sum();
                let hand = self.hand_worth(&me.hand) - self.hand_worth(self.view.hand());
                Some(own + others + hand + self.order(&after) - self.order_now() + table_bonus)
            }
        }
    }

    /// How good a position is for this diver, in the units of the scores, for comparing two
    /// outcomes of one play: its depth, its oxygen at what one oxygen is worth at its depth
    /// now (as a recovery is weighed), less the others' depths, and a little of their oxygen
    /// (as a Quick push weighs the breath it costs them).
    ///
    /// With teams, a teammate's depth and oxygen count for the diver as the others' count
    /// against it; who moves next ([`Turn::order`]) and what the diver holds
    /// ([`Turn::hand_worth`]) count too, so that a rule that gives another turn, turns the
    /// order round or puts a card in a hand is weighed by what it does.
    fn standing(&self, game: &crate::core::Game) -> i64 {
        let worth = self.air.worth(self.model, self.seat, self.depth);
        let divers: i64 = (0..game.player_count())
            .map(|s| {
                let p = game.player(s);
                if s == self.seat {
                    i64::from(p.depth) * 10 + i64::from(p.oxygen) * worth
                } else if self.mates.contains(s) {
                    i64::from(p.depth) * 10 + i64::from(p.oxygen) * OTHERS_OXYGEN
                } else {
                    -i64::from(p.depth) * 10 - i64::from(p.oxygen) * OTHERS_OXYGEN
                }
            })
            .sum();
        divers + self.order(game) + self.hand_worth(&game.player(self.seat).hand)
    }

    /// What it is worth to this diver that `game`'s current player moves next: another turn
    /// of its own is worth about a move, a teammate's half that, and an opponent's costs more
    /// the deeper that opponent is (their move may be the winning one).
    fn order(&self, game: &crate::core::Game) -> i64 {
        if game.is_over() {
            return 0;
        }
        let next = game.current();
        if next == self.seat {
            ANOTHER_TURN
        } else if self.mates.contains(next) {
            ANOTHER_TURN / 2
        } else {
            -i64::from(game.player(next).depth) * 2
        }
    }

    /// [`Turn::order`] of the position being weighed, before the move: the next mover by the
    /// built-in order.
    fn order_now(&self) -> i64 {
        let next = self.view.next_in_order();
        if next == self.seat {
            ANOTHER_TURN
        } else if self.mates.contains(next) {
            ANOTHER_TURN / 2
        } else {
            -i64::from(self.view.diver(next).depth) * 2
        }
    }

    /// What holding `hand` is worth beyond average cards (a card's keep value less the
    /// average's, summed): a rule that puts a good card in the hand gains by it.
    fn hand_worth(&self, hand: &[Card]) -> i64 {
        -hand.iter().map(|&c| self.model.loss(c)).sum::<i64>()
    }

    /// The score of one play, or `None` for a play to avoid while anything else is legal
    /// (what [`Turn::best_play`] works out card by card).
    fn score_play(&self, card: Card, from: &Source, target: Option<Seat>, face_on_top: bool) -> Option<i64> {
        // Taking a table card denies it to the next player; break ties that way.
        let table_bonus = i64::from(matches!(from, Source::Table(_)));
        if card.rank.is_number() {
            let value = self.air.value_on(self.seat, card, self.top);
            if self.jolted {
                if !face_on_top {
                    return Some(NONE + 1);
                }
                let (rescue, score) = self.jolted_move(value, table_bonus);
                return (!rescue).then_some(score);
            }
            let (win, rescue, score) = self.number_move(value, table_bonus);
            return match (win, rescue) {
                (true, _) => Some(WIN),
                (_, true) => None,
                _ if self.quick => Some(score + push_score(self.model, self.view, self.air, target?, self.mates)),
                _ => Some(score),
            };
        }
        Some(self.face_score(card.rank, target)? + table_bonus)
    }

    /// A number card worth `value` played by an unjolted diver, before what a Quick push
    /// does to its target: whether it reaches the bottom, whether it ends in a rescue, and
    /// its score otherwise. Every part is worked out, for callers that select without a
    /// branch.
    #[inline(always)]
    fn number_move(&self, value: u32, table_bonus: i64) -> (bool, bool, i64) {
        let to = self.depth.saturating_add(value).saturating_add(self.extra).min(self.max);
        let left = self.oxygen_after(to);
        let win = self.air.wins(self.seat, to, self.max);
        // Keeping a little oxygen in hand is worth a tie-break.
        let score = i64::from(to - self.depth) * 10 + table_bonus + i64::from(left.min(self.spare));
        (win, !win & (left == 0), score)
    }

    /// A jolted number card worth `value`, played on top of the J: whether the move up ends
    /// in a rescue, and its score otherwise. A jolted move goes up: keep the loss small, and
    /// put the J on top (D13) so the next player can only match it by suit. (The play below
    /// the J scores `NONE + 1`, the least there is.)
    #[inline(always)]
    fn jolted_move(&self, value: u32, table_bonus: i64) -> (bool, i64) {
        let to = self.depth.saturating_sub(value);
        (self.oxygen_after(to) == 0, -(i64::from(value)) * 10 - 5 + table_bonus)
    }

    /// A face card's score, without the table bonus.
    fn face_score(&self, rank: Rank, target: Option<Seat>) -> Option<i64> {
        let (w, max) = (self.w, self.max);
        match rank {
            // A Jolt or a Knot on a teammate only hurts the team: a play to avoid.
            Rank::JACK | Rank::KING if target.is_some_and(|t| self.mates.contains(t)) => None,
            Rank::JACK => {
                let t = self.view.diver(target?);
                let lead = i64::from(t.depth.saturating_sub(self.depth));
                let mut score = w.jolt + lead * w.jolt_lead / 10;
                if t.depth.saturating_add(28) >= max {
                    score += w.jolt_urgent;
                }
                Some(score)
            }
            Rank::QUEEN => Some(w.quick),
            Rank::KING => {
                let t = self.view.diver(target?);
                let mut score = w.knot;
                if t.oxygen <= 3 {
                    score += w.knot_low_oxygen;
                }
                if t.depth > max / 2 {
                    score += w.knot_deep;
                }
                Some(score)
            }
            // A modded rank: the bot does not know what it does.
            _ => Some(-1000),
        }
    }
}

/// What a Quick push (D14) on `target` is worth to the pusher: a push takes an opponent
/// deeper (bad) at the cost of a breath (good); a rescue and a win turn it round. A push on a
/// teammate is weighed apart ([`teammate_push_score`]).
#[inline(always)]
fn push_score(model: &Model, view: &View<'_>, air: &impl Air, target: Seat, mates: Seats) -> i64 {
    if mates.contains(target) {
        return teammate_push_score(model, view, air, target);
    }
    let rules = model.rules();
    let t = view.diver(target);
    let to = t.depth.saturating_add(rules.quick_push).min(rules.max_depth);
    if air.wins(target, to, rules.max_depth) {
        // D21: they would win.
        return -100_000;
    }
    let cost = air.cost(target, to);
    if t.oxygen <= cost {
        // They would be rescued: all their depth is lost.
        return i64::from(to) * 10;
    }
    -i64::from(rules.quick_push) * 10 + i64::from(cost) * OTHERS_OXYGEN
}

/// What a Quick push on teammate `target` is worth to the pusher: their win is the team's, and
/// their rescue the team's loss. Otherwise it takes them a few steps deeper at the cost of a
/// breath, and a teammate's breath is the team's oxygen, worth what the diver's own is at that
/// depth ([`Air::worth`]: about a move's depth), far more than the steps. So greedy pushes a
/// teammate only into a win, or when every other push is worse.
///
/// Measured on 8,000 paired games of four players in two teams (the standard cards): weighing
/// a teammate's breath as little as an opponent's, greedy pushed a teammate in 61% of its
/// pushes, and its team won 45% of the games against greedy scoring as here (1% of its pushes
/// on a teammate), and 46% against greedy that scores a teammate's push as an opponent's.
#[inline(always)]
fn teammate_push_score(model: &Model, view: &View<'_>, air: &impl Air, target: Seat) -> i64 {
    let rules = model.rules();
    let t = view.diver(target);
    let to = t.depth.saturating_add(rules.quick_push).min(rules.max_depth);
    if air.wins(target, to, rules.max_depth) {
        // D21: they would win, for their team.
        return TEAM_WIN;
    }
    let cost = air.cost(target, to);
    if t.oxygen <= cost {
        // They would be rescued: all their depth is lost.
        return -i64::from(to) * 10;
    }
    i64::from(rules.quick_push) * 10 - i64::from(cost) * air.worth(model, target, to)
}

/// What pushing a teammate to the bottom is worth: the team wins, so it beats every play but
/// a win of one's own (and it is added to a card's score, so it is no [`WIN`]).
const TEAM_WIN: i64 = 1_000_000;

/// How much a diver wants to keep a card, in tenths; the average card is about 55. A number
/// card is worth the distance it moves a diver: its value in the rules in force (an ace worth
/// 11 is kept as a 10 is).
fn keep_value(w: &Weights, tables: &Tables, card: Card) -> i64 {
    match card.rank {
        Rank::JACK => w.keep_faces[0],
        Rank::QUEEN => w.keep_faces[1],
        Rank::KING => w.keep_faces[2],
        r if r.is_number() => i64::from(tables.value(card)) * 10,
        _ => 0,
    }
}

/// No recovery can score more than this: the most oxygen a part of the hand can bring, and
/// every card worth discarding gone.
fn recovery_bound(w: &Weights, model: &Model, view: &View<'_>, me: &Diver<'_>, air: &impl Air) -> i64 {
    let rules = model.rules();
    let room = if me.has_front(Rank::KING) { 0 } else { rules.max_oxygen.saturating_sub(me.oxygen) };
    let hand = view.hand();
    let discards: i64 = hand.iter().map(|&c| model.loss(c).max(0)).sum();
    let gain = match model.indexed_steps(hand) {
        Some(steps) => {
            let index: u32 = hand.iter().map(|c| steps[c.suit.index()]).sum();
            model.best_gains[index as usize].min(room)
        }
        None => room,
    };
    i64::from(gain) * air.worth(model, view.seat(), me.depth) + discards + w.recovery
}

/// The recovery discarding the hand cards in `mask`, with a face card last (on top of the
/// discard a face card matches only by suit, D8) and a Knot on top when knotted.
fn recovery_action(view: &View<'_>, me: &Diver<'_>, mask: u32) -> Action {
    let hand = &view.hand()[..view.hand().len().min(32)];
    // The last face card chosen goes last; the others keep their hand order. Found from bit
    // masks, without a branch per card: the masks are random.
    let faces = hand.iter().enumerate().fold(0u32, |set, (i, c)| set | u32::from(!c.rank.is_number()) << i);
    // The highest bit of the chosen face cards (0 when there is none).
    let top = ((1u64 << 32) >> (mask & faces).leading_zeros()) as u32 >> 1;
    let mut chosen = cards_in_mask(hand, mask & !top);
    if top != 0 {
        chosen.push(hand[top.trailing_zeros() as usize]).expect("its place was left free above");
    }
    Action::Recover { cards: chosen, face_on_top: me.has_front(Rank::KING) }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::bots::{Bot, RandomBot};
    use crate::core::{Aim, Ctx, Effect, EffectError, Game, Play, Registry, Setup, State, SuitPattern, parse_cards};
    use crate::ruleset::Ruleset;
    use crate::script::{ModSource, load_mods};

    /// A two-player game dealt from a stacked deck (hands, table, discard top as in D3, the
    /// rest in full-deck order), with seat 1 put at `depth` and `oxygen` by a turn-start hook.
    fn position(first: &str, depth: i64, oxygen: i64) -> Game {
        position_with(Rules::default(), first, depth, oxygen)
    }

    /// [`position`] under other rules.
    fn position_with(rules: Rules, first: &str, depth: i64, oxygen: i64) -> Game {
        let mut deck = parse_cards(first).unwrap();
        for c in crate::core::full_deck(1) {
            if !deck.contains(&c) {
                deck.push(c);
            }
        }
        let mut registry = Registry::standard();
        registry.add_turn_start(Arc::new(move |ctx, _| {
            if ctx.state().turn() == 1 {
                ctx.set_depth(0, depth)?;
                ctx.set_oxygen(0, oxygen)?;
            }
            Ok(())
        }));
        let setup = Setup { names: vec!["a".into(), "b".into()], seed: 1, deck: Some(deck) };
        Game::new(Arc::new(rules), Arc::new(registry), setup).unwrap()
    }

    fn pick(game: &Game) -> Action {
        GreedyBot::new().pick(&View::new(game, 0))
    }

    /// `recovery_action` finds the last chosen face card with bit tricks; it must answer as
    /// a search from the end of the hand would.
    #[test]
    fn a_recovery_puts_the_last_chosen_face_card_on_top() {
        for text in ["2H JH 8C 9S", "JS QH KD 5C", "KC 5S QD 7H", "9H 3C 4S 5D"] {
            let game = position(&format!("{text}  AH AS AD AC  2S 3S 2D 3D  4C"), 60, 3);
            let view = View::new(&game, 0);
            let me = view.diver(0);
            let hand = view.hand();
            for mask in 1..1u32 << hand.len() {
                let face = (0..hand.len()).rev().find(|&i| mask & (1 << i) != 0 && !hand[i].rank.is_number());
                let mut expected: Vec<Card> =
                    (0..hand.len()).filter(|&i| mask & (1 << i) != 0 && Some(i) != face).map(|i| hand[i]).collect();
                expected.extend(face.map(|i| hand[i]));
                match recovery_action(&view, &me, mask) {
                    Action::Recover { cards, .. } => assert_eq!(cards.to_vec(), expected, "{text}, mask {mask:#b}"),
                    other => panic!("expected a recovery, got {other}"),
                }
            }
        }
    }

    /// Every way of weighing recoveries (four cards or fewer, up to 16, more of a suit than
    /// the gain table holds) scores each subset as the plain formula does.
    #[test]
    fn recoveries_are_weighed_as_the_rules_say() {
        let cases = [
            (4, "9H JH 3C KS  AH AS AD AC  2H 2S 2D 3D  4C"),
            (6, "9H JH 3C KS 7H 2H  AH AS AD AC 4H 4S  2D 3D 5D 6D  4C"),
            (10, "AS 2S 3S 4S 5S 6S 7S 8S 9S JH  AH 2H 3H 4H 5H 6H 7H 8H 9H 10H  2D 3D 5D 6D  4C"),
        ];
        for (hand_size, deal) in cases {
            // A table that gives the patterns different gains, three of a suit the maximum.
            let recovery = SuitPattern::all_up_to(hand_size)
                .into_iter()
                .enumerate()
                .map(|(i, p)| (p, if p.to_string() == "3" { Gain::Max } else { Gain::Amount(i as u32 % 5) }))
                .collect();
            let rules = Rules { hand_size, recovery, ..Rules::default() };
            let game = position_with(rules.clone(), deal, 60, 3);
            let view = View::new(&game, 0);
            let mut bot = GreedyBot::new();
            bot.refresh(&view);
            let mut scored = Vec::new();
            bot.scored_recoveries(&view, &**view.tables(), |score, mask| scored.push((mask, score)));
            let w = Weights::default();
            let hand = view.hand();
            let worth = w.move_depth / i64::from(rules.band_cost(60));
            let expected: Vec<(u32, i64)> = (1..1u32 << hand.len())
                .map(|mask| {
                    let cards = cards_in_mask(hand, mask);
                    let gain = gain_number(rules.recovery_gain(&cards)).min(rules.max_oxygen - 3);
                    let loss: i64 = cards.iter().map(|&c| AVERAGE_KEEP - keep_value(&w, view.tables(), c)).sum();
                    (mask, i64::from(gain) * worth + loss + w.recovery)
                })
                .collect();
            assert_eq!(scored, expected, "hand size {hand_size}");
        }
    }

    /// The recovery bound needs the best gain of any part of a hand, which is not the whole
    /// hand's gain when a house table gives less for more cards.
    #[test]
    fn best_gains_are_the_best_of_every_part() {
        let table = [("none", 1), ("2", 2), ("2+2", 1), ("3", 5), ("4", 0)];
        let recovery = table.iter().map(|&(p, g)| (SuitPattern::parse(p).unwrap(), Gain::Amount(g))).collect();
        let tables = Arc::new(Tables::new(Arc::new(Rules { recovery, ..Rules::default() })));
        let model = Model::new(&tables, &Weights::default());
        let steps = model.steps.expect("a gain table for hands of 4").map(|s| s as usize);
        let base = tables.indexed_cards() + 1;
        let counts = |index: usize| steps.map(|step| index / step % base);
        // Only the indices of cards a discard can hold are read.
        let held = |index: &usize| counts(*index).iter().sum::<usize>() <= tables.indexed_cards();
        for (index, &best) in model.best_gains.iter().enumerate().filter(|(i, _)| held(i)) {
            let whole = counts(index);
            let brute = (1..model.best_gains.len())
                .filter(|&part| counts(part).iter().zip(&whole).all(|(p, c)| p <= c))
                .map(|part| gain_number(tables.gain_at(part).expect("in the table")))
                .max()
                .unwrap_or(0);
            assert_eq!(best, brute, "suit counts {whole:?}");
        }
        // Four spades gain nothing, but three of them gain 5.
        assert_eq!(model.best_gains[4 * steps[Suit::Spades.index()]], 5);
    }

    /// Wraps a rank's entry and passes every question on unchanged, without saying so (no
    /// `aim_delegate`): the engine asks it what each card offers.
    struct PassOn(Arc<dyn Effect>);

    impl Effect for PassOn {
        fn aim(&self, state: &State, player: Seat, card: Card) -> Result<Aim, EffectError> {
            self.0.aim(state, player, card)
        }
        fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
            self.0.resolve(ctx, play)
        }
        fn aim_ignores_card(&self) -> bool {
            self.0.aim_ignores_card()
        }
    }

    /// Wraps a rank's entry with an aim that looks at the card: an odd heart cannot be played,
    /// the ace of diamonds offers an empty set of targets (no play), another diamond names
    /// only the first of its targets, a club lets the player choose the discard order, and a
    /// club number card names another diver (which changes nothing).
    struct ByCard(Arc<dyn Effect>);

    impl Effect for ByCard {
        fn aim(&self, state: &State, player: Seat, card: Card) -> Result<Aim, EffectError> {
            let aim = self.0.aim(state, player, card)?;
            let Aim::Open { targets, order_choice } = aim else { return Ok(aim) };
            Ok(match card.suit {
                Suit::Hearts if card.rank.number() % 2 == 1 => Aim::Blocked("odd hearts rest".into()),
                Suit::Diamonds if card.rank == Rank::ACE => Aim::Open { targets: Some(Seats(0)), order_choice },
                Suit::Diamonds => Aim::Open { targets: targets.map(|s| Seats(s.0 & s.0.wrapping_neg())), order_choice },
                Suit::Clubs if card.rank.is_number() => {
                    Aim::Open { targets: Some(targets.unwrap_or(state.others(player))), order_choice: true }
                }
                Suit::Clubs => Aim::Open { targets, order_choice: true },
                Suit::Spades | Suit::Hearts => aim,
            })
        }
        fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
            self.0.resolve(ctx, play)
        }
    }

    /// The standard registry with every rank's entry wrapped.
    fn wrapped(wrap: impl Fn(Arc<dyn Effect>) -> Arc<dyn Effect>) -> Registry {
        let mut registry = Registry::standard();
        for rank in Rank::all() {
            registry.set_effect(rank, wrap(registry.effect(rank)));
        }
        registry
    }

    /// The one scorer, card by card over the playable cards, chooses as its oracle does: every
    /// listed play scored one by one. Checked on every turn of seeded games of 2, 3 and 8
    /// players (two decks: repeated cards) under the standard and house rulesets, Lua wraps
    /// that pass the aim on, a Rust wrap that answers it by asking the entry, and an aim that
    /// differs from card to card. Greedy plays two turns in three, a random bot the third (so
    /// that jolts, quicks and rescues come up).
    #[test]
    fn the_scorer_chooses_as_scoring_each_listed_play_does() {
        let standard = (Arc::new(Rules::default()), Arc::new(Registry::standard()));
        let house = Ruleset::load("house").unwrap();
        let lua = ModSource {
            name: "pass-through.lua".into(),
            code: include_str!("../../tests/mods/pass-through.lua").into(),
        };
        let registries = [
            ("standard", standard.clone()),
            ("house", (Arc::clone(&house.rules), house.registry().unwrap())),
            ("Lua pass-through wraps", (standard.0.clone(), Arc::new(load_mods(&Rules::default(), &[lua]).unwrap()))),
            ("a wrap asked for the aim", (standard.0.clone(), Arc::new(wrapped(|e| Arc::new(PassOn(e)))))),
            ("an aim by card", (standard.0.clone(), Arc::new(wrapped(|e| Arc::new(ByCard(e)))))),
        ];
        // How often what the scorer handles apart came up: a play to avoid, a jolted or a
        // quickened diver, repeated cards, two cards of a class offering different plays.
        let mut seen = [0usize; 5];
        for (name, (rules, registry)) in &registries {
            for players in [2, 3, 8] {
                let mut bot = GreedyBot::new();
                for seed in 0..30 {
                    let names = (0..players).map(|i| format!("p{i}")).collect();
                    let setup = Setup { names, seed, deck: None };
                    let mut game = Game::new(Arc::clone(rules), Arc::clone(registry), setup).unwrap();
                    let mut random = RandomBot::new(seed);
                    for turn in 0..400 {
                        if game.is_over() {
                            break;
                        }
                        let view = View::new(&game, game.current());
                        bot.refresh(&view);
                        let moves = view.moves();
                        let scan = bot.turn(&view, &moves, &**view.tables());
                        let Plays { best, play, fallback } = scan.best_play();
                        let chosen =
                            (best, play.map(|at| play_action(&moves, at)), fallback.map(|at| play_action(&moves, at)));
                        assert_eq!(
                            chosen,
                            scan.best_play_listed(&moves, None),
                            "{name}, {players} players, seed {seed}, turn {turn}"
                        );
                        let classes =
                            |p: &Playable| (p.card.rank.number().saturating_sub(10), p.targets(), p.order_choice());
                        let offers: Vec<_> = moves.playable().map(|p| classes(&p)).collect();
                        let differ = offers.iter().any(|a| offers.iter().any(|b| a.0 == b.0 && a != b));
                        let found = [fallback.is_some(), scan.jolted, scan.quick, view.hand_has_repeats(), differ];
                        for (count, found) in seen.iter_mut().zip(found) {
                            *count += usize::from(found);
                        }
                        let action = if turn % 3 == 2 { random.choose(&view).unwrap() } else { bot.pick(&view) };
                        game.apply(&action, &mut ()).unwrap_or_else(|e| panic!("{name}, seed {seed}: {action}: {e}"));
                    }
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "avoid, jolted, quick, repeats, offers differ: {seen:?}");
    }

    #[test]
    fn dives_with_the_deepest_card() {
        // Discard top 2C: 9H is worth 9, 3C doubles to 6.
        let game = position("9H 3C 4S 5D  AH AS AD AC  2H 2S 2D 3D  2C", 0, 10);
        assert_eq!(pick(&game), Action::play("9H".parse().unwrap(), Source::Hand));
    }

    /// The values in force, not the standard ones: with an ace worth 11 the ace is the
    /// deepest card, and a hand keeps it as it keeps a 10.
    #[test]
    fn dives_with_the_card_worth_most_in_the_rules_in_force() {
        let deal = "AH 9C 4S 5D  2H 2S 2D 3D  2C 3C 4C 5C  6S";
        assert_eq!(pick(&position(deal, 0, 10)), Action::play("9C".parse().unwrap(), Source::Hand));
        let mut values = Rules::default().values;
        values[0] = 11;
        let aces = position_with(Rules { values, ..Rules::default() }, deal, 0, 10);
        assert_eq!(pick(&aces), Action::play("AH".parse().unwrap(), Source::Hand));
        let model = Model::new(View::new(&aces, 0).tables(), &Weights::default());
        assert_eq!(model.loss("AH".parse().unwrap()), model.loss("10H".parse().unwrap()) - 10);
    }

    #[test]
    fn takes_the_win() {
        // At 95 a 5 reaches the bottom even though the move would cost the last oxygen.
        let game = position("9H 5C 4S 6D  AH AS AD AC  2H 2S 2D 3D  10C", 95, 1);
        assert_eq!(pick(&game), Action::play("9H".parse().unwrap(), Source::Hand));
    }

    #[test]
    fn recovers_rather_than_be_rescued() {
        // At 60 with 3 oxygen every move costs 3 or 4: all of them end in a rescue.
        let game = position("9H 8C 7S 6D  AH AS AD AC  2H 2S 2D 3D  4C", 60, 3);
        assert!(matches!(pick(&game), Action::Recover { .. }), "{}", pick(&game));
    }

    #[test]
    fn recovery_prefers_a_big_gain_and_puts_a_face_card_on_top() {
        // Three hearts give +4, worth more than keeping the 9.
        let game = position("9H 2H 3H 8C  AH AS AD AC  2S 3S 2D 3D  4C", 60, 3);
        match pick(&game) {
            Action::Recover { mut cards, .. } => {
                cards.sort();
                assert_eq!(cards[..], parse_cards("2H 3H 9H").unwrap()[..]);
            }
            other => panic!("expected a recovery, got {other}"),
        }
        // A lone pair of low cards with a face card: the face card goes last (on top).
        let game = position("2H JH 8C 9S  AH AS AD AC  2S 3S 2D 3D  4C", 60, 3);
        match pick(&game) {
            Action::Recover { cards, .. } => assert_eq!(cards.last().map(|c| c.rank), Some(Rank::JACK), "{cards:?}"),
            other => panic!("expected a recovery, got {other}"),
        }
    }
}
