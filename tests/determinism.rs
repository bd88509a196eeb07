//! Determinism: the same rules, seed and actions give the same game and the same events, on
//! every machine (the RNG is the game's own seeded ChaCha; nothing reads the clock or the OS).
//!
//! The snapshot pins a whole short game's event log: a change to the shuffle, the deal or the
//! order of events shows up as a diff in `tests/snapshots/`.

mod common;

use std::sync::Arc;

use diving::core::{Action, Event, EventCounts, Game, Registry, Rules, Setup};
use diving::repl::json::EventJson;

/// Plays `seed`'s game with a simple fixed policy (the first legal play, else the first
/// legal action) for at most `turns` actions; returns the game, the actions and the events.
fn replay(names: &[&str], seed: u64, turns: usize) -> (Game, Vec<Action>, Vec<Event>) {
    let mut game = Game::standard(names, seed).unwrap();
    let mut actions = Vec::new();
    let mut events = Vec::new();
    for _ in 0..turns {
        if game.is_over() {
            break;
        }
        let legal = game.legal_actions();
        let action = legal.iter().find(|a| matches!(a, Action::Play { .. })).unwrap_or(&legal[0]).clone();
        events.extend(game.apply(&action).unwrap());
        actions.push(action);
    }
    (game, actions, events)
}

#[test]
fn same_seed_same_deal() {
    for seed in [0, 1, 42, u64::MAX] {
        let a = Game::standard(&["Ann", "Bob", "Cat"], seed).unwrap();
        let b = Game::standard(&["Ann", "Bob", "Cat"], seed).unwrap();
        assert!(a == b, "seed {seed}");
    }
    let a = Game::standard(&["Ann", "Bob"], 1).unwrap();
    let b = Game::standard(&["Ann", "Bob"], 2).unwrap();
    assert!(a != b, "different seeds deal differently");
}

#[test]
fn same_seed_and_actions_give_the_same_events_and_state() {
    for seed in 0..40 {
        let names = &common::NAMES[..2 + (seed % 7) as usize];
        let (game_a, actions, events_a) = replay(names, seed, 300);
        // Replaying the recorded actions on a fresh game gives the same events and state.
        let mut game_b = Game::standard(names, seed).unwrap();
        let mut events_b = Vec::new();
        for action in &actions {
            events_b.extend(game_b.apply(action).unwrap());
        }
        assert_eq!(events_a, events_b, "seed {seed}");
        assert!(game_a == game_b, "seed {seed}");
    }
}

#[test]
fn reshuffles_use_the_games_seed() {
    // Long games reshuffle the discards (D7); the order of the new deck comes from the seed.
    let (game, _, events) = replay(&["Ann", "Bob", "Cat", "Dan"], 9, 400);
    assert!(events.iter().any(|e| matches!(e, Event::Reshuffled { .. })), "the game should reshuffle");
    let (again, _, events_again) = replay(&["Ann", "Bob", "Cat", "Dan"], 9, 400);
    assert_eq!(events, events_again);
    assert_eq!(game.deck().collect::<Vec<_>>(), again.deck().collect::<Vec<_>>());
}

#[test]
fn a_stacked_deck_ignores_the_seed_for_the_deal_but_not_for_reshuffles() {
    let deck = common::Deal::new(2).order();
    let game = |seed| {
        let setup = Setup { names: vec!["Ann".into(), "Bob".into()], seed, deck: Some(deck.clone()) };
        Game::new(Arc::new(Rules::default()), Arc::new(Registry::standard()), setup).unwrap()
    };
    let (a, b) = (game(1), game(2));
    assert_eq!(a.players(), b.players());
    assert_eq!(a.deck().collect::<Vec<_>>(), b.deck().collect::<Vec<_>>());
    assert!(a != b, "the RNG for later reshuffles still differs");
}

#[test]
fn snapshot_of_a_short_seeded_game() {
    let (game, actions, _) = replay(&["Ann", "Bob", "Cat"], 2024, 12);
    // One JSON line per event, grouped under the action that caused it.
    let mut fresh = Game::standard(&["Ann", "Bob", "Cat"], 2024).unwrap();
    let mut log = String::new();
    for action in &actions {
        log += &format!("> {} {action}\n", fresh.name(fresh.current()));
        for event in fresh.apply(action).unwrap() {
            log += &format!("  {}\n", serde_json::to_string(&EventJson::from(&event)).unwrap());
        }
    }
    assert!(fresh == game);
    insta::assert_snapshot!(log);
}

/// The simulator's quiet path (`apply_counted`) changes the game exactly as `apply` does and
/// counts exactly what counting `apply`'s events gives, with the native and a scripted
/// registry, for every kind of action (plays, recoveries, knotted ones, rescues).
#[test]
fn the_quiet_path_matches_the_event_log() {
    for scripted in [false, true] {
        let mut registry = Registry::standard();
        if scripted {
            registry.mark_scripted();
        }
        let registry = Arc::new(registry);
        for seed in 0..30u64 {
            let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
            let setup = Setup { names, seed, deck: None };
            let mut loud = Game::new(Arc::new(Rules::default()), Arc::clone(&registry), setup).unwrap();
            let mut quiet = loud.clone();
            let (mut from_events, mut counts) = (EventCounts::default(), EventCounts::default());
            let mut turn = 0u64;
            while !loud.is_over() && turn < 300 {
                let legal = loud.legal_actions();
                // Card by card, the playable cards give the listed plays in order (both ways
                // of working out what a card offers: native and asked of the entries).
                common::assert_playable_cards_match(&loud, &legal, &format!("seed {seed}, turn {turn}"));
                // Vary the choice: plays and recoveries both come up.
                let action =
                    legal[(seed.wrapping_mul(31).wrapping_add(turn * 7) % legal.len() as u64) as usize].clone();
                for event in loud.apply(&action).unwrap() {
                    from_events.count(&event);
                }
                if turn.is_multiple_of(2) {
                    quiet.apply_counted(&action, &mut counts).unwrap();
                } else {
                    quiet.apply_legal_counted(&action, &mut counts).unwrap();
                }
                assert!(loud == quiet, "seed {seed}, turn {turn}: the games differ");
                assert_eq!(from_events, counts, "seed {seed}, turn {turn}");
                turn += 1;
            }
            assert!(counts.recoveries > 0 && counts.plays.iter().sum::<u32>() > 0, "seed {seed}");
        }
    }
    // A refused action leaves the counts as they were.
    let mut game = Game::standard(&["a", "b"], 3).unwrap();
    let mut counts = EventCounts { rescues: 5, ..EventCounts::default() };
    assert!(
        game.apply_counted(&Action::Recover { cards: Default::default(), face_on_top: false }, &mut counts).is_err()
    );
    assert_eq!(counts, EventCounts { rescues: 5, ..EventCounts::default() });
}
