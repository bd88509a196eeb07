//! A ruleset held in memory rather than on disk: a player's ruleset brought to a host (its
//! TOML file and the Lua files it names, sent over the wire). It is read by the same reader
//! as a file on disk ([`super::Ruleset::from_bundle`]), but confined to its own files: its
//! `mods` name only files it holds (by their file name, so `mods/sharks.lua` finds
//! `sharks.lua`), and it `extends` only a shipped ruleset. So reading one never opens a file
//! of the machine it is read on, whatever it names.
//!
//! A bundle is bounded ([`Bounds`]: files, bytes in each and in all), its files are plain
//! file names ending `.toml` (exactly one) or `.lua`, and its [`Bundle::hash`] (SHA-256 over a
//! canonical form: the files sorted by name, each its name, its length and its text, line
//! ends as `\n`) names it: [`Bundle::id`] is the name players see (`sharks@1f2e3d4c5b6a`),
//! unique per content. A host registers the bundles it took ([`register`]), so that the spec
//! `upload:ID` loads one wherever a spec is read (a table, its replay, a resumed game).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, LazyLock, RwLock};

use sha2::{Digest, Sha256};

/// What a spec naming a registered bundle starts with (`upload:sharks@1f2e3d4c5b6a`).
pub const SPEC_PREFIX: &str = "upload:";

/// How many hex digits of the hash an id keeps (48 bits: two different uploads of one name
/// never meet on a host).
const ID_HASH_DIGITS: usize = 12;

/// The longest file name in a bundle, in characters.
pub const MAX_FILE_NAME: usize = 64;

/// How big a bundle may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Files in all (the TOML and its Lua files).
    pub files: usize,
    /// Bytes of one file.
    pub file_bytes: usize,
    /// Bytes of all the files together.
    pub bytes: usize,
}

/// Why files are not a bundle: too big (or too many), or not a ruleset's files.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    #[error("{0}")]
    TooBig(String),
    #[error("{0}")]
    Refused(String),
}

#[cfg(test)]
impl BundleError {
    fn contains(&self, text: &str) -> bool {
        self.to_string().contains(text)
    }

    fn starts_with(&self, text: &str) -> bool {
        self.to_string().starts_with(text)
    }
}

/// One file of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleFile {
    /// A plain file name (`sharks.lua`).
    pub name: String,
    pub text: String,
}

/// A ruleset's files, checked against their bounds, sorted by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    files: Vec<BundleFile>,
    hash: String,
    top: usize,
}

impl Bundle {
    /// The files as sent, checked: within `bounds`, plain names ending `.toml` (one) or
    /// `.lua`, each name once. The error names the file and the bound it breaks.
    pub fn new(files: Vec<BundleFile>, bounds: Bounds) -> Result<Bundle, BundleError> {
        use BundleError::{Refused, TooBig};
        if files.is_empty() {
            return Err(Refused("an uploaded ruleset needs its TOML file (and the Lua files it names)".into()));
        }
        if files.len() > bounds.files {
            return Err(TooBig(format!(
                "an uploaded ruleset has at most {} files (its TOML and Lua files); this one has {}",
                bounds.files,
                files.len()
            )));
        }
        let mut total = 0usize;
        let mut checked: Vec<BundleFile> = Vec::with_capacity(files.len());
        for file in files {
            check_name(&file.name).map_err(Refused)?;
            if file.text.len() > bounds.file_bytes {
                return Err(TooBig(format!(
                    "{}: a file of an uploaded ruleset has at most {} bytes; this one has {}",
                    file.name,
                    bounds.file_bytes,
                    file.text.len()
                )));
            }
            total += file.text.len();
            if checked.iter().any(|f| f.name == file.name) {
                return Err(Refused(format!("{}: the upload holds two files of this name", file.name)));
            }
            checked.push(BundleFile { text: file.text.replace("\r\n", "\n"), name: file.name });
        }
        if total > bounds.bytes {
            return Err(TooBig(format!(
                "an uploaded ruleset has at most {} bytes in all; this one has {total}",
                bounds.bytes
            )));
        }
        checked.sort_by(|a, b| a.name.cmp(&b.name));
        let tomls: Vec<usize> = (0..checked.len()).filter(|&i| checked[i].name.ends_with(".toml")).collect();
        let top = match tomls[..] {
            [one] => one,
            [] => {
                return Err(Refused("an uploaded ruleset needs its TOML file: none of the files ends in .toml".into()));
            }
            _ => {
                let names: Vec<&str> = tomls.iter().map(|&i| checked[i].name.as_str()).collect();
                return Err(Refused(format!(
                    "an uploaded ruleset has one TOML file (it may extend a shipped ruleset); this one has {}",
                    names.join(", ")
                )));
            }
        };
        let hash = canonical_hash(&checked);
        Ok(Bundle { files: checked, hash, top })
    }

    /// The files, sorted by name.
    pub fn files(&self) -> &[BundleFile] {
        &self.files
    }

    /// The ruleset's TOML file.
    pub fn top(&self) -> &BundleFile {
        &self.files[self.top]
    }

    /// The text of the file `name` names (by its file name: folders are left out).
    pub fn file(&self, name: &str) -> Option<&str> {
        let base = base_name(name);
        self.files.iter().find(|f| f.name == base).map(|f| f.text.as_str())
    }

