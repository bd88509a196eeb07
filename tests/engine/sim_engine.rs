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
            // The table's entry; for a discard past the table (more cards than a hand holds),
            // the best entry whose runs can each be matched to a suit holding at least as many.
            let expected = rules.recovery.get(&SuitPattern::of(cards)).copied().unwrap_or_else(|| {
                let counts = diving::core::Suit::ALL.map(|s| cards.iter().filter(|c| c.suit == s).count());
                rules
                    .recovery
                    .iter()
                    .filter(|(pattern, _)| fits(&pattern.to_string(), counts))
                    .map(|(_, gain)| *gain)
                    .max_by_key(|g| match g {
                        diving::core::Gain::Amount(n) => u64::from(*n),
                        diving::core::Gain::Max => u64::MAX,
                    })
                    .unwrap_or(diving::core::Gain::Amount(0))
            });
            assert_eq!(rules.recovery_gain(cards), expected, "{cards:?}");
        }
    }
}

/// Whether the runs of `pattern` (`none`, `2`, `3+2` …) can each take a different suit that
/// holds at least that many of `counts`: tried over every order of the four suits.
fn fits(pattern: &str, counts: [usize; 4]) -> bool {
    let runs: Vec<usize> =
        if pattern == "none" { Vec::new() } else { pattern.split('+').map(|r| r.parse().unwrap()).collect() };
    let mut order = [0, 1, 2, 3];
    // Heap's algorithm, all 24 orders.
    fn each(k: usize, order: &mut [usize; 4], f: &mut dyn FnMut(&[usize; 4]) -> bool) -> bool {
        if k == 1 {
            return f(order);
        }
        for i in 0..k {
            if each(k - 1, order, f) {
                return true;
            }
            if k.is_multiple_of(2) { order.swap(i, k - 1) } else { order.swap(0, k - 1) }
        }
        false
    }
    each(4, &mut order, &mut |o| runs.iter().enumerate().all(|(i, &r)| counts[o[i]] >= r))
}
