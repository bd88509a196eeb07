//! Mod manifests: a ruleset reads every mod's `diving.manifest` before loading any, and
//! refuses a set that does not fit with a message naming both mods, their versions and the
//! range; the loaded set is what a save records (`Ruleset::mod_set`).

use diving::ruleset::{ModRecord, Ruleset, differences};

/// A ruleset loading `mods` (file name, text) in order, written into a fresh directory.
fn load(mods: &[(&str, &str)]) -> Result<Ruleset, String> {
    let dir = tempfile::tempdir().unwrap();
    for (name, code) in mods {
        std::fs::write(dir.path().join(name), code).unwrap();
    }
    let list: Vec<String> = mods.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    let path = dir.path().join("rules.toml").display().to_string();
    let ruleset = Ruleset::from_text(&path, &format!("mods = [{}]\n", list.join(", ")));
    // Error messages name files by their path: keep only the file names for comparing.
    let prefix = format!("{}/", dir.path().display());
    ruleset.map_err(|e| e.to_string().replace(&prefix, ""))
}

const ALPHA: &str = r#"diving.manifest{ name = "alpha", version = "1.2.0", api = 1 }
diving.wrap(7, function(ctx, play, previous) previous(ctx, play) end)
"#;

fn needing(relation: &str, range: &str) -> String {
    format!(
        "diving.manifest{{ name = \"beta\", version = \"0.3.0\", api = 1, {relation} = {{ alpha = \"{range}\" }} }}\n"
    )
}

#[test]
fn a_requirement_in_range_loads_and_one_out_of_range_names_both_mods() {
    assert!(load(&[("a.lua", ALPHA), ("b.lua", &needing("requires", ">=1.2, <2"))]).is_ok());
    assert_eq!(
        load(&[("a.lua", ALPHA), ("b.lua", &needing("requires", ">=1.3"))]).unwrap_err(),
        "mod b.lua:1: beta 0.3.0 requires alpha >=1.3, but the ruleset loads alpha 1.2.0 (a.lua)"
    );
    assert_eq!(
        load(&[("b.lua", &needing("requires", "1"))]).unwrap_err(),
        "mod b.lua:1: beta 0.3.0 requires alpha ^1, and the ruleset loads no mod called alpha"
    );
    assert_eq!(
        load(&[("b.lua", &needing("requires", "1")), ("a.lua", ALPHA)]).unwrap_err(),
        "mod b.lua:1: beta 0.3.0 requires alpha ^1, which must load before it: list a.lua before b.lua in `mods`"
    );
}

#[test]
fn a_conflict_in_range_is_refused_and_one_out_of_range_is_not() {
    assert_eq!(
        load(&[("a.lua", ALPHA), ("b.lua", &needing("conflicts", "<2"))]).unwrap_err(),
        "mod b.lua:1: beta 0.3.0 conflicts with alpha <2, and the ruleset also loads alpha 1.2.0 (a.lua): leave one of them out"
    );
    assert!(load(&[("a.lua", ALPHA), ("b.lua", &needing("conflicts", ">=2"))]).is_ok());
}

#[test]
fn a_mod_needing_a_newer_api_is_refused_before_it_runs() {
    let code = "diving.manifest{ name = \"gamma\", version = \"1.0.0\", api = 2 }\ndiving.brand_new_thing()\n";
    assert_eq!(
        load(&[("g.lua", code)]).unwrap_err(),
        "mod g.lua:1: gamma 1.0.0 needs mod API 2, and this diving offers API 1: use a newer diving, or a version of the mod written for API 1"
    );
}

#[test]
fn a_bad_manifest_names_the_key() {
    for (manifest, message) in [
        ("{ name = \"x\", version = \"1.0\", api = 1 }", "`version` \"1.0\" is not a semantic version like \"1.2.0\""),
        ("{ name = \"x\", version = \"1.0.0\" }", "`api` is missing"),
        ("{ name = \"X\", version = \"1.0.0\", api = 1 }", "`name` \"X\" must start with a lower-case letter"),
        (
            "{ name = \"x\", version = \"1.0.0\", api = 1, requires = { y = \"~>1\" } }",
            "`requires.y` \"~>1\" is not a version range",
        ),
        ("{ name = \"x\", version = \"1.0.0\", api = 1, needs = {} }", "unknown key \"needs\""),
    ] {
        let err = load(&[("x.lua", &format!("diving.manifest{manifest}\n"))]).unwrap_err();
        assert!(err.starts_with("mod x.lua:1: diving.manifest: "), "{err}");
        assert!(err.contains(message), "{err}");
    }
}

