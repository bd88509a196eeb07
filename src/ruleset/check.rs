//! The smoke games of `diving check` (the command itself is `modkit::check`): a few short
//! seeded games with random legal actions for each player count, checking the core's
//! invariants after every action, and at the end of each that the game can be copied (the
//! mods' globals with it: a global too deep to copy is reported, naming the mod); then the
//! determinism check, one of them played twice side by side (the same seed must give the
//! same game).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::core::{Game, Learned, Rank, Setup};
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
    /// Per mod (in load order, by name): how it came to know hidden cards in these games,
    /// and whether it revealed any ([`crate::core::knowledge`]).
    pub secrets: Vec<(String, Learned)>,
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
        // D12: a diver whose oxygen reaches 0 is rescued; a game that goes on with one at 0
        // has a rescue (or a change of oxygen) that forgot to.
        if p.oxygen == 0 && !game.is_over() {
            return Some(format!(
                "{name} is left at 0 oxygen, not rescued (D12: a rescue hook must give a diver air again, and \
                 ctx:set_oxygen(p, 0) needs ctx:rescue(p))"
            ));
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
/// minimum, if higher), `GAMES` games of random legal actions. (The stress after them plays
/// every count the ruleset allows.)
pub fn smoke(ruleset: &Ruleset, seed: u64) -> Result<SmokeReport, SmokeFailure> {
    let rules = &ruleset.rules;
    let (registry, copies) =
        ruleset.registry_watched().map_err(|error| SmokeFailure { error, context: String::new() })?;
    let mut report = SmokeReport::default();
    for players in smoke_counts(rules) {
        for g in 0..GAMES {
            let game_seed = seed.wrapping_add(g).wrapping_add(1000 * players as u64);
            let names = (1..=players).map(|i| format!("P{i}")).collect();
            let setup = Setup { names, seed: game_seed, deck: None };
            let context =
                |turn: u32, what: &str| format!("smoke game seed {game_seed}, {players} players, turn {turn}{what}");
            // Each game has a budget of mod work, the copies it makes included.
            let _decision =
                crate::script::decide_with(format!("smoke game seed {game_seed}"), crate::script::decision::GAME_STEPS);
            let mut game = Game::new(rules.clone(), registry.clone(), setup)
                .map_err(|e| SmokeFailure { error: located(ruleset, &e.to_string()), context: context(1, "") })?;
            let mut rng = ChaCha8Rng::seed_from_u64(game_seed);
            while !game.is_over() && game.turn() <= TURNS {
                // Each turn (its listing and its move) is one decision, as a player's is.
                let _turn = crate::script::decide(format!("smoke game seed {game_seed}, turn {}", game.turn()));
                let listing = game.moves();
                let actions = listing.to_vec();
                if let Some(failure) = listing.failure() {
                    return Err(SmokeFailure {
                        error: located(ruleset, &crate::core::Viewer::Everyone.failure(failure)),
                        context: context(game.turn(), ": listing the moves"),
                    });
                }
                let action = actions[rng.random_range(0..actions.len())];
                let turn = game.turn();
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
                        context: context(turn, &format!(": {action}")),
                    });
                }
            }
            // What a bot's look-ahead, a preview or an undo does: copy the game, the mods'
            // globals with it (a copy that cannot be made fails the copy's handlers, which a
            // search takes for poor moves, so it is asked for here).
            drop(game.clone());
            if let Some(failure) = copies.failure() {
                return Err(SmokeFailure {
                    error: failure.into(),
                    context: context(game.turn(), ": copying the game (for a bot's look-ahead, a preview or an undo)"),
                });
            }
            report.games += 1;
            let names = game.registry().mod_names();
            if report.secrets.len() < names.len() {
                report.secrets = names.iter().map(|n| (n.to_string(), Learned::default())).collect();
            }
            for (i, learned) in game.knowledge().learned().iter().enumerate() {
                if let Some((_, all)) = report.secrets.get_mut(i) {
                    all.join(*learned);
                }
            }
            match game.outcome() {
                crate::core::Outcome::Won { .. } => report.won += 1,
                crate::core::Outcome::Draw => report.drawn += 1,
                crate::core::Outcome::Running => report.stopped += 1,
            }
        }
    }
    same_game_twice(ruleset, seed)?;
    Ok(report)
}

