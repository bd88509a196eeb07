//! Architecture invariants read from the sources (see the crate docs). The rules core is
//! pure: nothing under `src/core/` names the Lua engine, the terminal, TOML, the command line,
//! files, standard I/O, printing, an unseeded RNG or serde (its wire formats are chosen at the
//! edges), and it has no `unsafe`. The clients `shell`, `table` and `sim` do not know the command line:
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
    let mut files = sources_under("src/shell");
    files.extend(sources_under("src/table"));
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
const CLIENTS: [&str; 13] =
    ["bots", "cli", "join", "limits", "main", "modkit", "ruleset", "script", "server", "shell", "sim", "table", "wire"];

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
    assert!(names_a_client("use crate::table::json;"));
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

/// The server is an outer client: it depends on the core, the table and the wire; nothing but
/// the command line depends on it, and no part but the server and `join` (the host's
/// terminal client) names the network stack.
#[test]
fn nothing_but_the_cli_depends_on_the_server() {
    let mut files = Vec::new();
    for dir in ["src/core", "src/table", "src/shell", "src/sim", "src/bots", "src/ruleset", "src/script", "src/wire"] {
        files.extend(sources_under(dir));
    }
    let found = breaches(&files, names_the_server);
    assert!(found.is_empty(), "dependencies point inward: only cli names the server:\n{}", found.join("\n"));
}

fn names_a_server_module(line: &str) -> bool {
    let code = code(line);
    code.contains("crate::server") || code.contains("diving::server") || has_word(code, "axum")
}

/// Whether a line of a client names the host's `server` module in any way (`crate::{server,
/// …}`, `super::super::server`): the word `server` outside strings, but for the wire's own
/// `wire::server` (what a host sends, which a client reads).
fn names_the_server_module(line: &str) -> bool {
    let code: String = code(line).split('"').step_by(2).collect();
    names_a_server_module(&code)
        || code.match_indices("server").any(|(at, _)| {
            let ident = |c: char| c.is_alphanumeric() || c == '_';
            !code[..at].chars().next_back().is_some_and(ident)
                && !code[at + 6..].chars().next().is_some_and(ident)
                && !code[..at].ends_with("wire::")
        })
}

/// No client imports a server module: `diving join` speaks to a host through the wire
/// ([`diving::wire`], the messages both ends share) and the table, never through the host's
/// own code (its rooms, database or network edge); the wire itself knows no server.
#[test]
fn no_client_imports_a_server_module() {
    let found = breaches(&sources_under("src/join"), names_the_server_module);
    assert!(found.is_empty(), "a client imports the server:\n{}", found.join("\n"));
    let found = breaches(&sources_under("src/wire"), names_a_server_module);
    assert!(found.is_empty(), "the wire imports the server:\n{}", found.join("\n"));
    assert!(names_a_server_module("use crate::server::db::Db;"));
    assert!(names_a_server_module("let x = diving::server::room::new_token();"));
    assert!(!names_a_server_module("use crate::wire::{ClientMessage, ServerMessage};"));
    assert!(!names_a_server_module("//! what the host (crate::server) sends"));
    for line in ["use crate::{server, wire};", "use super::super::server::db;", "server::db::boards(dir, None)"] {
        assert!(names_the_server_module(line), "{line}");
    }
    for line in [
        "use crate::wire::server::{Hello, Output};",
        r#"bail!("the server closed the connection")"#,
        "let servers = 2; // the server",
        "fn serverless() {}",
    ] {
        assert!(!names_the_server_module(line), "{line}");
    }
}

