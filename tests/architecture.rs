//! Architecture invariant: the rules core is pure. Nothing under `src/core/` names the Lua
//! engine, the terminal, TOML, the command line, files, standard I/O, printing, or an
//! unseeded RNG; those belong to the edges (see the crate docs).
//!
//! And the per-ruleset tables are worked out once, in the core (`core::Tables`): the bots
//! read oxygen costs and recovery gains from them, never from the rules.

use std::fs;
use std::path::Path;

const FORBIDDEN: [&str; 11] = [
    "mlua",
    "rustyline",
    "toml",
    "clap",
    "std::fs",
    "std::io",
    "println!",
    "eprintln!",
    "thread_rng",
    "rand::rng()",
    "std::env",
];

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((path.display().to_string(), fs::read_to_string(&path).unwrap()));
        }
    }
}

#[test]
fn the_core_names_no_edge_crate_no_io_and_no_global_rng() {
    let mut files = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core"), &mut files);
    assert!(files.len() >= 5, "found only {} core files", files.len());
    let mut found = Vec::new();
    for (path, text) in &files {
        for (n, line) in text.lines().enumerate() {
            for word in FORBIDDEN {
                if line.contains(word) {
                    found.push(format!("{path}:{}: `{word}` in: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "the core must stay pure:\n{}", found.join("\n"));
}

#[test]
fn the_check_catches_what_it_looks_for() {
    let sample = "use std::io::Write;\nfn f() { println!(\"x\"); }";
    let hits: Vec<&str> = FORBIDDEN.iter().copied().filter(|w| sample.contains(w)).collect();
    assert_eq!(hits, ["std::io", "println!"]);
}

/// What a bot would call to work a cost or a gain out of the rules itself.
const RULES_LOOKUPS: [&str; 2] = ["band_cost(", "recovery_gain("];

#[test]
fn the_bots_read_costs_and_gains_from_the_core_tables() {
    let mut files = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bots"), &mut files);
    assert!(files.len() >= 4, "found only {} bot files", files.len());
    let mut found = Vec::new();
    for (path, text) in &files {
        // Unit tests may check the tables against the rules' definitions.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            for word in RULES_LOOKUPS {
                if line.contains(word) {
                    found.push(format!("{path}:{}: `{word}` in: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "read core::Tables instead:\n{}", found.join("\n"));
}
