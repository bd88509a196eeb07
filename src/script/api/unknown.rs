//! Names that do not exist: reading `diving.wrap_effect` or calling `ctx:depht(1)` fails at
//! once with the closest real name (`no function diving.wrap_effect; did you mean
//! diving.wrap?`), located at the mod's line, instead of a later `attempt to call a nil
//! value`. A mod that wants to know whether a name exists asks `rawget(diving, "name")`.

use mlua::{Lua, Table, Value};

use super::super::sandbox::Sandbox;

/// Gives `table` (whose functions are written `{prefix}name`, e.g. `diving.` or `ctx:`) a
/// metatable that refuses every name it does not hold, suggesting the closest. The metatable
/// is read-only; `protect` also hides it from `getmetatable` (not for a table that is
/// copied with `table.clone`, which refuses a protected metatable).
pub(super) fn refuse_unknown(lua: &Lua, table: &Table, prefix: &'static str, protect: bool) -> mlua::Result<()> {
    let mut names = Vec::new();
    for pair in table.pairs::<Value, Value>() {
        if let (Value::String(key), _) = pair? {
            names.push(key.to_string_lossy());
        }
    }
    names.sort();
    let index = lua.create_function(move |lua, (_, key): (Value, Value)| -> mlua::Result<()> {
        let key = match &key {
            Value::String(s) => s.to_string_lossy(),
            other => {
                return Err(Sandbox::raise(
                    lua,
                    format!("{} has no {} key", prefix.trim_end_matches(['.', ':']), other.type_name()),
                ));
            }
        };
        let message = match closest(&key, &names) {
            Some(best) => format!("no function {prefix}{key}; did you mean {prefix}{best}?"),
            None => format!("no function {prefix}{key} (MODDING.md lists the API)"),
        };
        Err(Sandbox::raise(lua, message))
    })?;
    let meta = lua.create_table()?;
    meta.raw_set("__index", index)?;
    if protect {
        meta.raw_set("__metatable", false)?;
    }
    meta.set_readonly(true);
    table.set_metatable(Some(meta))
}

/// The name of `names` a writer most likely meant by `typed`: the nearest by edit distance
/// when it is close (a slip of one or two letters), else the longest name `typed` starts with
/// or that starts with `typed` (`wrap_effect` → `wrap`), else one that contains it or that
/// it contains.
pub(crate) fn closest<'a>(typed: &str, names: &'a [String]) -> Option<&'a str> {
    let typed_lower = typed.to_lowercase();
    let near = names
        .iter()
        .map(|n| (distance(&typed_lower, &n.to_lowercase()), n))
        .filter(|(d, n)| *d <= (n.chars().count() / 3).clamp(1, 2))
        .min_by_key(|(d, _)| *d);
    if let Some((_, n)) = near {
        return Some(n);
    }
    let prefixed = names
        .iter()
        .filter(|n| n.len() >= 3 && (typed_lower.starts_with(n.as_str()) || n.starts_with(typed_lower.as_str())))
        .max_by_key(|n| n.len());
    if let Some(n) = prefixed.filter(|_| typed_lower.len() >= 3) {
        return Some(n);
    }
    names
        .iter()
        .filter(|n| {
            n.len() >= 4
                && (typed_lower.contains(n.as_str()) || (typed_lower.len() >= 4 && n.contains(typed_lower.as_str())))
        })
        .max_by_key(|n| n.len())
        .map(String::as_str)
}

/// Edit distance by characters, a swap of two neighbours counting as one edit (optimal
/// string alignment), so `depht` is one slip from `depth`.
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_slip_a_longer_name_and_a_stranger_each_get_the_right_answer() {
        let diving = names(&["effect", "wrap", "on_turn_start", "on_after_move", "rescue", "win_check", "version"]);
        assert_eq!(closest("wrap_effect", &diving), Some("wrap"));
        assert_eq!(closest("efect", &diving), Some("effect"));
        assert_eq!(closest("on_turnstart", &diving), Some("on_turn_start"));
        assert_eq!(closest("Rescue", &diving), Some("rescue"));
        assert_eq!(closest("turn_start", &diving), Some("on_turn_start"));
        assert_eq!(closest("xyz", &diving), None);
        let ctx = names(&["depth", "dive", "oxygen", "set_oxygen"]);
        assert_eq!(closest("depht", &ctx), Some("depth"));
        assert_eq!(closest("oxygen_of", &ctx), Some("oxygen"));
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("same", "same"), 0);
        assert_eq!(distance("depht", "depth"), 1);
    }
}
