//! One ruleset file: TOML read with serde (unknown keys refused), every value kept with its
//! span so that any error — syntax, type, range, or a rule that does not hold once the file is
//! merged over its base — names the file, line, column and key.
//!
//! The file format (all keys optional; `rulesets/standard.toml` lists every one):
//! ```toml
//! extends = "standard"          # a shipped name, or a path relative to this file
//! name = "House rules"
//! description = "…"
//! mods = ["mods/shark.lua"]     # relative to this file, loaded after the base's mods
//! min_players = 2
//! max_players = 8
//! decks = "auto"                # or a number
//! hand_size = 4
//! table_size = 4
//! max_depth = 100
//! max_oxygen = 10
//! quick_extra = 8
//! quick_push = 4
//! max_turns = 0
//! oxygen_bands = [[25, 1], [50, 2], [75, 3], [100, 4]]   # or [[oxygen_bands]] to = 25 cost = 1
//! [recovery]
//! none = 1
//! "2" = 2
//! "4" = "max"
//! [values]                      # what a rank is worth when it moves a diver (D8)
//! A = 11
//! [teams]                       # play in teams: seats alternate round the table
//! count = 2
//! target_teammates = true       # whether a Jolt, a Knot or a Quick's push may name a teammate
//! [display]
//! unit = "m"
//! scale = 100
//! ```

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;
use toml::{Spanned, Value};

use crate::core::{
    Band, Gain, MAX_CARD_VALUE, MAX_HAND_SIZE, MAX_PLAYERS, MAX_TABLE_SIZE, MIN_PLAYERS, Rank, Rules, RulesError,
    SuitPattern, TeamRule,
};

use super::RulesetError;
use crate::limits;

/// The keys of a ruleset file as written, each with its span.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFile {
    pub extends: Option<Spanned<Value>>,
    pub name: Option<Spanned<Value>>,
    pub description: Option<Spanned<Value>>,
    pub mods: Option<Spanned<Vec<Spanned<Value>>>>,
    pub min_players: Option<Spanned<Value>>,
    pub max_players: Option<Spanned<Value>>,
    pub decks: Option<Spanned<Value>>,
    pub hand_size: Option<Spanned<Value>>,
    pub table_size: Option<Spanned<Value>>,
    pub max_depth: Option<Spanned<Value>>,
    pub max_oxygen: Option<Spanned<Value>>,
    pub quick_extra: Option<Spanned<Value>>,
    pub quick_push: Option<Spanned<Value>>,
    pub max_turns: Option<Spanned<Value>>,
    pub oxygen_bands: Option<Spanned<Vec<Spanned<Value>>>>,
    pub recovery: Option<Spanned<BTreeMap<Spanned<String>, Spanned<Value>>>>,
    pub values: Option<Spanned<BTreeMap<Spanned<String>, Spanned<Value>>>>,
    pub teams: Option<Spanned<RawTeams>>,
    pub display: Option<Spanned<RawDisplay>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTeams {
    pub count: Option<Spanned<Value>>,
    pub target_teammates: Option<Spanned<Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDisplay {
    pub unit: Option<Spanned<Value>>,
    pub scale: Option<Spanned<Value>>,
}

/// A file's text and the name errors use for it.
pub(crate) struct Source<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

impl Source<'_> {
    /// An error at byte range `span`.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> RulesetError {
        let (line, col) = line_col(self.text, span.start);
        RulesetError::at(self.name, line, col, message)
    }

    /// Where `span` starts, as a remembered location.
    pub fn place(&self, span: Range<usize>) -> Place {
        let (line, col) = line_col(self.text, span.start);
        Place { file: self.name.to_string(), line, col }
    }
}

/// A location in a ruleset file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub file: String,
    pub line: usize,
    pub col: usize,
}

