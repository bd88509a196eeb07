//! Determinism: the same rules, seed and actions give the same game and the same events, on
//! every machine (the RNG is the game's own seeded ChaCha; nothing reads the clock or the OS).
//!
//! The snapshot pins a whole short game's event log: a change to the shuffle, the deal or the
//! order of events shows up as a diff in `tests/snapshots/`.

use crate::common;

use std::sync::Arc;

use diving::core::{
    Action, Aim, Card, Ctx, Effect, EffectError, Event, EventSink, Game, Play, Rank, Registry, Rules, Setup, State,
};
use diving::sim::EventCounts;
use diving::table::json::EventJson;

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
        let action = *legal.iter().find(|a| matches!(a, Action::Play { .. })).unwrap_or(&legal[0]);
        game.apply(&action, &mut events).unwrap();
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
            game_b.apply(action, &mut events_b).unwrap();
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
        let mut events = Vec::new();
        fresh.apply(action, &mut events).unwrap();
        for event in events {
            log += &format!("  {}\n", serde_json::to_string(&EventJson::from(&event)).unwrap());
        }
    }
    assert!(fresh == game);
    insta::assert_snapshot!(log);
}

/// Every sink sees the same game: applying with no log (`()`), with a full log, and with
/// the simulator's counts changes the game alike, and the counts are what counting the log
/// gives — with the standard registry and with one whose number cards are wrapped (so that
/// actions take the scripted path, with its undo copy and held-back events), for every kind
/// of action (plays, recoveries, knotted ones, rescues).
#[test]
fn every_sink_sees_the_same_game() {
    for wrapped in [false, true] {
        let mut registry = Registry::standard();
        if wrapped {
            for n in 1..=10 {
                let rank = Rank::new(n).unwrap();
                registry.set_effect(rank, Arc::new(PassOn(registry.effect(rank))));
            }
            assert!(!registry.is_native());
        }
        let registry = Arc::new(registry);
        let mut rescues = 0;
        for seed in 0..30u64 {
            let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
            let setup = Setup { names, seed, deck: None };
            let mut loud = Game::new(Arc::new(Rules::default()), Arc::clone(&registry), setup).unwrap();
            let (mut quiet, mut counted) = (loud.clone(), loud.clone());
            let (mut from_events, mut counts) = (EventCounts::default(), EventCounts::default());
            let mut turn = 0u64;
            while !loud.is_over() && turn < 300 {
                let legal = loud.legal_actions();
                // Every fold of the listing agrees with it (both ways of working out what a
                // card offers: built in and asked of the entries).
                common::assert_playable_cards_match(&loud, &legal, &format!("seed {seed}, turn {turn}"));
                // Vary the choice: plays and recoveries both come up.
                let action = legal[(seed.wrapping_mul(31).wrapping_add(turn * 7) % legal.len() as u64) as usize];
                let mut events = Vec::new();
                loud.apply(&action, &mut events).unwrap();
                events.into_iter().for_each(|e| from_events.push(e));
                quiet.apply(&action, &mut ()).unwrap();
                counted.apply(&action, &mut counts).unwrap();
                assert!(loud == quiet && loud == counted, "seed {seed}, turn {turn}: the games differ");
                assert_eq!(from_events, counts, "seed {seed}, turn {turn}");
                turn += 1;
            }
            assert!(counts.recoveries > 0 && counts.plays.iter().sum::<u32>() > 0, "seed {seed}");
            rescues += counts.rescues;
        }
        assert!(rescues > 0, "no rescue was seen (wrapped: {wrapped})");
    }
    // A refused action sends nothing.
    let mut game = Game::standard(&["a", "b"], 3).unwrap();
    let mut counts = EventCounts { rescues: 5, ..EventCounts::default() };
    assert!(game.apply(&Action::Recover { cards: Default::default(), face_on_top: false }, &mut counts).is_err());
    assert_eq!(counts, EventCounts { rescues: 5, ..EventCounts::default() });
}

/// An entry that passes everything on to the one it wraps.
struct PassOn(Arc<dyn Effect>);

impl Effect for PassOn {
    fn aim(&self, state: &State, player: usize, card: Card) -> Result<Aim, EffectError> {
        self.0.aim(state, player, card)
    }
    fn resolve(&self, ctx: &mut Ctx<'_>, play: Play) -> Result<(), EffectError> {
        self.0.resolve(ctx, play)
    }
}
