//! What a mod keeps in its Lua variables, across copies of a game (issue 21): a bot's
//! look-ahead, the shell's previews and undo run on copies, and nothing a copy does reaches
//! the game it was copied from. A copy starts with the mod's globals as they are (so a preview
//! shows what the move will do); listing the moves cannot change them. So a mod with a
//! counter gives the same game whether or not anyone looked ahead, a live game's save loads,
//! and `diving sim` does not depend on the bots' search.

use crate::cli_support;
use crate::common;

use common::{Deal, action, run, said};
use diving::bots::{Bot, MctsBot};
use diving::core::{Action, Event, Game, Registry, Rules, View};
use diving::script::{ModSource, load_mods};
use diving::table::session::{Seating, Session};

const DIR: &str = "tests/mods/runtime";

fn path(file: &str) -> String {
    format!("{DIR}/{file}")
}

fn load(file: &str) -> Registry {
    let name = path(file);
    let code = std::fs::read_to_string(&name).unwrap_or_else(|e| panic!("{name}: {e}"));
    load_mods(&Rules::default(), &[ModSource { name, code: code.into() }]).unwrap_or_else(|e| panic!("{e}"))
}

/// Fives first, so that the counting mods count.
fn deal() -> Deal {
    Deal::new(2).hand("Ann", "5H 5C 9D KS").hand("Bob", "5D 5S 8D 2S").table("6C 7C 10D JD").discard("2C")
}

/// The first listed play of a 5, else the first listed action.
fn five_first(game: &Game) -> Action {
    let legal = game.legal_actions();
    *legal.iter().find(|a| a.to_string().starts_with("play 5")).unwrap_or(&legal[0])
}

/// Plays `turns` turns of `file`'s game, choosing fives first; before each move, when
/// `look_ahead`, every legal move is also played on a copy, and a search bot looks ahead.
/// The moves and what each caused.
fn game_of(file: &str, turns: usize, look_ahead: bool) -> (Game, Vec<(Action, Vec<Event>)>) {
    let mut game = deal().game_with(load(file));
    let mut moves = Vec::new();
    let mut search = MctsBot::new(12, 7);
    for _ in 0..turns {
        if game.is_over() {
            break;
        }
        if look_ahead {
            for legal in game.legal_actions() {
                let mut copy = game.clone();
                let _ = copy.apply(&legal, &mut Vec::new());
            }
            search.choose(&View::new(&game, game.current())).unwrap();
        }
        let chosen = five_first(&game);
        let mut events = Vec::new();
        game.apply(&chosen, &mut events).unwrap_or_else(|e| panic!("{file}: {chosen}: {e}"));
        moves.push((chosen, events));
    }
    (game, moves)
}

#[test]
fn looking_ahead_does_not_change_a_mod_that_counts_in_a_global() {
    let (quiet, quiet_moves) = game_of("global-counter.lua", 30, false);
    let (searched, searched_moves) = game_of("global-counter.lua", 30, true);
    assert!(quiet_moves.iter().any(|(_, e)| e.iter().any(|e| matches!(e, Event::Said { .. }))), "the mod acts");
    assert_eq!(searched_moves, quiet_moves);
    assert!(searched == quiet);
}

#[test]
fn looking_ahead_does_not_change_a_mod_that_counts_in_a_local() {
    let (quiet, quiet_moves) = game_of("counter.lua", 30, false);
    let (searched, searched_moves) = game_of("counter.lua", 30, true);
    assert_eq!(searched_moves, quiet_moves);
    assert!(searched == quiet);
}

/// A copy starts with the mod's globals as they are: after two fives, the copy of the game
/// dives 3 further on the third, as the game itself then does.
#[test]
fn a_copy_plays_on_with_the_mods_globals() {
    let game = run(deal().game_with(load("global-counter.lua")), "play 5H; play 5D").game;
    let third = action(&game, "play 5C");
    let mut copy = game.clone();
    let mut on_copy = Vec::new();
    copy.apply(&third, &mut on_copy).unwrap();
    assert!(on_copy.iter().any(|e| matches!(e, Event::Said { .. })), "{on_copy:?}");
    let mut original = game;
    let mut on_game = Vec::new();
    original.apply(&third, &mut on_game).unwrap();
    assert_eq!(on_copy, on_game);
    assert!(copy == original);
}

