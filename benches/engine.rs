//! Engine speed: whole games as the simulator plays them (one thread) — two greedy bots, four
//! random bots, two greedy bots on a ruleset whose Lua mod wraps every number card, and the
//! search bot against greedy — and the hot pieces of a turn on their own. Run with
//! `cargo bench --bench engine`; `diving sim` prints the same throughput for real runs.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use diving::bots::{Bot, GreedyBot, RandomBot};
use diving::core::{Action, Event, Game, View};
use diving::ruleset::Ruleset;
use diving::sim::{Arena, GameRecord, SimConfig};

fn config(players: &[&str]) -> SimConfig {
    SimConfig {
        games: 1,
        players: players.iter().map(|p| p.to_string()).collect(),
        seed: 1,
        jobs: 1,
        rotate: false,
        max_turns: 1000,
    }
}

/// Whole games, exactly as `diving sim` plays them on one worker.
fn games(c: &mut Criterion) {
    let mut group = c.benchmark_group("game");
    group.throughput(Throughput::Elements(1));
    let standard = Ruleset::standard();
    let wrapped = Ruleset::load("benches/rulesets/lua-wrap.toml").expect("benches/rulesets/lua-wrap.toml");
    let cases = [
        ("greedy_2p", &standard, &["greedy", "greedy"][..]),
        ("random_4p", &standard, &["random"; 4][..]),
        ("greedy_2p_lua_number_cards", &wrapped, &["greedy", "greedy"][..]),
        ("mcts_vs_greedy", &standard, &["mcts", "greedy"][..]),
    ];
    for (name, ruleset, players) in cases {
        let mut arena = Arena::new(ruleset, &config(players)).expect("arena");
        let mut record = GameRecord::default();
        let mut seed = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                seed += 1;
                arena.play(seed, 0, &mut record).expect("game");
                black_box(record.turns)
            })
        });
    }
    group.finish();
}

/// A mid-game position: a greedy game stopped after `turns` turns.
fn position(turns: u32) -> Game {
    let mut game = Game::standard(&["a", "b"], 7).expect("game");
    let mut bot = GreedyBot::new();
    while game.turn() <= turns && !game.is_over() {
        let action = bot.pick(&View::new(&game, game.current()));
        game.apply(&action, &mut ()).expect("legal");
    }
    game
}

/// The pieces of one turn.
fn turn(c: &mut Criterion) {
    let game = position(12);
    let seat = game.current();
    let mut group = c.benchmark_group("turn");
    group.bench_function("restart", |b| {
        let mut g = game.clone();
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            g.restart(seed).expect("deal");
        })
    });
    // The one listing a turn makes, and the full list of actions folded from it.
    group.bench_function("moves", |b| b.iter(|| black_box(game.moves().len())));
    group.bench_function("legal_actions", |b| b.iter(|| black_box(game.legal_actions())));
    let mut greedy = GreedyBot::new();
    group.bench_function("greedy_pick", |b| b.iter(|| black_box(greedy.pick(&View::new(&game, seat)))));
    let mut random = RandomBot::new(1);
    group.bench_function("random_choose", |b| b.iter(|| black_box(random.choose(&View::new(&game, seat)))));
    let action = greedy.pick(&View::new(&game, seat));
    let mut events: Vec<Event> = Vec::new();
    group.bench_function("clone_and_apply", |b| {
        b.iter(|| {
            let mut g = game.clone();
            events.clear();
            g.apply(black_box(&action), &mut events).expect("legal");
            black_box(g.turn())
        })
    });
    group.bench_function("clone", |b| b.iter(|| black_box(game.clone())));
    group.bench_function("check", |b| b.iter(|| game.check(black_box(&action))));
    let recover = Action::recover(&game.player(seat).hand[..2]);
    group.bench_function("check_recover", |b| b.iter(|| game.check(black_box(&recover))));
    group.bench_function("sample", |b| {
        let view = View::new(&game, seat);
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            black_box(view.sample(seed))
        })
    });
    group.finish();
}

criterion_group!(benches, games, turn);
criterion_main!(benches);
