//! What handlers are called with that must be built for each call: the `ctx` object, and
//! the `play` table of a `resolve` handler (and how it is read back when the handler passes
//! it on to `previous`).
//!
//! Every handler call gets a `ctx` of its own: a frozen copy of the table of `ctx` functions
//! (`table.clone`, so `pairs(ctx)` lists them as before). The functions check that the ctx
//! they are called on is the one of the running call, so a ctx kept in a variable and used in
//! a later call fails instead of reaching whatever game is open then.
//!
//! Both run in a small Lua chunk made once per Lua state: setting fields one by one from Rust
//! costs a protected call each under the memory limit, and a resolve handler's ctx and play
//! are made in one call. Only numbers and booleans cross to Rust: a string crossing costs a
//! registry reference each way, and a card name would have to be parsed, so cards cross as
//! their numbers ([`CardNames::number`]).

use mlua::{Function, Lua, LuaString, Table, Value};

use crate::core::{Play, Source};

use super::convert::{card, seat_numbered, whole};
use super::names::{CardNames, suit_letter};

/// The constructor of a ctx and a `play` table, the reader of a `play` table and the
/// constructor of a ctx alone, given the card names, ranks and suit letters by card number,
/// the names back to numbers, and the ctx functions. Absent fields (`slot`, `target`) are
/// passed as nil, which a table constructor leaves unset. The reader uses `rawget`, as
/// `Table::raw_get` does; a field it cannot turn into a number is read again from Rust for
/// the error.
const CHUNK: &str = "local cards, ranks, suits, numbers, functions = ... \
    local rawget, clone, freeze = rawget, table.clone, table.freeze \
    local function make(player, card, on_table, slot, target, on_top) \
        return freeze(clone(functions)), { player = player, card = cards[card], rank = ranks[card], \
        suit = suits[card], from = on_table and 'table' or 'hand', slot = slot, target = target, \
        on_top = on_top } end \
    local function unpack(p) \
        return rawget(p, 'player'), numbers[rawget(p, 'card')], rawget(p, 'target'), rawget(p, 'slot'), \
        rawget(p, 'on_top') == true end \
    local function ctx() return freeze(clone(functions)) end \
    return make, unpack, ctx";

/// Field names of the `play` table, for reading it field by field.
struct Keys {
    player: LuaString,
    card: LuaString,
    slot: LuaString,
    target: LuaString,
    on_top: LuaString,
}

/// What makes and reads the arguments of one Lua state's handlers.
pub(crate) struct HandlerArgs {
    keys: Keys,
    make_play: Function,
    unpack_play: Function,
    make_ctx: Function,
}

impl HandlerArgs {
    /// The arguments of handlers in `lua`, whose ctx objects are copies of `functions`.
    pub(crate) fn new(lua: &Lua, names: &CardNames, functions: &Table) -> mlua::Result<HandlerArgs> {
        let s = |t: &str| lua.create_string(t);
        let keys = Keys {
            player: s("player")?,
            card: s("card")?,
            slot: s("slot")?,
            target: s("target")?,
            on_top: s("on_top")?,
        };
        // What `CHUNK` needs by card number, and the names back to numbers.
        let cards = lua.create_sequence_from(names.names())?;
        let ranks = lua.create_sequence_from(CardNames::all().map(|card| card.rank.number()))?;
        let suits = lua.create_sequence_from(CardNames::all().map(|card| suit_letter(card.suit)))?;
        let numbers =
            lua.create_table_from(CardNames::all().map(|card| (card.to_string(), CardNames::number(card))))?;
        let (make_play, unpack_play, make_ctx) = lua
            .load(CHUNK)
            .set_name("=play")
            .call::<(Function, Function, Function)>((cards, ranks, suits, numbers, functions))?;
        Ok(HandlerArgs { keys, make_play, unpack_play, make_ctx })
    }

    /// A new ctx object, for a hook or a targets or playable function.
    pub(crate) fn ctx(&self) -> mlua::Result<Table> {
        self.make_ctx.call(())
    }

    /// A new ctx object and the `play` table, for a resolve handler.
    pub(crate) fn play(&self, play: &Play) -> mlua::Result<(Table, Table)> {
        let (on_table, slot) = match play.from {
            Source::Hand => (false, None),
            Source::Table(slot) => (true, Some(slot as i64 + 1)),
        };
        self.make_play.call((
            play.player as i64 + 1,
            CardNames::number(play.card),
            on_table,
            slot,
            play.target.map(|t| t as i64 + 1),
            play.face_on_top,
        ))
    }

    /// Reads back a `play` table a handler passes to `previous`, in a game of `players`.
    pub(crate) fn read_play(&self, lua: &Lua, players: usize, t: &Table) -> mlua::Result<Play> {
        let (player, card, target, slot, face_on_top): (Value, Value, Value, Value, bool) = self.unpack_play.call(t)?;
        // Fields as `play` wrote them (or changed to other valid numbers) are taken as they
        // are; anything else is read again below, for the same answer or error as ever.
        let fast = || -> Option<mlua::Result<Play>> {
            let Value::Integer(player) = player else { return None };
            let Value::Integer(number) = card else { return None };
            let card = CardNames::numbered(number)?;
            let target = match target {
                Value::Nil => None,
                Value::Integer(n) => Some(n),
                _ => return None,
            };
            let from = match slot {
                Value::Nil => Source::Hand,
                Value::Integer(n) => Source::Table((n.max(1) - 1) as usize),
                _ => return None,
            };
            Some((|| {
                let player = seat_numbered(lua, players, player)?;
                let target = target.map(|n| seat_numbered(lua, players, n)).transpose()?;
                Ok(Play { player, card, from, target, face_on_top })
            })())
        };
        if let Some(play) = fast() {
            return play;
        }
        self.read_play_slowly(lua, players, t)
    }

    /// [`HandlerArgs::read_play`] field by field, with an error naming the first bad field.
    fn read_play_slowly(&self, lua: &Lua, players: usize, t: &Table) -> mlua::Result<Play> {
        let k = &self.keys;
        let player = seat_numbered(lua, players, whole(lua, &t.raw_get::<Value>(&k.player)?, "play.player")?)?;
        let card = card(lua, &t.raw_get::<Value>(&k.card)?)?;
        let target = match t.raw_get::<Value>(&k.target)? {
            Value::Nil => None,
            v => Some(seat_numbered(lua, players, whole(lua, &v, "play.target")?)?),
        };
        let from = match t.raw_get::<Value>(&k.slot)? {
            Value::Nil => Source::Hand,
            v => Source::Table((whole(lua, &v, "play.slot")?.max(1) - 1) as usize),
        };
        let face_on_top = matches!(t.raw_get::<Value>(&k.on_top)?, Value::Boolean(true));
        Ok(Play { player, card, from, target, face_on_top })
    }
}
