//! Rulesets at the edge: TOML files (and the shipped rulesets, embedded in the binary) read
//! into validated core [`Rules`], plus the list of Lua mods that build the game's
//! [`Registry`].
//!
//! A ruleset file sets only what it changes: it starts from the standard rules, or from the
//! ruleset it `extends` (a shipped name or another file, relative to it), and adds its `mods`
//! after the base's. The shipped rulesets and their mods are compiled into the binary, so
//! `--ruleset house` works from any directory; their relative paths resolve among the
//! embedded files.
//!
//! Before the mods load, their manifests are read and the set is resolved ([`mods`]): a set
//! whose mods do not fit together (a missing or wrong-version `requires`, a `conflicts`, two
//! mods of one name) is refused with both mods named. [`Ruleset::mod_set`] is what a save
//! records of the mods.
//!
//! Architecture invariant: the core never sees TOML or a file. What leaves this module is a
//! [`Rules`] that passed [`Rules::validate`] (plus the check that every allowed player count
//! can be dealt) and the text of the mods; [`Ruleset::registry`] turns the mods into a fresh
//! [`Registry`] (a new Lua state each call, so each thread can have its own).

pub mod bundle;
pub mod check;
mod file;
pub mod mods;

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::core::{Registry, Rules};
use crate::limits::{self, FileKind};
use crate::script::{CopyWatch, Manifest, ModError, ModSource, load_mods, load_watched};

pub use bundle::{Bounds, Bundle, BundleFile};
pub use check::{SmokeFailure, SmokeReport, smoke, smoke_counts};
pub use mods::{FNV1A64_START, ModRecord, content_hash, differences, fnv1a64, fnv1a64_on};

use file::{Origins, Place, Source};

/// A ruleset ready to play: the numbers, and how to build the registry.
#[derive(Debug, Clone)]
pub struct Ruleset {
    /// How the user named it (`standard`, `meters`, `house.toml` …).
    pub name: String,
    pub rules: Arc<Rules>,
    /// The file's own `name`, if it gives one (`"House rules"`).
    pub title: Option<String>,
    pub description: Option<String>,
    /// The mods, in load order (the base ruleset's first, then as listed, moved behind the mods
    /// their manifests say they come `after`).
    pub mods: Arc<[ModSource]>,
    /// Their manifests, in the same order (a default one for a mod that declares none).
    pub manifests: Arc<[Manifest]>,
    /// Where it was read from (`rulesets/house.toml`); `None` for [`Ruleset::standard`].
    pub file: Option<String>,
    /// The files it was read from, when it was brought in memory (an upload to a host).
    pub bundle: Option<Arc<Bundle>>,
}

/// A ruleset that could not be read. Its `Display` is the whole message for the user,
/// located: `file:line:col: message` for the TOML, `mod file:line: message` for a mod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesetError {
    pub kind: ErrorKind,
    pub message: String,
}

/// Where a [`RulesetError`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// In a ruleset file.
    Toml { file: String, line: usize, col: usize },
    /// In a mod (`line` when known).
    Mod { file: String, line: Option<u32> },
    /// Not in any file (the ruleset could not be found).
    Unplaced,
}

impl RulesetError {
    pub(crate) fn at(file: &str, line: usize, col: usize, message: impl Into<String>) -> RulesetError {
        RulesetError { kind: ErrorKind::Toml { file: file.to_string(), line, col }, message: message.into() }
    }

    fn at_place(place: &Place, message: impl Into<String>) -> RulesetError {
        RulesetError::at(&place.file, place.line, place.col, message)
    }

    fn unplaced(message: impl Into<String>) -> RulesetError {
        RulesetError { kind: ErrorKind::Unplaced, message: message.into() }
    }

    /// This error of loading `spec`, naming it when the error is in no file (the ruleset
    /// could not be found or read: "no such file" alone would not say which).
    pub fn of_loading(self, spec: &str) -> RulesetError {
        match self.kind {
            ErrorKind::Unplaced => RulesetError::unplaced(format!("cannot load ruleset '{spec}': {}", self.message)),
            _ => self,
        }
    }

