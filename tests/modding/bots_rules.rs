//! The built-in bots play the rules in force: a play whose card a mod changed (or whose moves
//! a hook acts on) is weighed by what it does, resolved on a copy of the position the bot
//! imagines from its own view; the built-in cards keep the bots' fast scoring.

use std::sync::Arc;

use diving::bots::GreedyBot;
use diving::core::{Action, Game, Rank, Registry, Rules, Setup, View};
use diving::script::{ModSource, load_mods};

fn mods(files: &[&str]) -> Registry {
    let sources: Vec<ModSource> = files
        .iter()
        .map(|f| {
            let path = format!("tests/mods/{f}");
            let code = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            ModSource { name: path, code: code.into() }
        })
        .collect();
    load_mods(&Rules::default(), &sources).unwrap_or_else(|e| panic!("{e}"))
}

/// Over seeded two-player games of greedy against greedy: how many number cards were played,
/// and how many of them were of `rank`.
fn plays_of(registry: Registry, rank: Rank, games: u64) -> (usize, usize) {
    let registry = Arc::new(registry);
    let (mut numbers, mut of_rank) = (0, 0);
    for seed in 0..games {
        let setup = Setup { names: vec!["a".into(), "b".into()], seed, deck: None };
        let mut game = Game::new(Arc::new(Rules::default()), Arc::clone(&registry), setup).unwrap();
        let mut bots = [GreedyBot::new(), GreedyBot::new()];
        for _ in 0..400 {
            if game.is_over() {
                break;
            }
            let seat = game.current();
            let action = bots[seat].pick(&View::new(&game, seat));
            if let Action::Play { card, .. } = action
                && card.rank.is_number()
            {
                numbers += 1;
                of_rank += usize::from(card.rank == rank);
            }
            game.apply(&action, &mut ()).unwrap_or_else(|e| panic!("seed {seed}: {action}: {e}"));
        }
    }
    (numbers, of_rank)
}

/// Share in per mille.
fn share((all, some): (usize, usize)) -> usize {
    some * 1000 / all.max(1)
}

/// A 7 that costs its player 2 more oxygen through its effect (not a hook the bot could ask)
/// is played by greedy far less than a standard 7: the bot sees the oxygen go.
#[test]
fn greedy_plays_a_seven_that_costs_oxygen_less_than_a_standard_seven() {
    let standard = share(plays_of(Registry::standard(), Rank::new(7).unwrap(), 40));
    let costly = share(plays_of(mods(&["costly-sevens.lua"]), Rank::new(7).unwrap(), 40));
    assert!(standard > 80, "a standard 7 is a tenth of the number cards played: {standard}‰");
    assert!(costly * 2 < standard, "costly 7s: {costly}‰ of number cards, standard 7s: {standard}‰");
}

/// An ace given a mod's own effect that only passes the play on to the built-in ace (its only
/// target: its player) is played about as often as a standard ace; it used to be never.
#[test]
fn greedy_plays_a_pass_through_ace_as_often_as_a_standard_ace() {
    let standard = share(plays_of(Registry::standard(), Rank::ACE, 40));
    let own = share(plays_of(mods(&["self-ace.lua"]), Rank::ACE, 40));
    assert!(standard > 20, "standard aces: {standard}‰");
    assert!(own * 4 >= standard * 3 && own * 3 <= standard * 4, "the mod's aces: {own}‰, standard: {standard}‰");
}

/// Weighing a play on a copy never changes the game, and the bot's choice depends only on
/// what its seat sees: the same choice with the other hands and the deck dealt otherwise.
#[test]
fn weighing_by_consequences_does_not_peek() {
    let registry = Arc::new(mods(&["costly-sevens.lua"]));
    for seed in 0..6u64 {
        let setup = Setup { names: vec!["a".into(), "b".into(), "c".into()], seed, deck: None };
        let mut game = Game::new(Arc::new(Rules::default()), Arc::clone(&registry), setup).unwrap();
        for turn in 0..60 {
            if game.is_over() {
                break;
            }
            let seat = game.current();
            let before = game.clone();
            let view = View::new(&game, seat);
            let choice = GreedyBot::new().pick(&view);
            assert!(game == before, "seed {seed}, turn {turn}: weighing changed the game");
            for other in 0..3 {
                let resampled = view.sample(1000 + other);
                assert_eq!(
                    GreedyBot::new().pick(&View::new(&resampled, seat)),
                    choice,
                    "seed {seed}, turn {turn}: the choice moved with the hidden cards"
                );
            }
            game.apply(&choice, &mut ()).unwrap();
        }
    }
}
