//! Copying a mod's globals from one Lua state to another: how a copy of a game (a bot's
//! look-ahead, a preview, the game before an undone move) gets its own copy of what the mods
//! keep in their variables ([`super::mods`] calls it).
//!
//! What is copied is *data*: `nil`, booleans, numbers, vectors, strings and tables of them, up
//! to [`MAX_DEPTH`] tables deep (a deeper one fails the copy with an error saying so, which the
//! caller reports naming the mod, instead of overflowing the stack), with their metatables, shared and cyclic tables kept shared and cyclic, and
//! frozen tables frozen. A copy's globals start as the original's; everything else in a
//! copy is the file as it loaded into the copy's own Lua state:
//! - a function is not data: where the original holds a function, the copy holds the
//!   function its own file made at the same place (the same global or field), or `nil` when
//!   there is none there;
//! - a frozen table that stands at the same place in both states is the copy's own (frozen
//!   tables cannot change, so that is the file's table, or the API's);
//! - `local` variables of the file's top level are not globals and are not copied: each Lua
//!   state keeps its own.
//!
//! Architecture invariant: nothing the copy holds refers to the original's Lua state, and the
//! original is only read.

use std::collections::HashMap;

use mlua::{Lua, Table, Value};

#[cfg(doc)]
use super::sandbox::Limits;
use super::sandbox::{self, BYTES_PER_STEP};

/// The deepest nesting of tables copied (a global's table is at depth 1). The copy recurses
/// once per level: this bound keeps it well inside the smallest stack a worker thread has.
pub const MAX_DEPTH: usize = 200;

/// The most work one copy may do, in steps of the sandbox's budget: one a value copied, and
/// one per [`BYTES_PER_STEP`] bytes of a string. The budget of one call
/// ([`Limits::default`]): a copy is charged like the work of a call, and one that would cost
/// more than a call may do fails, naming the global.
pub const MAX_STEPS: u64 = 1_000_000;

/// Replaces the globals of `to` (an environment in `lua`) with a copy of those of `from`.
pub(crate) fn copy_globals(lua: &Lua, from: &Table, to: &Table) -> mlua::Result<()> {
    let mut copier = Copy { lua, done: HashMap::new(), depth: 0, steps: 0 };
    let copied = copier.globals(from, to);
    sandbox::spend(copier.steps);
    copied
}

impl Copy<'_> {
    /// [`copy_globals`]'s work.
    fn globals(&mut self, from: &Table, to: &Table) -> mlua::Result<()> {
        // Of what the copy held, only its functions and frozen tables are used (where they
        // stand): keep those, let the rest go before the copy is made, so the copy's state
        // never holds two copies of the data at once (a mod holding half its memory in
        // globals could not be copied).
        let old = self.lua.create_table()?;
        let mut seen = HashMap::new();
        for (k, v) in raw_pairs(to)? {
            if let Some(v) = skeleton(self.lua, v, &mut seen, 0)? {
                old.raw_set(k, v)?;
            }
        }
        drop(seen);
        to.clear()?;
        if self.lua.used_memory() > COLLECT_ABOVE {
            self.lua.gc_collect()?;
        }
        for (key, value) in raw_pairs(from)? {
            let key = self.value(key, &Value::Nil)?;
            if key.is_nil() {
                continue;
            }
            let there: Value = old.raw_get(&key)?;
            let value = self.value(value, &there).map_err(|e| {
                mlua::Error::runtime(format!("the global {} {}", global_name(&key), sandbox::flatten(&e).1))
            })?;
            to.raw_set(key, value)?;
        }
        Ok(())
    }
}

/// Bytes a copy's state must hold before a copy collects its garbage first.
const COLLECT_ABOVE: usize = 4 << 20;

