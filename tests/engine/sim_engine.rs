//! The engine shortcuts the simulator relies on give exactly what the plain API gives:
//! `Game::restart` deals the game `Game::new` deals, and the allocation-free recovery lookup
//! agrees with the suit-pattern table.

use std::sync::Arc;

use diving::core::{Card, Game, Registry, Rules, Setup, SuitPattern, full_deck};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

fn names(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("p{i}")).collect()
}

#[test]
fn restart_deals_the_game_new_deals() {
    for players in [2, 3, 4, 5, 8] {
        let rules = Arc::new(Rules::default());
        let registry = Arc::new(Registry::standard());
        let setup = |seed| Setup { names: names(players), seed, deck: None };
        let mut reused = Game::new(rules.clone(), registry.clone(), setup(999)).unwrap();
        // Play a little first, so the buffers hold an old game's cards.
        for _ in 0..30 {
            if reused.is_over() {
                break;
            }
            let action = reused.legal_actions()[0];
            reused.apply(&action, &mut ()).unwrap();
        }
        for seed in 0..50 {
            reused.restart(seed).unwrap();
            let fresh = Game::new(rules.clone(), registry.clone(), setup(seed)).unwrap();
            assert_eq!(reused, fresh, "{players} players, seed {seed}");
            assert_eq!(reused.seed(), seed);
        }
    }
}

#[test]
fn recovery_gain_agrees_with_the_pattern_table() {
    let rules = Rules::default();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut deck = full_deck(2);
    for _ in 0..500 {
        deck.shuffle(&mut rng);
        for n in 1..=8 {
            let cards: &[Card] = &deck[..n];
            let expected =
                rules.recovery.get(&SuitPattern::of(cards)).copied().unwrap_or(diving::core::Gain::Amount(0));
            assert_eq!(rules.recovery_gain(cards), expected, "{cards:?}");
        }
    }
}
