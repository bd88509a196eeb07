//! The random-play stress of `diving check`: for every player count the ruleset allows, games
//! with random bots and games with random and greedy bots side by side, each game to its end
//! (or the simulator's turn cap). Random bots pick among every legal action; greedy ones play
//! deep and long, so together they reach the corners a mod writer forgets (a diver rescued
//! in the middle of an effect, a full tank, eight players on two decks). The first failure
//! stops the run with the seed and the `diving sim` command that replays it.

use crate::ruleset::Ruleset;
use crate::sim::{self, SimConfig, SimError};

/// The bot mixes, as seat patterns: every seat random, then random and greedy alternating.
const MIXES: [&[&str]; 2] = [&["random"], &["random", "greedy"]];
/// The turn cap of a stress game (the ruleset's own cap applies if it is lower).
pub const MAX_TURNS: u32 = 1000;

/// What a stress run played.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StressReport {
    pub games: u64,
    pub won: u64,
    pub drawn: u64,
}

/// The first failure of a stress run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StressFailure {
    /// What failed, as the simulator says it (`a mod failed on 'play 7D' by random: mod …`).
    pub message: String,
    /// Which game: `stress game seed 2, 2 players (random,random)`.
    pub context: String,
    /// The command line that replays the failing game.
    pub reproduce: String,
}

/// The bots of one mix for `players` seats.
fn seats(mix: &[&str], players: usize) -> Vec<String> {
    (0..players).map(|i| mix[i % mix.len()].to_string()).collect()
}

/// Plays `games` games for every player count and bot mix, from seeds derived from `seed`;
/// stops at the first failure. `games = 0` plays nothing.
pub fn stress(ruleset: &Ruleset, games: u64, seed: u64) -> Result<StressReport, StressFailure> {
    let mut report = StressReport::default();
    if games == 0 {
        return Ok(report);
    }
    let rules = &ruleset.rules;
    for players in rules.min_players..=rules.max_players {
        for (m, mix) in MIXES.iter().enumerate() {
            let config = SimConfig {
                games,
                players: seats(mix, players),
                seed: seed.wrapping_add(100_000 * m as u64).wrapping_add(1_000 * players as u64),
                jobs: 1,
                rotate: false,
                max_turns: MAX_TURNS,
            };
            let context =
                |seed: u64| format!("stress game seed {seed}, {players} players ({})", config.players.join(","));
            match sim::simulate(&config, ruleset, None, &|_| {}) {
                Ok(result) => {
                    report.games += result.tally.games;
                    report.won += result.tally.games - result.tally.draws;
                    report.drawn += result.tally.draws;
                }
                Err(SimError::Game { seed, message, reproduce, .. }) => {
                    return Err(StressFailure { message, context: context(seed), reproduce });
                }
                Err(SimError::Setup(message)) => {
                    return Err(StressFailure { message, context: context(config.seed), reproduce: String::new() });
                }
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixes_fill_the_seats_in_turn() {
        assert_eq!(seats(MIXES[0], 3), ["random", "random", "random"]);
        assert_eq!(seats(MIXES[1], 3), ["random", "greedy", "random"]);
    }
}
