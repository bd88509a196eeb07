//! The smoke games of `diving check` (the command itself is `modkit::check`): a few short
//! seeded games with random legal actions for each player count, checking the core's
//! invariants after every action.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::core::{Game, Rank, Setup};
use crate::script::sandbox::split_location;

use super::{ErrorKind, Ruleset, RulesetError};

/// Smoke games per player count.
const GAMES: u64 = 3;
/// Turns after which a smoke game is stopped (it has shown what it can).
pub const TURNS: u32 = 300;

/// What the smoke games did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SmokeReport {
    pub games: usize,
    pub won: usize,
    pub drawn: usize,
    /// Stopped at the smoke test's own turn limit.
    pub stopped: usize,
    pub actions: usize,
}

/// The first thing that went wrong in a smoke game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmokeFailure {
    pub error: RulesetError,
    /// Which game and action: `smoke game seed 3, 2 players, turn 14: play 7H`.
    pub context: String,
}

/// Checks what must hold after every action: cards conserved, depth and oxygen in bounds, no
/// two cards of a rank in front of anyone (D17).
pub fn invariant_problem(game: &Game) -> Option<String> {
    let expected = 52 * game.decks() as usize;
    if game.card_count() != expected {
        return Some(format!("{} cards in the game instead of {expected}", game.card_count()));
    }
    let rules = game.rules();
    for (seat, p) in game.players().iter().enumerate() {
        let name = game.name(seat);
        if p.depth > rules.max_depth {
            return Some(format!("{name} is at depth {} below the bottom {}", p.depth, rules.max_depth));
        }
        if p.oxygen > rules.max_oxygen {
            return Some(format!("{name} has oxygen {} above the maximum {}", p.oxygen, rules.max_oxygen));
        }
        for rank in Rank::all() {
            if p.front.iter().filter(|c| c.rank == rank).count() > 1 {
                return Some(format!("{name} has two {rank}s in front (D17)"));
            }
        }
    }
    None
}

/// Plays the smoke games: for each player count from the ruleset's minimum up to 4 (or the
/// minimum, if higher), `GAMES` games of random legal actions.
pub fn smoke(ruleset: &Ruleset, seed: u64) -> Result<SmokeReport, SmokeFailure> {
    let rules = &ruleset.rules;
    let registry = ruleset.registry().map_err(|error| SmokeFailure { error, context: String::new() })?;
    let top = rules.max_players.min(4).max(rules.min_players);
    let mut report = SmokeReport::default();
    for players in rules.min_players..=top {
        for g in 0..GAMES {
            let game_seed = seed.wrapping_add(g).wrapping_add(1000 * players as u64);
            let names = (1..=players).map(|i| format!("P{i}")).collect();
            let setup = Setup { names, seed: game_seed, deck: None };
            let context =
                |turn: u32, what: &str| format!("smoke game seed {game_seed}, {players} players, turn {turn}{what}");
            let mut game = Game::new(rules.clone(), registry.clone(), setup)
                .map_err(|e| SmokeFailure { error: located(ruleset, &e.to_string()), context: context(1, "") })?;
            let mut rng = ChaCha8Rng::seed_from_u64(game_seed);
            while !game.is_over() && game.turn() <= TURNS {
                let listing = game.moves();
                let actions = listing.to_vec();
                if let Some(failure) = listing.failure() {
                    return Err(SmokeFailure {
                        error: located(ruleset, &failure.0),
                        context: context(game.turn(), ": listing the moves"),
                    });
                }
                let action = actions[rng.random_range(0..actions.len())];
                let before = game.clone();
                if let Err(e) = game.apply(&action, &mut ()) {
                    return Err(SmokeFailure {
                        error: located(ruleset, &e.to_string()),
                        context: context(game.turn(), &format!(": {action}")),
                    });
                }
                report.actions += 1;
                if let Some(problem) = invariant_problem(&game) {
                    return Err(SmokeFailure {
                        error: located(ruleset, &format!("the game broke a rule: {problem}")),
                        context: context(before.turn(), &format!(": {action}")),
                    });
                }
            }
            report.games += 1;
            match game.outcome() {
                crate::core::Outcome::Won(_) => report.won += 1,
                crate::core::Outcome::Draw => report.drawn += 1,
                crate::core::Outcome::Running => report.stopped += 1,
            }
        }
    }
    Ok(report)
}

/// A failure message from a game, located in the mod it names, or else in the ruleset file.
pub(crate) fn located(ruleset: &Ruleset, message: &str) -> RulesetError {
    if let Some(rest) = message.strip_prefix("mod ")
        && let Some(e) = split_location(rest)
    {
        return RulesetError { kind: ErrorKind::Mod { file: e.file, line: e.line }, message: e.message };
    }
    match &ruleset.file {
        Some(file) => RulesetError::at(file, 1, 1, message),
        None => RulesetError { kind: ErrorKind::Unplaced, message: message.to_string() },
    }
}
