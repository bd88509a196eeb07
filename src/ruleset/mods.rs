//! The set of mods a ruleset loads, resolved before any of them loads: every mod's manifest
//! is read ([`read_manifest`]), `order` puts them in load order (a manifest's `after` and
//! `before`), then `resolve` refuses a set in which two mods share a name,
//! a mod's `requires` is missing, of a version outside its range or loaded after it, or a mod's
//! `conflicts` is loaded. Each message names both mods, their versions and files, and the range.
//!
//! [`ModRecord`] is what a save or replay keeps of each mod (name, version, path, content
//! hash); [`differences`] says, in words, what differs between a recorded set and a loaded one.

use serde::{Deserialize, Serialize};

use crate::core::Rules;
use crate::script::{Manifest, ModSource, read_manifest};

use super::{ErrorKind, RulesetError};

/// One mod of a loaded ruleset, as a save or replay records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModRecord {
    /// The manifest's name (or the file's, for a mod without a manifest).
    pub name: String,
    /// The manifest's version (`0.0.0` for a mod without a manifest).
    pub version: String,
    /// The file, as the ruleset names it (`rulesets/mods/shark.lua`, `my-mods/lucky.lua`).
    pub path: String,
    /// A hash of the file's text: `fnv1a64:` and 16 hex digits.
    pub hash: String,
}

impl ModRecord {
    pub(crate) fn new(source: &ModSource, manifest: &Manifest) -> ModRecord {
        ModRecord {
            name: manifest.name.clone(),
            version: manifest.version.to_string(),
            path: source.name.clone(),
            hash: content_hash(&source.code),
        }
    }
}

/// The hash [`ModRecord::hash`] holds: FNV-1a over the bytes of the text, 64 bits, the same on
/// every machine and build (unlike `std`'s hasher). It tells a changed file from the same
/// one; it is no protection against a file made to collide on purpose.
pub fn content_hash(text: &str) -> String {
    format!("fnv1a64:{:016x}", fnv1a64(text.as_bytes()))
}

/// FNV-1a over `bytes`, 64 bits: the one hash saves, replays and the server's ruleset check
/// use ([`content_hash`] is its written form).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_on(FNV1A64_START, bytes)
}