/// 1-based line and column (in characters) of byte `offset`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Parses the TOML of one file. Syntax and shape errors name the key at the error's line.
pub(crate) fn parse(source: &Source<'_>) -> Result<RawFile, RulesetError> {
    toml::from_str::<RawFile>(source.text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let mut message = e.message().trim().to_string();
        if message == "recursion limit" && span.is_empty() {
            // A dotted key of too many parts: the parser gives no place (it used to be blamed
            // on line 1, often `extends`), so find the key with the most parts.
            if let Some((start, key, parts)) = deepest_key(source.text) {
                return source.error(
                    start..start,
                    format!("`{}`: a dotted key of {parts} parts is nested too deeply", limits::quoted(&key)),
                );
            }
        }
        let written = bare_value(source.text, span.start);
        if let Some((key, _)) = written.as_ref().filter(|(_, value)| value.is_empty()) {
            // `key =` with nothing after it (or only a comment): the parser reads the end of the
            // line as an unquoted string.
            message = format!("`{key}` has no value: write one after `=`");
        } else if let Some((key, value)) = written.as_ref()
            && (message.starts_with("invalid boolean") || message.starts_with("string values must be quoted"))
        {
            // The parser took an unquoted word for a misspelt `true` or `false`, or for text.
            message = format!(
                "`{key}`: cannot read `{value}` as a value (numbers are plain digits, text goes in quotes, \
                 and true and false are lower case)"
            );
        } else if let Some((key, value)) = written.as_ref().filter(|_| message.starts_with("invalid type: integer")) {
            // A whole number past what TOML holds (64 bits): no key takes one that large.
            message = format!("`{key}`: {value} has too many digits to be read as a number");
        } else if let Some(key) = key_at(source.text, span.start)
            && !message.contains(&format!("`{key}`"))
        {
            message = format!("`{key}`: {message}");
        }
        source.error(span, message)
    })
}

/// The dotted key with the most parts in `text` (of a `key = …` line or a `[table]` header):
/// its byte offset, the key as written and its number of parts.
fn deepest_key(text: &str) -> Option<(usize, String, usize)> {
    let mut deepest: Option<(usize, String, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let indent = line.len() - line.trim_start().len();
        let body = line.trim();
        let (skip, key) = match body.strip_prefix('[') {
            Some(header) => {
                let header = header.trim_start_matches('[');
                (body.len() - header.len(), header.split(']').next().unwrap_or(""))
            }
            None => (0, key_part(body)),
        };
        let parts = dotted_parts(key);
        if parts > deepest.as_ref().map_or(1, |d| d.2) {
            let key = key.trim();
            let start = offset + indent + skip + (body[skip..].len() - body[skip..].trim_start().len());
            deepest = Some((start, key.to_string(), parts));
        }
        offset += line.len();
    }
    deepest
}

/// The key of a `key = value` line: what comes before the first `=` outside quotes.
fn key_part(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '=') => return &line[..i],
            (None, '#') => return "",
            _ => {}
        }
    }
    ""
}

/// How many parts a dotted key has (`a."b.c".d` has 3).
fn dotted_parts(key: &str) -> usize {
    let mut quote = None;
    let mut parts = 1;
    for c in key.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '.') => parts += 1,
            _ => {}
        }
    }
    parts
}

/// The line holding byte `offset` of `text`.
fn line_at(text: &str, offset: usize) -> &str {
    let offset = text.floor_char_boundary(offset.min(text.len()));
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    text[start..].lines().next().unwrap_or("")
}

/// The key and the value as written (without a comment) of the `key = value` line holding
/// byte `offset`.
fn bare_value(text: &str, offset: usize) -> Option<(String, String)> {
    let (_, value) = line_at(text, offset).split_once('=')?;
    let value = value.split('#').next().unwrap_or("").trim();
    Some((key_at(text, offset)?, value.to_string()))
}

/// The key written on the line holding byte `offset` (`key = …` or `[table]`), if any.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let line = line_at(text, offset).trim();
    if let Some(header) = line.strip_prefix('[') {
        return Some(header.trim_matches(|c| c == '[' || c == ']' || c == ' ').to_string());
    }
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty()).then(|| key.to_string())
}

/// Which file and place set each key of the merged rules (for errors found after merging).
#[derive(Debug, Clone, Default)]
pub(crate) struct Origins {
    pub keys: BTreeMap<&'static str, Place>,
}

