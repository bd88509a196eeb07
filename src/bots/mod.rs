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

use crate::core::{Action, Playable, View, cards_in_mask};

pub use greedy::{GreedyBot, Weights};
pub use lua::LuaBot;
pub use mcts::{MctsBot, Params};

/// Why a bot could not be built or could not choose.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BotError {
    #[error("unknown bot '{0}' (built in: random, greedy, mcts, mcts:ITERATIONS; or a path to a .lua bot)")]
    Unknown(String),
    #[error("bot {name}: {message}")]
    Failed { name: String, message: String },
}

/// A computer player.
pub trait Bot: Send {
    /// A short name for narration and reports (`greedy`, `mcts:200`, `cautious.lua` …).
    fn name(&self) -> &str;
    /// Forgets everything from earlier games and reseeds: afterwards the bot plays exactly like
    /// a bot freshly built with this seed.
    fn start_game(&mut self, seed: u64);
    /// Picks one of `view.legal_actions()`; it is this bot's turn.
    fn choose(&mut self, view: &View<'_>) -> Result<Action, BotError>;
    /// Whether every action [`Bot::choose`] returns is, by construction, one of
    /// `view.legal_actions()` (built-in bots only): the simulator then skips re-checking it
    /// (debug builds still check).
    fn trusted(&self) -> bool {
        false
    }
}

/// Uniform over the legal actions.
///
/// It draws an index into the list [`View::legal_actions`] would return, but builds only the
/// chosen action: the plays are counted card by card ([`View::playable_cards_into`]), then
/// the recoveries are indexed by hand mask (two per mask when knotted).
pub struct RandomBot {
    rng: ChaCha8Rng,
    /// How many plays are listed.
    plays: usize,
    /// The listed recovery masks, when the hand repeats a card; with distinct cards, mask
    /// `i` of the list is `i + 1` and `masks` stays empty.
    masks: Vec<u32>,
    /// How many recovery masks are listed.
    mask_count: usize,
    /// The playable cards this turn.
    playable: Vec<Playable>,
}

impl RandomBot {
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
            plays: 0,
            masks: Vec::new(),
            mask_count: 0,
            playable: Vec::new(),
        }
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
        if view.current() != view.seat() || view.outcome() != crate::core::Outcome::Running {
            return Err(BotError::Failed { name: "random".into(), message: "it is not this bot's turn".into() });
        }
        let total = self.list(view);
        if total == 0 {
            return Ok(Action::Pass);
        }
        let i = self.rng.random_range(0..total);
        Ok(self.nth(view, i))
    }

    fn trusted(&self) -> bool {
        true
    }
}

impl RandomBot {
    /// Lists the plays and recovery masks; returns the number of legal actions.
    fn list(&mut self, view: &View<'_>) -> usize {
        // Counted, not listed: most draws land on a recovery.
        self.plays = view.legal_play_count();
        let hand = view.hand();
        if !view.hand_has_repeats() {
            // Every non-empty subset is listed, in mask order (as `recovery_masks_into`).
            self.masks.clear();
            self.mask_count = (1usize << hand.len().min(31)) - 1;
        } else {
            view.recovery_masks_into(&mut self.masks);
            self.mask_count = self.masks.len();
        }
        self.plays + self.mask_count * self.per_mask(view)
    }

    fn per_mask(&self, view: &View<'_>) -> usize {
        if view.diver(view.seat()).has_front(crate::core::Rank::KING) { 2 } else { 1 }
    }

    /// Action `i` of the list `view.legal_actions()` would return (after [`RandomBot::list`]).
    fn nth(&mut self, view: &View<'_>, i: usize) -> Action {
        if i < self.plays {
            // Skip whole cards to the one that holds play `i`.
            view.playable_cards_into(&mut self.playable);
            let mut rest = i;
            for &p in &self.playable {
                match rest.checked_sub(p.play_count()) {
                    Some(after) => rest = after,
                    None => return p.play(rest),
                }
            }
            unreachable!("play {i} of {} is listed", self.plays);
        }
        let knotted = self.per_mask(view) == 2;
        let r = i - self.plays;
        // Two actions per mask when knotted (K on top first); a shift, not a division.
        let m = r >> usize::from(knotted);
        let mask = match self.masks.get(m) {
            Some(&mask) => mask,
            None => (m + 1) as u32,
        };
        Action::Recover { cards: cards_in_mask(view.hand(), mask), face_on_top: knotted && r.is_multiple_of(2) }
    }
}

/// The default search strength of `mcts` (playouts per move).
pub const DEFAULT_MCTS_ITERATIONS: u32 = 200;

/// Builds a bot from its name as players write it after `bot:`: `random`, `greedy`, `mcts`,
/// `mcts:ITERATIONS`, or a path to a Lua bot ending in `.lua`.
pub fn from_spec(spec: &str, seed: u64) -> Result<Box<dyn Bot>, BotError> {
    let spec = spec.trim();
    if spec.ends_with(".lua") {
        return Ok(Box::new(LuaBot::load(spec, seed)?));
    }
    let (kind, arg) = match spec.split_once(':') {
        Some((kind, arg)) => (kind, Some(arg)),
        None => (spec, None),
    };
    match (kind.to_ascii_lowercase().as_str(), arg) {
        ("random", None) => Ok(Box::new(RandomBot::new(seed))),
        ("greedy", None) => Ok(Box::new(GreedyBot::new())),
        ("mcts", None) => Ok(Box::new(MctsBot::new(DEFAULT_MCTS_ITERATIONS, seed))),
        ("mcts", Some(n)) => match n.trim().parse::<u32>() {
            Ok(n) if n >= 1 => Ok(Box::new(MctsBot::new(n, seed))),
            _ => Err(BotError::Failed {
                name: spec.to_string(),
                message: format!("'{n}' is not a number of iterations (write mcts:200)"),
            }),
        },
        _ => Err(BotError::Unknown(spec.to_string())),
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

    /// The random bot draws an index into exactly the list `legal_actions` returns.
    #[test]
    fn random_bot_indexes_the_legal_action_list() {
        let mut checked_knotted = false;
        for seed in 0..40 {
            let mut game = Game::standard(&["a", "b", "c"], seed).unwrap();
            let mut bot = RandomBot::new(seed);
            while !game.is_over() && game.turn() < 150 {
                let view = View::new(&game, game.current());
                let legal = view.legal_actions();
                let total = bot.list(&view);
                if legal == [Action::Pass] {
                    assert_eq!(total, 0);
                    continue;
                }
                assert_eq!(total, legal.len());
                for (i, action) in legal.iter().enumerate() {
                    bot.list(&view);
                    assert_eq!(&bot.nth(&view, i), action);
                }
                checked_knotted |= bot.per_mask(&view) == 2;
                let action = bot.choose(&view).unwrap();
                game.apply(&action).unwrap();
            }
        }
        assert!(checked_knotted, "no knotted position was seen");
    }
}