#[test]
fn the_manifest_comes_first_and_once() {
    let late = "diving.wrap(7, function(ctx, play, previous) previous(ctx, play) end)\n\
                diving.manifest{ name = \"late\", version = \"1.0.0\", api = 1 }\n";
    assert_eq!(
        load(&[("l.lua", late)]).unwrap_err(),
        "mod l.lua:2: diving.manifest must come first in the file, before diving.wrap"
    );
    let twice = "diving.manifest{ name = \"t\", version = \"1.0.0\", api = 1 }\n\
                 diving.manifest{ name = \"t\", version = \"1.0.0\", api = 1 }\n";
    assert!(load(&[("t.lua", twice)]).unwrap_err().starts_with("mod t.lua:2: diving.manifest is called twice"));
}

#[test]
fn two_mods_of_one_name_are_refused() {
    let other = ALPHA.replace("1.2.0", "2.0.0");
    assert_eq!(
        load(&[("a.lua", ALPHA), ("a2.lua", &other)]).unwrap_err(),
        "mod a2.lua:1: two mods are called alpha: a.lua (1.2.0) and a2.lua (2.0.0); a ruleset loads each mod once"
    );
}

#[test]
fn the_mod_set_records_names_versions_paths_and_hashes_with_defaults_for_mods_without_a_manifest() {
    let plain = "diving.wrap(8, function(ctx, play, previous) previous(ctx, play) end)\n";
    let ruleset = load(&[("a.lua", ALPHA), ("Plain Mod.lua", plain)]).unwrap();
    let set = ruleset.mod_set();
    let names: Vec<(&str, &str)> = set.iter().map(|m| (m.name.as_str(), m.version.as_str())).collect();
    assert_eq!(names, [("alpha", "1.2.0"), ("plain-mod", "0.0.0")]);
    assert!(set[0].path.ends_with("/a.lua"), "{}", set[0].path);
    assert!(set[1].hash.starts_with("fnv1a64:") && set[1].hash.len() == 24, "{}", set[1].hash);
    assert_ne!(set[0].hash, set[1].hash);
    // A changed file is told apart, and so is a new version.
    let changed = load(&[("a.lua", &ALPHA.replace("1.2.0", "1.3.0")), ("Plain Mod.lua", plain)]).unwrap();
    let diff = differences(&set, &changed.mod_set());
    assert_eq!(diff.len(), 1, "{diff:?}");
    assert!(diff[0].starts_with("mod alpha was version 1.2.0 ("), "{diff:?}");
    let same: Vec<ModRecord> = load(&[("a.lua", ALPHA), ("Plain Mod.lua", plain)]).unwrap().mod_set();
    let strip = |s: &[ModRecord]| s.iter().map(|m| (m.name.clone(), m.hash.clone())).collect::<Vec<_>>();
    assert_eq!(strip(&same), strip(&set));
}

#[test]
fn the_shipped_house_rules_load_their_mods_without_manifests() {
    let house = Ruleset::load("house").unwrap();
    let set = house.mod_set();
    assert!(!set.is_empty());
    assert!(set.iter().all(|m| m.version == "0.0.0" && m.path.starts_with("rulesets/mods/")), "{set:?}");
    assert!(set.iter().any(|m| m.name == "shark"), "{set:?}");
}

