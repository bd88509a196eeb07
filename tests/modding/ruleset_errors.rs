//! Broken rulesets: every error names the file, line, column and key; through the binary,
//! `diving check` reports it like a compiler and exits with status 2.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use diving::ruleset::Ruleset;
use predicates::str::contains;

/// A directory of ruleset files (and mods) written for one test.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new(files: &[(&str, &str)]) -> Files {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Files { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The error loading `name`, with the directory taken out of it.
    fn error(&self, name: &str) -> String {
        let path = self.path(name);
        let e = Ruleset::load(path.to_str().unwrap()).err().unwrap_or_else(|| panic!("{name} loaded"));
        e.to_string().replace(&format!("{}/", self.dir.path().display()), "")
    }
}

fn one(text: &str) -> String {
    Files::new(&[("r.toml", text)]).error("r.toml")
}

#[test]
fn syntax_error() {
    assert_eq!(
        one("extends = \"standard\"\nhand_size = \n"),
        "r.toml:2:13: `hand_size` has no value: write one after `=`"
    );
    assert_eq!(one("hand_size = # four\n"), "r.toml:1:13: `hand_size` has no value: write one after `=`");
    // An unquoted word, or two numbers.
    let unreadable = |value: &str| {
        format!(
            "`hand_size`: cannot read `{value}` as a value (numbers are plain digits, text goes in quotes, \
             and true and false are lower case)"
        )
    };
    assert_eq!(one("hand_size = four\n"), format!("r.toml:1:13: {}", unreadable("four")));
    assert_eq!(one("hand_size = 4 4 # two\n"), format!("r.toml:1:13: {}", unreadable("4 4")));
    // A number past 64 bits; and a key's bound is the core's, said one way for any value.
    assert_eq!(
        one("max_depth = 99999999999999999999\n"),
        "r.toml:1:13: `max_depth`: 99999999999999999999 has too many digits to be read as a number"
    );
    assert_eq!(one("hand_size = 13\n"), "r.toml:1:13: `hand_size` must be at most 12 (it is 13)");
    assert_eq!(one("hand_size = 100\n"), "r.toml:1:13: `hand_size` must be at most 12 (it is 100)");
    // Any other message of the parser is placed under its key.
    assert_eq!(one("hand_size = [1,\n"), "r.toml:1:16: `hand_size`: unclosed array, expected `]`");
}

#[test]
fn unknown_key() {
    let e = one("extends = \"standard\"\nhand_sise = 3\n");
    assert!(e.starts_with("r.toml:2:1: unknown field `hand_sise`, expected one of"), "{e}");
}

#[test]
fn unknown_key_in_a_table() {
    assert_eq!(one("[display]\nunits = \"m\"\n"), "r.toml:2:1: unknown field `units`, expected `unit` or `scale`");
}

#[test]
fn wrong_types() {
    assert_eq!(one("hand_size = \"four\"\n"), "r.toml:1:13: `hand_size` must be a whole number, not text");
    assert_eq!(one("max_depth = 99.5\n"), "r.toml:1:13: `max_depth` must be a whole number, not a decimal number");
    assert_eq!(one("decks = \"many\"\n"), "r.toml:1:9: `decks` must be a number of decks or \"auto\", not \"many\"");
    assert_eq!(one("mods = \"x.lua\"\n"), "r.toml:1:8: `mods`: invalid type: string \"x.lua\", expected a sequence");
    assert_eq!(one("[display]\nscale = \"big\"\n"), "r.toml:2:9: `display.scale` must be a whole number, not text");
}

#[test]
fn values_out_of_range() {
    assert_eq!(one("max_oxygen = -1\n"), "r.toml:1:14: `max_oxygen` must be at least 1 (it is -1)");
    assert_eq!(one("\n\nhand_size = 0\n"), "r.toml:3:13: `hand_size` must be at least 1 (it is 0)");
    assert_eq!(one("[display]\nscale = 0\n"), "r.toml:2:9: `display.scale` must be at least 1 (it is 0)");
    assert_eq!(
        one("min_players = 5\nmax_players = 3\n"),
        "r.toml:2:15: `min_players` (5) is more than `max_players` (3)"
    );
}

