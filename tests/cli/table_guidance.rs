//! Issue 15, driven through the shell's own functions with a scripted person at the keyboard
//! (a [`Prompter`] that answers from a list): undo that reveals nothing, the outcome preview
//! in `moves`, the question before a move that gets you rescued, follow-up questions that ask
//! again, the rules in the game, the end-of-game summary and `again`, and the board laid out
//! for 40, 80 and 120 columns. Stacked decks, no clock.

use crate::cli_support;

use std::collections::VecDeque;

use diving::core::parse_cards;
use diving::shell::front::{Prompter, Shell};
use diving::table::render::{Style, display_width};
use diving::table::session::{Seating, Session};

/// Answers questions from a list, and records them.
#[derive(Default)]
struct Person {
    answers: VecDeque<&'static str>,
    asked: Vec<String>,
}

impl Prompter for Person {
    fn ask(&mut self, question: &str) -> Option<String> {
        self.asked.push(question.to_string());
        self.answers.pop_front().map(str::to_string)
    }
}

fn seats(players: &[&str]) -> Vec<Seating> {
    players
        .iter()
        .map(|p| match p.strip_prefix("bot:") {
            Some(spec) => Seating { name: spec.to_string(), bot: Some(spec.to_string()) },
            None => Seating { name: p.to_string(), bot: None },
        })
        .collect()
}

fn short_game_deck() -> Vec<diving::core::Card> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/short-game.deck")).unwrap();
    let cards: String = text.lines().map(|l| l.split('#').next().unwrap()).collect::<Vec<_>>().join(" ");
    parse_cards(&cards).unwrap()
}

fn shell(spec: &str, players: &[&str], deck: Vec<diving::core::Card>) -> Shell<Vec<u8>> {
    let session = Session::new(spec, seats(players), 1, Some(deck)).unwrap();
    let mut shell = Shell::interactive(session, Vec::new(), Style::PLAIN);
    // Unwrapped, so the words are checked (the board test sets widths).
    shell.screen.width = None;
    shell
}

/// Runs `line` and returns what it printed.
fn run(shell: &mut Shell<Vec<u8>>, line: &str, person: &mut Person) -> String {
    shell.line(line, person);
    String::from_utf8(std::mem::take(shell.out())).unwrap()
}

const SHORT_GAME: [&str; 13] = [
    "play 10H",
    "play 2C",
    "play QH",
    "play 3C",
    "play 10C",
    "play KS",
    "play QD",
    "play 5D",
    "play 10D",
    "recover 6H 7H",
    "play QS",
    "play 8H",
    "play 9H",
];

#[test]
fn undo_after_the_game_is_over_is_refused() {
    let mut s = shell("standard", &["alice", "bob"], short_game_deck());
    let mut p = Person::default();
    for line in SHORT_GAME {
        let out = run(&mut s, line, &mut p);
        assert!(!out.contains("error"), "{line}: {out}");
    }
    assert!(s.session().game().is_over());
    let out = run(&mut s, "undo", &mut p);
    assert!(out.contains("the game is over and every hand has been shown: undo cannot reopen it"), "{out}");
    assert!(s.session().game().is_over(), "undo reopened the game");
}

#[test]
fn against_a_bot_undo_cannot_be_used_to_see_the_next_card() {
    let mut s = shell("standard", &["alice", "bot:random"], short_game_deck());
    let mut p = Person::default();
    let out = run(&mut s, "play 10h", &mut p);
    assert!(out.contains("alice draws 10D"), "{out}");
    let before = s.session().game().clone();
    let out = run(&mut s, "undo", &mut p);
    assert!(out.contains("error: cannot undo: a card was drawn from the deck since"), "{out}");
    assert_eq!(s.session().game(), &before, "a refused undo changes nothing");
    // A script sees every card anyway: it undoes freely.
    let mut script = Shell::script(
        Session::new("standard", seats(&["alice", "bot:random"]), 1, Some(short_game_deck())).unwrap(),
        Vec::new(),
        false,
    );
    run(&mut script, "play 10h", &mut p);
    assert!(run(&mut script, "undo", &mut p).contains("took back: alice play 10H"));
}