/// The player counts the smoke games are played at (the report says which).
pub fn smoke_counts(rules: &crate::core::Rules) -> std::ops::RangeInclusive<usize> {
    rules.min_players..=rules.max_players.min(4).max(rules.min_players)
}

/// The determinism check: the first smoke game (its seed, the fewest players) played three
/// times in lockstep, the mods loaded afresh into new Lua states for each; every action must give the
/// same events and the same game. What a mod does that depends on
/// memory addresses (a generalized `for k, v in t` over table keys; `pairs`, `next` and
/// `tostring` refuse or hide addresses themselves) makes the two go apart: reported at the
/// first action where they differ, naming the mods. Without mods there is nothing to check.
fn same_game_twice(ruleset: &Ruleset, seed: u64) -> Result<(), SmokeFailure> {
    if ruleset.mods.is_empty() {
        return Ok(());
    }
    let rules = &ruleset.rules;
    let players = rules.min_players;
    let game_seed = seed.wrapping_add(1000 * players as u64);
    let context = |turn: u32, what: &str| {
        format!("determinism check, smoke game seed {game_seed}, {players} players played twice, turn {turn}{what}")
    };
    let fail = |message: &str| SmokeFailure { error: located(ruleset, message), context: String::new() };
    // Three loads, the later two each after a block of another size is left in the heap: two
    // Lua states loaded alike lie alike, offset by how much memory lies between them, and an
    // offset of a round size orders address keys the same. A game that goes the same with
    // each is not taken for one that could not go otherwise (a new API function once made
    // the two loads of the old check line up).
    let mut games = Vec::new();
    let mut spacers: Vec<Vec<u8>> = Vec::new();
    for spacer in [0usize, 48, 208] {
        spacers.push(Vec::with_capacity(spacer));
        let registry = ruleset.registry().map_err(|error| SmokeFailure { error, context: String::new() })?;
        let names = (1..=players).map(|i| format!("P{i}")).collect();
        let setup = Setup { names, seed: game_seed, deck: None };
        let game = Game::new(rules.clone(), registry, setup).map_err(|e| fail(&e.to_string()))?;
        games.push(game);
    }
    drop(spacers);
    let mods: Vec<&str> = ruleset.mods.iter().map(|m| m.name.as_str()).collect();
    let differ = |turn: u32, what: &str| {
        let message = format!(
            "the same seeded game went differently when played again ({what}): a mod's result depends on something \
             other than the game and its seed, like the order of a table with table or function keys, which is \
             their memory addresses; mods: {}",
            mods.join(", ")
        );
        let error = match mods.as_slice() {
            [only] => RulesetError { kind: ErrorKind::Mod { file: only.to_string(), line: None }, message },
            _ => located(ruleset, &message),
        };
        SmokeFailure { error, context: context(turn, "") }
    };
    if games[1..].iter().any(|g| *g != games[0]) {
        return Err(differ(1, "the deal"));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(game_seed);
    while !games[0].is_over() && games[0].turn() <= TURNS {
        let listed: Vec<Vec<_>> = games.iter().map(|g| g.moves().to_vec()).collect();
        let turn = games[0].turn();
        let same = listed[1..].iter().all(|l| *l == listed[0]);
        if !same || listed[0].is_empty() {
            return if same { Ok(()) } else { Err(differ(turn, "the moves listed")) };
        }
        let action = listed[0][rng.random_range(0..listed[0].len())];
        let played: Vec<_> = games
            .iter_mut()
            .map(|g| {
                let mut events = Vec::new();
                let result = g.apply(&action, &mut events);
                (result.is_err(), events)
            })
            .collect();
        if played[1..].iter().any(|p| *p != played[0]) || games[1..].iter().any(|g| *g != games[0]) {
            return Err(differ(turn, &format!("{action}")));
        }
        if played[0].0 {
            // Failing the same way every time is the smoke games' to report.
            return Ok(());
        }
    }
    Ok(())
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
