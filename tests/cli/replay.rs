//! Replays, hints and reviews: a recorded game replays to the very same events and states; a
//! replay under a changed mod names the first move that went otherwise and the mod's hashes;
//! hints never depend on cards the seat cannot see; the exported page is well-formed, has
//! every position and no hidden card; a review finds a planted blunder.

use crate::cli_support;

use std::path::Path;

use cli_support::diving;
use diving::core::{Action, Card, Event, Game, Seat, View, Viewer};
use diving::ruleset::Ruleset;
use diving::table::hint;
use diving::table::replay::Replay;
use diving::table::save::{self, SaveFile};
use diving::table::session::{Seating, Session};

fn seat(name: &str, bot: Option<&str>) -> Seating {
    Seating { name: name.into(), bot: bot.map(String::from) }
}

/// A game of two greedy bots on `spec`, played to its end (or `moves` moves), with every
/// move's events and the game after it as they were played.
fn bot_game(spec: &str, seed: u64, moves: usize) -> (Session, Vec<Vec<Event>>, Vec<Game>) {
    let seating = vec![seat("ann", Some("greedy")), seat("ben", Some("greedy"))];
    let mut session = Session::new(spec, seating, seed, None).unwrap();
    let (mut events, mut games) = (Vec::new(), vec![session.game().clone()]);
    while events.len() < moves {
        match session.bot_move() {
            Some(m) => {
                let m = m.unwrap();
                events.push(m.events);
                games.push(session.game().clone());
            }
            None => break,
        }
    }
    (session, events, games)
}

fn open(save: SaveFile, seat: Option<&str>, all: bool) -> Replay {
    Replay::open(save, Path::new("game.json"), None, seat, all).unwrap().0
}

#[test]
fn a_recorded_game_replays_to_the_same_events_and_states() {
    for spec in ["standard", "house"] {
        let (session, events, games) = bot_game(spec, 11, usize::MAX);
        assert!(session.game().is_over(), "{spec}: the bots finish");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.json");
        save::write(&path, &session.to_save()).unwrap();
        let (replay, notes) = Replay::open(save::read(&path).unwrap(), &path, None, None, true).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(replay.moves(), events.len());
        for k in 0..=replay.moves() {
            assert_eq!(replay.game_at(k), &games[k], "{spec}: the game after {k} moves");
            if k > 0 {
                assert_eq!(replay.events_at(k), events[k - 1], "{spec}: the events of move {k}");
            }
        }
    }
}

#[test]
fn a_version_1_save_still_loads() {
    let (session, _, _) = bot_game("standard", 3, 10);
    let mut old = serde_json::to_value(session.to_save()).unwrap();
    let object = old.as_object_mut().unwrap();
    object.insert("version".into(), 1.into());
    for key in ["rules_hash", "mods", "steps"] {
        object.remove(key);
    }
    let file: SaveFile = save::parse(Path::new("old.json"), &old.to_string()).unwrap();
    let loaded = Session::load(file, Path::new("old.json"), None).unwrap();
    assert_eq!(loaded.session.game(), session.game());
}

/// A ruleset in a directory of its own with a copy of the shark mod, whose chase is `chase`.
fn shark_ruleset(dir: &Path, chase: u32) -> String {
    let shark = std::fs::read_to_string("rulesets/mods/shark.lua").unwrap();
    let shark = shark.replace("local CHASE = 7", &format!("local CHASE = {chase}"));
    assert!(shark.contains(&format!("local CHASE = {chase}")));
    std::fs::write(dir.join("shark.lua"), shark).unwrap();
    let toml = dir.join("sharks.toml");
    std::fs::write(&toml, "extends = \"standard\"\nmods = [\"shark.lua\"]\n").unwrap();
    toml.display().to_string()
}