/// What a type description says about a TOML value.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "text",
        Value::Integer(_) => "a whole number",
        Value::Float(_) => "a decimal number",
        Value::Boolean(_) => "true/false",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "a list",
        Value::Table(_) => "a table",
    }
}

/// Reads a whole number in `min..=max` for `key`.
fn number(source: &Source<'_>, key: &str, v: &Spanned<Value>, min: i64, max: i64) -> Result<i64, RulesetError> {
    match v.get_ref() {
        Value::Integer(n) if (min..=max).contains(n) => Ok(*n),
        Value::Integer(n) if *n < min => {
            Err(source.error(v.span(), format!("`{key}` must be at least {min} (it is {n})")))
        }
        Value::Integer(n) => Err(source.error(v.span(), format!("`{key}` must be at most {max} (it is {n})"))),
        other => Err(source.error(v.span(), format!("`{key}` must be a whole number, not {}", kind(other)))),
    }
}

fn text<'v>(source: &Source<'_>, key: &str, v: &'v Spanned<Value>) -> Result<&'v str, RulesetError> {
    match v.get_ref() {
        Value::String(s) => Ok(s),
        other => Err(source.error(v.span(), format!("`{key}` must be text in quotes, not {}", kind(other)))),
    }
}

/// The file's descriptive keys.
#[derive(Debug, Clone, Default)]
pub(crate) struct Meta {
    pub extends: Option<(String, Range<usize>)>,
    pub name: Option<String>,
    pub description: Option<String>,
    /// Mod paths as written, with their spans.
    pub mods: Vec<(String, Range<usize>)>,
}

pub(crate) fn meta(source: &Source<'_>, raw: &RawFile) -> Result<Meta, RulesetError> {
    let mut meta = Meta::default();
    if let Some(v) = &raw.extends {
        let base = text(source, "extends", v)?;
        if base.trim().is_empty() {
            return Err(source.error(v.span(), "`extends` must name a shipped ruleset or a file"));
        }
        meta.extends = Some((base.to_string(), v.span()));
    }
    if let Some(v) = &raw.name {
        meta.name = Some(text(source, "name", v)?.to_string());
    }
    if let Some(v) = &raw.description {
        meta.description = Some(text(source, "description", v)?.to_string());
    }
    if let Some(list) = &raw.mods {
        for v in list.get_ref() {
            let path = text(source, "mods", v)?;
            if !path.ends_with(".lua") {
                return Err(source.error(v.span(), format!("`mods`: '{path}' is not a .lua file")));
            }
            // Errors name a mod as `file:line: …`: a name with a `:` or a control character
            // could pass for another file's place (`victim.lua:7: x/evil.lua`).
            if path.contains(':') || path.chars().any(char::is_control) {
                return Err(source.error(
                    v.span(),
                    "`mods`: a mod's file name may not hold ':' or control characters (errors name mods as \
                     file:line, which such a name could forge)",
                ));
            }
            meta.mods.push((path.to_string(), v.span()));
        }
    }
    Ok(meta)
}

