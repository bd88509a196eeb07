//! Computer players. A [`Bot`] chooses an action from a [`View`] — the same window a human at
//! that seat has — so a bot cannot peek at other hands or the deck.
//!
//! Built in: [`RandomBot`] (uniform over the legal actions), [`GreedyBot`] (a one-move
//! heuristic) and [`MctsBot`] (determinized Monte Carlo search with greedy playouts). Lua bots
//! live in `scripts/*.lua`. Every bot is reproducible from its seed: none reads the clock.
//!
//! Architecture invariant: bots know the game only through [`View`]; the engine stays the
//! judge of legality, and the simulator rejects (and reports) an illegal choice.

mod greedy;
mod lua;
mod mcts;

use rand::SeedableRng;
use rand::{Rng, RngExt};
use rand_chacha::ChaCha8Rng;

use crate::core::{Action, View};
use crate::limits::{self, BotSpec, BotSpecError};

pub use greedy::{GreedyBot, Weights};
pub use lua::LuaBot;
pub use mcts::{Estimate, MctsBot, Params, SEARCH_STEPS};

/// Why a bot could not be built or could not choose.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    #[error("unknown bot '{0}' (built in: random, greedy, mcts, mcts:ITERATIONS; or a path to a .lua bot)")]
    Unknown(String),
    #[error("bot {name}: {message}")]
    Failed { name: String, message: String },
    /// A listed move failed in a mod while the bot weighed it: the mod's failure, which the
    /// table reports as one made in play (its message read as each reader may,
    /// [`crate::core::Viewer::failure`]).
    #[error("a mod failed on '{action}' while bot {name} weighed it: {error}")]
    ModFailed { name: String, action: Action, error: crate::core::EffectError },
}

/// A computer player.
pub trait Bot: Send {
    /// A short name for narration and reports (`greedy`, `mcts:200`, `cautious.lua` …).
    fn name(&self) -> &str;
    /// Forgets everything from earlier games and reseeds: afterwards the bot plays exactly like
    /// a bot freshly built with this seed.
    fn start_game(&mut self, seed: u64);
    /// Picks one of `view.legal_actions()`; it is this bot's turn. The engine checks the
    /// choice like any other action.
    fn choose(&mut self, view: &View<'_>) -> Result<Action, BotError>;
    /// What the bot would have the host know of its last move (it did less than it would, as
    /// the mods' work for the move ran low); for the host's log only (it may name the bot's
    /// cards). The default: nothing.
    fn note(&mut self) -> Option<String> {
        None
    }
}

/// Uniform over the legal actions.
///
/// It draws an index into the list [`View::legal_actions`] would return, and builds only the
/// chosen action ([`Moves::nth`](crate::core::Moves::nth)). A lone `pass` is taken without a draw.
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    pub fn new(seed: u64) -> RandomBot {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &str {
        "random"
    }

    fn start_game(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    fn choose(&mut self, view: &View<'_>) -> Result<Action, BotError> {
        let moves = view.moves();
        if moves.is_empty() {
            return Err(BotError::Failed { name: "random".into(), message: "it is not this bot's turn".into() });
        }
        if moves.is_pass_only() {
            return Ok(Action::Pass);
        }
        let i = self.rng.random_range(0..moves.len());
        Ok(moves.nth(i).expect("an index below the count is listed"))
    }
}

/// The default search strength of `mcts` (playouts per move).
pub const DEFAULT_MCTS_ITERATIONS: u32 = 200;

/// Builds a bot from its name as players write it after `bot:`: `random`, `greedy`, `mcts`,
/// `mcts:ITERATIONS`, or a path to a Lua bot ending in `.lua`, read by
/// [`limits::parse_bot_spec`] (the same reader `--players` and saves go through).
pub fn from_spec(spec: &str, seed: u64) -> Result<Box<dyn Bot>, BotError> {
    match limits::parse_bot_spec(spec) {
        Ok(BotSpec::Lua(path)) => Ok(Box::new(LuaBot::load(&path, seed)?)),
        Ok(BotSpec::Random) => Ok(Box::new(RandomBot::new(seed))),
        Ok(BotSpec::Greedy) => Ok(Box::new(GreedyBot::new())),
        Ok(BotSpec::Mcts(n)) => Ok(Box::new(MctsBot::new(n.unwrap_or(DEFAULT_MCTS_ITERATIONS), seed))),
        Err(BotSpecError::Unknown(spec)) => Err(BotError::Unknown(spec)),
        Err(BotSpecError::Bad(name, message)) => Err(BotError::Failed { name, message }),
    }
}

/// A seed for a sub-stream (a seat, a game, a sample) derived from `seed` (SplitMix64), so
/// neighbouring seeds give unrelated streams.
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Draws a fresh 64-bit seed from a bot's generator.
fn next_seed(rng: &mut ChaCha8Rng) -> u64 {
    rng.next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Game;

    /// The random bot picks from the legal actions, and over many turns it picks plays and
    /// recoveries of every kind (knotted ones too): its draw covers the whole list.
    #[test]
    fn random_bot_picks_legal_actions_of_every_kind() {
        let (mut plays, mut recoveries, mut knotted) = (0, 0, 0);
        for seed in 0..40 {
            let mut game = Game::standard(&["a", "b", "c"], seed).unwrap();
            let mut bot = RandomBot::new(seed);
            while !game.is_over() && game.turn() < 150 {
                let view = View::new(&game, game.current());
                let action = bot.choose(&view).unwrap();
                assert!(view.legal_actions().contains(&action), "{action} is not listed");
                match &action {
                    Action::Play { .. } => plays += 1,
                    Action::Recover { face_on_top: true, .. } => knotted += 1,
                    Action::Recover { .. } => recoveries += 1,
                    Action::Pass => {}
                    Action::Act { .. } => unreachable!("the standard rules have no mod actions"),
                }
                game.apply(&action, &mut ()).unwrap();
            }
        }
        assert!(
            plays > 0 && recoveries > 0 && knotted > 0,
            "{plays} plays, {recoveries} recoveries, {knotted} knotted"
        );
    }
}