#[test]
fn help_undo_says_when_undo_is_refused() {
    let mut s = shell("standard", &["alice", "bob"], short_game_deck());
    let out = run(&mut s, "help undo", &mut Person::default());
    for words in ["drew a card from the deck", "a bot played", "the game is over", "Scripts"] {
        assert!(out.contains(words), "{words}: {out}");
    }
}

#[test]
fn moves_preview_each_result_from_the_engine() {
    let mut s = shell("standard", &["alice", "bob"], short_game_deck());
    let out = run(&mut s, "moves", &mut Person::default());
    // 10H matches the 10S on the pile: doubled; D10 band 0-25 costs 1.
    assert!(out.contains("play 10H    -> depth 20, oxygen 9, doubled to 20"), "{out}");
    assert!(out.contains("play QH     -> kept in front"), "{out}");
    assert!(out.contains("play AS t1  -> depth 2, oxygen 9, doubled to 2"), "{out}");
    // The preview changed nothing, and names no card from the deck (10D is drawn next).
    assert_eq!(s.session().game().turn(), 1);
    assert!(!out.contains("10D"), "{out}");
}

#[test]
fn moves_list_a_play_once_when_a_jolt_offers_an_order() {
    // alice (JS) jolts bob after bob dives; bob then holds number cards with a J in front.
    let deck =
        diving::core::parse_cards(&cli_support::stacked("JS 2C 3C 4C  9H 8H 7D 6D  AS 2D 3H 4D  10S  KH KD KC QC"))
            .unwrap();
    let mut s = shell("standard", &["alice", "bob"], deck);
    let mut p = Person::default();
    run(&mut s, "play 2c", &mut p);
    run(&mut s, "play 9h", &mut p);
    run(&mut s, "play js", &mut p);
    let out = run(&mut s, "moves", &mut p);
    assert!(out.contains("play 8H ") && !out.contains("play 8H over"), "{out}");
    assert!(out.contains("add 'over' to put the J on top"), "{out}");
    assert!(out.contains("jolted: goes up"), "{out}");
}

#[test]
fn a_move_that_gets_you_rescued_is_asked_about_first() {
    let dir = tempfile::tempdir().unwrap();
    let ruleset = dir.path().join("thin-air.toml");
    std::fs::write(&ruleset, "extends = \"standard\"\nmax_oxygen = 1\n").unwrap();
    let mut s = shell(ruleset.to_str().unwrap(), &["alice", "bob"], short_game_deck());
    let mut p = Person { answers: ["", "y"].into(), ..Person::default() };
    let out = run(&mut s, "moves", &mut p);
    // The depth the move reaches, then the rescue and where it leaves you.
    assert!(
        out.contains(
            "play 10H    -> depth 20, doubled to 20, out of oxygen: RESCUED to the surface (depth 0, oxygen 1)"
        ),
        "{out}"
    );
    let out = run(&mut s, "play 10h", &mut p);
    assert!(out.contains("(not played)"), "{out}");
    assert_eq!(s.session().game().turn(), 1);
    assert!(
        p.asked[0].contains(
            "play 10H takes you to depth 20, where you run out of oxygen: you would be RESCUED back to \
             depth 0 (oxygen 1). play it anyway? [y/N] "
        ),
        "{:?}",
        p.asked
    );
    assert!(p.asked[0].ends_with("play it anyway? [y/N] "), "{:?}", p.asked);
    let out = run(&mut s, "play 10h", &mut p);
    assert!(out.contains("out of oxygen! rescued"), "{out}");

    // A push that rescues the diver pushed is shown too (oxygen 2: bob's next breath is his
    // last).
    std::fs::write(&ruleset, "extends = \"standard\"\nmax_oxygen = 2\n").unwrap();
    let mut s = shell(ruleset.to_str().unwrap(), &["alice", "bob"], short_game_deck());
    run(&mut s, "play qh", &mut p);
    run(&mut s, "play 2c", &mut p);
    let out = run(&mut s, "moves", &mut p);
    assert!(
        out.contains("play 10H bob    -> depth 18, oxygen 1, quick +8, bob to 6 and rescued (out of oxygen)"),
        "{out}"
    );
}