/// Applies the file's numbers over `rules`, remembering where each key was set.
pub(crate) fn apply(
    source: &Source<'_>,
    raw: &RawFile,
    rules: &mut Rules,
    origins: &mut Origins,
) -> Result<(), RulesetError> {
    const MAX: i64 = 1_000_000;
    let mut set = |key: &'static str, span: Range<usize>| {
        origins.keys.insert(key, source.place(span));
    };
    macro_rules! count {
        ($field:ident, $min:expr, $max:expr, $ty:ty) => {
            if let Some(v) = &raw.$field {
                rules.$field = number(source, stringify!($field), v, $min, $max)? as $ty;
                set(stringify!($field), v.span());
            }
        };
    }
    // The core's own bounds (`Rules::validate`), so each key has one limit, said one way.
    count!(min_players, MIN_PLAYERS as i64, MAX_PLAYERS as i64, usize);
    count!(max_players, MIN_PLAYERS as i64, MAX_PLAYERS as i64, usize);
    count!(hand_size, 1, MAX_HAND_SIZE as i64, usize);
    count!(table_size, 0, MAX_TABLE_SIZE as i64, usize);
    count!(max_depth, 1, MAX, u32);
    count!(max_oxygen, 1, MAX, u32);
    count!(quick_extra, 0, MAX, u32);
    count!(quick_push, 0, MAX, u32);
    count!(max_turns, 0, MAX, u32);
    if let Some(v) = &raw.decks {
        rules.decks = match v.get_ref() {
            Value::String(s) if s == "auto" => None,
            Value::Integer(_) => Some(number(source, "decks", v, 1, 16)? as u32),
            other => {
                return Err(source.error(
                    v.span(),
                    format!("`decks` must be a number of decks or \"auto\", not {}", describe(other)),
                ));
            }
        };
        set("decks", v.span());
    }
    if let Some(list) = &raw.oxygen_bands {
        let mut bands = Vec::new();
        for (i, v) in list.get_ref().iter().enumerate() {
            bands.push(band(source, i + 1, v)?);
        }
        if bands.is_empty() {
            return Err(source.error(list.span(), "`oxygen_bands` needs at least one band"));
        }
        rules.oxygen_bands = bands;
        set("oxygen_bands", list.span());
    }
    if let Some(table) = &raw.recovery {
        for (pattern, gain) in table.get_ref() {
            let parsed = SuitPattern::parse(pattern.get_ref()).ok_or_else(|| {
                source.error(
                    pattern.span(),
                    format!(
                        "`recovery`: '{}' is not a suit pattern (use none, 2, 2+2, 3, 3+2, 4 …)",
                        pattern.get_ref()
                    ),
                )
            })?;
            let value = match gain.get_ref() {
                Value::String(s) if s == "max" => Gain::Max,
                Value::Integer(_) => {
                    Gain::Amount(number(source, &format!("recovery.\"{}\"", pattern.get_ref()), gain, 0, MAX)? as u32)
                }
                other => {
                    return Err(source.error(
                        gain.span(),
                        format!(
                            "`recovery.\"{}\"` must be an amount of oxygen or \"max\", not {}",
                            pattern.get_ref(),
                            describe(other)
                        ),
                    ));
                }
            };
            rules.recovery.insert(parsed, value);
        }
        set("recovery", table.span());
    }
    if let Some(table) = &raw.values {
        for (rank, value) in table.get_ref() {
            let parsed = Rank::parse(rank.get_ref()).ok_or_else(|| {
                source.error(
                    rank.span(),
                    format!("`values`: '{}' is not a rank (use A, 2 … 10, J, Q or K)", limits::quoted(rank.get_ref())),
                )
            })?;
            let key = format!("values.{parsed}");
            rules.values[usize::from(parsed.number()) - 1] =
                number(source, &key, value, 0, MAX_CARD_VALUE.into())? as u32;
        }
        set("values", table.span());
    }
    if let Some(teams) = &raw.teams {
        let t = teams.get_ref();
        let mut rule = rules.teams.unwrap_or(TeamRule { count: 2, target_teammates: true });
        if let Some(v) = &t.count {
            rule.count = number(source, "teams.count", v, 2, MAX_PLAYERS as i64)? as usize;
            set("teams.count", v.span());
        }
        if let Some(v) = &t.target_teammates {
            rule.target_teammates = match v.get_ref() {
                Value::Boolean(b) => *b,
                other => {
                    return Err(source.error(
                        v.span(),
                        format!("`teams.target_teammates` must be true or false, not {}", describe(other)),
                    ));
                }
            };
        }
        rules.teams = Some(rule);
        set("teams", teams.span());
    }
    if let Some(display) = &raw.display {
        let d = display.get_ref();
        if let Some(v) = &d.unit {
            let unit = text(source, "display.unit", v)?;
            if unit.chars().count() > 16 || unit.chars().any(char::is_control) {
                return Err(source.error(v.span(), "`display.unit` must be a short word like \"m\""));
            }
            rules.depth_unit = unit.to_string();
            set("display.unit", v.span());
        }
        if let Some(v) = &d.scale {
            rules.depth_scale = number(source, "display.scale", v, 1, MAX)? as u32;
            set("display.scale", v.span());
        }
    }
    Ok(())
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        Value::Integer(n) => n.to_string(),
        other => kind(other).to_string(),
    }
}

