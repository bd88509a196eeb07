//! Bots (built in and the shipped Lua bots) never choose an illegal action: thousands of
//! seeded games on every shipped ruleset (`rulesets/*.toml`), through the simulator, which
//! stops at the first action the engine refuses (or the first failing mod) and names the seed.

use diving::ruleset::Ruleset;
use diving::sim::{SimConfig, simulate};

fn shipped() -> Vec<Ruleset> {
    let mut files: Vec<_> = std::fs::read_dir("rulesets")
        .expect("rulesets/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no rulesets/*.toml");
    files
        .iter()
        .map(|p| Ruleset::load(&p.to_string_lossy()).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

fn run(ruleset: &Ruleset, players: &[&str], games: u64, seed: u64) {
    let config = SimConfig {
        games,
        players: players.iter().map(|p| p.to_string()).collect(),
        seed,
        jobs: 2,
        rotate: true,
        max_turns: 400,
    };
    if ruleset.rules.validate_for(players.len()).is_err() {
        return;
    }
    let result = simulate(&config, ruleset, None, &|_| {}).unwrap_or_else(|e| panic!("{}: {e}", ruleset.name));
    assert_eq!(result.tally.games, games);
}

#[test]
fn greedy_and_random_play_legally_on_every_shipped_ruleset() {
    for ruleset in shipped() {
        run(&ruleset, &["greedy", "random"], 1500, 1);
        run(&ruleset, &["greedy", "greedy", "greedy"], 500, 10_000);
        run(&ruleset, &["random", "greedy", "random", "greedy"], 300, 20_000);
        // Five players: two decks, so hands can hold two copies of a card.
        run(&ruleset, &["random", "greedy", "random", "greedy", "random"], 150, 30_000);
    }
}

#[test]
fn lua_bots_play_legally_on_every_shipped_ruleset() {
    for ruleset in shipped() {
        run(&ruleset, &["scripts/cautious.lua", "scripts/reckless.lua"], 60, 60_000);
        run(&ruleset, &["scripts/reckless.lua", "random", "scripts/cautious.lua", "greedy"], 20, 70_000);
    }
}

#[test]
fn mcts_plays_legally_on_every_shipped_ruleset() {
    for ruleset in shipped() {
        run(&ruleset, &["mcts:20", "greedy"], 20, 40_000);
        run(&ruleset, &["mcts:10", "random", "greedy"], 10, 50_000);
    }
}
