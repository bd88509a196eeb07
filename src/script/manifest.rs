//! A mod's manifest: who it is (name, version), which mod API it is written for, and which
//! other mods it requires or conflicts with, with semver ranges. A mod declares it with
//! `diving.manifest{ … }`, the first thing its file does; [`read_manifest`](super::mods::read_manifest)
//! reads it without loading the rest of the file, so a ruleset can resolve its set of mods
//! before any of them registers anything (`ruleset::resolve`).
//!
//! A mod without a manifest is still a mod: [`Manifest::default_for`] names it after its file
//! (`mods/lucky.lua` → `lucky`), version `0.0.0`, API 1, needing and refusing nothing.

use mlua::{Lua, Table, Value};
use semver::{Version, VersionReq};

use super::convert::show;
use super::sandbox::Sandbox;

/// The mod API version this program offers (`diving.version`); MODDING.md's *Versions* says
/// what it promises.
pub const API_VERSION: u32 = 1;

/// The longest mod name.
const MAX_NAME: usize = 64;
/// The most `requires` or `conflicts` entries a manifest may list.
const MAX_RELATIONS: usize = 64;

/// What a mod says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub name: String,
    pub version: Version,
    /// The mod API version the mod is written for.
    pub api: u32,
    /// Mods that must be loaded before this one, with the versions that will do, by name.
    pub requires: Vec<(String, VersionReq)>,
    /// Mods that must not be loaded with this one in the versions given, by name.
    pub conflicts: Vec<(String, VersionReq)>,
    /// Mods this one loads after when the ruleset loads them too (without needing them): the
    /// ruleset puts them first, and this mod may replace an entry one of them replaced.
    pub after: Vec<String>,
    /// Mods this one loads before when the ruleset loads them too: the mirror of `after`.
    pub before: Vec<String>,
    /// The line of the `diving.manifest` call (`None` for a mod without one).
    pub line: Option<u32>,
}

impl Manifest {
    /// The manifest of a mod that declares none: its file's name without `.lua` (made a valid
    /// mod name), version 0.0.0, API 1, no relations.
    pub fn default_for(file: &str) -> Manifest {
        let stem = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let stem = stem.strip_suffix(".lua").unwrap_or(stem);
        let mut name: String = stem
            .chars()
            .map(|c| c.to_ascii_lowercase())
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
            .take(MAX_NAME)
            .collect();
        if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
            name.insert(0, 'm');
            name.truncate(MAX_NAME);
        }
        Manifest {
            name,
            version: Version::new(0, 0, 0),
            api: API_VERSION,
            requires: Vec::new(),
            conflicts: Vec::new(),
            after: Vec::new(),
            before: Vec::new(),
            line: None,
        }
    }

    /// Reads the table given to `diving.manifest`; every error names the key and is raised at
    /// the calling line. A mod written for a newer API than [`API_VERSION`] is refused here.
    pub(crate) fn from_lua(lua: &Lua, value: &Value, line: Option<u32>) -> mlua::Result<Manifest> {
        let Value::Table(t) = value else {
            return Err(Sandbox::raise(
                lua,
                format!("diving.manifest needs a table {{ name = …, version = …, api = … }}, got {}", show(value)),
            ));
        };
        for pair in t.pairs::<Value, Value>() {
            let (key, _) = pair?;
            let known = matches!(&key, Value::String(s) if KEYS.contains(&&*s.to_string_lossy()));
            if !known {
                return Err(Sandbox::raise(
                    lua,
                    format!("diving.manifest: unknown key {} (the keys are {})", show(&key), KEYS.join(", ")),
                ));
            }
        }
        let text = |key: &str| -> mlua::Result<Option<String>> {
            match t.raw_get::<Value>(key)? {
                Value::Nil => Ok(None),
                Value::String(s) => Ok(Some(s.to_string_lossy())),
                other => Err(Sandbox::raise(
                    lua,
                    format!("diving.manifest: `{key}` must be text in quotes, got {}", show(&other)),
                )),
            }
        };
        let name = text("name")?.ok_or_else(|| Sandbox::raise(lua, "diving.manifest: `name` is missing"))?;
        check_name(&name).map_err(|why| Sandbox::raise(lua, format!("diving.manifest: `name` {why}")))?;
        let version = text("version")?.ok_or_else(|| {
            Sandbox::raise(lua, "diving.manifest: `version` is missing (a semantic version, such as \"1.0.0\")")
        })?;
        let version = Version::parse(version.trim()).map_err(|e| {
            Sandbox::raise(
                lua,
                format!("diving.manifest: `version` \"{version}\" is not a semantic version like \"1.2.0\": {e}"),
            )
        })?;
        let api = match t.raw_get::<Value>("api")? {
            Value::Nil => {
                return Err(Sandbox::raise(
                    lua,
                    format!("diving.manifest: `api` is missing (the mod API version it is written for: {API_VERSION})"),
                ));
            }
            Value::Integer(n) if n >= 1 && n <= i64::from(u32::MAX) => n as u32,
            Value::Number(n) if n.fract() == 0.0 && n >= 1.0 && n <= f64::from(u32::MAX) => n as u32,
            other => {
                return Err(Sandbox::raise(
                    lua,
                    format!("diving.manifest: `api` must be a whole number from 1, got {}", show(&other)),
                ));
            }
        };
        if api > API_VERSION {
            return Err(Sandbox::raise(
                lua,
                format!(
                    "{name} {version} needs mod API {api}, and this diving offers API {API_VERSION}: \
                     use a newer diving, or a version of the mod written for API {API_VERSION}"
                ),
            ));
        }
        let requires = relations(lua, t, "requires", &name)?;
        let conflicts = relations(lua, t, "conflicts", &name)?;
        let after = order(lua, t, "after", &name)?;
        let before = order(lua, t, "before", &name)?;
        if let Some(both) = after.iter().find(|a| before.contains(a)) {
            return Err(Sandbox::raise(
                lua,
                format!("diving.manifest: `after` and `before` both name {both}: a mod loads on one side of another"),
            ));
        }
        Ok(Manifest { name, version, api, requires, conflicts, after, before, line })
    }
}

