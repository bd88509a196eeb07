//! Fuzzing the shell: thousands of random command lines, some sensible, most not, fed to the
//! parser and to whole games. Nothing may panic, and a rejected line never changes the game.

use diving::shell::front::{NoPrompter, Shell};
use diving::table::session::{Seating, Session};
use diving::table::{parse, render};
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
    if roll >= 98 {
        // A long word, alone or after a command: under the line limit, so the parser sees it.
        let len = rng.random_range(100..6000);
        let word = long_word(rng, len);
        let first = ["", "play ", "recover ", "help ", "play 7h "].choose(rng).unwrap();
        return format!("{first}{word}");
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

/// A word of `len` characters that looks like a command, a card or a name.
fn long_word(rng: &mut ChaCha8Rng, len: usize) -> String {
    let alphabet: Vec<char> = "playrecoverundoPLAYtT0123456789@♠♥é7hqs".chars().collect();
    (0..len).map(|_| *alphabet.choose(rng).unwrap()).collect()
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
            let text = line(&mut rng, shell.session().game());
            let before = shell.session().game().clone();
            let moves_before = shell.session().entries().len();
            shell.out().clear();
            shell.line(&text, &mut NoPrompter);
            let out = String::from_utf8(shell.out().clone()).unwrap();
            let outputs: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            if outputs.len() == 1 && outputs[0].get("error").is_some() {
                assert_eq!(shell.session().game(), &before, "'{text}' was rejected but changed the game");
                assert_eq!(shell.session().entries().len(), moves_before, "'{text}'");
                rejected += 1;
            }
            let game = shell.session().game();
            assert_eq!(game.card_count(), 52 * game.decks() as usize, "cards are conserved after '{text}'");
        }
        moves += shell.session().entries().len();
        finished += usize::from(shell.session().game().is_over());
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
        let text = line(&mut rng, shell.session().game());
        shell.line(&text, &mut NoPrompter);
    }
    assert!(!shell.out().is_empty());
}

/// Whole input streams through the bounded line reader: lines longer than the limit (up to
/// 300 KB), long words, bytes that are not UTF-8 and CRLF ends, between ordinary lines. Every
/// refused line is reported once, and the game is the one the ordinary lines alone make.
#[test]
fn overlong_lines_and_words_through_the_line_reader() {
    use diving::limits::MAX_LINE_BYTES;
    for seed in 0..4 {
        let mut rng = ChaCha8Rng::seed_from_u64(1000 + seed);
        let new_shell = || {
            let session = Session::new("standard", humans(&["alice", "bob"]), seed, None).unwrap();
            let mut shell = Shell::script(session, Vec::<u8>::new(), true);
            shell.start();
            shell
        };
        let (mut fed, mut plain) = (new_shell(), new_shell());
        let mut input: Vec<u8> = Vec::new();
        let (mut too_long, mut not_text) = (0, 0);
        for _ in 0..300 {
            match rng.random_range(0..20) {
                0 => {
                    let len = rng.random_range(MAX_LINE_BYTES + 1..300_000);
                    input.extend(long_word(&mut rng, len).bytes().take(len));
                    too_long += 1;
                }
                1 => {
                    input.extend(b"save \xff\xfe.json");
                    not_text += 1;
                }
                _ => {
                    // The line as the plain shell gets it, tracked on its own game.
                    let text = line(&mut rng, plain.session().game());
                    plain.line(&text, &mut NoPrompter);
                    input.extend(text.as_bytes());
                    if rng.random_range(0..4) == 0 {
                        input.push(b'\r');
                    }
                }
            }
            input.push(b'\n');
        }
        diving::shell::run_lines(&mut fed, &input[..]).unwrap();
        let out = String::from_utf8(fed.out().clone()).unwrap();
        let errors: Vec<String> = out
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter_map(|v| v.get("error").and_then(|e| e.as_str()).map(String::from))
            .collect();
        assert_eq!(errors.iter().filter(|e| e.contains("is too long")).count(), too_long);
        assert_eq!(errors.iter().filter(|e| e.contains("is not UTF-8 text")).count(), not_text);
        let long: Vec<String> =
            errors.iter().filter(|e| e.len() >= 400).map(|e| e.chars().take(70).collect()).collect();
        assert!(long.is_empty(), "every message is short: {long:?}");
        assert_eq!(fed.session().game(), plain.session().game(), "seed {seed}: refused lines changed nothing");
    }
}
