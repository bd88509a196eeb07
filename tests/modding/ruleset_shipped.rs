//! Every shipped ruleset survives 500 seeded random games with the core's invariants checked
//! after every action, and plays the same game twice from the same seed (mods included).

use crate::common;

use std::sync::Arc;

use common::assert_invariants;
use diving::core::{Event, Game, Rules, Setup};
use diving::ruleset::{Ruleset, shipped_names};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Turn cap for the tests (the rulesets themselves have none).
const CAP: u32 = 120;

fn capped(ruleset: &Ruleset) -> Arc<Rules> {
    Arc::new(Rules { max_turns: CAP, ..(*ruleset.rules).clone() })
}

/// Plays one random game; returns its whole log.
fn random_game(ruleset: &Ruleset, rules: &Arc<Rules>, registry: &Arc<diving::core::Registry>, seed: u64) -> Vec<Event> {
    let span = rules.max_players - rules.min_players + 1;
    let players = rules.min_players + (seed as usize % span);
    let names = (1..=players).map(|i| format!("P{i}")).collect();
    let mut game = Game::new(rules.clone(), registry.clone(), Setup { names, seed, deck: None })
        .unwrap_or_else(|e| panic!("{}: seed {seed}: {e}", ruleset.name));
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut log = Vec::new();
    while !game.is_over() {
        let actions = game.legal_actions();
        let action = actions[rng.random_range(0..actions.len())];
        game.apply(&action, &mut log)
            .unwrap_or_else(|e| panic!("{}: seed {seed}, turn {}: '{action}' failed: {e}", ruleset.name, game.turn()));
        assert_invariants(&game, &format!("in {} seed {seed} after '{action}'", ruleset.name));
    }
    log
}

fn five_hundred_games(name: &str) {
    let ruleset = Ruleset::load(name).unwrap_or_else(|e| panic!("{e}"));
    let rules = capped(&ruleset);
    let registry = ruleset.registry().unwrap();
    let mut ended = 0;
    for seed in 0..500 {
        let log = random_game(&ruleset, &rules, &registry, seed);
        ended += log.iter().filter(|e| matches!(e, Event::Won { .. } | Event::Draw { .. })).count();
    }
    assert_eq!(ended, 500, "every game ends with a win or a draw at the cap");
}

#[test]
fn standard_500_games() {
    five_hundred_games("standard");
}

#[test]
fn meters_500_games() {
    five_hundred_games("meters");
}

#[test]
fn big_table_500_games() {
    five_hundred_games("big-table");
}

#[test]
fn house_500_games() {
    five_hundred_games("house");
}

#[test]
fn every_shipped_ruleset_is_tested_here() {
    let names: Vec<&str> = shipped_names().collect();
    assert_eq!(names, ["standard", "meters", "big-table", "house"]);
}

#[test]
fn same_seed_same_game_with_mods_loaded() {
    for name in shipped_names() {
        let first = Ruleset::load(name).unwrap();
        let second = Ruleset::load(name).unwrap();
        let (rules, other_rules) = (capped(&first), capped(&second));
        for seed in 0..20 {
            // A fresh registry (and Lua state) for each run.
            let a = random_game(&first, &rules, &first.registry().unwrap(), seed);
            let b = random_game(&second, &other_rules, &second.registry().unwrap(), seed);
            assert_eq!(a, b, "{name} seed {seed} played differently");
        }
    }
}

#[test]
fn house_rules_really_use_their_mods() {
    let house = Ruleset::load("house").unwrap();
    let names: Vec<&str> = house.mods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["rulesets/mods/shark.lua", "rulesets/mods/thermocline.lua", "rulesets/mods/knot-squeeze.lua"]);
    assert!(!house.registry().unwrap().is_native());
    let rules = capped(&house);
    let registry = house.registry().unwrap();
    let said: usize = (0..40)
        .map(|seed| random_game(&house, &rules, &registry, seed))
        .map(|log| log.iter().filter(|e| matches!(e, Event::Said { .. })).count())
        .sum();
    assert!(said > 0, "sharks and knots narrate what they do");
}

#[test]
fn meters_show_depth_in_metres_and_change_nothing_else() {
    let meters = Ruleset::load("meters").unwrap();
    assert_eq!(meters.rules.show_depth(45), "4500 m");
    let standard = Rules::default();
    assert_eq!(Rules { depth_unit: "m".into(), depth_scale: 100, ..standard }, *meters.rules);
}

#[test]
fn big_table_seats_eight_with_two_decks() {
    let big = Ruleset::load("big-table").unwrap();
    assert_eq!((big.rules.max_players, big.rules.decks), (8, Some(2)));
    let names = (1..=8).map(|i| format!("P{i}")).collect();
    let game = Game::new(big.rules.clone(), big.registry().unwrap(), Setup { names, seed: 1, deck: None }).unwrap();
    assert_eq!(game.card_count(), 104);
}

#[test]
fn shipped_rulesets_are_found_by_name_with_or_without_toml() {
    for name in shipped_names() {
        let by_name = Ruleset::load(name).unwrap();
        let with_ext = Ruleset::load(&format!("{name}.toml")).unwrap();
        assert_eq!(by_name.rules, with_ext.rules);
        assert_eq!(by_name.mods, with_ext.mods);
    }
}

#[test]
fn a_file_on_disk_can_extend_a_shipped_ruleset_with_mods() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.toml");
    std::fs::write(&path, "extends = \"house\"\nmax_oxygen = 9\n").unwrap();
    let mine = Ruleset::load(path.to_str().unwrap()).unwrap();
    assert_eq!(mine.rules.max_oxygen, 9);
    assert_eq!(mine.mods, Ruleset::load("house").unwrap().mods);
    assert!(!mine.registry().unwrap().is_native());
}