/// The FNV-1a hash of nothing, where [`fnv1a64_on`] starts.
pub const FNV1A64_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The FNV-1a hash `hash` (of some bytes) becomes when `bytes` follow them.
pub fn fnv1a64_on(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// What differs between the mods a save recorded and the mods loaded now, one sentence each,
/// in the saved order then the new mods; empty when they are the same set (same names,
/// versions and hashes, in the same order).
pub fn differences(saved: &[ModRecord], now: &[ModRecord]) -> Vec<String> {
    let mut out = Vec::new();
    for old in saved {
        match now.iter().find(|m| m.name == old.name) {
            None => out.push(format!("mod {} {} ({}) was loaded then and is not now", old.name, old.version, old.path)),
            Some(new) if new.version != old.version => out.push(format!(
                "mod {} was version {} ({}) and is {} now ({})",
                old.name, old.version, old.path, new.version, new.path
            )),
            Some(new) if new.hash != old.hash => out.push(format!(
                "mod {} {} ({}) changed: recorded with hash {}, now {}",
                new.name, new.version, new.path, old.hash, new.hash
            )),
            Some(_) => {}
        }
    }
    for new in now {
        if !saved.iter().any(|m| m.name == new.name) {
            out.push(format!("mod {} {} ({}) is loaded now and was not then", new.name, new.version, new.path));
        }
    }
    let order = |set: &[ModRecord]| -> Vec<String> {
        set.iter()
            .filter(|m| saved.iter().chain(now).filter(|o| o.name == m.name).count() == 2)
            .map(|m| m.name.clone())
            .collect()
    };
    if out.is_empty() && order(saved) != order(now) {
        out.push(format!(
            "the mods load in another order: {} then, {} now",
            order(saved).join(", "),
            order(now).join(", ")
        ));
    }
    out
}

/// The manifests of `mods`, in order.
pub(crate) fn manifests(rules: &Rules, mods: &[ModSource]) -> Result<Vec<Manifest>, RulesetError> {
    mods.iter().map(|m| read_manifest(rules, m).map_err(RulesetError::from)).collect()
}

/// `name version` for messages.
fn who(m: &Manifest) -> String {
    format!("{} {}", m.name, m.version)
}

/// The mods in load order: as the ruleset lists them, except that a mod whose manifest says
/// it comes `after` another the ruleset loads (or that the other comes `before` it) is moved
/// behind it. Mods no manifest orders keep their places relative to one another (the first
/// listed of those free to load goes next). Orders that cannot all hold are refused, naming
/// the mods caught in them.
pub(crate) fn order(
    mods: Vec<ModSource>,
    manifests: Vec<Manifest>,
) -> Result<(Vec<ModSource>, Vec<Manifest>), RulesetError> {
    let n = mods.len();
    let index = |name: &str| manifests.iter().position(|m| m.name == name);
    // `first[i][j]`: mod j must load before mod i.
    let mut first = vec![vec![false; n]; n];
    for (i, m) in manifests.iter().enumerate() {
        for j in m.after.iter().filter_map(|a| index(a)) {
            first[i][j] = true;
        }
        for j in m.before.iter().filter_map(|b| index(b)) {
            first[j][i] = true;
        }
    }
    if first.iter().all(|row| row.iter().all(|f| !f)) {
        return Ok((mods, manifests));
    }
    let mut placed = vec![false; n];
    let mut sequence = Vec::with_capacity(n);
    while sequence.len() < n {
        let free = (0..n).find(|&i| !placed[i] && (0..n).all(|j| placed[j] || !first[i][j]));
        match free {
            Some(i) => {
                placed[i] = true;
                sequence.push(i);
            }
            None => {
                let caught: Vec<String> = (0..n)
                    .filter(|&i| !placed[i])
                    .map(|i| format!("{} ({})", who(&manifests[i]), mods[i].name))
                    .collect();
                let i = (0..n).find(|&i| !placed[i]).expect("a mod is left");
                return Err(RulesetError {
                    kind: ErrorKind::Mod { file: mods[i].name.clone(), line: manifests[i].line },
                    message: format!(
                        "the manifests' `after` and `before` cannot all hold: {} each come after another of them",
                        caught.join(", ")
                    ),
                });
            }
        }
    }
    let mut mods: Vec<Option<ModSource>> = mods.into_iter().map(Some).collect();
    let mut manifests: Vec<Option<Manifest>> = manifests.into_iter().map(Some).collect();
    let mods = sequence.iter().map(|&i| mods[i].take().expect("each once")).collect();
    let manifests = sequence.iter().map(|&i| manifests[i].take().expect("each once")).collect();
    Ok((mods, manifests))
}

/// Checks that the set fits together (see the module docs); the error is placed at the
/// manifest of the mod whose requirement fails.
pub(crate) fn resolve(mods: &[ModSource], manifests: &[Manifest]) -> Result<(), RulesetError> {
    let at = |i: usize, message: String| RulesetError {
        kind: ErrorKind::Mod { file: mods[i].name.clone(), line: manifests[i].line },
        message,
    };
    for (i, m) in manifests.iter().enumerate() {
        if let Some(j) = manifests[..i].iter().position(|o| o.name == m.name) {
            return Err(at(
                i,
                format!(
                    "two mods are called {}: {} ({}) and {} ({}); a ruleset loads each mod once",
                    m.name, mods[j].name, manifests[j].version, mods[i].name, m.version
                ),
            ));
        }
    }
    for (i, m) in manifests.iter().enumerate() {
        for (name, range) in &m.requires {
            let Some(j) = manifests.iter().position(|o| &o.name == name) else {
                return Err(at(
                    i,
                    format!("{} requires {name} {range}, and the ruleset loads no mod called {name}", who(m)),
                ));
            };
            let other = &manifests[j];
            if !range.matches(&other.version) {
                return Err(at(
                    i,
                    format!(
                        "{} requires {name} {range}, but the ruleset loads {} ({})",
                        who(m),
                        who(other),
                        mods[j].name
                    ),
                ));
            }
            if j > i {
                return Err(at(
                    i,
                    format!(
                        "{} requires {name} {range}, which must load before it: list {} before {} in `mods`",
                        who(m),
                        mods[j].name,
                        mods[i].name
                    ),
                ));
            }
        }
        for (name, range) in &m.conflicts {
            if let Some(j) = manifests.iter().position(|o| &o.name == name && range.matches(&o.version)) {
                return Err(at(
                    i,
                    format!(
                        "{} conflicts with {name} {range}, and the ruleset also loads {} ({}): leave one of them out",
                        who(m),
                        who(&manifests[j]),
                        mods[j].name
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, version: &str, hash: &str) -> ModRecord {
        ModRecord { name: name.into(), version: version.into(), path: format!("{name}.lua"), hash: hash.into() }
    }

    #[test]
    fn the_hash_is_fnv1a_and_tells_texts_apart() {
        assert_eq!(content_hash(""), "fnv1a64:cbf29ce484222325");
        assert_eq!(content_hash("a"), "fnv1a64:af63dc4c8601ec8c");
        assert_ne!(content_hash("x = 1"), content_hash("x = 2"));
    }

    #[test]
    fn differences_name_every_change() {
        let saved = [record("a", "1.0.0", "h1"), record("b", "1.0.0", "h2"), record("c", "2.0.0", "h3")];
        assert!(differences(&saved, &saved).is_empty());
        let now = [record("a", "1.1.0", "h9"), record("c", "2.0.0", "h4"), record("d", "0.0.0", "h5")];
        assert_eq!(
            differences(&saved, &now),
            [
                "mod a was version 1.0.0 (a.lua) and is 1.1.0 now (a.lua)",
                "mod b 1.0.0 (b.lua) was loaded then and is not now",
                "mod c 2.0.0 (c.lua) changed: recorded with hash h3, now h4",
                "mod d 0.0.0 (d.lua) is loaded now and was not then",
            ]
        );
        let swapped = [saved[1].clone(), saved[0].clone(), saved[2].clone()];
        assert_eq!(differences(&saved, &swapped), ["the mods load in another order: a, b, c then, b, a, c now"]);
    }
}
