//! The README and the pages of `docs/` are kept true: every `$ diving …` line of a ```console
//! block is run, its output compared with the lines below it (a line `...` stands for any
//! number of lines, and `...` inside a line for any text, so a page can elide what varies or
//! runs long); every relative link leads to a file; the README stays a front door.

use crate::cli_support;

use std::path::{Path, PathBuf};

use cli_support::diving;

/// The README and every page of `docs/`, by their paths from the repository's root.
fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("a docs folder")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    pages.insert(0, root.join("README.md"));
    pages
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(root).unwrap().display().to_string();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

/// One example: the command line, the text fed to it, the output it must print.
struct Example {
    command: String,
    stdin: String,
    expected: Vec<String>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            in_console = line.trim() == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            let (stdin, command) = split_printf(command);
            out.push(Example { command, stdin, expected: Vec::new() });
        } else if let Some(example) = out.last_mut() {
            example.expected.push(line.to_string());
        }
    }
    out
}

/// `printf 'a\nb\n' | diving …` → the text `a\nb\n` and `diving …`.
fn split_printf(command: &str) -> (String, String) {
    if let Some(rest) = command.strip_prefix("printf '") {
        let (text, after) = rest.split_once('\'').expect("a closing quote");
        let after = after.trim_start().strip_prefix('|').expect("printf is piped into diving").trim();
        return (text.replace("\\n", "\n"), after.to_string());
    }
    (String::new(), command.to_string())
}

fn line_matches(expected: &str, actual: &str) -> bool {
    if !expected.contains("...") || expected == actual {
        return expected == actual;
    }
    let parts: Vec<&str> = expected.split("...").collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || !actual[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((e, rest)) => actual.first().is_some_and(|a| line_matches(e, a)) && lines_match(rest, &actual[1..]),
    }
}

#[test]
fn the_readme_starts_with_the_play_and_test_commands() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start: Vec<&str> = readme.lines().take(6).collect();
    assert_eq!(
        start,
        [
            "# Diving Suits",
            "",
            "```sh",
            "cargo run --release        # play",
            "cargo test                 # run the tests",
            "```"
        ]
    );
}

#[test]
fn the_examples_print_what_the_pages_say() {
    let mut run = 0;
    for (page, text) in documents() {
        for example in examples(&text) {
            let words: Vec<&str> = example.command.split_whitespace().collect();
            assert_eq!(words[0], "diving", "{page}: examples run diving: {}", example.command);
            let output = diving().args(&words[1..]).write_stdin(example.stdin.clone()).output().unwrap();
            assert_eq!(
                output.status.code(),
                Some(0),
                "{page}: {}: {}",
                example.command,
                String::from_utf8_lossy(&output.stderr)
            );
            let stdout = String::from_utf8(output.stdout).unwrap();
            let actual: Vec<&str> = stdout.lines().collect();
            assert!(
                lines_match(&example.expected, &actual),
                "{page}'s example does not match:\n$ {}\n--- {page} ---\n{}\n--- actual ---\n{}",
                example.command,
                example.expected.join("\n"),
                stdout
            );
            run += 1;
        }
    }
    // The README's scripted game, `diving rules` (playing), a whole game and the JSON
    // contract (scripting): moving a page must not lose its examples.
    assert!(run >= 4, "the pages have their examples ({run} run)");
}

/// Each page that had examples in the README still has them where it moved.
#[test]
fn each_moved_example_is_on_its_page() {
    let documents = documents();
    let commands = |name: &str| -> Vec<String> {
        let (_, text) = documents.iter().find(|(page, _)| page == name).unwrap_or_else(|| panic!("no {name}"));
        examples(text).into_iter().map(|example| example.command).collect()
    };
    assert!(commands("README.md").iter().any(|c| c.starts_with("diving --players alice,bob --deck")));
    assert_eq!(commands("docs/playing.md"), ["diving rules"]);
    let scripting = commands("docs/scripting.md");
    assert!(scripting.iter().any(|c| c.contains("--script scripts/short-game.txt")), "{scripting:?}");
    assert!(scripting.iter().any(|c| c.starts_with("diving --json play")), "{scripting:?}");
}

/// `[text](target)` links that are not web addresses or anchors in the same page.
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            if !target.contains("://") && !target.starts_with('#') {
                out.push(target.to_string());
            }
            rest = &after[end..];
        }
    }
    out
}

/// The anchors GitHub makes of a page's headings: lower case, spaces to `-`, punctuation
/// other than `-` and `_` dropped.
fn anchors(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix('#'))
        .map(|heading| {
            heading
                .trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_link_of_the_pages_leads_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for (page, text) in documents() {
        let folder = root.join(&page).parent().unwrap().to_path_buf();
        for link in relative_links(&text) {
            let (file, anchor) = link.split_once('#').map_or((link.as_str(), None), |(f, a)| (f, Some(a)));
            let target = folder.join(file);
            assert!(target.exists(), "{page}: the link {link} leads to nothing");
            if let Some(anchor) = anchor {
                let text = std::fs::read_to_string(&target).unwrap();
                assert!(anchors(&text).iter().any(|a| a == anchor), "{page}: {link}: no heading makes #{anchor}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "the pages link to each other ({checked} links)");
}

#[test]
fn the_readme_is_a_front_door_to_every_page() {
    let documents = documents();
    let readme = &documents[0].1;
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines: the details go in docs/");
    let links = relative_links(readme);
    for (page, _) in &documents[1..] {
        assert!(
            links.iter().any(|link| link.split('#').next() == Some(page.as_str())),
            "README.md does not link {page}"
        );
    }
    assert!(links.iter().any(|link| link == "rulesets/MODDING.md"), "README.md links the mod guide");
}

#[test]
fn the_matcher_elides_with_dots() {
    let e = |lines: &[&str]| lines.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&e(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(lines_match(&e(&["a", "...", "b"]), &["a", "b"]));
    assert!(!lines_match(&e(&["a", "d"]), &["a", "b", "d"]));
    assert!(lines_match(&e(&["seed ... (replay with --seed ...)"]), &["seed 12 (replay with --seed 12)"]));
    assert!(!lines_match(&e(&["seed ... (replay"]), &["seeds 12 (replay"]));
}
