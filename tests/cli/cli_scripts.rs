//! Every example script in `scripts/` runs without a rejected command. A script names the
//! command that plays it in a comment line starting with `# diving `.

use crate::cli_support;

use cli_support::*;

#[test]
fn every_example_script_plays_without_errors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut played = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let command = text
            .lines()
            .find_map(|l| l.strip_prefix("# diving "))
            .unwrap_or_else(|| panic!("{} names no '# diving …' command line", path.display()));
        let output = diving().arg("--json").args(command.split_whitespace()).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}: {}", path.display(), String::from_utf8_lossy(&output.stderr));
        let lines = json_lines(&output.stdout);
        assert!(errors(&lines).is_empty(), "{}: {:?}", path.display(), errors(&lines));
        played += 1;
    }
    assert!(played >= 2, "the examples are there");
}
