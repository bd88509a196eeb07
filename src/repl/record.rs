//! What a replay records of the game's ruleset, and how a recording is checked against the
//! ruleset and mods in hand: content hashes of the rules and of every mod, a hash of every
//! step (the events of a move and the state it leaves), and the differences in words.
//!
//! The hashes are FNV-1a, 64 bits (`fnv1a64:` and 16 hex digits): stable across machines and
//! builds, which `std`'s hasher is not. They detect a changed file or a game that replays
//! differently; they are not a defence against someone forging a file.

use crate::core::{Event, Game, Viewer};
use crate::repl::json;
use crate::ruleset::Ruleset;

pub use crate::ruleset::ModRecord;

/// The content hash of a ruleset's rules: every number in force, as `diving rules --json`
/// writes them (so a comment or a reordered key in the TOML does not change it, and the same
/// rules reached through another file or name have the same hash). The mods are recorded
/// apart ([`Ruleset::mod_set`]).
pub fn rules_hash(ruleset: &Ruleset) -> String {
    crate::ruleset::content_hash(&json::rules("", &ruleset.rules).to_string())
}

/// What is different between the ruleset a game was recorded under (`name`, `hash`, `mods`)
/// and `ruleset`, one sentence per difference naming the file and both hashes; empty when
/// nothing is.
pub fn differences(name: &str, hash: &str, mods: &[ModRecord], ruleset: &Ruleset) -> Vec<String> {
    let mut out = Vec::new();
    let now = rules_hash(ruleset);
    if now != hash {
        out.push(format!(
            "the rules differ: recorded under '{name}' with rules hash {hash}, now '{}' has {now}",
            ruleset.name
        ));
    }
    out.extend(crate::ruleset::differences(mods, &ruleset.mod_set()));
    out
}

/// The hash of one step of a game: the events a move caused, as a script sees them (every
/// card), and the state it left (`game`, after the move) as the JSON `state` object has it.
/// Two replays of a move agree exactly when their steps' hashes do.
pub fn step_hash(game: &Game, bots: &[Option<String>], events: &[Event]) -> u64 {
    // The text is hashed as it is written, never built: building the state object and each
    // event's, and their text, took most of the time of a move on the server.
    let mut hash = Fnv1a64::default();
    json::write_state(&mut hash, game, bots).expect("a state serialises");
    for e in events {
        hash.update(b"\n");
        json::write_event(&mut hash, game, e, Viewer::Everyone).expect("an event serialises");
    }
    hash.0
}

/// [`fnv1a64`](crate::ruleset::fnv1a64) of the bytes written to it.
struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Fnv1a64 {
        Fnv1a64(crate::ruleset::FNV1A64_START)
    }
}

impl Fnv1a64 {
    fn update(&mut self, bytes: &[u8]) {
        self.0 = crate::ruleset::fnv1a64_on(self.0, bytes);
    }
}

impl std::io::Write for Fnv1a64 {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// [`step_hash`] as it is written in a file.
pub fn step_text(hash: u64) -> String {
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_ruleset_has_no_differences() {
        let house = Ruleset::load("house").unwrap();
        assert!(differences("house", &rules_hash(&house), &house.mod_set(), &house).is_empty());
    }

    #[test]
    fn a_changed_mod_and_changed_rules_are_named_with_their_hashes() {
        let house = Ruleset::load("house").unwrap();
        let mut mods = house.mod_set();
        let path = mods[0].path.clone();
        mods[0].hash = "fnv1a64:0000000000000000".into();
        mods.push(ModRecord {
            name: "gone".into(),
            version: "1.0.0".into(),
            path: "gone.lua".into(),
            hash: "fnv1a64:1111111111111111".into(),
        });
        let found = differences("house", "fnv1a64:2222222222222222", &mods, &house);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].contains("recorded under 'house' with rules hash fnv1a64:2222222222222222"), "{found:?}");
        assert!(
            found[1].contains(&format!("({path}) changed: recorded with hash fnv1a64:0000000000000000, now")),
            "{found:?}"
        );
        assert_eq!(found[2], "mod gone 1.0.0 (gone.lua) was loaded then and is not now");
        let standard = Ruleset::standard();
        let found = differences("house", &rules_hash(&house), &house.mod_set(), &standard);
        assert!(found.iter().any(|d| d.ends_with("was loaded then and is not now")), "{found:?}");
    }
}