/// MODDING.md's manifest example, and the messages it shows for sets that do not fit, are
/// what the program does.
#[test]
fn the_guides_manifest_example_and_its_messages_are_real() {
    let guide = include_str!("../../rulesets/MODDING.md");
    let start = guide.find("```lua\ndiving.manifest{").expect("the guide's manifest example") + 7;
    let example = &guide[start..start + guide[start..].find("```").unwrap()];
    let after = &guide[start..];
    let shown = &after[after.find("```text\n").unwrap() + 8..];
    let shown: Vec<&str> = shown[..shown.find("```").unwrap()].lines().collect();
    assert_eq!(shown.len(), 3);
    let manifest = |name: &str, version: &str| {
        format!("diving.manifest{{ name = \"{name}\", version = \"{version}\", api = 1 }}\n")
    };
    let cases: [(&[(&str, String)], &str); 3] = [
        (&[("deep.lua", manifest("deep-water", "2.0.4")), ("lucky.lua", example.to_string())], shown[0]),
        (
            &[
                ("deep.lua", manifest("deep-water", "2.5.0")),
                ("dry.lua", manifest("dry-suit", "0.3.0")),
                ("lucky.lua", example.to_string()),
            ],
            shown[1],
        ),
        (&[("lucky.lua", example.replace("api = 1,", "api = 2,"))], shown[2]),
    ];
    for (files, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        let rules = dir.path().join("my-rules");
        std::fs::create_dir(&rules).unwrap();
        for (name, code) in files {
            std::fs::write(rules.join(name), code).unwrap();
        }
        let list: Vec<String> = files.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        let path = rules.join("rules.toml");
        std::fs::write(&path, format!("mods = [{}]\n", list.join(", "))).unwrap();
        let err = Ruleset::load(path.to_str().unwrap()).unwrap_err().compiler_line();
        assert_eq!(err.replace(&format!("{}/", dir.path().display()), ""), message);
    }
}

/// Two mods that replace the same card are refused, naming both files and lines: only the
/// later would be in force. A mod that says it comes after the other (`after`, or `requires`
/// it) may, and a wrap builds on the other's entry as always.
#[test]
fn two_mods_replacing_one_card_are_refused_unless_one_says_it_comes_after() {
    let seven = |name: &str| {
        format!(
            "diving.manifest{{ name = \"{name}\", version = \"1.0.0\", api = 1 }}\n\
             diving.effect(7, {{ resolve = function(ctx, play) ctx:discard(play.card) end }})\n"
        )
    };
    let (a, b) = (seven("sevens-a"), seven("sevens-b"));
    let err = load(&[("a.lua", &a), ("b.lua", &b)]).unwrap_err();
    let ruleset = Ruleset::from_text("x.toml", "");
    assert!(ruleset.is_ok());
    assert!(err.contains("b.lua:2"), "{err}");
    assert!(err.contains("replaces the 7 that mod a.lua:2 (sevens-a) already replaced"), "{err}");
    assert!(err.contains("after = { \"sevens-a\" }"), "{err}");
    let after = "diving.manifest{ name = \"sevens-b\", version = \"1.0.0\", api = 1, requires = { [\"sevens-a\"] = \"*\" } }\n\
                 diving.effect(7, { resolve = function(ctx, play) ctx:discard(play.card) end })\n";
    assert!(load(&[("a.lua", &a), ("b.lua", after)]).is_ok(), "a declared order loads");
    let wrap = "diving.wrap(7, function(ctx, play, previous) previous(ctx, play) end)\n";
    assert!(load(&[("a.lua", &a), ("w.lua", wrap)]).is_ok(), "a wrap builds on it");
    let twice_in_one = format!("{a}diving.effect(7, {{ resolve = function(ctx, play) ctx:discard(play.card) end }})\n");
    assert!(load(&[("a.lua", &twice_in_one)]).is_ok(), "one file may replace its own entry");
}

/// A mod replacing the card `previous` one replaced: it says what it does by its `say`.
fn sevens(name: &str, order: &str) -> String {
    format!(
        "diving.manifest{{ name = \"{name}\", version = \"1.0.0\", api = 1{order} }}\n\
         diving.effect(7, {{ resolve = function(ctx, play) ctx:say(\"{name}\") ctx:discard(play.card) end }})\n"
    )
}