#[test]
fn bad_bands() {
    let gap = "[[oxygen_bands]]\nto = 25\ncost = 1\n\n[[oxygen_bands]]\nto = 20\ncost = 2\n";
    assert_eq!(
        one(gap),
        "r.toml:1:1: oxygen bands must go deeper one after another and end exactly at max_depth 100: band 2 ends at 20 but starts at 26"
    );
    assert_eq!(
        one("oxygen_bands = [[25, 1], [99, 2]]\n"),
        "r.toml:1:16: oxygen bands must go deeper one after another and end exactly at max_depth 100: the last band ends at 99"
    );
    assert_eq!(
        one("oxygen_bands = [[25, 1], [100]]\n"),
        "r.toml:1:26: oxygen band 2 must be [to, cost] or { to = …, cost = … }, not a list"
    );
    assert_eq!(
        one("oxygen_bands = [{ to = 100, price = 1 }]\n"),
        "r.toml:1:17: oxygen band 1: unknown key `price` (a band has `to` and `cost`)"
    );
    assert_eq!(one("oxygen_bands = []\n"), "r.toml:1:16: `oxygen_bands` needs at least one band");
    // Changing the bottom without the bands is caught too, at the key that changed.
    assert_eq!(
        one("\nmax_depth = 50\n"),
        "r.toml:2:13: oxygen bands must go deeper one after another and end exactly at max_depth 50: the last band ends at 100"
    );
}

#[test]
fn bad_recovery_table() {
    assert_eq!(
        one("[recovery]\n\"2+1\" = 2\n"),
        "r.toml:2:1: `recovery`: '2+1' is not a suit pattern (use none, 2, 2+2, 3, 3+2, 4 …)"
    );
    assert_eq!(
        one("[recovery]\n\"2\" = \"lots\"\n"),
        "r.toml:2:7: `recovery.\"2\"` must be an amount of oxygen or \"max\", not \"lots\""
    );
    assert_eq!(
        one("\nhand_size = 5\n"),
        "r.toml:2:13: the recovery table has no entry for suit patterns `3+2`, `5`, which a discard of up to 5 cards can have"
    );
}

#[test]
fn not_enough_cards_for_the_players() {
    let e = one(
        "decks = 1\nhand_size = 6\n[recovery]\n\"3+2\" = 5\n\"4+2\" = 6\n\"5\" = 6\n\"6\" = 7\n\"2+2+2\" = 4\n\"3+3\" = 6\n",
    );
    assert_eq!(
        e,
        "r.toml:1:9: 8 players need 53 cards (hands, table and a first discard) but 1 deck(s) hold 52: lower `max_players`, raise `decks` or deal fewer cards"
    );
}

#[test]
fn missing_mod_file() {
    assert_eq!(
        one("extends = \"standard\"\nmods = [\"mods/missing.lua\"]\n"),
        "r.toml:2:9: `mods`: cannot read mod 'mods/missing.lua': no such file"
    );
    assert_eq!(one("mods = [\"notes.txt\"]\n"), "r.toml:1:9: `mods`: 'notes.txt' is not a .lua file");
}

#[test]
fn broken_mod() {
    let files = Files::new(&[("r.toml", "mods = [\"mods/bad.lua\"]\n"), ("mods/bad.lua", "-- oops\nlocal x = \n")]);
    assert_eq!(files.error("r.toml"), "mod mods/bad.lua:3: expected identifier when parsing expression, got <eof>");
}

#[test]
fn extends_errors() {
    let files = Files::new(&[("a.toml", "extends = \"b.toml\"\n"), ("b.toml", "\nextends = \"a.toml\"\n")]);
    assert_eq!(files.error("a.toml"), "b.toml:2:11: `extends` makes a cycle: a.toml → b.toml → a.toml");
    assert_eq!(
        one("extends = \"metres\"\n"),
        "r.toml:1:11: `extends`: no shipped ruleset is called 'metres' (shipped: standard, meters, big-table, house)"
    );
    let e = one("extends = \"base.toml\"\n");
    assert_eq!(e, "r.toml:1:11: `extends`: cannot read 'base.toml': no such file");
}

#[test]
fn an_error_in_a_base_file_points_into_the_base() {
    let files = Files::new(&[
        ("house.toml", "extends = \"rules/base.toml\"\nmax_oxygen = 12\n"),
        ("rules/base.toml", "# base\nmax_turns = \"soon\"\n"),
    ]);
    assert_eq!(files.error("house.toml"), "rules/base.toml:2:13: `max_turns` must be a whole number, not text");
    // A value set in the base but broken by the child's change names the base's key.
    let files = Files::new(&[
        ("child.toml", "extends = \"base.toml\"\nmax_depth = 60\n"),
        ("base.toml", "oxygen_bands = [[50, 1], [100, 2]]\n"),
    ]);
    assert_eq!(
        files.error("child.toml"),
        "base.toml:1:16: oxygen bands must go deeper one after another and end exactly at max_depth 60: the last band ends at 100"
    );
}

