//! Bots see only their seat's view: dealing the hidden cards (the other hands and the deck)
//! another way never changes a bot's choice.
//!
//! The other deal comes from `View::sample`, which keeps everything the seat can see and
//! shuffles everything it cannot; the test checks both halves of that too.

use std::sync::Arc;

use diving::bots::{self, GreedyBot};
use diving::core::{Card, Game, Setup, View};
use diving::ruleset::Ruleset;

/// Everything a seat can see, for comparing two views.
fn visible(view: &View<'_>) -> String {
    let divers: Vec<String> = (0..view.player_count())
        .map(|s| {
            let d = view.diver(s);
            format!("{} {} {} {:?}", d.depth, d.oxygen, d.hand_size, d.front)
        })
        .collect();
    format!(
        "{:?} | {:?} | {:?} | {} | {:?} | {} {}",
        view.hand(),
        view.table(),
        view.discard_pile(),
        view.deck_size(),
        divers,
        view.current(),
        view.turn()
    )
}

/// The cards the seat cannot see, in order: other hands, then the deck.
fn hidden(game: &Game, seat: usize) -> Vec<Card> {
    let mut cards: Vec<Card> =
        (0..game.player_count()).filter(|&s| s != seat).flat_map(|s| game.player(s).hand.clone()).collect();
    cards.extend(game.deck());
    cards
}

fn check_ruleset(ruleset: &Ruleset, players: usize, specs: &[&str], games: u64) -> usize {
    let names: Vec<String> = (1..=players).map(|i| format!("p{i}")).collect();
    let mut compared = 0;
    for seed in 0..games {
        let registry = ruleset.registry().unwrap();
        let setup = Setup { names: names.clone(), seed, deck: None };
        let mut game = Game::new(Arc::clone(&ruleset.rules), registry, setup).unwrap();
        let mut driver = GreedyBot::new();
        while !game.is_over() && game.turn() < 150 {
            let seat = game.current();
            let view = View::new(&game, seat);
            // Look every few turns, at different seats and stages of the game.
            if (game.turn() + seed as u32).is_multiple_of(5) {
                for k in 0..2u64 {
                    let other = view.sample(seed * 1000 + u64::from(game.turn()) * 10 + k);
                    let other_view = View::new(&other, seat);
                    assert_eq!(visible(&view), visible(&other_view), "the sample must keep what the seat sees");
                    if hidden(&other, seat) == hidden(&game, seat) {
                        continue;
                    }
                    for spec in specs {
                        let mut a = bots::from_spec(spec, 77).unwrap();
                        let mut b = bots::from_spec(spec, 77).unwrap();
                        let mine = a.choose(&view).unwrap();
                        let theirs = b.choose(&other_view).unwrap();
                        assert_eq!(mine, theirs, "{spec} changed its choice when the hidden cards moved (seed {seed})");
                        compared += 1;
                    }
                }
            }
            let action = driver.pick(&view);
            game.apply(&action, &mut ()).unwrap();
        }
    }
    compared
}

#[test]
fn hidden_cards_never_change_a_choice_standard_two_players() {
    let compared = check_ruleset(
        &Ruleset::standard(),
        2,
        &["random", "greedy", "mcts:30", "scripts/cautious.lua", "scripts/reckless.lua"],
        12,
    );
    assert!(compared > 100, "only {compared} comparisons");
}

#[test]
fn hidden_cards_never_change_a_choice_three_players() {
    let compared = check_ruleset(&Ruleset::standard(), 3, &["random", "greedy", "mcts:20"], 6);
    assert!(compared > 50, "only {compared} comparisons");
}

#[test]
fn hidden_cards_never_change_a_choice_with_mods() {
    let house = Ruleset::load("rulesets/house.toml").unwrap();
    let compared = check_ruleset(&house, 2, &["random", "greedy", "mcts:20", "scripts/reckless.lua"], 6);
    assert!(compared > 50, "only {compared} comparisons");
}
