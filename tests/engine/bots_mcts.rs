//! The search bot beats `greedy`: seeded two-player games with the seats alternated, at the
//! default strength. (docs/playing.md reports the figure over 2,000 games.)

use diving::ruleset::Ruleset;
use diving::sim::{SimConfig, simulate};

#[test]
fn mcts_beats_greedy_in_more_than_55_percent_of_games() {
    let games = 100;
    let config = SimConfig {
        games,
        players: vec!["mcts".into(), "greedy".into()],
        seed: 2024,
        jobs: 2,
        rotate: true,
        max_turns: 1000,
    };
    let result = simulate(&config, &Ruleset::standard(), None, &|_| {}).expect("the games run");
    let tally = &result.tally;
    assert_eq!(tally.games, games);
    // With rotation, player 0 (mcts) sat in seat 1 in even games and seat 2 in odd ones.
    assert_eq!(tally.seat_wins.iter().sum::<u64>() + tally.draws, games);
    let mcts = tally.player_wins[0];
    assert!(mcts * 100 >= 55 * games, "mcts won {mcts} of {games} games against greedy");
}
