//! Computer players. A [`Bot`] chooses an action from a [`View`] — the same window a human at
//! that seat has — so a bot cannot peek at other hands or the deck.

use rand::RngExt;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::core::{Action, View};

/// Why a bot could not choose.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    #[error("unknown bot '{0}' (built in: random, greedy, mcts; or a path to a .lua bot)")]
    Unknown(String),
    #[error("bot {name}: {message}")]
    Failed { name: String, message: String },
}

/// A computer player.
pub trait Bot: Send {
    /// A short name for narration and reports (`greedy`, `cautious.lua` …).
    fn name(&self) -> &str;
    /// Picks one of `view.legal_actions()`; it is this bot's turn.
    fn choose(&mut self, view: &View<'_>) -> Result<Action, BotError>;
}

/// Uniform over the legal actions.
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

    fn choose(&mut self, view: &View<'_>) -> Result<Action, BotError> {
        let actions = view.legal_actions();
        let i = self.rng.random_range(0..actions.len());
        Ok(actions[i].clone())
    }
}

/// Builds a bot from its name as players write it after `bot:` (`random`, `greedy`, `mcts`,
/// or a path to a Lua bot).
pub fn from_spec(spec: &str, seed: u64) -> Result<Box<dyn Bot>, BotError> {
    match spec {
        "random" => Ok(Box::new(RandomBot::new(seed))),
        other => Err(BotError::Unknown(other.to_string())),
    }
}