/// What of `value` (held by a copy's state) a copy of the globals may use in its place: a
/// function or a frozen table as it is, a table holding some (or with a metatable that
/// does) as a new table of just those (with its metatable's), nothing for data. `seen` keeps
/// each table's answer (cycles, shared tables).
fn skeleton(
    lua: &Lua,
    value: Value,
    seen: &mut HashMap<usize, Option<Table>>,
    depth: usize,
) -> mlua::Result<Option<Value>> {
    let t = match value {
        Value::Function(_) => return Ok(Some(value)),
        Value::Table(t) => t,
        _ => return Ok(None),
    };
    if t.is_readonly() {
        return Ok(Some(Value::Table(t)));
    }
    let address = t.to_pointer() as usize;
    if let Some(known) = seen.get(&address) {
        return Ok(known.clone().map(Value::Table));
    }
    seen.insert(address, None);
    if depth >= MAX_DEPTH {
        return Ok(None);
    }
    let mut kept: Option<Table> = None;
    for (k, v) in raw_pairs(&t)? {
        if let Some(v) = skeleton(lua, v, seen, depth + 1)? {
            let kept = match &kept {
                Some(kept) => kept.clone(),
                None => kept.insert(lua.create_table()?).clone(),
            };
            kept.raw_set(k, v)?;
        }
    }
    if let Some(meta) = t.metatable()
        && let Some(Value::Table(meta)) = skeleton(lua, Value::Table(meta), seen, depth + 1)?
    {
        let kept = match &kept {
            Some(kept) => kept.clone(),
            None => kept.insert(lua.create_table()?).clone(),
        };
        kept.set_metatable(Some(meta))?;
    }
    seen.insert(address, kept.clone());
    Ok(kept.map(Value::Table))
}

/// How an error names the global `key` (a string, shown without control characters).
fn global_name(key: &Value) -> String {
    match key {
        Value::String(s) => format!("`{}`", sandbox::truncate(&s.to_string_lossy())),
        other => format!("with a {} key", other.type_name()),
    }
}

/// The pairs of `t`, without metamethods, collected (so no lock is held while they are copied).
fn raw_pairs(t: &Table) -> mlua::Result<Vec<(Value, Value)>> {
    let mut pairs = Vec::new();
    t.for_each(|k: Value, v: Value| {
        pairs.push((k, v));
        Ok(())
    })?;
    Ok(pairs)
}

/// One copy under way: the tables copied so far, by their address in the original.
struct Copy<'a> {
    lua: &'a Lua,
    done: HashMap<usize, Table>,
    /// Tables being copied, the one in hand included.
    depth: usize,
    /// The work done so far, in steps ([`MAX_STEPS`]).
    steps: u64,
}