/// `after` and `before` put the mods in a declared load order whatever order the ruleset
/// lists them in, so two mods replacing one card load (the later in force) instead of being
/// refused; orders that cannot all hold are refused naming the mods.
#[test]
fn after_and_before_order_the_mods_and_let_the_later_replace_a_card() {
    let names = |r: &Ruleset| r.manifests.iter().map(|m| m.name.clone()).collect::<Vec<_>>();
    let a = sevens("sevens-a", "");
    let b_after = sevens("sevens-b", ", after = { \"sevens-a\" }");
    // Listed after and before the other: loaded after it either way.
    for files in
        [[("a.lua", a.as_str()), ("b.lua", b_after.as_str())], [("b.lua", b_after.as_str()), ("a.lua", a.as_str())]]
    {
        let ruleset = load(&files).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(names(&ruleset), ["sevens-a", "sevens-b"]);
        let registry = ruleset.registry().unwrap();
        let mut game = diving::core::Game::new(
            ruleset.rules.clone(),
            registry,
            diving::core::Setup { names: vec!["ann".into(), "bob".into()], seed: 1, deck: None },
        )
        .unwrap();
        let seven = game
            .legal_actions()
            .into_iter()
            .find(|x| matches!(x, diving::core::Action::Play { card, .. } if card.rank.number() == 7));
        let seven = seven.expect("seed 1 deals a 7");
        let mut events = Vec::new();
        game.apply(&seven, &mut events).unwrap();
        assert!(
            events.iter().any(|e| matches!(e, diving::core::Event::Said { words, .. } if diving::core::Viewer::Everyone.shown(words) == "sevens-b")),
            "{events:?}"
        );
    }
    // `before` says the same from the other side.
    let a_before = sevens("sevens-a", ", before = { \"sevens-b\" }");
    let b = sevens("sevens-b", "");
    let ruleset = load(&[("b.lua", &b), ("a.lua", &a_before)]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names(&ruleset), ["sevens-a", "sevens-b"]);
    // A mod the ruleset does not load orders nothing; mods nobody orders keep their places.
    let c = "diving.manifest{ name = \"calm\", version = \"1.0.0\", api = 1, after = { \"nowhere\" } }\n";
    let ruleset = load(&[("c.lua", c), ("b.lua", &b_after), ("a.lua", &a)]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names(&ruleset), ["calm", "sevens-a", "sevens-b"]);
    // Orders that cannot all hold.
    let a_after = sevens("sevens-a", ", after = { \"sevens-b\" }");
    let err = load(&[("a.lua", &a_after), ("b.lua", &b_after)]).unwrap_err();
    assert_eq!(
        err,
        "mod a.lua:1: the manifests' `after` and `before` cannot all hold: sevens-a 1.0.0 (a.lua), sevens-b 1.0.0 (b.lua) each come after another of them"
    );
    let both = "diving.manifest{ name = \"x\", version = \"1.0.0\", api = 1, after = { \"y\" }, before = { \"y\" } }\n";
    assert!(load(&[("x.lua", both)]).unwrap_err().contains("`after` and `before` both name y"));
    let bad = "diving.manifest{ name = \"x\", version = \"1.0.0\", api = 1, after = { y = \"*\" } }\n";
    assert!(load(&[("x.lua", bad)]).unwrap_err().contains("`after` must be a list of mod names"));
}

/// `diving check` says which mod owns each entry: who replaced, wrapped or added what, where.
#[test]
fn check_lists_which_mod_owns_each_entry() {
    let dir = tempfile::tempdir().unwrap();
    let wrap = "diving.manifest{ name = \"wrapper\", version = \"1.0.0\", api = 1 }\n\
                diving.wrap(7, function(ctx, play, previous) previous(ctx, play) end)\n\
                diving.on_turn_end(function(ctx, player) end)\n";
    std::fs::write(dir.path().join("a.lua"), sevens("sevens-a", "")).unwrap();
    std::fs::write(dir.path().join("w.lua"), wrap).unwrap();
    std::fs::write(dir.path().join("rules.toml"), "mods = [\"a.lua\", \"w.lua\"]\n").unwrap();
    let out = crate::cli_support::diving()
        .current_dir(dir.path())
        .args(["check", "rules.toml", "--games", "0"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let entries = &stdout[stdout.find("entries:\n").expect("an entries list")..];
    assert_eq!(
        entries,
        "entries:\n  card 7: replaced by sevens-a (a.lua:2)\n  card 7: wrapped by wrapper (w.lua:2)\n  hook on_turn_end: added by wrapper (w.lua:3)\n\
         secrets (what each mod was told in the smoke games; its words reach only those who may see it):\n  \
         sevens-a: reads no hidden card; reveals nothing\n  wrapper: reads no hidden card; reveals nothing\n"
    );
}