/// A folder with `rules.toml` listing `file` (copied next to it).
fn ruleset_dir(file: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(path(file), dir.path().join(file)).unwrap();
    let toml = format!("extends = \"standard\"\nname = \"stateful\"\nmods = [\"{file}\"]\n");
    let rules = dir.path().join("rules.toml");
    std::fs::write(&rules, toml).unwrap();
    let rules = rules.to_string_lossy().into_owned();
    (dir, rules)
}

/// The shell's `moves` previews every move on a copy: each preview does what the move then
/// does with the mod's state (the cards drawn differ: a preview deals the cards the seat
/// cannot see at random), and previewing changes nothing.
#[test]
fn the_shells_previews_show_what_a_stateful_mod_will_do() {
    let (_dir, rules) = ruleset_dir("global-counter.lua");
    let seating = ["Ann", "Bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
    let mut session = Session::new(&rules, seating.clone(), 11, Some(deal().order())).unwrap();
    let mut quiet = Session::new(&rules, seating, 11, Some(deal().order())).unwrap();
    let mut extra_dives = 0;
    for _ in 0..30 {
        if session.game().is_over() {
            break;
        }
        for legal in session.game().legal_actions() {
            session.preview(&legal).expect("a legal move previews");
        }
        let chosen = five_first(session.game());
        let preview = session.preview(&chosen).unwrap();
        let events = session.apply(chosen).unwrap().to_vec();
        let known = |events: &[Event]| -> Vec<Event> {
            events.iter().filter(|e| matches!(e, Event::Said { .. } | Event::Moved { .. })).cloned().collect()
        };
        assert_eq!(known(&preview), known(&events), "{chosen}");
        extra_dives += events.iter().filter(|e| matches!(e, Event::Said { .. })).count();
        quiet.apply(chosen).unwrap();
    }
    assert!(extra_dives >= 1, "the mod acts");
    assert!(session.game() == quiet.game());
}

/// Search bots look ahead before every move, and the shell previews moves: the game's save
/// still replays to the same game, after an undo too.
#[test]
fn a_game_with_search_bots_and_a_stateful_mod_saves_and_loads() {
    for file in ["global-counter.lua", "counter.lua", "plays-per-turn.lua"] {
        let (_dir, rules) = ruleset_dir(file);
        let seating = vec![
            Seating { name: "Ann".into(), bot: None },
            Seating { name: "Bob".into(), bot: Some("mcts:10".into()) },
        ];
        let mut session = Session::new(&rules, seating, 5, Some(deal().order())).unwrap();
        for turn in 0..40 {
            if session.game().is_over() {
                break;
            }
            if session.is_bot(session.game().current()) {
                let moved = session.bot_move().expect("the bot's turn").unwrap();
                assert_eq!(moved.warning, None, "{file}");
            } else {
                for legal in session.game().legal_actions() {
                    let _ = session.preview(&legal);
                }
                let chosen = five_first(session.game());
                session.apply(chosen).unwrap();
            }
            if turn == 20 {
                session.undo(false).unwrap();
            }
        }
        let loaded = Session::from_save(session.to_save(), std::path::Path::new("game.json"), None)
            .unwrap_or_else(|e| panic!("{file}: the save must load: {e}"));
        assert!(loaded.game() == session.game(), "{file}");
    }
}

/// Listing the moves cannot change what a mod keeps: a `playable` function that assigns a
/// global fails, named at its line, and the listing reports it.
#[test]
fn a_playable_function_cannot_change_the_mods_globals() {
    let game = deal().game_with(load("playable-writes.lua"));
    let listing = game.moves();
    let legal = listing.to_vec();
    assert!(!legal.iter().any(|a| a.to_string().starts_with("play 5")), "{legal:?}");
    let failure = diving::core::Viewer::Seat(0).failure(listing.failure().expect("the failure is reported"));
    assert!(failure.starts_with(&format!("mod {}:6: ", path("playable-writes.lua"))), "{failure}");
    assert!(failure.contains("cannot change the mod's globals"), "{failure}");
}

/// …while reading them is fine: a 5 waits until everyone has played as many.
#[test]
fn a_playable_function_reads_the_mods_globals() {
    let game = run(deal().game_with(load("playable-reads.lua")), "play 5H; play 8D").game;
    let refused = game.check(&action(&game, "play 5C")).unwrap_err();
    let seen = diving::core::Viewer::Seat(game.current()).error(&refused);
    assert!(seen.contains("wait until everyone has played a 5"), "{seen}");
    let game = run(game, "play 9D; play 5D").game;
    assert!(game.check(&action(&game, "play 5C")).is_ok(), "both have played one");
    assert_eq!(game.moves().failure(), None);
}

/// Search bots in `diving sim` play on copies; a mod that would see those plays fails. It
/// does not, with any number of jobs, and the totals do not depend on `--jobs`.
#[test]
fn sim_with_search_bots_never_lets_a_copy_reach_the_game() {
    let (_dir, rules) = ruleset_dir("plays-per-turn.lua");
    let run = |jobs: &str| {
        let out = cli_support::diving()
            .args(["sim", "--ruleset", &rules, "--games", "6", "--players", "mcts:6,greedy", "--seed", "3"])
            .args(["--json", "--jobs", jobs])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        report["results"].clone()
    };
    assert_eq!(run("1"), run("2"));
}

/// An action a mod refuses half-way changes nothing in the shell, the mod's globals
/// included: the count it made before failing is not kept, so the save replays.
#[test]
fn a_refused_action_does_not_keep_what_the_mod_counted() {
    let (_dir, rules) = ruleset_dir("count-then-fail.lua");
    let seating = ["Ann", "Bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
    let mut session = Session::new(&rules, seating, 11, Some(deal().order())).unwrap();
    for text in ["play 5H", "play 5D"] {
        session.apply(action(session.game(), text)).unwrap();
    }
    let refused = session.apply(action(session.game(), "play 5C")).unwrap_err();
    assert!(refused.to_string().contains("5C is refused after counting it"), "{refused}");
    session.apply(action(session.game(), "play 9D")).unwrap();
    let third = session.apply(action(session.game(), "play 5S")).unwrap().to_vec();
    assert!(third.iter().any(|e| matches!(e, Event::Said { .. })), "5S is the third five counted: {third:?}");
    let loaded = Session::from_save(session.to_save(), std::path::Path::new("game.json"), None)
        .unwrap_or_else(|e| panic!("the save must load: {e}"));
    assert!(loaded.game() == session.game());
}

/// The same, on the core's `Game` with nobody keeping a copy of it: `apply` itself goes back
/// to the mod's globals as they were when a mod fails half-way.
#[test]
fn a_refused_action_leaves_the_games_mod_state_as_it_was() {
    let mut game = deal().game_with(load("count-then-fail.lua"));
    for text in ["play 5H", "play 5D"] {
        let chosen = action(&game, text);
        game.apply(&chosen, &mut Vec::new()).unwrap();
    }
    let before = game.clone();
    let chosen = action(&game, "play 5C");
    let refused = game.apply(&chosen, &mut Vec::new()).unwrap_err();
    assert!(refused.to_string().contains("5C is refused after counting it"), "{refused}");
    assert!(game == before, "the state is as it was");
    for text in ["play 9D", "play 5S"] {
        let chosen = action(&game, text);
        let mut events = Vec::new();
        game.apply(&chosen, &mut events).unwrap();
        if text == "play 5S" {
            assert!(events.iter().any(|e| matches!(e, Event::Said { .. })), "5S is the third five counted: {events:?}");
        }
    }
}

/// MODDING.md ("What a mod may keep"): a mod's top-level locals are never touched by copies.
/// A refused action goes back to the mod's globals from before it (here `tried`, which the
/// failing handler counted) by copying them back into the game's own Lua states; it used to
/// go on with a copy of the mods instead, whose locals are the file's fresh ones, so a mod
/// counting in a local said "turn start 1" again and the save no longer loaded (issue 43's
/// audit).
#[test]
fn a_refused_action_keeps_a_mods_top_level_locals() {
    let code = "local n = 0\ntried = 0\ndiving.on_turn_start(function(ctx, player)\n  n = n + 1\n  \
                ctx:say('turn start ' .. n .. ', tried ' .. tried)\nend)\ndiving.action('fail', { describe = \
                'fail: always fails', resolve = function(ctx, args)\n  tried = tried + 1\n  error('no')\nend })\n";
    let (_dir, spec) = crate::mod_secrets::ruleset_with(&[("count.lua", code)]);
    let seating = ["Ann", "Bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
    let mut session = Session::new(&spec, seating, 11, Some(deal().order())).unwrap();
    for _ in 0..2 {
        let refused = session.apply(action(session.game(), "fail")).unwrap_err();
        assert!(refused.to_string().contains("no"), "{refused}");
    }
    let played = session.apply(action(session.game(), "play 5H")).unwrap().to_vec();
    assert_eq!(said(&played), ["turn start 2, tried 0"], "the count goes on from turn 1's, the tries are undone");
    session.apply(action(session.game(), "fail")).unwrap_err();
    let played = session.apply(action(session.game(), "play 5S")).unwrap().to_vec();
    assert_eq!(said(&played), ["turn start 3, tried 0"]);
    let loaded = Session::from_save(session.to_save(), std::path::Path::new("game.json"), None)
        .unwrap_or_else(|e| panic!("the save must load: {e}"));
    assert!(loaded.game() == session.game());
}

/// A preview tells what a move does as far as the mover can know, not how a random roll will
/// come out: the same move on the same deal, in games of different seeds, rolls differently,
/// and its preview (worked out with a generator of its own) cannot foretell the rolls. Before,
/// it ran on a copy of the real game and foretold every one of them.
#[test]
fn a_preview_does_not_foretell_a_random_roll() {
    let (_dir, rules) = ruleset_dir("roll.lua");
    let said = |events: &[Event]| {
        events.iter().find_map(|e| match e {
            Event::Said { words, .. } => Some(diving::core::Viewer::Everyone.shown(words).to_string()),
            _ => None,
        })
    };
    let (mut rolls, mut foretold) = (std::collections::BTreeSet::new(), 0);
    for seed in 0..20 {
        let seating = ["Ann", "Bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
        let mut session = Session::new(&rules, seating, seed, Some(deal().order())).unwrap();
        let five = action(session.game(), "play 5H");
        let preview = said(&session.preview(&five).unwrap()).expect("the preview rolls too");
        let rolled = said(session.apply(five).unwrap()).expect("the five rolls");
        foretold += usize::from(preview == rolled);
        rolls.insert(rolled);
    }
    assert!(rolls.len() >= 5, "the seeds roll differently: {rolls:?}");
    assert!(foretold <= 5, "{foretold} of 20 rolls foretold");
}

/// A turn-start hook runs on turn 1 too, while the game is dealt, and what it does is part of
/// the game's opening like any later turn's: narrated, in the log and the JSON, and kept by a
/// reload.
#[test]
fn what_a_turn_start_hook_does_on_turn_1_is_told() {
    let (_dir, rules) = ruleset_dir("turn-one.lua");
    let seating = ["Ann", "Bob"].map(|n| Seating { name: n.into(), bot: None }).to_vec();
    let mut session = Session::new(&rules, seating, 11, Some(deal().order())).unwrap();
    let opening = session.start_events();
    assert!(matches!(opening[0], Event::TurnStarted { player: 0, turn: 1 }), "{opening:?}");
    assert_eq!(said(&opening), ["turn 1 begins"]);
    let action = session.game().legal_actions()[0];
    let events = session.apply(action).unwrap().to_vec();
    assert_eq!(said(&events), ["turn 2 begins"]);
    session.reload().unwrap();
    assert_eq!(said(&session.start_events()), ["turn 1 begins"], "a reload keeps the opening");
    // The JSON mode's log opens with it.
    let out = cli_support::diving()
        .args(["--ruleset", &rules, "--players", "ann,bob", "--seed", "3", "--json"])
        .write_stdin("log\n")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let first_said = text.lines().find(|l| l.contains("\"said\"")).unwrap_or_default().to_string();
    assert!(first_said.contains("turn 1 begins"), "{text}");
}