    /// The error as a compiler reports it: `file:line:col: error: message`.
    pub fn compiler_line(&self) -> String {
        match &self.kind {
            ErrorKind::Toml { file, line, col } => format!("{file}:{line}:{col}: error: {}", self.message),
            ErrorKind::Mod { file, line: Some(line) } => format!("{file}:{line}: error: {}", self.message),
            ErrorKind::Mod { file, line: None } => format!("{file}: error: {}", self.message),
            ErrorKind::Unplaced => format!("error: {}", self.message),
        }
    }
}

impl From<ModError> for RulesetError {
    fn from(e: ModError) -> RulesetError {
        RulesetError { kind: ErrorKind::Mod { file: e.0.file, line: e.0.line }, message: e.0.message }
    }
}

impl fmt::Display for RulesetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Toml { file, line, col } => write!(f, "{file}:{line}:{col}: {}", self.message),
            ErrorKind::Mod { file, line: Some(line) } => write!(f, "mod {file}:{line}: {}", self.message),
            ErrorKind::Mod { file, line: None } => write!(f, "mod {file}: {}", self.message),
            ErrorKind::Unplaced => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for RulesetError {}

/// The shipped rulesets, by name, with their file path in the repository.
const SHIPPED: &[(&str, &str)] = &[
    ("standard", "rulesets/standard.toml"),
    ("meters", "rulesets/meters.toml"),
    ("big-table", "rulesets/big-table.toml"),
    ("house", "rulesets/house.toml"),
];

/// Every file compiled into the binary: the shipped rulesets and the example mods.
const EMBEDDED: &[(&str, &str)] = &[
    ("rulesets/standard.toml", include_str!("../../rulesets/standard.toml")),
    ("rulesets/meters.toml", include_str!("../../rulesets/meters.toml")),
    ("rulesets/big-table.toml", include_str!("../../rulesets/big-table.toml")),
    ("rulesets/house.toml", include_str!("../../rulesets/house.toml")),
    ("rulesets/mods/shark.lua", include_str!("../../rulesets/mods/shark.lua")),
    ("rulesets/mods/jolt-rebound.lua", include_str!("../../rulesets/mods/jolt-rebound.lua")),
    ("rulesets/mods/knot-squeeze.lua", include_str!("../../rulesets/mods/knot-squeeze.lua")),
    ("rulesets/mods/thermocline.lua", include_str!("../../rulesets/mods/thermocline.lua")),
    ("rulesets/mods/treasure.lua", include_str!("../../rulesets/mods/treasure.lua")),
];

/// The names of the shipped rulesets.
pub fn shipped_names() -> impl Iterator<Item = &'static str> {
    SHIPPED.iter().map(|(name, _)| *name)
}

/// The text of an embedded file (`rulesets/mods/shark.lua`), if there is one.
pub fn embedded_file(path: &str) -> Option<&'static str> {
    EMBEDDED.iter().find(|(p, _)| *p == path).map(|(_, text)| *text)
}

/// Where a file comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Disk(PathBuf),
    /// A path among [`EMBEDDED`].
    Shipped(String),
    /// A file of a ruleset held in memory: found among its files by its file name.
    Bundle(Arc<Bundle>, String),
}

impl Origin {
    /// The name errors use.
    fn display(&self) -> String {
        match self {
            Origin::Disk(path) => tidy(path),
            Origin::Shipped(path) => path.clone(),
            Origin::Bundle(_, name) => name.clone(),
        }
    }

    /// A key that is the same for the same file (for cycle detection).
    fn identity(&self) -> String {
        match self {
            Origin::Disk(path) => std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()).display().to_string(),
            Origin::Shipped(path) => format!("shipped:{path}"),
            Origin::Bundle(bundle, name) => format!("upload:{}:{name}", bundle.hash()),
        }
    }

    /// The file's text, read as `kind` (with its size limit).
    fn read(&self, kind: FileKind) -> Result<String, String> {
        match self {
            Origin::Disk(path) => limits::read_text(path, kind).map_err(|e| e.to_string()),
            Origin::Shipped(path) => {
                embedded_file(path).map(str::to_string).ok_or_else(|| "no such shipped file".to_string())
            }
            Origin::Bundle(bundle, name) => bundle
                .file(name)
                .map(str::to_string)
                .ok_or_else(|| format!("the upload holds no file of that name (it holds {})", bundle.names())),
        }
    }

    /// `relative` resolved against this file's directory.
    fn join(&self, relative: &str) -> Origin {
        match self {
            Origin::Disk(path) => {
                let dir = path.parent().unwrap_or(Path::new(""));
                Origin::Disk(dir.join(relative))
            }
            Origin::Shipped(path) => {
                let dir = Path::new(path).parent().unwrap_or(Path::new(""));
                Origin::Shipped(normalize(&dir.join(relative)))
            }
            Origin::Bundle(bundle, _) => Origin::Bundle(bundle.clone(), relative.to_string()),
        }
    }
}