    /// The SHA-256 of the canonical form, in hex.
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// The name players see: the TOML's `name` (else its file name) as a word, `@`, and the
    /// first hex digits of the hash (`sharks@1f2e3d4c5b6a`).
    pub fn id(&self) -> String {
        let top = self.top();
        let stem = top.name.strip_suffix(".toml").unwrap_or(&top.name);
        let title = toml_name(&top.text).unwrap_or_else(|| stem.to_string());
        let mut word = slug(&title);
        if word.is_empty() {
            word = slug(stem);
        }
        if word.is_empty() {
            word = "ruleset".into();
        }
        format!("{word}@{}", &self.hash[..ID_HASH_DIGITS])
    }

    /// The spec a table names it by once [`register`]ed.
    pub fn spec(&self) -> String {
        format!("{SPEC_PREFIX}{}", self.id())
    }

    /// The names of the files, for a message.
    pub fn names(&self) -> String {
        self.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
    }
}

/// The last part of a path (`mods/sharks.lua` → `sharks.lua`).
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// A file name a bundle may hold: 1 to [`MAX_FILE_NAME`] characters of letters, digits, `.`,
/// `_` and `-`, not starting with `.`, ending `.toml` or `.lua`.
fn check_name(name: &str) -> Result<(), String> {
    let shown: String = name.chars().filter(|c| !c.is_control()).take(MAX_FILE_NAME).collect();
    let plain = !name.is_empty()
        && name.chars().count() <= MAX_FILE_NAME
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !plain {
        return Err(format!(
            "'{shown}': a file of an uploaded ruleset is named by a plain file name (letters, digits, '.', '_' and \
             '-', at most {MAX_FILE_NAME} characters, no folder)"
        ));
    }
    if !(name.ends_with(".toml") || name.ends_with(".lua")) {
        return Err(format!("'{shown}': an uploaded ruleset holds its .toml file and .lua files only"));
    }
    Ok(())
}

/// SHA-256 over the files in order: for each, its name, a NUL, its length in bytes, a NUL, its
/// text.
fn canonical_hash(files: &[BundleFile]) -> String {
    let mut hasher = Sha256::new();
    for file in files {
        hasher.update(file.name.as_bytes());
        hasher.update([0]);
        hasher.update(file.text.len().to_string().as_bytes());
        hasher.update([0]);
        hasher.update(file.text.as_bytes());
    }
    hasher.finalize().iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// The `name` a ruleset file gives itself, if it reads as TOML and gives one.
fn toml_name(text: &str) -> Option<String> {
    let value: toml::Table = text.parse().ok()?;
    value.get("name")?.as_str().map(str::to_string)
}

/// A title as one lower-case word: letters and digits kept, anything else one `-`, at most
/// 32 characters.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 32 {
            break;
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The bundles a host took, by id: content-named, so a bundle once registered never changes.
static REGISTERED: LazyLock<RwLock<HashMap<String, Arc<Bundle>>>> = LazyLock::new(|| RwLock::new(HashMap::new()));

/// Makes `upload:ID` load `bundle` from now on; its spec.
pub fn register(bundle: Arc<Bundle>) -> String {
    let spec = bundle.spec();
    REGISTERED.write().unwrap_or_else(|e| e.into_inner()).insert(bundle.id(), bundle);
    spec
}

/// The bundle a spec `upload:ID` names, if it is registered.
pub fn registered(spec: &str) -> Option<Arc<Bundle>> {
    let id = spec.strip_prefix(SPEC_PREFIX)?;
    REGISTERED.read().unwrap_or_else(|e| e.into_inner()).get(id).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Bounds = Bounds { files: 3, file_bytes: 100, bytes: 150 };

    fn file(name: &str, text: &str) -> BundleFile {
        BundleFile { name: name.into(), text: text.into() }
    }

    #[test]
    fn a_bundle_is_named_by_its_content_whatever_the_order_of_its_files() {
        let a = Bundle::new(vec![file("r.toml", "name = \"Deep Sharks!\"\n"), file("s.lua", "x")], BOUNDS).unwrap();
        let b = Bundle::new(vec![file("s.lua", "x"), file("r.toml", "name = \"Deep Sharks!\"\r\n")], BOUNDS).unwrap();
        assert_eq!(a.hash(), b.hash(), "order and line ends do not change the hash");
        assert!(a.id().starts_with("deep-sharks@"), "{}", a.id());
        let c = Bundle::new(vec![file("r.toml", "name = \"Deep Sharks!\"\n"), file("s.lua", "y")], BOUNDS).unwrap();
        assert_ne!(a.id(), c.id(), "two uploads of one name are told apart");
        assert_eq!(a.file("mods/s.lua"), Some("x"));
    }

    #[test]
    fn a_bundle_keeps_to_its_bounds_and_plain_names() {
        let no = |files: Vec<BundleFile>| Bundle::new(files, BOUNDS).unwrap_err();
        assert!(no(vec![]).contains("needs its TOML"));
        assert!(no(vec![file("a.lua", "")]).contains("none of the files ends in .toml"));
        assert!(no(vec![file("a.toml", ""), file("b.toml", "")]).contains("one TOML file"));
        let four = (0..4).map(|i| file(&format!("{i}.lua"), "")).collect();
        assert!(no(four).contains("at most 3 files"));
        assert!(no(vec![file("a.toml", &"x".repeat(101))]).starts_with("a.toml: a file"));
        assert!(no(vec![file("a.toml", &"x".repeat(90)), file("b.lua", &"x".repeat(90))]).contains("150 bytes"));
        assert!(no(vec![file("../a.toml", "")]).contains("plain file name"));
        assert!(no(vec![file(".a.toml", "")]).contains("plain file name"));
        assert!(no(vec![file("a.toml", ""), file("a.sh", "")]).contains(".lua files only"));
        assert!(no(vec![file("a.toml", ""), file("a.toml", "")]).contains("two files"));
    }
}