#[test]
fn a_replay_under_a_changed_mod_names_the_first_move_that_differs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = shark_ruleset(dir.path(), 7);
    let (session, _, _) = bot_game(&spec, 5, usize::MAX);
    let first_shark = session
        .entries()
        .iter()
        .position(|e| matches!(e.action, Action::Play { card, .. } if card.rank.number() == 7))
        .expect("a shark is played");
    let file = session.to_save();
    let old_hash = file.mods.as_ref().unwrap()[0].hash.clone();
    let mod_path = file.mods.as_ref().unwrap()[0].path.clone();

    // The same files: it loads, and says nothing.
    let loaded = Session::load(file.clone(), Path::new("game.json"), None).unwrap();
    assert!(loaded.notes.is_empty());

    // A weaker shark: every move before the first shark replays, that one does not.
    shark_ruleset(dir.path(), 5);
    let new_hash = diving::ruleset::content_hash(&std::fs::read_to_string(dir.path().join("shark.lua")).unwrap());
    let err = Session::load(file.clone(), Path::new("game.json"), None).err().expect("refused").to_string();
    let start = format!("game.json: move {} (", first_shark + 1);
    assert!(err.starts_with(&start), "{err}");
    assert!(err.contains("is the first that does not replay as recorded"), "{err}");
    assert!(err.contains(&format!("({mod_path}) changed: recorded with hash {old_hash}, now {new_hash}")), "{err}");

    // The replay viewer says the same.
    let err = Replay::open(file, Path::new("game.json"), None, None, false).err().unwrap();
    assert!(err.contains(&start) && err.contains(&new_hash), "{err}");
}

#[test]
fn a_comment_in_a_mod_is_noted_but_the_game_replays() {
    let dir = tempfile::tempdir().unwrap();
    let spec = shark_ruleset(dir.path(), 7);
    let (session, _, _) = bot_game(&spec, 6, 30);
    let file = session.to_save();
    let shark = dir.path().join("shark.lua");
    let text = std::fs::read_to_string(&shark).unwrap();
    std::fs::write(&shark, format!("-- a comment\n{text}")).unwrap();
    let loaded = Session::load(file, Path::new("game.json"), None).unwrap();
    assert_eq!(loaded.session.game(), session.game());
    assert_eq!(loaded.notes.len(), 1);
    assert!(loaded.notes[0].contains("every move replays as recorded"), "{:?}", loaded.notes);
    assert!(loaded.notes[0].contains("shark.lua) changed"), "{:?}", loaded.notes);
}

/// The cards `seat` cannot see: other hands, then the deck.
fn hidden(game: &Game, seat: Seat) -> Vec<Card> {
    let mut cards: Vec<Card> =
        (0..game.player_count()).filter(|&s| s != seat).flat_map(|s| game.player(s).hand.clone()).collect();
    cards.extend(game.deck());
    cards
}