#[test]
fn a_wrong_name_asks_again_and_an_empty_answer_cancels_quietly() {
    let deck = parse_cards(&cli_support::stacked("QH 5C 6C 7C  2D 8D 9D 10D  3S 8S 9S 10S  AS 2S 4S 5S  9H")).unwrap();
    let mut s = shell("standard", &["alice", "bot:random", "bot:greedy"], deck);
    let mut p = Person { answers: ["zed", "greedy"].into(), ..Person::default() };
    run(&mut s, "play qh", &mut p);
    let out = run(&mut s, "play 5c", &mut p);
    assert!(p.asked[1].contains("there is no player called 'zed'"), "{:?}", p.asked);
    assert!(out.contains("alice's Quick pushes greedy down 4"), "{out}");
    let mut p = Person { answers: [""].into(), ..Person::default() };
    run(&mut s, "play qh", &mut p);
    let out = run(&mut s, "play 6c", &mut p);
    assert!(!out.contains("error"), "{out}");
}

#[test]
fn help_rules_and_help_for_a_card_explain_the_game() {
    let mut s = shell("standard", &["alice", "bob"], short_game_deck());
    let mut p = Person::default();
    let rules = run(&mut s, "help rules", &mut p);
    for words in ["Oxygen is the danger", "rescued", "J (Jolt)", "Q (Quick)", "K (Knot)", "'front: K'"] {
        assert!(rules.contains(words), "{words}: {rules}");
    }
    assert!(run(&mut s, "help k", &mut p).contains("next recovery gains no oxygen"));
    assert!(run(&mut s, "help QH", &mut p).contains("8 further down"));
    assert!(run(&mut s, "help zzz", &mut p).contains("help rules"));
}

#[test]
fn the_end_of_a_game_is_summed_up_and_again_starts_another() {
    let mut s = shell("standard", &["alice", "bob"], short_game_deck());
    let mut p = Person::default();
    for line in SHORT_GAME {
        run(&mut s, line, &mut p);
    }
    s.summary();
    let out = String::from_utf8(std::mem::take(s.out())).unwrap();
    assert!(out.contains("alice won in 13 turns."), "{out}");
    assert!(out.contains("alice: depth 100, never rescued, longest dive"), "{out}");
    assert!(out.contains("bob: depth"), "{out}");
    let out = run(&mut s, "again", &mut p);
    // Two people at one terminal: the new seed is kept until the game ends (issue 32).
    assert!(out.contains("a new game: alice, bob (its seed is shown when it ends)"), "{out}");
    assert!(!out.contains("--seed"), "{out}");
    assert!(!s.session().game().is_over());
    assert!(s.take_restarted());
}

#[test]
fn the_board_fits_40_80_and_120_columns() {
    let mut s = shell("standard", &["alice", "bot:greedy"], short_game_deck());
    let mut p = Person::default();
    run(&mut s, "play qh", &mut p);
    for width in [40, 80, 120] {
        s.screen.width = Some(width);
        let board = s.board();
        for line in board.lines() {
            assert!(display_width(line) <= width, "{width} columns: {line:?}\n{board}");
        }
        assert!(board.contains("front: QH"), "{board}");
        assert!(board.contains("front: Q = quick"), "{board}");
        assert!(board.contains("discard top"), "{board}");
        // `moves` too; a long outcome goes on under itself, not under the command.
        let moves = run(&mut s, "moves", &mut p);
        for line in moves.lines() {
            assert!(display_width(line) <= width, "{width} columns: {line:?}\n{moves}");
        }
    }
    let mut fresh = shell("standard", &["alice", "bot:greedy"], short_game_deck());
    fresh.screen.width = Some(40);
    let moves = run(&mut fresh, "moves", &mut p);
    let column = moves.lines().find(|l| l.contains("->")).map(|l| l.find("-> ").unwrap() + 3).unwrap();
    let goes_on = moves.lines().find(|l| !l.contains("->") && l.starts_with("    ") && !l.contains("help"));
    assert!(goes_on.is_some_and(|l| l.len() - l.trim_start().len() == column), "{moves}");
    // A wide name is measured by the columns it takes, and the rows still line up.
    assert_eq!(display_width("潜水員"), 6);
    let mut wide = shell("standard", &["潜水員", "bob"], short_game_deck());
    wide.screen.width = Some(80);
    let board = wide.board();
    let rows: Vec<&str> = board.lines().skip(1).take(2).collect();
    let at = |row: &str| display_width(&row[..row.find("depth").unwrap()]);
    assert_eq!(at(rows[0]), at(rows[1]), "{board}");
    assert_eq!(diving::table::render::wrap("aaa bbb ccc", 20), "aaa bbb ccc");
    let wrapped = diving::table::render::wrap("  alice plays 10H on 10S - doubled to 20: depth 0 -> 20", 24);
    assert!(wrapped.lines().all(|l| display_width(l) <= 24), "{wrapped}");
    assert!(wrapped.contains("depth 0 -> 20"), "numbers stay whole: {wrapped}");
}