/// The browser page depends on the wire and nothing else of the host: what it knows of the
/// protocol (its version, what each error code means) comes from the host's `wire.js`, made
/// from the wire's types, not from lists of its own.
#[test]
fn the_page_reads_the_wire_from_the_host() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/server/web");
    let mut scripts = Vec::new();
    for entry in fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "js") {
            scripts.push((path.display().to_string(), fs::read_to_string(&path).unwrap()));
        }
    }
    assert!(!scripts.is_empty());
    // A list of error codes, a code compared by hand, or the version written out, is the
    // wire's to say.
    const CODES: [&str; 8] = ["protocol", "ruleset", "seat", "token", "full", "replaced", "name", "player"];
    let copies = |line: &str| {
        let code = code(line);
        let listed = CODES.iter().filter(|c| code.contains(&format!("\"{c}\""))).count() >= 2;
        let compared = ["code === \"", "code == \"", "code !== \""].iter().any(|c| code.contains(c));
        let version = code.contains("PROTOCOL = ") && code.chars().any(|c| c.is_ascii_digit());
        listed || compared || version
    };
    let found = breaches(&scripts, copies);
    assert!(found.is_empty(), "the page keeps its own copy of the wire:\n{}", found.join("\n"));
    assert!(copies(r#"  const FATAL = new Set(["protocol", "ruleset", "seat", "token", "full", "replaced"]);"#));
    assert!(copies("  const PROTOCOL = 5;"));
    assert!(copies(r#"      if (m.code === "name") {"#));
    assert!(!copies(r#"  const token = params.get("token");"#));
    // Nothing asks after a push: the page is pushed its view with every change.
    let asks = breaches(&scripts, |line| code(line).contains("seat_view"));
    assert!(asks.is_empty(), "the page asks for its view:\n{}", asks.join("\n"));
}

#[test]
fn the_server_check_catches_a_use_of_it() {
    assert!(names_the_server("use crate::server::room::Room;"));
    assert!(names_the_server("use axum::Router;"));
    assert!(names_the_server("let rt = tokio::runtime::Builder::new_current_thread();"));
    assert!(!names_the_server("//! the server (crate::server) shows events through this"));
}

fn names_the_shell(line: &str) -> bool {
    let code = code(line);
    code.contains("crate::shell") || code.contains("diving::shell")
}

/// The server is tables plus connections: it imports nothing from the terminal shell (the
/// interpreter, the rendering and the sessions are the table's, `src/table/`).
#[test]
fn the_server_imports_nothing_from_the_shell() {
    let found = breaches(&sources_under("src/server"), names_the_shell);
    assert!(found.is_empty(), "the server is a front end of the table, not of the shell:\n{}", found.join("\n"));
    assert!(names_the_shell("use crate::shell::terminal::Terminal;"));
    assert!(!names_the_shell("//! the shell (crate::shell) prints it"));
}

/// A line of code that dispatches on the typed commands (`Command::Play { .. } =>`).
fn dispatches_a_command(line: &str) -> bool {
    let code = code(line);
    code.contains("Command::") && code.contains("=>")
}

/// One interpreter: only the table matches on the commands a person types; the shell, the
/// server and `join` hand every line to [`Table::line`](diving::table::Table::line).
#[test]
fn only_the_table_interprets_commands() {
    let mut files = sources_under("src/shell");
    files.extend(sources_under("src/server"));
    files.extend(sources_under("src/join"));
    let found = breaches(&files, dispatches_a_command);
    assert!(found.is_empty(), "a front end interprets a command itself:\n{}", found.join("\n"));
    assert!(dispatches_a_command("            Command::Hint => self.hint(conn, seat, out),"));
    assert!(!dispatches_a_command("// Command::Hint => is the table's"));
}

/// One place decides what a viewer may see: outside the core, nothing asks whether a hand
/// is visible itself; the renderers read [`Observation`](diving::core::Observation), whose
/// hands are `None` where the viewer may not look.
#[test]
fn only_the_observation_decides_which_hands_are_seen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.retain(|(path, _)| !Path::new(path).starts_with(root.join("core")));
    let found = breaches(&files, |line| code(line).contains("sees_hand("));
    assert!(found.is_empty(), "a renderer decides itself which hands a viewer sees:\n{}", found.join("\n"));
}

fn reads_a_hand_from_the_game(line: &str) -> bool {
    let code = code(line);
    code.contains(".player(") && code.contains(").hand")
}

/// Front ends receive observations, never the whole game: the shell, the server and `join`
/// read a hand only through what the table or [`Observation`](diving::core::Observation) made
/// for one reader, never from `Game::player(seat).hand`; and the table makes what it tells a
/// reader (replies, narration, errors, the parse of a seat's command) from that reader's
/// observation or its seat's [`View`](diving::core::View) too.
#[test]
fn front_ends_read_no_hand_from_the_game() {
    let mut files = sources_under("src/shell");
    files.extend(sources_under("src/server"));
    files.extend(sources_under("src/join"));
    files.extend(sources_under("src/table"));
    let found = breaches(&files, reads_a_hand_from_the_game);
    assert!(found.is_empty(), "a front end reads a hand from the game itself:\n{}", found.join("\n"));
    assert!(reads_a_hand_from_the_game("let hand = game.player(seat).hand.iter();"));
    assert!(!reads_a_hand_from_the_game("let hand = Observation::of(game, viewer).hand(seat);"));
}

fn reads_its_own_output(line: &str) -> bool {
    let code = code(line);
    code.contains("ServerMessage::parse") || code.contains(r#"starts_with(r#"{"#) || code.contains("with_id(")
}

/// No outgoing message is edited or read again once made: the host makes each message whole,
/// typed ([`diving::wire::ServerMessage`]), and writes it to text once, as it leaves; it never
/// parses what it sent, nor edits its text by prefix.
#[test]
fn the_host_never_reads_back_what_it_sent() {
    let found = breaches(&sources_under("src/server"), reads_its_own_output);
    assert!(found.is_empty(), "the host reads or edits its own output:\n{}", found.join("\n"));
    assert!(reads_its_own_output(r##"    message.starts_with(r#"{"type":"screen""#)"##));
    assert!(reads_its_own_output("        *text = protocol::with_id(std::mem::take(text), &id);"));
    assert!(!reads_its_own_output("    let parsed = ClientMessage::parse(text);"));
}

/// The server's room and its lobby, where every message is made and every decision about a
/// client's message taken, do no I/O of their own: no socket, file, clock or printing (the
/// edge passes the time in, asks the database and saves).
#[test]
fn the_room_and_the_lobby_do_no_io() {
    let mut files = sources_under("src/server/room");
    assert!(files.len() >= 4, "the room's parts: {}", files.len());
    for part in ["src/server/lobby.rs", "src/server/fair.rs"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(part);
        files.push((path.display().to_string(), fs::read_to_string(&path).unwrap()));
    }
    // Their tests may read the clock (to have an instant to start from).
    for (_, text) in &mut files {
        *text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default().to_string();
    }
    let found = breaches(&files, |line| {
        let code = code(line);
        ["std::fs", "std::io", "println!", "eprintln!", "tokio", "axum", "Instant::now"]
            .iter()
            .any(|w| code.contains(w))
    });
    assert!(found.is_empty(), "the room and the lobby are state machines without I/O:\n{}", found.join("\n"));
}

// ----- no import circle inside a folder -----

/// The crate's modules, by path (`["core", "ctx"]` for `src/core/ctx.rs`), with their code
/// (comments left out, the `#[cfg(test)] mod tests` block too: tests may use anything).
fn modules() -> Vec<(Vec<String>, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files
        .into_iter()
        .map(|(path, text)| {
            let rel = Path::new(&path).strip_prefix(&root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                parts.pop();
            }
            let code: String = text
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or_default()
                .lines()
                .map(|line| code(line).to_string() + "\n")
                .collect();
            (parts, code)
        })
        .collect()
}

/// The paths a module's code names from this crate (`super::effects::Registry`,
/// `crate::core::{Card, ctx::Hooks}`, `use ctx::Context` in a `mod.rs`), made absolute: each
/// is the list of its segments, items included.
fn named_paths(module: &[String], is_folder: bool, code: &str, children: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let bytes: Vec<char> = code.chars().collect();
    let text: String = bytes.iter().collect();
    // Every `crate::…`, `super::…`, `self::…`, and in a folder's own module `child::…`.
    let mut starts: Vec<&str> = vec!["crate", "super", "self"];
    if is_folder {
        starts.extend(children.iter().map(String::as_str));
    }
    for start in starts {
        for (at, _) in text.match_indices(&format!("{start}::")) {
            if text[..at].chars().next_back().is_some_and(|c| ident(c) || c == ':') {
                continue;
            }
            let base: Vec<String> = match start {
                "crate" => Vec::new(),
                "self" => module.to_vec(),
                "super" => {
                    // `super` of a file is its folder's module; of a folder, the folder above.
                    let mut base = module.to_vec();
                    base.pop();
                    base
                }
                child => {
                    let mut base = module.to_vec();
                    base.push(child.to_string());
                    base
                }
            };
            let rest = &text[at + start.len() + 2..];
            for tail in expand(rest) {
                let mut path = base.clone();
                for seg in tail {
                    if seg == "super" {
                        path.pop();
                    } else if seg != "self" {
                        path.push(seg);
                    }
                }
                found.push(path);
            }
        }
    }
    found
}

/// The paths `rest` (what follows `prefix::`) spells: `a::b::C` is one, `{a, b::{C, D}}` three.
fn expand(rest: &str) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let rest = rest.trim_start();
    if let Some(inner) = rest.strip_prefix('{') {
        // The items of the group, split at its top-level commas.
        let (mut depth, mut end) = (0, inner.len());
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    end = i;
                    break;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        let group = &inner[..end];
        let mut items = Vec::new();
        let (mut depth, mut from) = (0, 0);
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&group[from..i]);
                    from = i + 1;
                }
                _ => {}
            }
        }
        items.push(&group[from..]);
        return items.into_iter().filter(|i| !i.trim().is_empty()).flat_map(expand).collect();
    }
    let word: String = rest.chars().take_while(|&c| ident(c)).collect();
    if word.is_empty() {
        return vec![Vec::new()];
    }
    let after = &rest[word.len()..];
    match after.strip_prefix("::") {
        Some(more) => {
            expand(more).into_iter().map(|tail| std::iter::once(word.clone()).chain(tail).collect()).collect()
        }
        None => vec![vec![word]],
    }
}

/// For each folder's module, the items it re-exports from its children (`pub use
/// ctx::{Context, Hooks}` in `core/mod.rs`: `Context` → `ctx`).
fn re_exports(modules: &[(Vec<String>, String)]) -> Vec<(Vec<String>, String, String)> {
    let mut out = Vec::new();
    for (module, code) in modules {
        for line in code.split(';') {
            let line = line.trim();
            let Some(rest) = line.strip_prefix("pub use ") else { continue };
            for path in expand(rest) {
                if path.len() >= 2 {
                    let item = path.last().unwrap().split(" as ").next().unwrap().trim().to_string();
                    out.push((module.clone(), item, path[0].clone()));
                }
            }
        }
    }
    out
}

/// The import arrows between the parts of one folder (its files, and its sub-folders as
/// wholes): `(from, to)` by part name.
fn arrows_inside(folder: &[String], modules: &[(Vec<String>, String)]) -> Vec<(String, String)> {
    let exports = re_exports(modules);
    let children: Vec<String> = modules
        .iter()
        .filter(|(m, _)| m.len() == folder.len() + 1 && m.starts_with(folder))
        .map(|(m, _)| m.last().unwrap().clone())
        .collect();
    let part_of = |path: &[String]| -> Option<String> {
        (path.len() > folder.len() && path.starts_with(folder))
            .then(|| path[folder.len()].clone())
            .filter(|p| children.contains(p))
    };
    let mut arrows = Vec::new();
    for (module, code) in modules {
        let Some(from) = part_of(module) else { continue };
        let is_folder = modules.iter().any(|(m, _)| m.len() == module.len() + 1 && m.starts_with(module));
        let own: Vec<String> = modules
            .iter()
            .filter(|(m, _)| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|(m, _)| m.last().unwrap().clone())
            .collect();
        for path in named_paths(module, is_folder, code, &own) {
            // An item the folder's module re-exports lives in the child it comes from.
            let to = match part_of(&path) {
                Some(to) => Some(to),
                None if path.len() == folder.len() + 1 && path.starts_with(folder) => exports
                    .iter()
                    .find(|(m, item, _)| m.as_slice() == folder && *item == path[folder.len()])
                    .map(|(_, _, child)| child.clone())
                    .filter(|c| children.contains(c)),
                None => None,
            };
            if let Some(to) = to
                && to != from
                && !arrows.contains(&(from.clone(), to.clone()))
            {
                arrows.push((from.clone(), to));
            }
        }
    }
    arrows
}

/// The circles among `arrows`: each strongly connected group of two or more parts, sorted.
fn circles(arrows: &[(String, String)]) -> Vec<Vec<String>> {
    let mut nodes: Vec<String> = arrows.iter().flat_map(|(a, b)| [a.clone(), b.clone()]).collect();
    nodes.sort();
    nodes.dedup();
    let reaches = |from: &str, to: &str| {
        let mut seen = vec![from.to_string()];
        let mut stack = vec![from.to_string()];
        while let Some(n) = stack.pop() {
            for (a, b) in arrows {
                if *a == n && !seen.contains(b) {
                    seen.push(b.clone());
                    stack.push(b.clone());
                }
            }
        }
        seen.iter().any(|s| s == to)
    };
    let mut groups: Vec<Vec<String>> = Vec::new();
    for n in &nodes {
        if groups.iter().any(|g| g.contains(n)) {
            continue;
        }
        let group: Vec<String> = nodes.iter().filter(|m| reaches(n, m) && reaches(m, n)).cloned().collect();
        if group.len() > 1 {
            groups.push(group);
        }
    }
    groups
}

/// Folders whose parts still import one another in a circle, as they stand, each to be
/// taken apart (issue #30): a new circle, or a change to one of these, fails the test.
const KNOWN_CIRCLES: &[(&str, &[&str])] = &[];

#[test]
fn no_folder_has_an_import_circle() {
    let modules = modules();
    let mut folders: Vec<Vec<String>> = modules
        .iter()
        .filter(|(m, _)| modules.iter().any(|(c, _)| c.len() == m.len() + 1 && c.starts_with(m)))
        .map(|(m, _)| m.clone())
        .collect();
    folders.sort();
    assert!(folders.iter().any(|f| f == &["core"]), "found the folders {folders:?}");
    let mut found = Vec::new();
    for folder in &folders {
        let name = folder.join("/");
        for circle in circles(&arrows_inside(folder, &modules)) {
            let known = KNOWN_CIRCLES.iter().any(|(f, parts)| *f == name && parts.iter().eq(circle.iter()));
            if !known {
                found.push(format!("src/{name}: {}", circle.join(" ↔ ")));
            }
        }
    }
    assert!(found.is_empty(), "parts of a folder import one another in a circle:\n{}", found.join("\n"));
}

#[test]
fn the_circle_check_reads_paths_groups_and_re_exports() {
    let module = |path: &str, code: &str| {
        (path.split('/').filter(|s| !s.is_empty()).map(String::from).collect::<Vec<_>>(), code.to_string())
    };
    let modules = vec![
        module("core", "pub mod a; pub mod b; pub mod c;\npub use b::{Bee, Other};\n"),
        module("core/a", "use super::{b::Bee, c};\n"),
        module("core/b", "fn f() -> crate::core::c::Sea { todo!() }\n"),
        module("core/c", "use crate::core::Bee;\n"),
    ];
    let arrows = arrows_inside(&["core".to_string()], &modules);
    for arrow in [("a", "b"), ("a", "c"), ("b", "c"), ("c", "b")] {
        assert!(arrows.contains(&(arrow.0.to_string(), arrow.1.to_string())), "{arrow:?} in {arrows:?}");
    }
    assert_eq!(circles(&arrows), vec![vec!["b".to_string(), "c".to_string()]]);
    let clean =
        vec![module("core", "pub mod a; pub mod b;\n"), module("core/a", "use super::b::X;\n"), module("core/b", "")];
    assert!(circles(&arrows_inside(&["core".to_string()], &clean)).is_empty());
}
