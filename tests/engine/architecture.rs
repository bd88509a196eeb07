//! Architecture invariants read from the sources (see the crate docs). The rules core is
//! pure: nothing under `src/core/` names the Lua engine, the terminal, TOML, the command line,
//! files, standard I/O, printing, an unseeded RNG or serde (its wire formats are chosen at the
//! edges), and it has no `unsafe`. The clients `repl` and `sim` do not know the command line:
//! `cli` hands them plain options. `lib.rs` is the architecture page and the module list, with
//! no code. Each check has a test beside it showing that it catches what it looks for.
//! The per-ruleset tables are worked out once, in the core (`core::Tables`): the bots read
//! oxygen costs and recovery gains from them (or from the hooks, through `core::Forecast`), never
//! from the rules.

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

/// The sources under `dir` (relative to the crate root), at least one.
fn sources_under(dir: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir), &mut files);
    assert!(!files.is_empty(), "no sources under {dir}");
    files
}

/// Every line of `files` that `breaks` the rule, as `path:line: text`.
fn breaches(files: &[(String, String)], breaks: impl Fn(&str) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for (path, text) in files {
        for (n, line) in text.lines().enumerate() {
            if breaks(line) {
                found.push(format!("{path}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    found
}

/// The code of a line: everything before a `//` comment (doc comments included).
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// Whether `word` stands in `text` as a whole identifier (`unsafe` but not `unsafe_code`).
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(ident) && !text[at + word.len()..].chars().next().is_some_and(ident)
    })
}

fn names_serde(line: &str) -> bool {
    line.contains("serde")
}

#[test]
fn the_core_knows_no_serde() {
    let found = breaches(&sources_under("src/core"), names_serde);
    assert!(found.is_empty(), "the core must leave (de)serialisation to the edges:\n{}", found.join("\n"));
}

#[test]
fn the_serde_check_catches_imports_derives_and_attributes() {
    let sample = [(
        "s.rs".to_string(),
        "use serde::Serialize;\n#[derive(Debug, serde::Deserialize)]\n#[serde(tag = \"event\")]\nenum Event {}"
            .to_string(),
    )];
    assert_eq!(breaches(&sample, names_serde).len(), 3);
}

fn has_unsafe(line: &str) -> bool {
    has_word(code(line), "unsafe")
}

#[test]
fn the_core_has_no_unsafe() {
    let found = breaches(&sources_under("src/core"), has_unsafe);
    assert!(found.is_empty(), "the core must be safe Rust:\n{}", found.join("\n"));
}

#[test]
fn the_unsafe_check_catches_blocks_functions_and_impls_but_not_the_lint() {
    for line in ["let r = unsafe { &*p };", "unsafe fn f() {}", "unsafe impl Send for X {}", "x(unsafe{ y })"] {
        assert!(has_unsafe(line), "{line}");
    }
    for line in ["#![forbid(unsafe_code)]", "// no unsafe here", "let not_unsafe = 1;"] {
        assert!(!has_unsafe(line), "{line}");
    }
}

fn names_the_cli(line: &str) -> bool {
    has_word(code(line), "cli")
}

#[test]
fn repl_and_sim_do_not_know_the_command_line() {
    let mut files = sources_under("src/repl");
    files.extend(sources_under("src/sim"));
    let found = breaches(&files, names_the_cli);
    assert!(found.is_empty(), "repl and sim take plain options; only cli knows clap's:\n{}", found.join("\n"));
}

#[test]
fn the_cli_check_catches_every_way_to_name_it() {
    for line in
        ["use crate::cli::PlayArgs;", "use crate::{cli, core};", "fn f(a: &cli::SimArgs) {}", "use super::super::cli;"]
    {
        assert!(names_the_cli(line), "{line}");
    }
    for line in ["//! cli converts its arguments", "let client = 1;", "use crate::repl_cli;"] {
        assert!(!names_the_cli(line), "{line}");
    }
}

fn defines_a_function(line: &str) -> bool {
    has_word(code(line), "fn")
}

#[test]
fn lib_rs_is_the_architecture_page_and_holds_no_functions() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let lib = [(path.display().to_string(), fs::read_to_string(&path).unwrap())];
    let found = breaches(&lib, defines_a_function);
    assert!(
        found.is_empty(),
        "lib.rs is the crate doc and the module list; code lives in the modules:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_fn_check_catches_a_function_but_not_the_docs() {
    for line in ["pub fn run(cli: Cli) -> Result<()> {", "const fn f() {}", "fn main(){}"] {
        assert!(defines_a_function(line), "{line}");
    }
    for line in ["//! a fn in the crate doc", "pub mod fnord;", "pub mod sim;"] {
        assert!(!defines_a_function(line), "{line}");
    }
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

/// The modules of this crate the core must not know: they are its clients.
const CLIENTS: [&str; 10] = ["bots", "cli", "limits", "main", "modkit", "repl", "ruleset", "script", "server", "sim"];

fn names_a_client(line: &str) -> bool {
    let code = code(line);
    CLIENTS.iter().any(|m| code.contains(&format!("crate::{m}")) || code.contains(&format!("diving::{m}")))
}

#[test]
fn the_core_knows_none_of_its_clients() {
    let found = breaches(&sources_under("src/core"), names_a_client);
    assert!(found.is_empty(), "dependencies point inward: the core names no client:\n{}", found.join("\n"));
}

#[test]
fn the_client_check_catches_a_use_of_a_client() {
    assert!(names_a_client("use crate::repl::json;"));
    assert!(names_a_client("let x = crate::sim::EventCounts::default();"));
    assert!(!names_a_client("use crate::core::Card;"));
    assert!(!names_a_client("//! the repl narrates events (crate::repl in a comment)"));
}

fn names_the_server(line: &str) -> bool {
    let code = code(line);
    code.contains("crate::server")
        || code.contains("diving::server")
        || has_word(code, "axum")
        || code.contains("tokio")
}

/// The server is an outer client: it depends on the core, the JSON layer and the save files;
/// nothing but the command line depends on it, and no other part names the network stack.
#[test]
fn nothing_but_the_cli_depends_on_the_server() {
    let mut files = Vec::new();
    for dir in ["src/core", "src/repl", "src/sim", "src/bots", "src/ruleset", "src/script"] {
        files.extend(sources_under(dir));
    }
    let found = breaches(&files, names_the_server);
    assert!(found.is_empty(), "dependencies point inward: only cli names the server:\n{}", found.join("\n"));
}

#[test]
fn the_server_check_catches_a_use_of_it() {
    assert!(names_the_server("use crate::server::room::Room;"));
    assert!(names_the_server("use axum::Router;"));
    assert!(names_the_server("let rt = tokio::runtime::Builder::new_current_thread();"));
    assert!(!names_the_server("//! the server (crate::server) shows events through this"));
}

/// The server's room, where every message is made, does no I/O of its own: no socket, file,
/// clock or printing (the edge, `server/net.rs`, passes the time in and saves).
#[test]
fn the_room_does_no_io() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/server/room.rs");
    let room = [(path.display().to_string(), fs::read_to_string(&path).unwrap())];
    let found = breaches(&room, |line| {
        let code = code(line);
        ["std::fs", "std::io", "println!", "eprintln!", "tokio", "axum", "Instant::now"]
            .iter()
            .any(|w| code.contains(w))
    });
    assert!(found.is_empty(), "the room is a state machine without I/O:\n{}", found.join("\n"));
}