#[test]
fn the_metres_ruleset_speaks_metres_throughout() {
    let rs = diving::ruleset::Ruleset::load("meters").unwrap();
    let text = diving::table::render::rules_text(&rs.rules);
    assert!(text.contains("2500 m") && text.contains("goes 800 m further"), "{text}");
    let mut p = Person::default();
    let mut script = Shell::script(
        Session::new("meters", seats(&["alice", "bob"]), 1, Some(short_game_deck())).unwrap(),
        Vec::new(),
        false,
    );
    let mut out = String::new();
    for line in &SHORT_GAME[..5] {
        out += &run(&mut script, line, &mut p);
    }
    assert!(out.contains("quick, +800 m: depth 2000 m -> 4800 m"), "{out}");
    assert!(out.contains("pushes bob down 400 m"), "{out}");
    // A doubled card moves metres too, and the guide's numbers are metres (issue 15, item 12).
    assert!(out.contains("doubled to 2000 m: depth 0 m -> 2000 m"), "{out}");
    let guide = run(&mut script, "help rules", &mut p);
    for metres in ["(depth 0 m)", "takes you 800 m further down", "push another diver down 400 m", "1 is 100 m"] {
        assert!(guide.contains(metres), "{metres}: {guide}");
    }
    assert!(!guide.contains(" 8 further") && !guide.contains("down 4;"), "{guide}");
}

/// Issue 15, item 12: the house rules' effects are named where they happen, in the words of
/// the rest of the narration, and `help rules` says what each mod changes.
#[test]
fn house_rules_are_named_in_the_narration() {
    // bob is in the water at 20; alice's 7 is a shark; then alice goes below the thermocline.
    let deck =
        parse_cards(&cli_support::stacked("7H 9C KD 2S  2C 3C 4C 5C  AS 2D 3H 4D  10S  10H 6H 6C 6D 7C 8C")).unwrap();
    let session = Session::new("house", seats(&["alice", "bob"]), 1, Some(deck)).unwrap();
    let mut s = Shell::script(session, Vec::new(), false);
    let mut p = Person::default();
    let mut out = String::new();
    for line in ["play 2s", "play 2c", "play 7h bob", "play 3c", "play kd bob"] {
        out += &run(&mut s, line, &mut p);
    }
    assert!(out.contains("alice plays 7H - a shark chases bob towards the surface: depth"), "{out}");
    assert!(out.contains("alice plays KD in front of bob - the knot squeezes a breath out of bob: oxygen"), "{out}");
    assert!(!out.contains("\nbob: "), "a mod's move on a line of its own: {out}");
    let guide = run(&mut s, "help rules", &mut p);
    assert!(guide.contains("This ruleset's mods change the rules above:"), "{guide}");
    assert!(guide.contains("thermocline.lua: Thermocline: below 60% of the way down"), "{guide}");
    assert!(guide.contains("7: a mod of this ruleset changes what this card does"), "{guide}");
    assert!(guide.contains("A to 10 (number cards) but 7:"), "{guide}");
}

/// A K in front: `moves` says the recovery gains nothing, as the engine plays it.
#[test]
fn moves_say_a_knotted_recovery_gains_nothing() {
    let deck = parse_cards(&cli_support::stacked("KH 9C 8D 2S  2C 3C 4C 5C  AS 6D 3H 4D  10S")).unwrap();
    let mut s = shell("standard", &["alice", "bob"], deck);
    let mut p = Person::default();
    let out = run(&mut s, "moves", &mut p);
    assert!(out.contains("(more of one suit, more oxygen"), "{out}");
    run(&mut s, "play kh", &mut p);
    let out = run(&mut s, "moves", &mut p);
    assert!(out.contains("(knotted: gains no oxygen, uses up the K; 'over' puts the K on top)"), "{out}");
}

