//! The architecture page's properties, as `proptest` states them: for any seed, player count
//! and sequence of choices, cards are conserved and depth and oxygen stay in bounds after
//! every action (conservation and bounds); every fold of the listing agrees and every listed
//! action checks (one listing, a mod's actions included); any action built from arbitrary parts is either played or
//! refused with the game exactly as before (refusal changes nothing); and what a seat sees —
//! its state and what it may do — does not change when the cards it cannot see are dealt
//! otherwise (visibility under permutations of hidden cards). Failing cases shrink
//! to a small seed and a short list of choices.

use crate::common;

use common::assert_invariants;
use diving::core::{Action, Cards, Game, Registry, Rules, Setup, Source, View, Viewer, full_deck};
use diving::table::json;
use proptest::prelude::*;
use std::sync::Arc;

fn game(seed: u64, players: usize) -> Game {
    let names = common::NAMES[..players].iter().map(|s| s.to_string()).collect();
    let rules = Rules { max_turns: 300, ..Rules::default() };
    Game::new(Arc::new(rules), Arc::new(Registry::standard()), Setup { names, seed, deck: None }).unwrap()
}

/// Plays listed action `choice % len` for each choice, as long as the game runs.
fn play(mut game: Game, choices: &[u16]) -> Game {
    for &choice in choices {
        if game.is_over() {
            break;
        }
        let legal = game.legal_actions();
        let action = legal[usize::from(choice) % legal.len()];
        game.apply(&action, &mut ()).unwrap();
    }
    game
}

/// An action from arbitrary parts: any card, from the hand or any slot (some past the table),
/// aimed at any seat or none (some past the table), in either order; or a recovery of any
/// cards; or a pass.
fn any_action() -> impl Strategy<Value = Action> {
    let card = (0usize..52).prop_map(|i| full_deck(1)[i]);
    let play = (card.clone(), prop::option::of(0usize..6), prop::option::of(0usize..10), any::<bool>()).prop_map(
        |(card, slot, target, face_on_top)| Action::Play {
            card,
            from: slot.map_or(Source::Hand, Source::Table),
            target,
            face_on_top,
        },
    );
    let recover = (prop::collection::vec(card.clone(), 0..6), any::<bool>())
        .prop_map(|(cards, face_on_top)| Action::Recover { cards: Cards::from_slice(&cards).unwrap(), face_on_top });
    // A mod's action, by a name the game may or may not have, at any seat or none.
    let names = prop_oneof![Just("buddy"), Just("nope")].prop_map(|n| n.parse().unwrap());
    let act = (names, prop::option::of(0usize..10), prop::option::of(card))
        .prop_map(|(name, target, card)| Action::Act { name, target, card });
    prop_oneof![4 => play, 2 => recover, 1 => Just(Action::Pass), 1 => act]
}

/// A game under the buddy-line example, whose mod adds the action `buddy`.
fn buddy_game(seed: u64, players: usize) -> Game {
    let ruleset = diving::ruleset::Ruleset::load("rulesets/examples/buddy-line/ruleset.toml").unwrap();
    let names = common::NAMES[..players].iter().map(|s| s.to_string()).collect();
    let rules = Rules { max_turns: 300, ..(*ruleset.rules).clone() };
    Game::new(Arc::new(rules), ruleset.registry().unwrap(), Setup { names, seed, deck: None }).unwrap()
}

proptest! {
    // No file of failures is written into the tree: a failure prints its minimal case.
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn cards_are_conserved_and_divers_stay_in_bounds(
        seed in any::<u64>(),
        players in 2usize..=8,
        choices in prop::collection::vec(any::<u16>(), 0..200),
    ) {
        let mut game = game(seed, players);
        assert_invariants(&game, "at the deal");
        for (i, &choice) in choices.iter().enumerate() {
            if game.is_over() {
                break;
            }
            let legal = game.legal_actions();
            let action = legal[usize::from(choice) % legal.len()];
            game.apply(&action, &mut ()).unwrap();
            assert_invariants(&game, &format!("after action {} ({action})", i + 1));
        }
    }

    #[test]
    fn every_fold_of_the_listing_agrees_and_every_listed_action_checks(
        seed in any::<u64>(),
        players in 2usize..=8,
        choices in prop::collection::vec(any::<u16>(), 0..120),
    ) {
        let game = play(game(seed, players), &choices);
        let moves = game.moves();
        let list = moves.to_vec();
        prop_assert_eq!(moves.len(), list.len());
        prop_assert_eq!(moves.is_empty(), list.is_empty());
        for (i, action) in list.iter().enumerate() {
            prop_assert_eq!(moves.nth(i), Some(*action));
            prop_assert_eq!(game.check(action), Ok(()), "listed action {} does not check", action);
        }
        prop_assert_eq!(moves.nth(list.len()), None);
        prop_assert!(moves.failure().is_none());
    }

    /// The same with a mod's action in the listing (buddy line): it folds like the rest.
    #[test]
    fn every_fold_agrees_with_a_mods_actions_listed(
        seed in any::<u64>(),
        players in 2usize..=4,
        choices in prop::collection::vec(any::<u16>(), 0..40),
    ) {
        let game = play(buddy_game(seed, players), &choices);
        let moves = game.moves();
        let list = moves.to_vec();
        prop_assert_eq!(moves.len(), list.len());
        prop_assert_eq!(&list[list.len() - moves.acts().len()..], moves.acts());
        for (i, action) in list.iter().enumerate() {
            prop_assert_eq!(moves.nth(i), Some(*action));
            prop_assert_eq!(game.check(action), Ok(()), "listed action {} does not check", action);
        }
        prop_assert_eq!(moves.nth(list.len()), None);
    }

    #[test]
    fn an_action_is_played_or_refused_with_nothing_changed(
        seed in any::<u64>(),
        players in 2usize..=8,
        choices in prop::collection::vec(any::<u16>(), 0..120),
        action in any_action(),
    ) {
        // Half the games under the buddy line, whose `buddy` the arbitrary actions may name.
        let dealt = if seed % 2 == 0 { game(seed, players) } else { buddy_game(seed, players.min(4)) };
        let mut game = play(dealt, &choices);
        let before = game.clone();
        let mut events = Vec::new();
        match game.apply(&action, &mut events) {
            Ok(()) => prop_assert!(common::is_listed(&before.legal_actions(), &action), "{action} played but not listed"),
            Err(e) => {
                prop_assert!(game == before, "refused ({e}) but changed");
                prop_assert!(events.is_empty(), "refused ({e}) but sent events");
            }
        }
    }

    #[test]
    fn what_a_seat_sees_does_not_depend_on_the_cards_it_cannot_see(
        seed in any::<u64>(),
        other in any::<u64>(),
        players in 2usize..=5,
        choices in prop::collection::vec(any::<u16>(), 0..80),
    ) {
        let real = play(game(seed, players), &choices);
        let seat = real.current();
        // The same position with every card this seat cannot see dealt otherwise.
        let dealt = View::new(&real, seat).sample(other);
        let bots = vec![None; players];
        let state = |g: &Game| json::state_for(&diving::core::Observation::of(g, Viewer::Seat(seat)), &bots).to_string();
        prop_assert_eq!(state(&real), state(&dealt));
        // It may do the same, and the listing says so in the same words.
        prop_assert_eq!(View::new(&real, seat).legal_actions(), View::new(&dealt, seat).legal_actions());
    }
}