#[test]
fn mods_of_the_base_load_first_relative_to_the_base() {
    let files = Files::new(&[
        ("child.toml", "extends = \"rules/base.toml\"\nmods = [\"mine.lua\"]\n"),
        ("mine.lua", "-- mine\n"),
        ("rules/base.toml", "mods = [\"mods/theirs.lua\"]\n"),
        ("rules/mods/theirs.lua", "-- theirs\n"),
    ]);
    let ruleset = Ruleset::load(files.path("child.toml").to_str().unwrap()).unwrap();
    let names: Vec<String> =
        ruleset.mods.iter().map(|m| Path::new(&m.name).file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["theirs.lua", "mine.lua"]);
}

#[test]
fn unknown_ruleset() {
    assert_eq!(
        Ruleset::load("no-such-ruleset").unwrap_err().to_string(),
        "no such file, and no shipped ruleset has that name (shipped: standard, meters, big-table, house)"
    );
}

/// A failed `--ruleset` names the ruleset once, and a path that is there but no file says so
/// without listing the shipped rulesets.
#[test]
fn a_ruleset_that_cannot_be_read_is_named_once() {
    let out = diving().args(["--ruleset", "no-such-ruleset", "sim", "--games", "1"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "diving: cannot load ruleset 'no-such-ruleset': no such file, and no shipped ruleset has that name \
         (shipped: standard, meters, big-table, house)"
    );
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().to_str().unwrap();
    let out = diving().args(["--ruleset", spec, "sim", "--games", "1"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!("diving: cannot load ruleset '{spec}': not a regular file (it is a directory)")
    );
}

// ----- through the binary -----

fn diving() -> Command {
    Command::cargo_bin("diving").unwrap()
}

#[test]
fn check_reports_like_a_compiler_and_exits_2() {
    let cases: &[(&str, &str, &str)] = &[
        ("syntax.toml", "hand_size = \n", "syntax.toml:1:13: error: `hand_size`"),
        ("unknown.toml", "\nhand_sise = 3\n", "unknown.toml:2:1: error: unknown field `hand_sise`"),
        ("type.toml", "hand_size = \"four\"\n", "type.toml:1:13: error: `hand_size` must be a whole number"),
        ("bands.toml", "oxygen_bands = [[25, 1], [99, 2]]\n", "bands.toml:1:16: error: oxygen bands"),
        ("missing.toml", "mods = [\"mods/missing.lua\"]\n", "missing.toml:1:9: error: `mods`: cannot read mod"),
    ];
    for (name, text, expected) in cases {
        let files = Files::new(&[(name, text)]);
        diving().current_dir(files.dir.path()).args(["check", name]).assert().code(2).stderr(contains(*expected));
    }
    // A file that is not there is named: "no such file" alone would not say which.
    diving()
        .args(["check", "/no/such/ruleset.toml"])
        .assert()
        .code(2)
        .stderr("error: cannot load ruleset '/no/such/ruleset.toml': no such file\n");
}

#[test]
fn a_broken_ruleset_given_to_play_or_rules_exits_2() {
    let files = Files::new(&[("r.toml", "\nhand_sise = 3\n")]);
    diving()
        .current_dir(files.dir.path())
        .args(["--ruleset", "r.toml", "rules"])
        .assert()
        .code(2)
        .stderr(contains("r.toml:2:1: unknown field `hand_sise`"));
}

#[test]
fn check_finds_a_mod_failing_in_the_smoke_games() {
    let files = Files::new(&[
        ("r.toml", "mods = [\"mods/neg.lua\"]\n"),
        ("mods/neg.lua", "diving.on_after_move(function(ctx, player, from, to)\n  ctx:set_oxygen(player, 99)\nend)\n"),
    ]);
    diving()
        .current_dir(files.dir.path())
        .args(["check", "r.toml"])
        .assert()
        .code(2)
        .stderr(contains("mods/neg.lua:2: error: oxygen 99 is outside 0…10"))
        .stderr(contains("note: in smoke game seed"));
}

/// A rescue hook that leaves the diver at 0 oxygen breaks D12, and check says so (it passed:
/// issue 44).
#[test]
fn check_finds_a_rescue_that_leaves_a_diver_out_of_air() {
    let files = Files::new(&[
        ("r.toml", "mods = [\"hold.lua\"]\n"),
        ("hold.lua", "diving.rescue(function(ctx, player, previous)\n  ctx:say(\"holding on\")\nend)\n"),
    ]);
    diving()
        .current_dir(files.dir.path())
        .args(["check", "r.toml", "--games", "0"])
        .assert()
        .code(2)
        .stderr(contains("is left at 0 oxygen, not rescued (D12"));
}

#[test]
fn check_passes_every_shipped_ruleset() {
    for name in diving::ruleset::shipped_names() {
        // A short stress here: the full one is slow in a debug build (tests/modding/modkit.rs runs it).
        let run = diving().args(["check", name, "--games", "3"]).assert().success();
        run.stdout(contains("ok: ")).stdout(contains("smoke games")).stdout(contains("stress: "));
    }
}

#[test]
fn check_reads_the_ruleset_named_once() {
    // Given with --ruleset alone, or the same one twice, it is checked.
    diving().args(["--ruleset", "house", "check", "--games", "0"]).assert().success().stdout(contains("ok: "));
    diving().args(["--ruleset", "house", "check", "house", "--games", "0"]).assert().success().stdout(contains("ok: "));
    // Two different ones, or none, is an error that says what to do.
    diving()
        .args(["--ruleset", "meters", "check", "house"])
        .assert()
        .code(2)
        .stderr(contains("check was given two rulesets, 'house' and --ruleset 'meters': name one"));
    diving().arg("check").assert().code(2).stderr(contains("name the ruleset to check: diving check FILE"));
}

#[test]
fn check_in_json() {
    let files = Files::new(&[("r.toml", "\nhand_sise = 3\n")]);
    diving()
        .current_dir(files.dir.path())
        .args(["--json", "check", "r.toml"])
        .assert()
        .code(2)
        .stdout(contains("\"ok\":false"))
        .stdout(contains("\"line\":2"));
    diving()
        .args(["--json", "check", "house", "--games", "1"])
        .assert()
        .success()
        .stdout(contains("\"ok\":true"))
        .stdout(contains("\"stress\":{\"drawn\""))
        .stdout(contains("\"mods\":3"));
}

/// Regression: a bigger hand needs recovery patterns the standard table lacks; the error used
/// to point into the embedded standard.toml, which the user never wrote.
#[test]
fn an_error_about_an_inherited_value_points_at_the_users_change() {
    assert_eq!(
        one("extends = \"standard\"\nhand_size = 6\n"),
        "r.toml:2:13: the recovery table has no entry for suit patterns `2+2+2`, `3+2`, `3+3`, `4+2`, `5`, `6`, which a discard of up to 6 cards can have"
    );
}

/// Regression (issue 20): `diving rules` showed `sub/./../mods/a.lua` as written joined, and
/// a house ruleset showed the standard rules' description as its own.
#[test]
fn rules_shows_tidy_mod_paths_and_only_the_rulesets_own_description() {
    let files = Files::new(&[
        ("sub/r.toml", "extends = \"standard\"\nname = \"Mine\"\nmods = [\"./../mods/./a.lua\"]\n"),
        ("sub/d.toml", "extends = \"r.toml\"\ndescription = \"Mine, described.\"\n"),
        ("mods/a.lua", "diving.on_turn_start(function(ctx, player) end)\n"),
    ]);
    let out = diving().current_dir(files.dir.path()).args(["--ruleset", "sub/r.toml", "rules"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("mods           mods/a.lua\n"), "{text}");
    assert!(!text.contains("The rules as decided"), "{text}");
    let json = diving().current_dir(files.dir.path()).args(["--json", "--ruleset", "sub/d.toml", "rules"]).output();
    let json = String::from_utf8(json.unwrap().stdout).unwrap();
    assert!(json.contains("\"description\":\"Mine, described.\""), "{json}");
    assert!(json.contains("\"mods\":[\"mods/a.lua\"]"), "{json}");
    // The standard rules keep theirs.
    diving().args(["rules"]).assert().success().stdout(contains("The rules as decided (D1–D24)."));
}

/// `[values]` takes a rank and a whole number up to what a card may be worth; anything else
/// is named where it is written.
#[test]
fn card_values_name_the_rank_and_the_bound() {
    assert_eq!(
        one("extends = \"standard\"\n[values]\nZ = 3\n"),
        "r.toml:3:1: `values`: 'Z' is not a rank (use A, 2 … 10, J, Q or K)"
    );
    assert_eq!(one("[values]\nA = 1001\n"), "r.toml:2:5: `values.A` must be at most 1000 (it is 1001)");
    assert_eq!(one("[values]\n\"10\" = \"ten\"\n"), "r.toml:2:8: `values.10` must be a whole number, not text");
    let path = Files::new(&[("r.toml", "extends = \"standard\"\n[values]\nA = 11\nk = 2\n")]);
    let rules = Ruleset::load(path.path("r.toml").to_str().unwrap()).unwrap().rules;
    assert_eq!((rules.value(diving::core::Rank::ACE), rules.value(diving::core::Rank::KING)), (11, 2));
}