/// The `moves` listing is laid out for the width it is given, since the game server sends
/// its lines to a remote terminal as they are (nobody wraps them after).
#[test]
fn the_moves_listing_fits_the_width_it_is_given() {
    let seating = vec![Seating { name: "alice".into(), bot: None }, Seating { name: "bob".into(), bot: None }];
    let session = Session::new("standard", seating, 5, None).unwrap();
    let game = session.game();
    let actions = diving::core::View::new(game, game.current()).legal_actions();
    for width in [40, 80] {
        let lines = diving::table::reply::moves_lines(
            &session,
            &actions,
            Style::PLAIN,
            diving::core::Viewer::Seat(game.current()),
            Some(width),
        );
        assert!(lines.iter().any(|l| l.contains("recover")), "{lines:?}");
        for line in lines.iter().flat_map(|l| l.lines()) {
            assert!(display_width(line) <= width, "{width} columns: {line:?}");
        }
    }
}

/// Issue 32: the end summary wrote `10C` where the narration, in the same style, writes `10♣`.
#[test]
fn the_summary_writes_cards_as_the_narration_does() {
    let session = Session::new("standard", seats(&["alice", "bob"]), 1, Some(short_game_deck())).unwrap();
    let unicode = Style { color: false, unicode: true };
    let mut s = Shell::interactive(session, Vec::new(), unicode);
    s.screen.width = None;
    let mut p = Person::default();
    let mut narration = String::new();
    for line in SHORT_GAME {
        narration += &run(&mut s, line, &mut p);
    }
    assert!(narration.contains("alice plays 10♣"), "{narration}");
    s.summary();
    let out = String::from_utf8(std::mem::take(s.out())).unwrap();
    assert!(out.contains("alice: depth 100, never rescued, longest dive 28 with 10♣"), "{out}");
    assert!(out.contains("longest dive 16 with 8♥"), "{out}");
}

/// Issue 32: at a terminal without Unicode (`LC_ALL=C`) the board wrote suits as letters but
/// errors and help still printed ♠ (and `…`, `·`). Everything such a terminal gets is ASCII;
/// a script gets the words as they are (the scripting contract).
#[test]
fn a_terminal_without_unicode_gets_suits_as_letters_everywhere() {
    let mut s = shell("standard", &["alice", "bob"], short_game_deck());
    let mut p = Person::default();
    let error = run(&mut s, "play 7x", &mut p);
    assert!(error.contains("like 7H, 10S, TD, QC or AS)"), "{error}");
    let mut seen = error;
    for line in ["help", "help recover", "help play", "help again", "help rules", "state", "moves"] {
        seen += &run(&mut s, line, &mut p);
    }
    s.screen.width = Some(40);
    seen += &run(&mut s, "help play", &mut p);
    let odd: Vec<char> = seen.chars().filter(|c| !c.is_ascii()).collect();
    assert!(odd.is_empty(), "{odd:?} in:\n{seen}");
    // A script's error is the core's, as the scripting contract has it.
    let mut script = Shell::script(
        Session::new("standard", seats(&["alice", "bob"]), 1, Some(short_game_deck())).unwrap(),
        Vec::new(),
        false,
    );
    assert!(run(&mut script, "play 7x", &mut p).contains("QC or A♠)"));
}

/// Issue 32: with every move at 0% the hint recommended one that gets you rescued. Here bob
/// has a Q in front and the table holds number cards of 4 and more: whatever alice does, he
/// reaches the bottom (12) next turn; every play of alice's empties her oxygen (1), a
/// recovery does not.
#[test]
fn a_hint_at_no_chance_does_not_recommend_a_rescue() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("doomed.toml");
    std::fs::write(
        &rules,
        "extends = \"standard\"\nmax_depth = 12\nmax_oxygen = 1\n\n[[oxygen_bands]]\nto = 12\ncost = 1\n",
    )
    .unwrap();
    let deck = cli_support::stacked("2H 3H 2C 3S  QH 7D 8D 9D  4S 5S 4C 5C  KD  6D 10C");
    let output = cli_support::diving()
        .args(["play", "--ruleset", rules.to_str().unwrap(), "--players", "alice,bob", "--seed", "1"])
        .args(["--deck", &deck])
        .write_stdin("recover 2H\nplay QH\nmoves\nhint\n")
        .output()
        .unwrap();
    let out = String::from_utf8(output.stdout).unwrap();
    let plays: Vec<&str> = out.lines().filter(|l| l.starts_with("  play ") && l.contains(" -> ")).collect();
    assert!(plays.len() >= 8 && plays.iter().all(|l| l.contains("RESCUED")), "{out}");
    let hint: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("hint for alice"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(hint.len(), 3, "{out}");
    assert!(hint.iter().all(|l| l.ends_with(" 0% estimated win chance")), "{out}");
    assert!(hint[0].trim_start().starts_with("recover "), "the hint recommends a rescue:\n{out}");
}

