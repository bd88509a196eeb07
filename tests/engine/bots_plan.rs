//! Bots plan with the rules in force: the same oxygen costs written as TOML bands or as a
//! mod's `oxygen_cost` hook give the same games, bot for bot (greedy, mcts, a Lua bot), so
//! the simulator judges a modded ruleset as it judges a TOML one.

use std::sync::Arc;

use diving::core::{Band, Rules};
use diving::ruleset::Ruleset;
use diving::script::ModSource;
use diving::sim::{SimConfig, Tally, simulate};

/// The standard ruleset with every band costing one less (the first band nothing), in TOML.
fn cheap_bands() -> Ruleset {
    let standard = Rules::default();
    let oxygen_bands = standard.oxygen_bands.iter().map(|b| Band { to: b.to, cost: b.cost - 1 }).collect();
    let rules = Rules { oxygen_bands, ..standard };
    Ruleset { name: "cheap-bands".into(), rules: Arc::new(rules), ..Ruleset::standard() }
}

/// The same costs as the standard bands less one, by a mod's hook.
fn cheap_mod() -> Ruleset {
    let air = ModSource { name: "cheap-air.lua".into(), code: include_str!("../mods/cheap-air.lua").into() };
    Ruleset { name: "cheap-mod".into(), mods: Arc::from(vec![air]), ..Ruleset::standard() }
}

fn tally(ruleset: &Ruleset, players: &[&str], games: u64) -> Tally {
    let config = SimConfig {
        games,
        players: players.iter().map(|p| p.to_string()).collect(),
        seed: 11,
        jobs: 1,
        rotate: true,
        max_turns: 400,
    };
    simulate(&config, ruleset, None, &|_| {}).unwrap().tally
}

/// Greedy bots asked the mod's hook play the same games as with the bands; before the bots
/// asked the hooks, the mod's games were a third longer (47 against 65 turns on average).
#[test]
fn greedy_plays_a_cost_mod_as_it_plays_the_same_bands() {
    let (bands, modded) =
        (tally(&cheap_bands(), &["greedy", "greedy"], 120), tally(&cheap_mod(), &["greedy", "greedy"], 120));
    assert!(bands == modded, "mean length {} (bands) against {} (mod)", bands.turns.mean(), modded.turns.mean());
    // The cheaper air matters: the games differ from the standard ones.
    assert!(bands != tally(&Ruleset::standard(), &["greedy", "greedy"], 120));
}

#[test]
fn search_and_lua_bots_play_a_cost_mod_as_they_play_the_same_bands() {
    for players in [["mcts:8", "greedy"], ["scripts/cautious.lua", "greedy"]] {
        let (bands, modded) = (tally(&cheap_bands(), &players, 6), tally(&cheap_mod(), &players, 6));
        let means = (bands.turns.mean(), modded.turns.mean());
        assert!(bands == modded, "{players:?}: mean length {} (bands) against {} (mod)", means.0, means.1);
    }
}