/// A path on disk as a user reads it: `./` and `dir/..` left out (`rules/./mods/../x.lua` →
/// `rules/x.lua`), a leading `..` and the root kept. For showing only: the file is read
/// through the path as written, which is the same file unless a directory is a link.
fn tidy(path: &Path) -> String {
    let mut parts: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(parts.last(), Some(Component::Normal(_))) => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        return ".".to_string();
    }
    parts.iter().collect::<PathBuf>().display().to_string()
}

/// `a/b/../c` → `a/c`, with forward slashes.
fn normalize(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

fn shipped(name: &str) -> Option<Origin> {
    SHIPPED.iter().find(|(n, _)| *n == name).map(|(_, path)| Origin::Shipped(path.to_string()))
}

fn shipped_list() -> String {
    shipped_names().collect::<Vec<_>>().join(", ")
}

/// A ruleset file read and merged over its bases, not yet validated as a whole.
struct Merged {
    rules: Rules,
    origins: Origins,
    mods: Vec<ModSource>,
    title: Option<String>,
    description: Option<String>,
}

impl Ruleset {
    /// The standard ruleset (the decisions, no mods).
    pub fn standard() -> Ruleset {
        Ruleset {
            name: "standard".into(),
            rules: Arc::new(Rules::default()),
            title: Some("Standard".into()),
            description: None,
            mods: Arc::from(Vec::new()),
            manifests: Arc::from(Vec::new()),
            file: None,
            bundle: None,
        }
    }

    /// Reads a ruleset from a file path, or a shipped ruleset by name (`meters`, or
    /// `meters.toml` when no such file exists here). Checks the numbers and loads the mods
    /// once, so every error shows up here.
    pub fn load(spec: &str) -> Result<Ruleset, RulesetError> {
        if spec.starts_with(bundle::SPEC_PREFIX) {
            let Some(held) = bundle::registered(spec) else {
                return Err(RulesetError::unplaced(
                    "no ruleset brought to this host has that name (name its file with --ruleset FILE)",
                ));
            };
            return Ruleset::read_bundle(spec, held);
        }
        let origin = Ruleset::find(spec)?;
        let mut chain = vec![origin.identity()];
        let text = origin.read(FileKind::Ruleset).map_err(|e| RulesetError::unplaced(e.to_string()))?;
        let merged = read_merged(&origin, &text, &mut chain)?;
        let top = origin.display();
        Ruleset::finish(spec, merged, top)
    }

    /// Reads a ruleset from text, as if it were the file `name` (relative `extends` and `mods`
    /// resolve against `name`'s directory on disk).
    pub fn from_text(name: &str, text: &str) -> Result<Ruleset, RulesetError> {
        let origin = Origin::Disk(PathBuf::from(name));
        let mut chain = vec![origin.identity()];
        let merged = read_merged(&origin, text, &mut chain)?;
        Ruleset::finish(name, merged, name.to_string())
    }

    /// Reads a ruleset held in memory (a player's upload), confined to its files: `mods` name
    /// only files it holds, and it extends only a shipped ruleset. Errors name its files as
    /// they were sent (`sharks.lua:3: …`).
    pub fn from_bundle(held: Arc<Bundle>) -> Result<Ruleset, RulesetError> {
        let spec = held.spec();
        Ruleset::read_bundle(&spec, held)
    }

    fn read_bundle(spec: &str, held: Arc<Bundle>) -> Result<Ruleset, RulesetError> {
        let origin = Origin::Bundle(held.clone(), held.top().name.clone());
        let mut chain = vec![origin.identity()];
        let text = held.top().text.clone();
        let merged = read_merged(&origin, &text, &mut chain)?;
        let mut ruleset = Ruleset::finish(spec, merged, origin.display())?;
        ruleset.bundle = Some(held);
        Ok(ruleset)
    }

    /// Validates the merged rules, reads every mod's manifest and resolves the set before
    /// loading the mods once (so every error shows up here).
    fn finish(spec: &str, merged: Merged, top: String) -> Result<Ruleset, RulesetError> {
        validate(&merged, &top)?;
        let manifests = mods::manifests(&merged.rules, &merged.mods)?;
        let (loaded, manifests) = mods::order(merged.mods, manifests)?;
        mods::resolve(&loaded, &manifests)?;
        let ruleset = Ruleset {
            name: spec.to_string(),
            rules: Arc::new(merged.rules),
            title: merged.title,
            description: merged.description,
            mods: Arc::from(loaded),
            manifests: Arc::from(manifests),
            file: Some(top),
            bundle: None,
        };
        ruleset.registry()?;
        Ok(ruleset)
    }

    /// The mods this ruleset loads, in load order, as a save or replay records them: name,
    /// version, path and content hash. Compare a recorded set with [`differences`].
    pub fn mod_set(&self) -> Vec<ModRecord> {
        self.mods.iter().zip(self.manifests.iter()).map(|(m, manifest)| ModRecord::new(m, manifest)).collect()
    }

    fn find(spec: &str) -> Result<Origin, RulesetError> {
        let path = Path::new(spec);
        let why = match limits::check_regular(path) {
            Ok(_) => return Ok(Origin::Disk(path.to_path_buf())),
            Err(e) => e.to_string(),
        };
        let bare = !spec.contains(['/', '\\']);
        if bare && let Some(origin) = shipped(spec.strip_suffix(".toml").unwrap_or(spec)) {
            return Ok(origin);
        }
        // The callers name the ruleset ("cannot load ruleset 'x': …"); a name that could have
        // been a shipped ruleset's also says which ones there are.
        Err(RulesetError::unplaced(if bare && !path.exists() {
            format!("{why}, and no shipped ruleset has that name (shipped: {})", shipped_list())
        } else {
            why
        }))
    }

    /// A fresh registry with this ruleset's mods loaded (a new Lua state each call).
    pub fn registry(&self) -> Result<Arc<Registry>, RulesetError> {
        Ok(Arc::new(load_mods(&self.rules, &self.mods)?))
    }

    /// [`Ruleset::registry`], and a watch over the copies of games it makes (whether the
    /// mods' globals could be copied into each: what `diving check` reports).
    pub fn registry_watched(&self) -> Result<(Arc<Registry>, CopyWatch), RulesetError> {
        let (registry, watch) = load_watched(&self.rules, &self.mods)?;
        Ok((Arc::new(registry), watch))
    }

    /// The text of the ruleset file (for `diving rules`), when it came from one.
    pub fn source_text(&self) -> Option<String> {
        let file = self.file.as_deref()?;
        if let Some(held) = &self.bundle {
            return held.file(file).map(str::to_string);
        }
        embedded_file(file).map(str::to_string).or_else(|| limits::read_text(Path::new(file), FileKind::Ruleset).ok())
    }
}

/// Reads one file (already read as `text`) and, first, the ruleset it extends.
fn read_merged(origin: &Origin, text: &str, chain: &mut Vec<String>) -> Result<Merged, RulesetError> {
    let name = origin.display();
    let source = Source { name: &name, text };
    let raw = file::parse(&source)?;
    let meta = file::meta(&source, &raw)?;
    let mut merged = match &meta.extends {
        None => Merged {
            rules: Rules::default(),
            origins: Origins::default(),
            mods: Vec::new(),
            title: None,
            description: None,
        },
        Some((base, span)) => {
            let looks_like_path = base.contains(['/', '\\']) || base.ends_with(".toml");
            let on_disk = origin.join(base);
            // A directory is named as one, whether or not the name could have been a shipped
            // ruleset's (`extends = "rules"` next to a folder `rules/` is not a misspelling).
            if let Origin::Disk(path) = &on_disk
                && (looks_like_path || shipped(base).is_none())
                && path.is_dir()
            {
                return Err(source.error(
                    span.clone(),
                    format!("`extends`: '{}' is a directory, not a ruleset file", limits::quoted(&on_disk.display())),
                ));
            }
            let base_origin = if looks_like_path {
                on_disk
            } else {
                shipped(base).ok_or_else(|| {
                    source.error(
                        span.clone(),
                        format!("`extends`: no shipped ruleset is called '{base}' (shipped: {})", shipped_list()),
                    )
                })?
            };
            let id = base_origin.identity();
            if chain.contains(&id) {
                let mut names: Vec<String> = chain.clone();
                names.push(id);
                return Err(source.error(span.clone(), format!("`extends` makes a cycle: {}", cycle_names(&names))));
            }
            if chain.len() >= limits::MAX_EXTENDS_DEPTH {
                return Err(source.error(
                    span.clone(),
                    format!("`extends`: more than {} rulesets extend one another", limits::MAX_EXTENDS_DEPTH),
                ));
            }
            let base_text = base_origin.read(FileKind::Ruleset).map_err(|e| {
                source.error(span.clone(), format!("`extends`: cannot read '{}': {e}", base_origin.display()))
            })?;
            chain.push(id);
            let merged = read_merged(&base_origin, &base_text, chain)?;
            chain.pop();
            merged
        }
    };
    file::apply(&source, &raw, &mut merged.rules, &mut merged.origins)?;
    for (path, span) in &meta.mods {
        if merged.mods.len() >= limits::MAX_MODS {
            return Err(source.error(span.clone(), format!("`mods`: more than {} mods in all", limits::MAX_MODS)));
        }
        let mod_origin = origin.join(path);
        let code = mod_origin.read(FileKind::Mod).map_err(|e| {
            source.error(span.clone(), format!("`mods`: cannot read mod '{}': {e}", mod_origin.display()))
        })?;
        merged.mods.push(ModSource { name: mod_origin.display(), code: Arc::from(code) });
    }
    if meta.name.is_some() {
        merged.title = meta.name;
    }
    // A description says what one file is: a ruleset that extends another has its own or
    // none (it used to show the standard rules' "The rules as decided" for any house rules).
    merged.description = meta.description;
    Ok(merged)
}

fn cycle_names(ids: &[String]) -> String {
    ids.iter()
        .map(|id| {
            let id = id.strip_prefix("shipped:").unwrap_or(id);
            Path::new(id).file_name().map_or(id.to_string(), |n| n.to_string_lossy().into_owned())
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

/// Checks the merged rules; errors point at the file and key that set the offending value.
fn validate(merged: &Merged, top: &str) -> Result<(), RulesetError> {
    // Point at the first of the keys the error is about that a file of the user's set; a
    // value inherited from a shipped ruleset is not where the user can fix it.
    let place_of = |keys: &[&str]| {
        let set: Vec<&Place> = keys.iter().filter_map(|k| merged.origins.keys.get(*k)).collect();
        let own = set.iter().find(|p| embedded_file(&p.file).is_none());
        own.or(set.first()).map(|p| (*p).clone()).unwrap_or(Place { file: top.to_string(), line: 1, col: 1 })
    };
    let rules = &merged.rules;
    if let Err(e) = rules.validate() {
        return Err(RulesetError::at_place(&place_of(file::keys_of(&e)), e.to_string()));
    }
    for players in rules.min_players..=rules.max_players {
        if let Err(e) = rules.validate_for(players) {
            return Err(RulesetError::at_place(
                &place_of(file::keys_of(&e)),
                format!("{e}: lower `max_players`, raise `decks` or deal fewer cards"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_standard_is_exactly_the_decisions() {
        let ruleset = Ruleset::load("standard").unwrap();
        assert_eq!(*ruleset.rules, Rules::default());
        assert!(ruleset.mods.is_empty());
    }

    #[test]
    fn every_embedded_file_is_listed_once() {
        for (name, path) in SHIPPED {
            assert!(embedded_file(path).is_some(), "{name}");
        }
    }

    #[test]
    fn relative_paths_of_shipped_files_stay_among_them() {
        let origin = Origin::Shipped("rulesets/house.toml".into());
        assert_eq!(origin.join("mods/shark.lua"), Origin::Shipped("rulesets/mods/shark.lua".into()));
        assert_eq!(origin.join("../rulesets/meters.toml"), Origin::Shipped("rulesets/meters.toml".into()));
    }
}
