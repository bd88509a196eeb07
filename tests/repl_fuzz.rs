//! Fuzzing the shell: thousands of random command lines, some sensible, most not, fed to the
//! parser and to whole games. Nothing may panic, and a rejected line never changes the game.

use diving::repl::session::{Seating, Session};
use diving::repl::shell::{NoPrompter, Shell};
use diving::repl::{parse, render};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const WORDS: &[&str] = &[
    "play", "p", "PLAY", "recover", "r", "pass", "moves", "state", "hand", "log", "undo", "help", "reload", "paly",
    "table", "t", "t1", "t2", "t4", "t5", "t0", "table2", "hand", "over", "top", "alice", "BOB", "carol", "zed", "@2",
    "@", "@bob", "0", "1", "2", "3", "9", "#", "-", "", "☃", "10♥", "t♣", "AS", "ks", "qh", "jd", "11h", "ZZ", "7",
];

fn card(rng: &mut ChaCha8Rng) -> String {
    let ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "J", "Q", "K", "1", "11", "0", "X"];
    let suits = ["S", "H", "D", "C", "s", "h", "♠", "♥", "♦", "♣", "X", ""];
    format!("{}{}", ranks.choose(rng).unwrap(), suits.choose(rng).unwrap())
}

/// A random line: a command word (usually), then cards and words.
fn line(rng: &mut ChaCha8Rng, game: &diving::core::Game) -> String {
    let mut parts: Vec<String> = Vec::new();
    let roll = rng.random_range(0..100);
    if roll < 45 {
        // A legal move as the shell writes it, sometimes in other case or with a word added.
        let legal = game.legal_actions();
        if let Some(action) = legal.choose(rng) {
            let text = render::command_for(game, action);
            return match roll {
                0..35 => text,
                35..40 => text.to_lowercase(),
                _ => format!("{text} {}", WORDS.choose(rng).unwrap()),
            };
        }
    }
    let start = ["play", "recover", "play", "recover", "pass", "moves", "state", "help", "x"];
    let word = if roll < 48 { "undo" } else { start.choose(rng).unwrap() };
    parts.push(word.to_string());
    for _ in 0..rng.random_range(0..5) {
        let part = match rng.random_range(0..4) {
            // A card the current player really holds or sees: lines that often succeed.
            0 => {
                let hand = &game.player(game.current()).hand;
                let table: Vec<_> = game.table().iter().flatten().copied().collect();
                let all: Vec<_> = hand.iter().chain(&table).copied().collect();
                all.choose(rng).map_or_else(|| card(rng), |c| c.to_string())
            }
            1 => card(rng),
            _ => WORDS.choose(rng).unwrap().to_string(),
        };
        parts.push(part);
    }
    parts.join(" ")
}

fn humans(names: &[&str]) -> Vec<Seating> {
    names.iter().map(|n| Seating { name: n.to_string(), bot: None }).collect()
}

fn fuzz_games(seating: impl Fn() -> Vec<Seating>, games: u64, lines: usize) {
    let (mut rejected, mut moves, mut finished) = (0, 0, 0);
    for seed in 0..games {
        let session = Session::new("standard", seating(), seed, None).unwrap();
        let mut shell = Shell::script(session, Vec::<u8>::new(), true);
        shell.start();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..lines {
            let text = line(&mut rng, shell.session.game());
            let before = shell.session.game().clone();
            let moves_before = shell.session.entries().len();
            shell.out().clear();
            shell.line(&text, &mut NoPrompter);
            let out = String::from_utf8(shell.out().clone()).unwrap();
            let outputs: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            if outputs.len() == 1 && outputs[0].get("error").is_some() {
                assert_eq!(shell.session.game(), &before, "'{text}' was rejected but changed the game");
                assert_eq!(shell.session.entries().len(), moves_before, "'{text}'");
                rejected += 1;
            }
            let game = shell.session.game();
            assert_eq!(game.card_count(), 52 * game.decks() as usize, "cards are conserved after '{text}'");
        }
        moves += shell.session.entries().len();
        finished += usize::from(shell.session.game().is_over());
    }
    eprintln!("{rejected} lines rejected, {moves} moves kept, {finished} games finished");
    // The lines must exercise both sides: many rejections and real games.
    assert!(rejected > lines && moves > lines / 2, "{rejected} rejected, {moves} moves");
}

#[test]
fn random_lines_in_two_player_games() {
    fuzz_games(|| humans(&["alice", "bob"]), 12, 400);
}

#[test]
fn random_lines_in_three_player_games() {
    fuzz_games(|| humans(&["alice", "bob", "carol"]), 6, 400);
}

#[test]
fn random_lines_against_a_bot() {
    fuzz_games(
        || {
            vec![
                Seating { name: "alice".into(), bot: None },
                Seating { name: "bob".into(), bot: Some("random".into()) },
            ]
        },
        6,
        300,
    );
}

#[test]
fn the_parser_survives_any_text() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let alphabet: Vec<char> = "aAtT0123456789 #@-,.♠♥♦♣\u{0}\t\u{feff}é☃playrecoveroverSHDCJQK".chars().collect();
    for _ in 0..20_000 {
        let len = rng.random_range(0..24);
        let text: String = (0..len).map(|_| *alphabet.choose(&mut rng).unwrap()).collect();
        let _ = parse::parse(&text);
        let _ = parse::parse(&format!("play {text}"));
        let _ = parse::parse(&format!("recover {text}"));
    }
}

#[test]
fn text_mode_survives_random_lines_too() {
    let session = Session::new("standard", humans(&["alice", "bob"]), 3, None).unwrap();
    let mut shell = Shell::script(session, Vec::<u8>::new(), false);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..1000 {
        let text = line(&mut rng, shell.session.game());
        shell.line(&text, &mut NoPrompter);
    }
    assert!(!shell.out().is_empty());
}