#[test]
fn hidden_cards_never_change_a_hint() {
    let mut compared = 0;
    for spec in ["standard", "house"] {
        let ruleset = Ruleset::load(spec).unwrap();
        for seed in 0..2 {
            let (_, _, games) = bot_game(spec, seed, 40);
            for game in games.iter().step_by(7).filter(|g| !g.is_over()) {
                let me = game.current();
                let hint = hint::suggestions(game, &ruleset, 40).unwrap();
                assert!(!hint.is_empty() && hint.len() <= hint::HINT_MOVES);
                for k in 0..2 {
                    // The same view, the other hands and the deck dealt another way.
                    let other = View::new(game, me).sample(seed * 100 + k);
                    if hidden(&other, me) == hidden(game, me) {
                        continue;
                    }
                    assert_eq!(hint::suggestions(&other, &ruleset, 40).unwrap(), hint, "{spec}, seed {seed}");
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 12, "only {compared} comparisons");
}

#[test]
fn the_shell_hint_uses_the_acting_seat_and_can_be_turned_off() {
    let output = diving().args(["--players", "alice,bob", "--seed", "4"]).write_stdin("hint\n").output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("hint for alice (a search of"), "{text}");
    assert_eq!(text.matches("estimated win chance").count(), 3, "{text}");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.json");
    let script = format!("hint\nsave {}\n", path.display());
    let output = diving().args(["--players", "alice,bob", "--seed", "4", "--no-hints"]).write_stdin(script).output();
    let text = String::from_utf8_lossy(&output.unwrap().stdout).into_owned();
    assert!(text.contains("error: hints are off for this game"), "{text}");
    // The save keeps hints off.
    let output = diving().args(["--load", path.to_str().unwrap()]).write_stdin("hint\n").output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("error: hints are off for this game"), "{text}");
}

/// A game of alice (greedy's moves, but one that gets her rescued once she is at least 25
/// down) against greedy, cut `after` moves past the blunder. Returns the session and the
/// blunder's index.
fn planted_blunder(after: usize) -> Option<(Session, usize)> {
    for seed in 0..40 {
        let seating = vec![seat("alice", None), seat("greedy", Some("greedy"))];
        let mut session = Session::new("standard", seating, seed, None).unwrap();
        let mut blunder = None;
        while !session.game().is_over() && blunder.is_none_or(|b| session.entries().len() < b + after) {
            if session.bot_move().is_some() {
                continue;
            }
            let game = session.game();
            let me = game.current();
            let choice = if blunder.is_none() && game.player(me).depth >= 25 {
                game.legal_actions().into_iter().find(|a| {
                    session
                        .preview(a)
                        .is_ok_and(|ev| ev.iter().any(|e| matches!(e, Event::Rescued { player, .. } if *player == me)))
                })
            } else {
                None
            };
            let action = match choice {
                Some(action) => {
                    blunder = Some(session.entries().len());
                    action
                }
                None => diving::bots::GreedyBot::new().pick(&View::new(game, me)),
            };
            session.apply(action).unwrap();
        }
        if let Some(b) = blunder {
            return Some((session, b));
        }
    }
    None
}

#[test]
fn a_review_finds_a_planted_blunder() {
    let (session, blunder) = planted_blunder(4).expect("a game with a rescue to plant");
    let before = session.games_before_moves().unwrap();
    let (found, looked) = hint::review(&before, session.entries(), &[0], session.ruleset(), 60).unwrap();
    assert!(looked > 0);
    let finding = found.iter().find(|f| f.index == blunder).unwrap_or_else(|| panic!("not found: {found:?}"));
    assert_eq!(finding.seat, 0);
    assert!(finding.best.win - finding.played.win >= hint::CLEARLY_WORSE);
    assert_ne!(finding.best.action, session.entries()[blunder].action);
    // Only alice's moves are judged.
    assert!(found.iter().all(|f| session.entries()[f.index].seat == 0));
}

/// Checks that every tag opened is closed in order (void elements aside) and returns the
/// names of the tags opened, in order.
fn tags(page: &str) -> Vec<String> {
    let void = ["meta", "!doctype"];
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = page;
    // The script's body holds `<` in comparisons: skip it.
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("a tag ends");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        let name = tag.trim_start_matches('/').split_whitespace().next().unwrap().to_lowercase();
        if let Some(closed) = tag.strip_prefix('/') {
            let closed = closed.trim().to_lowercase();
            assert_eq!(stack.pop().as_deref(), Some(closed.as_str()), "</{closed}> closes the wrong tag");
        } else if !void.contains(&name.as_str()) {
            if name == "script" {
                let close = rest.find("</script>").expect("the script ends");
                rest = &rest[close..];
            }
            stack.push(name.clone());
            names.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    names
}

/// Whether `page` names `card` as a word (`10H` or `10♥`).
fn names_card(page: &str, card: Card) -> bool {
    let plain = card.to_string();
    let fancy = diving::table::render::Style { color: false, unicode: true }.cards(&[card]);
    let words: Vec<&str> = page.split(|c: char| c.is_whitespace() || "<>():,;".contains(c)).collect();
    words.iter().any(|w| *w == plain || *w == fancy)
}

#[test]
fn the_page_is_well_formed_has_every_position_and_no_hidden_card() {
    // A finished game: a seat's view is only for one (issue 32).
    let (session, _, games) = bot_game("standard", 8, usize::MAX);
    assert!(session.game().is_over());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    save::write(&file, &session.to_save()).unwrap();

    let page_path = dir.path().join("game.html");
    let output = diving()
        .args(["replay", file.to_str().unwrap(), "--as", "ann", "--html", page_path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    let names = tags(&page);
    let moves = session.entries().len();
    assert!(moves > 20, "{moves}");
    assert_eq!(names.iter().filter(|n| *n == "section").count(), moves + 1, "every position, the start included");
    for k in 1..=moves {
        assert!(page.contains(&format!("move {k} of {moves}")), "move {k}");
    }
    // Self-contained: nothing is fetched.
    for outside in ["http:", "https:", "src=", "href=", "<link", "@import", "url("] {
        assert!(!page.contains(outside), "{outside}");
    }
    // Ben's hand was never shown to ann: no position names a card he holds there (a card
    // in his hand is nowhere else, so only a shown hand or draw could name it); ann's own is.
    let sections: Vec<&str> = page.split("<section").skip(1).collect();
    assert_eq!(sections.len(), games.len());
    for (k, (section, game)) in sections.iter().zip(&games).enumerate() {
        for card in &game.player(1).hand {
            assert!(!names_card(section, *card), "ben's {card} is on ann's page at position {k}");
        }
        assert!(game.player(0).hand.iter().all(|c| names_card(section, *c)), "position {k}");
    }

    // The public's page names no hand at all.
    let output = diving().args(["replay", file.to_str().unwrap(), "--html", page_path.to_str().unwrap()]).output();
    assert_eq!(output.unwrap().status.code(), Some(0));
    let page = std::fs::read_to_string(&page_path).unwrap();
    assert!(!page.contains("hand:"), "no hand line in the public view");
    let sections: Vec<&str> = page.split("<section").skip(1).collect();
    for (k, (section, game)) in sections.iter().zip(&games).enumerate() {
        for card in game.players().iter().flat_map(|p| &p.hand) {
            assert!(!names_card(section, *card), "{card} is on the public page at position {k}");
        }
    }
}

#[test]
fn all_needs_a_finished_game_and_the_viewer_steps_through() {
    let (session, _, _) = bot_game("standard", 9, 12);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    save::write(&file, &session.to_save()).unwrap();
    let output = diving().args(["replay", file.to_str().unwrap(), "--all"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--all shows every hand, so it is only for a finished game"), "{stderr}");

    // Issue 32: nor is a seat's view (whoever runs it would see that seat's hand and draws).
    let output = diving().args(["replay", file.to_str().unwrap(), "--as", "2"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--as shows ben's hand and draws, so it is only for a finished game"), "{stderr}");
    assert!(stderr.contains("watch it as the public does, without --as"), "{stderr}");
    assert!(output.stdout.is_empty());

    let script = "next\nnext 3\nprev\ngoto 6\nend\nnext\nstart\nprev\ngoto 99\ngoto -1\nwhat\nquit\n";
    let output = diving().args(["replay", file.to_str().unwrap()]).write_stdin(script).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("-- ")).collect();
    assert_eq!(
        headings,
        [
            "-- the start of 12 moves (turn 1) --",
            "-- move 1 of 12 (turn 1: ann) --",
            "-- move 4 of 12 (turn 4: ben) --",
            "-- move 3 of 12 (turn 3: ann) --",
            "-- move 5 of 12 (turn 5: ann) --",
            "-- move 12 of 12 (turn 12: ben) --",
            "-- the start of 12 moves (turn 1) --",
        ]
    );
    assert!(text.contains("error: this is the last move"), "{text}");
    assert!(text.contains("error: this is the start"), "{text}");
    assert!(text.contains("error: there is no turn 99: this game has turns 1 to 13"), "{text}");
    assert!(text.contains("error: '-1' is not a turn number (turns count up from 1): goto TURN"), "{text}");
    assert!(text.contains("error: unknown replay command 'what'"), "{text}");
    assert!(!text.contains("hand:"), "{text}");
}

#[test]
fn a_branch_keeps_the_position_and_shuffles_only_the_deck() {
    let (session, _, games) = bot_game("standard", 10, 20);
    let at = 8;
    let shown = &games[at];
    // With every hand open, the same deck: the branch goes on exactly as the game did.
    let same = session.branch(at, None).unwrap();
    assert_eq!(same.game(), shown);
    // Otherwise the deck is shuffled: the same cards in another order, all else as it was.
    let branch = session.branch(at, Some(1234)).unwrap();
    let game = branch.game();
    let mut a: Vec<Card> = game.deck().collect();
    let mut b: Vec<Card> = shown.deck().collect();
    assert_ne!(a, b);
    a.sort();
    b.sort();
    assert_eq!(a, b);
    for s in 0..2 {
        assert_eq!(game.player(s), shown.player(s));
    }
    assert_eq!((game.table(), game.discard_pile(), game.turn()), (shown.table(), shown.discard_pile(), shown.turn()));
    // A branch saves and loads like any game.
    let mut branch = branch;
    let action = branch.game().legal_actions()[0];
    branch.apply(action).unwrap();
    let loaded = Session::load(branch.to_save(), Path::new("b.json"), None).unwrap();
    assert_eq!(loaded.session.game(), branch.game());
}

#[test]
fn branch_in_the_viewer_plays_on_with_the_rest_of_the_input() {
    let seating = vec![seat("alice", None), seat("greedy", Some("greedy"))];
    let mut session = Session::new("standard", seating, 12, None).unwrap();
    for _ in 0..3 {
        let action = session.game().legal_actions()[0];
        session.apply(action).unwrap();
        session.bot_move();
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    save::write(&file, &session.to_save()).unwrap();
    // Issue 32: while the game is unfinished, the public viewer does not branch (a live game
    // would show every seat's real hand).
    let output = diving().args(["replay", file.to_str().unwrap()]).write_stdin("goto 2\nbranch\nstate\n").output();
    let text = String::from_utf8(output.unwrap().stdout).unwrap();
    assert!(text.contains("error: this game is not finished, so a branch would show the hands the replay hides"));
    assert!(!text.contains("hand:") && !text.contains("a live game"), "{text}");

    // Once it is over, a seat's view branches.
    while !session.game().is_over() {
        let action = session.game().legal_actions()[0];
        session.apply(action).unwrap();
        while session.bot_move().is_some() {}
    }
    save::write(&file, &session.to_save()).unwrap();
    let moves = session.entries().len();
    // Turn 2 starts after the first move.
    let script = "goto 2\nbranch\nhand\nmoves\n";
    let output = diving().args(["replay", file.to_str().unwrap(), "--as", "alice"]).write_stdin(script).output();
    let output = output.unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(&format!("a live game from move 1 of {moves} (turn 1: alice) of")), "{text}");
    assert!(text.contains("were shuffled anew (seed "), "{text}");
    assert!(text.contains("legal moves for alice:"), "{text}");
    let hand_then = diving::table::render::Style::PLAIN.cards(
        &Replay::open(save::read(&file).unwrap(), &file, None, Some("alice"), false)
            .map(|(mut r, _)| {
                r.at = 1;
                r.game().player(0).hand.clone()
            })
            .unwrap(),
    );
    assert!(text.contains(&format!("alice's hand: {hand_then}")), "{text}");
}

#[test]
fn review_in_the_viewer_judges_only_seats_whose_hand_it_shows() {
    let (session, _, _) = bot_game("standard", 13, usize::MAX);
    let file = session.to_save();
    let public = open(file.clone(), None, false);
    assert!(public.reviewed_seats().unwrap_err().contains("the public sees no hand"));
    assert_eq!(open(file, Some("ben"), false).reviewed_seats().unwrap(), vec![1]);
    let _ = Viewer::Everyone;
}

#[test]
fn the_json_viewer_shows_each_viewpoint_s_state() {
    let (session, _, _) = bot_game("standard", 14, usize::MAX);
    assert!(session.game().is_over());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    save::write(&file, &session.to_save()).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["--json", "replay", file.to_str().unwrap()];
        args.extend(extra);
        let output = diving().args(&args).write_stdin("end\n").output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        cli_support::json_lines(&output.stdout)
    };
    let all = run(&["--all"]);
    assert_eq!(all[0]["viewpoint"], "all");
    let last = all.last().unwrap();
    assert_eq!(last["position"], session.entries().len());
    assert!(last["state"]["players"][1]["hand"].is_array() && last["state"]["deck"].is_array(), "{last}");
    let public = run(&[]);
    assert_eq!(public[0]["viewpoint"], "public");
    for line in &public[1..] {
        let state = &line["state"];
        assert!(state["deck"].is_null(), "{line}");
        assert!(state["players"].as_array().unwrap().iter().all(|p| p["hand"].is_null()), "{line}");
        let drew: Vec<&serde_json::Value> =
            line["events"].as_array().unwrap().iter().filter(|e| e["event"] == "drew").collect();
        assert!(drew.iter().all(|e| e["card"].is_null()), "{line}");
    }
}

/// Issue 32: the viewer numbered turns one off from `log` (it named the turn a move handed
/// on, not the one it was played in). For every move of a game, the turn in the viewer's
/// heading is the turn under which `log` narrates that move.
#[test]
fn the_viewer_numbers_turns_as_log_does() {
    let (session, _, _) = bot_game("standard", 12, usize::MAX);
    assert!(session.game().is_over());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    save::write(&file, &session.to_save()).unwrap();
    let moves = session.entries().len();
    // `log` in a pipe, from the saved game: `-- turn N: NAME --` before each turn's lines.
    let output = diving().args(["--load", file.to_str().unwrap()]).write_stdin("log\n").output().unwrap();
    let log = String::from_utf8_lossy(&output.stdout).into_owned();
    // The viewer with every hand open (so its narration is the log's), one move at a time.
    let script = "next\n".repeat(moves);
    let output = diving().args(["replay", file.to_str().unwrap(), "--all"]).write_stdin(script).output().unwrap();
    let viewer = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut log_lines = log.lines();
    let mut log_turn = None;
    let mut checked = 0;
    let mut lines = viewer.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(heading) = line.strip_prefix("-- move ") else { continue };
        let turn: u32 = heading.split("(turn ").nth(1).unwrap().split(':').next().unwrap().parse().unwrap();
        // The move's first line of narration, found in the log after the last one.
        let said = lines.next().unwrap();
        loop {
            let l = log_lines.next().unwrap_or_else(|| panic!("{said:?} is not in the log:\n{log}"));
            if let Some(t) = l.strip_prefix("-- turn ") {
                log_turn = Some(t.split(':').next().unwrap().parse::<u32>().unwrap());
            } else if l == said {
                break;
            }
        }
        assert_eq!(Some(turn), log_turn, "{line} / {said}");
        checked += 1;
    }
    assert_eq!(checked, moves, "{viewer}");
}

/// Issue 32: the viewpoint of the player called "you" read "seen as you sees it".
#[test]
fn the_viewpoint_of_you_is_as_you_saw_it() {
    let seating = vec![seat("you", Some("greedy")), seat("ben", Some("greedy"))];
    let mut session = Session::new("standard", seating, 3, None).unwrap();
    while let Some(moved) = session.bot_move() {
        moved.unwrap();
    }
    assert!(session.game().is_over());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    save::write(&file, &session.to_save()).unwrap();
    let output = diving().args(["replay", file.to_str().unwrap(), "--as", "you"]).write_stdin("quit\n").output();
    let text = String::from_utf8(output.unwrap().stdout).unwrap();
    assert!(text.contains("; seen as you saw it."), "{text}");
    let replay = open(save::read(&file).unwrap(), Some("ben"), false);
    assert_eq!(replay.viewpoint(), "as ben saw it");
}