impl Copy<'_> {
    /// `value` of the original, in the copy's state; `there` is what the copy held at the same
    /// place before (for functions and frozen tables).
    fn value(&mut self, value: Value, there: &Value) -> mlua::Result<Value> {
        self.steps += 1;
        if let Value::String(s) = &value {
            self.steps += s.as_bytes().len() as u64 / BYTES_PER_STEP;
        }
        if self.steps > MAX_STEPS {
            return Err(mlua::Error::runtime(format!(
                "holds more than {MAX_STEPS} steps' worth of data (a value or {BYTES_PER_STEP} bytes of text a \
                 step), too much to copy for each copy of the game (freeze tables that never change: a frozen \
                 table is not copied)"
            )));
        }
        Ok(match value {
            Value::Nil => Value::Nil,
            Value::Boolean(b) => Value::Boolean(b),
            Value::Integer(n) => Value::Integer(n),
            Value::Number(n) => Value::Number(n),
            Value::Vector(v) => Value::Vector(v),
            Value::String(s) => Value::String(self.lua.create_string(s.as_bytes())?),
            Value::Table(t) => Value::Table(self.nested(&t, there)?),
            // Not data: the copy keeps what its own file made there, if it is of the same kind.
            Value::Function(_) => match there {
                Value::Function(f) => Value::Function(f.clone()),
                _ => Value::Nil,
            },
            _ => Value::Nil,
        })
    }

    /// [`Copy::table`] one level deeper, refused past [`MAX_DEPTH`].
    fn nested(&mut self, t: &Table, there: &Value) -> mlua::Result<Table> {
        if self.depth >= MAX_DEPTH {
            return Err(mlua::Error::runtime(format!(
                "holds tables nested more than {MAX_DEPTH} deep, too deep to copy"
            )));
        }
        self.depth += 1;
        let copy = self.table(t, there);
        self.depth -= 1;
        copy
    }

    fn table(&mut self, t: &Table, there: &Value) -> mlua::Result<Table> {
        let address = t.to_pointer() as usize;
        if let Some(done) = self.done.get(&address) {
            return Ok(done.clone());
        }
        let there = match there {
            Value::Table(there) => Some(there),
            _ => None,
        };
        if t.is_readonly()
            && let Some(there) = there.filter(|there| there.is_readonly())
        {
            self.done.insert(address, there.clone());
            return Ok(there.clone());
        }
        let copy = self.lua.create_table()?;
        self.done.insert(address, copy.clone());
        for (key, value) in raw_pairs(t)? {
            let key = self.value(key, &Value::Nil)?;
            if key.is_nil() {
                continue;
            }
            let before = match there {
                Some(there) => there.raw_get(&key)?,
                None => Value::Nil,
            };
            let value = self.value(value, &before)?;
            copy.raw_set(key, value)?;
        }
        if let Some(meta) = t.metatable() {
            let before = there.and_then(Table::metatable).map_or(Value::Nil, Value::Table);
            let meta = self.nested(&meta, &before)?;
            copy.set_metatable(Some(meta))?;
        }
        if t.is_readonly() {
            copy.set_readonly(true);
        }
        Ok(copy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(lua: &Lua, code: &str) -> Table {
        let env = lua.create_table().unwrap();
        let meta = lua.create_table().unwrap();
        meta.raw_set("__index", lua.globals()).unwrap();
        env.set_metatable(Some(meta)).unwrap();
        lua.load(code).set_environment(env.clone()).exec().unwrap();
        env
    }

    const CODE: &str = "n = 0; list = { 1, 2, { 'x' } }; list[4] = list; f = function() return n end; \
                        frozen = table.freeze({ 1 }); module = { count = 0, bump = function() end }";

    #[test]
    fn data_is_copied_and_functions_are_the_copys_own() {
        let (a, b) = (Lua::new(), Lua::new());
        let (from, to) = (env(&a, CODE), env(&b, CODE));
        a.load("n = 5; list[3][1] = 'y'; module.count = 2; extra = { n = 1 }; f = nil")
            .set_environment(from.clone())
            .exec()
            .unwrap();
        let bump: mlua::Function = to.get::<Table>("module").unwrap().get("bump").unwrap();
        let frozen: Table = to.get("frozen").unwrap();
        copy_globals(&b, &from, &to).unwrap();
        assert_eq!(to.get::<i64>("n").unwrap(), 5);
        let list: Table = to.get("list").unwrap();
        assert_eq!(list.get::<Table>(3).unwrap().get::<String>(1).unwrap(), "y");
        assert_eq!(list.get::<Table>(4).unwrap(), list, "a cycle stays a cycle");
        let module: Table = to.get("module").unwrap();
        assert_eq!(module.get::<i64>("count").unwrap(), 2);
        assert_eq!(module.get::<mlua::Function>("bump").unwrap(), bump, "the copy's own function");
        assert_eq!(to.get::<Table>("frozen").unwrap(), frozen, "the copy's own frozen table");
        assert_eq!(to.get::<Table>("extra").unwrap().get::<i64>("n").unwrap(), 1);
        assert!(to.get::<Value>("f").unwrap().is_nil(), "a global the original removed is gone");
        // The original is untouched, and the copy is separate from it.
        b.load("list[3][1] = 'z'").set_environment(to).exec().unwrap();
        assert_eq!(from.get::<Table>("list").unwrap().get::<Table>(3).unwrap().get::<String>(1).unwrap(), "y");
    }

    #[test]
    fn a_table_nested_too_deep_fails_the_copy_instead_of_the_stack() {
        let (a, b) = (Lua::new(), Lua::new());
        let from = env(&a, "deep = {} local t = deep for i = 1, 20000 do t.next = {} t = t.next end");
        let to = env(&b, "");
        let e = copy_globals(&b, &from, &to).unwrap_err().to_string();
        assert!(e.contains("the global `deep` holds tables nested more than 200 deep"), "{e}");
        let from = env(&a, "deep = {} local t = deep for i = 1, 199 do t.next = {} t = t.next end");
        copy_globals(&b, &from, &to).unwrap();
    }
}