/// One oxygen band: `{ to = 25, cost = 1 }` or `[25, 1]`.
fn band(source: &Source<'_>, index: usize, v: &Spanned<Value>) -> Result<Band, RulesetError> {
    let key_to = format!("oxygen_bands[{index}].to");
    let key_cost = format!("oxygen_bands[{index}].cost");
    let bad = |message: String| source.error(v.span(), message);
    let whole = |key: &str, value: Option<&Value>| -> Result<u32, RulesetError> {
        match value {
            Some(Value::Integer(n)) if (0..=1_000_000).contains(n) => Ok(*n as u32),
            Some(Value::Integer(n)) => Err(bad(format!("`{key}` must be between 0 and 1000000 (it is {n})"))),
            Some(other) => Err(bad(format!("`{key}` must be a whole number, not {}", kind(other)))),
            None => Err(bad(format!("`{key}` is missing"))),
        }
    };
    match v.get_ref() {
        Value::Table(t) => {
            if let Some(other) = t.keys().find(|k| *k != "to" && *k != "cost") {
                return Err(bad(format!("oxygen band {index}: unknown key `{other}` (a band has `to` and `cost`)")));
            }
            Ok(Band { to: whole(&key_to, t.get("to"))?, cost: whole(&key_cost, t.get("cost"))? })
        }
        Value::Array(a) if a.len() == 2 => {
            Ok(Band { to: whole(&key_to, a.first())?, cost: whole(&key_cost, a.get(1))? })
        }
        other => {
            Err(bad(format!("oxygen band {index} must be [to, cost] or {{ to = …, cost = … }}, not {}", kind(other))))
        }
    }
}

/// The keys a core rules error is about, most likely first, to find where one was set.
pub(crate) fn keys_of(e: &RulesError) -> &'static [&'static str] {
    match e {
        RulesError::TooSmall { key, .. } | RulesError::TooLarge { key, .. } => match *key {
            "depth_scale" => &["display.scale"],
            "min_players" => &["min_players"],
            "max_players" => &["max_players"],
            "decks" => &["decks"],
            "hand_size" => &["hand_size"],
            "table_size" => &["table_size"],
            "max_depth" => &["max_depth"],
            "max_oxygen" => &["max_oxygen"],
            "values" => &["values"],
            "teams.count" => &["teams.count"],
            _ => &[],
        },
        RulesError::PlayerRange { .. } => &["max_players", "min_players"],
        RulesError::Teams { .. } => &["teams.count", "min_players"],
        RulesError::Bands { .. } => &["oxygen_bands", "max_depth"],
        RulesError::MissingPattern { .. } => &["recovery", "hand_size"],
        RulesError::NotEnoughCards { .. } | RulesError::PlayerCount { .. } => {
            &["decks", "max_players", "hand_size", "table_size"]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_from_one() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 6), (2, 1));
        assert_eq!(line_col(text, text.find('=').unwrap()), (1, 3));
        assert_eq!(line_col(text, text.rfind('=').unwrap()), (2, 4));
    }

    #[test]
    fn the_key_on_a_line_is_found() {
        assert_eq!(key_at("a = 1\nhand_size = 'x'\n", 14).as_deref(), Some("hand_size"));
        assert_eq!(key_at("[display]\n", 2).as_deref(), Some("display"));
        assert_eq!(key_at("\"2+2\" = 3", 8).as_deref(), Some("2+2"));
    }

    #[test]
    fn the_deepest_dotted_key_is_found() {
        let text = "extends = \"standard\"\na.b = 1\n  x.\"y.z\".w.v = 2 # a.b.c.d.e.f\n[p.q]\n";
        let (start, key, parts) = deepest_key(text).unwrap();
        assert_eq!((key.as_str(), parts), ("x.\"y.z\".w.v", 4));
        assert_eq!(line_col(text, start), (3, 3));
        assert_eq!(deepest_key("[[a.b.c]]\nx = 1\n").map(|d| (d.1, d.2)), Some(("a.b.c".to_string(), 3)));
        assert_eq!(deepest_key("extends = \"a.b\"\n"), None);
    }
}