/// A question waits for its answer as the table asked it: a front end that asks the table
/// what is waiting (a seat that comes back, a page asking for its view) is told the same
/// yes/no question, not an empty one.
#[test]
fn a_waiting_question_is_told_again_as_it_was_asked() {
    use diving::table::{Caller, Policy, Question, Reply, Table};
    let dir = tempfile::tempdir().unwrap();
    let ruleset = dir.path().join("thin-air.toml");
    std::fs::write(&ruleset, "extends = \"standard\"\nmax_oxygen = 1\n").unwrap();
    let session =
        Session::new(ruleset.to_str().unwrap(), seats(&["alice", "bob"]), 1, Some(short_game_deck())).unwrap();
    let mut table = Table::new(session, Policy::terminal(true));
    let mut replies: Vec<Reply> = Vec::new();
    table.line(Caller::Seat(0), "play 10h", &mut replies);
    let asked = replies
        .iter()
        .find_map(|r| match r {
            Reply::Question(q) => Some(q.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("the rescue is asked about: {replies:?}"));
    let Question::YesNo(text) = &asked else { panic!("a yes/no question: {asked:?}") };
    assert!(text.contains("you would be RESCUED"), "{text}");
    let waiting = table.question(Caller::Seat(0)).expect("the question waits");
    assert!(matches!(&waiting, Question::YesNo(t) if t == text), "{waiting:?} is not {asked:?}");
    assert!(table.question(Caller::Seat(1)).is_none(), "bob is asked nothing");
}

/// Issue 47: `hint` and `moves` write `over` (`recover 2S AD over`), and `help over` said
/// `no help for 'over'`; `help recover` wrote the gains as `2+2: +3` with no key to read them.
#[test]
fn help_over_and_the_recovery_key_explain_the_words_hint_writes() {
    let mut s = shell("standard", &["alice", "bob"], short_game_deck());
    let mut p = Person::default();
    let over = run(&mut s, "help over", &mut p);
    assert!(!over.contains("no help"), "{over}");
    for words in ["J (Jolt)", "K (Knot)", "on top", "doubled"] {
        assert!(over.contains(words), "{words}: {over}");
    }
    let recover = run(&mut s, "help recover", &mut p);
    assert!(recover.contains("two pairs (2+2)             +3"), "{recover}");
    assert!(recover.contains("2+2 two of one suit and two of another"), "{recover}");
    assert!(run(&mut s, "help zzz", &mut p).contains("help over"));
}

/// Issue 47: with too few people named, the refusal shows the line that adds a bot.
#[test]
fn too_few_players_are_told_how_to_add_a_bot() {
    let out = cli_support::diving().args(["--players", "alice"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("add a bot: --players alice,bot:greedy"), "{stderr}");
    let mut s = shell("standard", &["alice", "bob"], short_game_deck());
    let mut p = Person::default();
    let out = run(&mut s, "again alice", &mut p);
    assert!(out.contains("add a bot: again alice,bot:greedy"), "{out}");
}

/// Issue 47: a replay heading said "you has won".
#[test]
fn a_replay_speaks_to_you() {
    let mut s = shell("standard", &["you", "bob"], short_game_deck());
    let mut p = Person::default();
    for line in SHORT_GAME {
        run(&mut s, line, &mut p);
    }
    let replay =
        diving::table::replay::Replay::open(s.session().to_save(), std::path::Path::new("x.json"), None, None, true)
            .unwrap()
            .0;
    let heading = replay.heading(replay.moves());
    assert!(heading.ends_with("; you have won)"), "{heading}");
}
