//! `diving host --dir DIR ratings`: the leaderboards of a host's database at a terminal, read
//! from a database made as the host makes it (`Db::open`, then its changes), with no host
//! started; a missing directory or database is named in one line, with status 2. And what
//! `diving host` refuses before it starts: the options of start-up tables for a lobby host.

use crate::cli_support::diving;
use diving::server::db::{Change, Db, Finish, SeatRow, Unkeyed};
use serde_json::Value;

const KEY_ANN: &str = "0123456789abcdef0123456789abcdef";
const KEY_BOB: &str = "fedcba9876543210fedcba9876543210";

/// One finished game at room `room` of `ruleset`: `seats` in seat order, the first place first.
fn finished(db: &mut Db, room: &str, ruleset: &str, seats: &[i64]) {
    let rows = seats.iter().map(|&p| SeatRow { token: Some("t".into()), bot: None, player: Some(p) }).collect();
    let table = Change::Table {
        room: room.into(),
        spec: ruleset.into(),
        ruleset: ruleset.into(),
        lobby: true,
        hints: false,
        seats: rows,
    };
    let places =
        seats.iter().enumerate().map(|(i, &player)| Finish { seat: i, player, place: i + 1, won: i == 0 }).collect();
    db.commit(&[table, Change::Finished { room: room.into(), game: 1, ruleset: ruleset.into(), places }]).unwrap();
}

/// A games directory where ann beat the greedy bot twice at standard, and bob beat ann once
/// at house.
fn games_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::open(dir.path()).unwrap();
    let ann = db.person("ann", KEY_ANN).unwrap();
    let bob = db.person("bob", KEY_BOB).unwrap();
    let greedy = db.unkeyed(Unkeyed::Bot, "greedy").unwrap();
    finished(&mut db, "1", "standard", &[ann, greedy]);
    finished(&mut db, "2", "standard", &[ann, greedy]);
    finished(&mut db, "3", "house", &[bob, ann]);
    dir
}

fn stdout(dir: &std::path::Path, extra: &[&str]) -> String {
    let mut cmd = diving();
    cmd.arg("host").arg("--dir").arg(dir).arg("ratings").args(extra);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn ratings_print_every_rated_rulesets_board_most_played_first() {
    let dir = games_dir();
    let text = stdout(dir.path(), &[]);
    let boards: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(boards.len(), 2, "{text}");
    let standard: Vec<&str> = boards[0].lines().collect();
    assert!(standard[0].starts_with("ratings for standard"), "{text}");
    let columns: Vec<&str> = standard[1].split_whitespace().collect();
    assert_eq!(columns, ["rank", "player", "rating", "+-", "games", "wins"], "{text}");
    let ann: Vec<&str> = standard[2].split_whitespace().collect();
    let bot: Vec<&str> = standard[3].split_whitespace().collect();
    assert_eq!((ann[0], ann[1], ann[4], ann[5]), ("1", "ann", "2", "2"), "{text}");
    assert_eq!((bot[0], bot[1], bot[4], bot[5]), ("2", "bot:greedy", "2", "0"), "{text}");
    let (ann_rating, bot_rating): (f64, f64) = (ann[2].parse().unwrap(), bot[2].parse().unwrap());
    assert!(ann_rating > bot_rating, "{text}");
    assert_eq!(standard[4], "recent results (newest first):", "{text}");
    assert!(standard[5].ends_with("room 2 game 1: 1. ann, 2. bot:greedy"), "{text}");
    assert!(standard[6].ends_with("room 1 game 1: 1. ann, 2. bot:greedy"), "{text}");
    assert!(boards[1].starts_with("ratings for house"), "{text}");
    assert!(boards[1].lines().nth(2).unwrap().contains(" bob "), "{text}");
}

#[test]
fn ratings_of_one_ruleset_and_as_json() {
    let dir = games_dir();
    let text = stdout(dir.path(), &["--ruleset", "house"]);
    assert!(text.starts_with("ratings for house") && !text.contains("standard"), "{text}");

    let json = stdout(dir.path(), &["--json"]);
    let boards: Vec<Value> = json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(boards.len(), 2, "{json}");
    assert_eq!(boards[0]["ruleset"], "standard");
    let rows = boards[0]["rows"].as_array().unwrap();
    assert_eq!(
        (rows[0]["player"].as_str(), rows[0]["games"].as_u64(), rows[0]["bot"].as_bool()),
        (Some("ann"), Some(2), Some(false))
    );
    assert_eq!(rows[1]["bot"], true);
    assert_eq!(boards[0]["recent"].as_array().unwrap().len(), 2);
    assert_eq!(boards[0]["recent"][0]["places"][0]["player"], "ann");
}

#[test]
fn ratings_without_a_database_or_of_an_unrated_ruleset_say_so() {
    let refused = |dir: &std::path::Path, extra: &[&str]| {
        let mut cmd = diving();
        cmd.arg("host").arg("--dir").arg(dir).arg("ratings").args(extra);
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        err
    };
    let empty = tempfile::tempdir().unwrap();
    let err = refused(empty.path(), &[]);
    assert!(err.contains(&format!("{} has no diving.sqlite", empty.path().display())), "{err}");
    assert!(!empty.path().join("diving.sqlite").exists(), "nothing is made");

    let missing = empty.path().join("nowhere");
    let err = refused(&missing, &[]);
    assert!(err.contains(&format!("{}: no such directory", missing.display())), "{err}");

    let dir = games_dir();
    let err = refused(dir.path(), &["--ruleset", "meters"]);
    assert!(err.contains("no rated games of ruleset 'meters' (rated rulesets: standard, house)"), "{err}");

    let mut cmd = diving();
    let out = cmd.arg("host").arg("--dir").arg(dir.path()).args(["--seats", "3", "ratings"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--seats cannot go with `diving host ratings`"));
}

/// A lobby host (no seats given) makes no table at start-up, so the options that shape those
/// tables are refused by name instead of dropped without a word; nothing is served.
#[test]
fn a_lobby_host_refuses_the_options_of_start_up_tables() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, named) in [
        (&["--seed", "5"][..], "--seed"),
        (&["--rooms", "3"][..], "--rooms"),
        (&["--deck", "AH,2H"][..], "--deck"),
        (&["--seed", "5", "--rooms", "2"][..], "--seed, --rooms"),
    ] {
        let out = diving()
            .args(["host", "--bind", "127.0.0.1", "--port", "0", "--dir"])
            .arg(dir.path())
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("{named} set up the tables made at start-up")), "{err}");
        assert!(err.contains("give --players or --seats"), "{err}");
    }
}
