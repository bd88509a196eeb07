//! One budget per decision: every call into Lua and every copy of the mods' globals that a
//! decision makes (a listing of the moves, a preview, a hint, a bot's move, one of `diving
//! check`'s games) spends from one total, as gas in the EVM covers every nested call of a
//! transaction. A budget per call alone let a thousand cheap calls add up: a listing asks
//! every action's `legal` once per argument, and every copy a bot or a preview makes of the
//! game would start a fresh budget.
//!
//! A client opens a decision around what it is about to do ([`decide`], or [`decide_apart`]
//! for one that must not spend its caller's budget: a bot's move answered inside a person's
//! command). While it is open on a thread, each outermost Lua call on that thread may use at
//! most what is left of it (the sandbox caps the call there and reports it by the
//! decision's name), each call is charged [`CALL_STEPS`] on top of its own steps for what
//! calling it costs, and each copy of a game is charged [`COPY_STEPS`] and the work of copying
//! the globals. The copies a decision makes may together hold at most its [`MEMORY`]. Past
//! either, the decision fails with a message that names it and the mod that spent the most;
//! the game is unchanged, since nothing a decision does reaches the game before it succeeds.
//!
//! Decisions nest: a decision opened inside another spends from both (a bot's move inside one
//! of `check`'s games), and is capped by what is left of each. Budgets are counted in steps,
//! so the same work on the same game is refused at the same place whatever the machine.
//!
//! Clients that can do less when money runs short read [`left`] first (a bot weighs fewer
//! candidates, a search stops earlier) and say so, so they degrade before they fail.

use std::cell::RefCell;

/// Steps of mod work one decision may spend: ten calls' worth of the per-call budget, about
/// 0.3 s of Lua on the machine the project is measured on (a release build), and far more
/// than any honest decision needs (a listing of the shipped examples spends a few thousand).
pub const STEPS: u64 = 10_000_000;
/// Steps one bot's move may spend: a search's own budget (`bots::SEARCH_STEPS`) and
/// room for the playout it is in when it stops.
pub const BOT_STEPS: u64 = 24_000_000;
/// Steps one game of `diving check` (or of `sim` with mods) may spend, its bots' moves
/// included: a backstop, since each move has its own budget. The shipped examples spend 2 to
/// 70 thousand a turn with greedy bots; a game stopped at 1,000 turns fits several times over.
pub const GAME_STEPS: u64 = 500_000_000;
/// Bytes the mods of a game and the copies of it one decision makes may hold together: the
/// mods' own total (`mods::TOTAL_MEMORY` is this), which the copies count towards (each
/// holds what the mods' globals hold), so copies cannot multiply a mod's memory.
pub const MEMORY: u64 = 64 << 20;
/// What one call into Lua costs beyond its own steps (the `ctx` and argument tables, the
/// protected call): charged to the decision, so that a thousand empty calls are not free.
pub const CALL_STEPS: u64 = 300;
/// What one copy of a game with mods costs beyond copying the globals (a registry of Lua
/// states taken, the game's own state cloned).
pub const COPY_STEPS: u64 = 3_000;

/// One open decision.
struct Meter {
    what: String,
    size: u64,
    left: u64,
    memory: u64,
    /// Whether it spends nothing of the decisions open before it.
    apart: bool,
    /// Steps spent, by mod (the sandbox's name), to name the one that spent the most.
    by: Vec<(String, u64)>,
}

thread_local! {
    static OPEN: RefCell<Vec<Meter>> = const { RefCell::new(Vec::new()) };
}

/// An open decision: it stays open on this thread until dropped.
#[must_use = "a decision is open only while its guard lives"]
pub struct Decision {
    depth: usize,
}

impl Drop for Decision {
    fn drop(&mut self) {
        OPEN.with_borrow_mut(|open| open.truncate(self.depth));
    }
}

impl Decision {
    /// Steps spent so far by this decision.
    pub fn spent(&self) -> u64 {
        OPEN.with_borrow(|open| open.get(self.depth).map_or(0, |m| m.size - m.left))
    }
}

/// Opens a decision called `what` (`listing the moves`, `greedy's move for bob`) with a
/// budget of [`STEPS`], nested in any decision open on this thread.
pub fn decide(what: impl Into<String>) -> Decision {
    open(what.into(), STEPS, false)
}

