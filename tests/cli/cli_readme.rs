//! The README's examples are run: every `$ diving …` line of a ```console block, its output
//! compared with the lines below it. A line `...` stands for any number of lines, and `...`
//! inside a line for any text, so the README can elide what varies or runs long.

use crate::cli_support;

use cli_support::diving;

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
fn the_readme_examples_print_what_the_readme_says() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 3, "the README has its examples");
    for example in examples {
        let words: Vec<&str> = example.command.split_whitespace().collect();
        assert_eq!(words[0], "diving", "README examples run diving: {}", example.command);
        let output = diving().args(&words[1..]).write_stdin(example.stdin.clone()).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}: {}", example.command, String::from_utf8_lossy(&output.stderr));
        let stdout = String::from_utf8(output.stdout).unwrap();
        let actual: Vec<&str> = stdout.lines().collect();
        assert!(
            lines_match(&example.expected, &actual),
            "the README's example does not match:\n$ {}\n--- README ---\n{}\n--- actual ---\n{}",
            example.command,
            example.expected.join("\n"),
            stdout
        );
    }
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