/// The keys a manifest may have.
const KEYS: [&str; 8] = ["name", "version", "api", "requires", "conflicts", "after", "before", "description"];

/// Whether `name` can name a mod: 1–64 lower-case letters, digits, `-` and `_`, starting
/// with a letter or digit; otherwise what is wrong.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("must not be empty".into());
    }
    if name.chars().count() > MAX_NAME {
        return Err(format!("is longer than {MAX_NAME} characters"));
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit()) {
        return Err(format!("\"{name}\" must start with a lower-case letter or a digit"));
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-' || *c == '_')) {
        return Err(format!("\"{name}\" may hold only lower-case letters, digits, - and _ (not '{c}')"));
    }
    Ok(())
}

/// `after` or `before`: a list of mod names (`{ "sharks", "heavy-knot" }`).
fn order(lua: &Lua, t: &Table, key: &str, own: &str) -> mlua::Result<Vec<String>> {
    let bad = |what: String| {
        Sandbox::raise(
            lua,
            format!("diving.manifest: `{key}` must be a list of mod names, such as {{ \"sharks\" }}; {what}"),
        )
    };
    let table = match t.raw_get::<Value>(key)? {
        Value::Nil => return Ok(Vec::new()),
        Value::Table(table) => table,
        other => return Err(bad(format!("got {}", show(&other)))),
    };
    if table.raw_len() > MAX_RELATIONS {
        return Err(Sandbox::raise(lua, format!("diving.manifest: `{key}` lists more than {MAX_RELATIONS} mods")));
    }
    let mut out = Vec::new();
    for pair in table.pairs::<Value, Value>() {
        let (index, name) = pair?;
        let name = match (index, name) {
            (Value::Integer(_), Value::String(s)) => s.to_string_lossy(),
            (index, name) => return Err(bad(format!("found {} = {}", show(&index), show(&name)))),
        };
        check_name(&name)
            .map_err(|why| Sandbox::raise(lua, format!("diving.manifest: `{key}`: the mod name {why}")))?;
        if name == own {
            return Err(Sandbox::raise(lua, format!("diving.manifest: `{key}` names the mod itself ({own})")));
        }
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out.sort();
    Ok(out)
}

/// `requires` or `conflicts`: a table of mod names to version ranges (`{ shark = ">=1.2" }`).
fn relations(lua: &Lua, t: &Table, key: &str, own: &str) -> mlua::Result<Vec<(String, VersionReq)>> {
    let table = match t.raw_get::<Value>(key)? {
        Value::Nil => return Ok(Vec::new()),
        Value::Table(table) => table,
        other => {
            return Err(Sandbox::raise(
                lua,
                format!(
                    "diving.manifest: `{key}` must be a table of mod names and version ranges, \
                     such as {{ shark = \">=1.2\" }}, got {}",
                    show(&other)
                ),
            ));
        }
    };
    let mut out = Vec::new();
    for pair in table.pairs::<Value, Value>() {
        let (name, range) = pair?;
        let name = match name {
            Value::String(s) => s.to_string_lossy(),
            other => {
                return Err(Sandbox::raise(
                    lua,
                    format!(
                        "diving.manifest: `{key}` names mods by key, {{ shark = \">=1.2\" }}; found the key {}",
                        show(&other)
                    ),
                ));
            }
        };
        check_name(&name)
            .map_err(|why| Sandbox::raise(lua, format!("diving.manifest: `{key}`: the mod name {why}")))?;
        if name == own {
            return Err(Sandbox::raise(lua, format!("diving.manifest: `{key}` names the mod itself ({own})")));
        }
        let range = match range {
            Value::String(s) => s.to_string_lossy(),
            other => {
                return Err(Sandbox::raise(
                    lua,
                    format!(
                        "diving.manifest: `{key}.{name}` must be a version range in quotes (\"*\", \">=1.2, <2\"), got {}",
                        show(&other)
                    ),
                ));
            }
        };
        let req = VersionReq::parse(range.trim()).map_err(|e| {
            Sandbox::raise(
                lua,
                format!("diving.manifest: `{key}.{name}` \"{range}\" is not a version range (\"*\", \"1.2\", \">=1.2, <2\"): {e}"),
            )
        })?;
        out.push((name, req));
        if out.len() > MAX_RELATIONS {
            return Err(Sandbox::raise(lua, format!("diving.manifest: `{key}` lists more than {MAX_RELATIONS} mods")));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mod_without_a_manifest_is_named_after_its_file() {
        let m = Manifest::default_for("rulesets/mods/Jolt Rebound.lua");
        assert_eq!(m.name, "jolt-rebound");
        assert_eq!(m.version, Version::new(0, 0, 0));
        assert_eq!(m.api, API_VERSION);
        assert_eq!(Manifest::default_for("_x.lua").name, "m_x");
        assert!(check_name(&Manifest::default_for("--.lua").name).is_ok());
    }

    #[test]
    fn mod_names_are_lower_case_words() {
        assert!(check_name("lucky-7_b").is_ok());
        for bad in ["", "Lucky", "-x", "a b", "é"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