/// [`decide`] with a budget of `steps`.
pub fn decide_with(what: impl Into<String>, steps: u64) -> Decision {
    open(what.into(), steps, false)
}

/// Opens a decision that spends nothing of the ones open before it (a bot's move that a
/// person's command sets off): capped by its own budget alone.
pub fn decide_apart(what: impl Into<String>, steps: u64) -> Decision {
    open(what.into(), steps, true)
}

fn open(what: String, steps: u64, apart: bool) -> Decision {
    OPEN.with_borrow_mut(|open| {
        let depth = open.len();
        open.push(Meter { what, size: steps, left: steps, memory: MEMORY, apart, by: Vec::new() });
        Decision { depth }
    })
}

/// The decisions a charge on this thread spends from: the innermost, and the ones it is
/// nested in, up to and including the first opened apart.
fn spending(open: &mut [Meter]) -> impl Iterator<Item = &mut Meter> {
    let from = open.iter().rposition(|m| m.apart).unwrap_or(0);
    open[from..].iter_mut()
}

/// Steps left to spend on this thread (the least of the open decisions'), or `None` when no
/// decision is open.
pub fn left() -> Option<u64> {
    OPEN.with_borrow_mut(|open| spending(open).map(|m| m.left).min())
}

/// Whether less than `part` (in parts of a hundred) of the innermost decision's budget is
/// left: what a bot that can do less asks before each costly step.
pub fn running_low(part: u64) -> bool {
    OPEN.with_borrow_mut(|open| spending(open).any(|m| m.left < m.size / 100 * part))
}

/// Charges `steps` spent by `by` (a mod file's name) to the open decisions.
pub(crate) fn charge(by: &str, steps: u64) {
    OPEN.with_borrow_mut(|open| {
        for m in spending(open) {
            m.left = m.left.saturating_sub(steps);
            match m.by.iter_mut().find(|(name, _)| name == by) {
                Some((_, spent)) => *spent = spent.saturating_add(steps),
                None => m.by.push((by.to_string(), steps)),
            }
        }
    });
}

/// The bytes the copies of the innermost decisions may hold, or `None` with none open.
pub(crate) fn memory() -> Option<u64> {
    OPEN.with_borrow_mut(|open| spending(open).map(|m| m.memory).min())
}

/// Why the decision that ran out ran out, for the failure of the call or copy it stopped:
/// `the mods' work for one decision (listing the moves) is spent: 10000000 steps in all,
/// spy.lua spent the most`. Not how much it spent: the failure is the stopped mod's, read as
/// what that mod knows, while what another mod spent is that mod's choice and could count
/// out a card it knows (the audit of issue 43).
pub(crate) fn spent_message() -> String {
    OPEN.with_borrow_mut(|open| {
        let m = spending(open).min_by_key(|m| m.left);
        match m {
            Some(m) => {
                let most = m.by.iter().max_by_key(|(_, s)| *s);
                let most = most.map_or(String::new(), |(name, _)| format!(", {name} spent the most"));
                format!("the mods' work for one decision ({}) is spent: {} steps in all{most}", m.what, m.size)
            }
            None => "the mods' work for one decision is spent".into(),
        }
    })
}

/// What the innermost decision is doing (`listing the moves`), for a copy's failure.
pub(crate) fn what() -> Option<String> {
    OPEN.with_borrow(|open| open.last().map(|m| m.what.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_caps_what_the_calls_it_opens_around_spend() {
        assert_eq!(left(), None, "no decision is open");
        let outer = decide_with("one of check's games", 1_000);
        charge("a.lua", 100);
        {
            let _inner = decide_with("a bot's move", 500);
            charge("b.lua", 450);
            assert_eq!(left(), Some(50), "the inner one is nearly spent");
            assert!(running_low(20));
            assert!(spent_message().ends_with("(a bot's move) is spent: 500 steps in all, b.lua spent the most"));
        }
        assert_eq!(left(), Some(450), "what the inner decision spent, the outer spent too");
        {
            let apart = decide_apart("a bot's move apart", 300);
            charge("b.lua", 300);
            assert_eq!(left(), Some(0));
            assert_eq!(apart.spent(), 300);
        }
        assert_eq!(left(), Some(450), "a decision apart spends nothing of the one around it");
        assert_eq!(outer.spent(), 550);
        drop(outer);
        assert_eq!(left(), None);
    }
}
