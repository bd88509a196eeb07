//! The host's database: one SQLite file, [`FILE`], in the games directory (or in memory for
//! a host without one). It holds what must outlive a game and a restart:
//!
//! - the **players**: a person is a name and the SHA-256 hash of their secret key (the key
//!   itself is never stored); bots by their spec, and start-up seats without a lobby name as
//!   guests under their seat name;
//! - the **tables**: each table's ruleset and seats (tokens, who sits where, the invite codes
//!   of a lobby table's open seats), each game's
//!   setup and **every move**, committed before the host answers it ([`super::net`]'s writer
//!   delivers a move's messages only after its transaction is durable: WAL with
//!   `synchronous=FULL`), so that a `kill -9` loses no move anyone was told of;
//! - the **results and ratings**: Weng-Lin (the `skillratings` crate's defaults), per ruleset,
//!   with their uncertainty;
//! - the **rulesets players brought** (`upload`): their files by the SHA-256 that names them,
//!   and what the lobby shows of each, so that a resumed host offers them and replays their
//!   tables; a table, its results and its ratings name such a ruleset by its id, which holds
//!   the hash (`sharks@1f2e3d4c5b6a`), so two rulesets of one name never share ratings.
//!
//! The host makes and migrates the file itself: `schema_version` says which of [`MIGRATIONS`]
//! it has, and a file of a newer version is refused rather than misread. One connection, used
//! from one thread at a time (the server keeps it behind a mutex); every change is one
//! transaction. A running host holds [`lock`] on its games directory.

use std::path::{Path, PathBuf};

use anyhow::Context;
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

use crate::table::save::{ActionJson, SaveFile};
use crate::wire::server::{Offered, Placed, Ratings, Recent, Standing};
use crate::wire::{UploadFile, check_key};

/// The database's file in the games directory.
pub const FILE: &str = "diving.sqlite";

/// The lock a host holds on its games directory while it runs ([`lock`]).
pub const LOCK_FILE: &str = "host.lock";

/// Takes the games directory `dir` for this host until the returned file is dropped, or says
/// that another `diving host` holds it: two hosts of one database would both take the same
/// seats' moves into it, whose games would then no longer replay.
pub fn lock(dir: &Path) -> anyhow::Result<std::fs::File> {
    use std::fs::{OpenOptions, TryLockError};
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).with_context(|| {
        format!("cannot take the games directory {}: cannot open {}", dir.display(), path.display())
    })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => anyhow::bail!(
            "{} is in use by another diving host (it holds {}): stop that one first, or host in another --dir",
            dir.display(),
            path.display()
        ),
        Err(TryLockError::Error(e)) => Err(e).with_context(|| {
            format!("cannot take the games directory {}: cannot lock {}", dir.display(), path.display())
        }),
    }
}

/// The schema, one migration per version: version `n` is the first `n` of them.
pub const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('person', 'guest', 'bot')),
    -- a person's key, hashed (SHA-256, hex); NULL for guests and bots
    key_hash TEXT UNIQUE,
    name TEXT NOT NULL,
    -- the name as compared (see `skeleton`): no two of one kind look alike
    skeleton TEXT NOT NULL,
    created INTEGER NOT NULL,
    UNIQUE (kind, skeleton)
);
CREATE TABLE tables (
    room TEXT PRIMARY KEY,
    -- the ruleset as the host names it (`standard`, a path) and as players see it
    spec TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    lobby INTEGER NOT NULL,
    hints INTEGER NOT NULL,
    -- the game being played (or waited for) at the table, from 1
    game INTEGER NOT NULL,
    created INTEGER NOT NULL,
    closed INTEGER
);
CREATE TABLE seats (
    room TEXT NOT NULL REFERENCES tables (room),
    -- in the order of the table's current game (a rematch turns them)
    seat INTEGER NOT NULL,
    token TEXT,
    bot TEXT,
    player INTEGER REFERENCES players (id),
    PRIMARY KEY (room, seat)
);
CREATE TABLE games (
    room TEXT NOT NULL REFERENCES tables (room),
    game INTEGER NOT NULL,
    -- the save file of the game as dealt (no move), JSON
    setup TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (room, game)
);
CREATE TABLE moves (
    room TEXT NOT NULL,
    game INTEGER NOT NULL,
    number INTEGER NOT NULL,
    -- the step hash its replay must give, and the action as a save writes it (JSON)
    step TEXT NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (room, game, number)
) WITHOUT ROWID;
CREATE TABLE results (
    id INTEGER PRIMARY KEY,
    room TEXT NOT NULL,
    game INTEGER NOT NULL,
    ruleset TEXT NOT NULL,
    finished INTEGER NOT NULL,
    UNIQUE (room, game)
);
CREATE TABLE places (
    result INTEGER NOT NULL REFERENCES results (id),
    seat INTEGER NOT NULL,
    player INTEGER NOT NULL REFERENCES players (id),
    place INTEGER NOT NULL,
    before REAL NOT NULL,
    after REAL NOT NULL,
    PRIMARY KEY (result, seat)
);
CREATE TABLE ratings (
    ruleset TEXT NOT NULL,
    player INTEGER NOT NULL REFERENCES players (id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    PRIMARY KEY (ruleset, player)
);
",
    "
-- the invite codes of lobby tables' seats, so that a code given out still seats its holder
-- after a restart (while the seat is open)
CREATE TABLE codes (
    code TEXT PRIMARY KEY,
    room TEXT NOT NULL REFERENCES tables (room),
    seat INTEGER NOT NULL
);
",
    "
-- rulesets players brought to the lobby, by the SHA-256 of their files
CREATE TABLE rulesets (
    hash TEXT PRIMARY KEY,
    -- the name tables, results and ratings know it by (`sharks@1f2e3d4c5b6a`)
    id TEXT NOT NULL UNIQUE,
    -- its files, JSON: [{\"name\": …, \"text\": …}]
    files TEXT NOT NULL,
    -- what the lobby shows of it (the `Offered` of PROTOCOL.md), JSON
    offer TEXT NOT NULL,
    player INTEGER REFERENCES players (id),
    uploaded INTEGER NOT NULL
);
",
];

/// A player's row id.
pub type PlayerId = i64;

/// Why a name cannot be this player's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NameRefused(pub String);

/// Who a name and key are to the host ([`Db::register`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registered {
    /// A player it knows.
    Known(PlayerId),
    /// A player registered just now.
    New(PlayerId),
    /// A key it does not know, not registered (as asked).
    NotNew,
}

/// A seat of a table as the database keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatRow {
    /// The seat's secret (`None`: a bot's seat).
    pub token: Option<String>,
    pub bot: Option<String>,
    /// Who sits there (`None`: an open seat of a waiting table).
    pub player: Option<PlayerId>,
}

/// A table as `--resume` finds it.
#[derive(Debug, Clone)]
pub struct StoredTable {
    pub room: String,
    pub spec: String,
    pub lobby: bool,
    pub hints: bool,
    pub game: u32,
    pub seats: Vec<SeatRow>,
    /// The names of the seats' players (`None`: open), in seat order.
    pub names: Vec<Option<String>>,
    /// The current game's setup (with the moves made as it was dealt) and the moves after
    /// those (`None`: the table waits for its seats).
    pub current: Option<(SaveFile, Vec<(String, ActionJson)>)>,
}

/// How one seat finished a game: its place (for the ratings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finish {
    pub seat: usize,
    pub player: PlayerId,
    /// 1 for the winner; the others by depth (ties share a place).
    pub place: usize,
    pub won: bool,
}

/// A change to the database, applied in the writer's transaction.
#[derive(Debug, Clone)]
pub enum Change {
    /// A new table (a waiting one when some seat has no player).
    Table { room: String, spec: String, ruleset: String, lobby: bool, hints: bool, seats: Vec<SeatRow> },
    /// A person took an open seat of a waiting table.
    Sat { room: String, seat: usize, player: PlayerId },
    /// Game `game` of a table is dealt: its setup, with the seats in its order.
    Dealt { room: String, game: u32, setup: Box<SaveFile>, seats: Vec<SeatRow> },
    /// Moves `first + 1` on of the table's game `game`: each one's step and action.
    Moves { room: String, game: u32, first: usize, moves: Vec<(String, ActionJson)> },
    /// Game `game` of a table is over: its result and the ratings it moves.
    Finished { room: String, game: u32, ruleset: String, places: Vec<Finish> },
    /// The table is closed (no one came back): it is not resumed.
    Closed { room: String },
    /// Seat `seat` of a lobby table has the invite code `code`.
    Code { code: String, room: String, seat: usize },
    /// A ruleset a player brought, checked: its files and what the lobby shows of it.
    Ruleset { stored: Box<StoredRuleset>, player: PlayerId },
}

/// A ruleset a player brought, as the database keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRuleset {
    pub hash: String,
    pub id: String,
    pub files: Vec<UploadFile>,
    pub offer: Offered,
}

/// The database.
pub struct Db {
    conn: Connection,
    path: Option<PathBuf>,
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// The SHA-256 of a player's key, in hex: what the database keeps of it.
pub fn key_hash(key: &str) -> String {
    Sha256::digest(key.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A name as names are compared, so that names that look alike are one: its NFKC form
/// (full-width `Ｍａｒｌｏｗ` is `Marlow`, `ﬁ` is `fi`), then Unicode's confusable skeleton
/// (UTS #39, through the `unicode-security` crate: Cyrillic `а` is `a`, `rn` is `m`, `0` is
/// `o`, `1` and `I` are `l`), taken before and after lower case, without accents (combining
/// marks: `Maŕlow` is `Marlow`), without `_`, `-` and `.`, and with the look-alikes the host
/// took as one before (`i` as `l`, `5` as `s`, `3` as `e`, Greek letters like Latin ones). So
/// `Ann`, `a_nn`, `аnn` (Cyrillic а) and `ＡＮＮ` are one name.
pub fn skeleton(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    use unicode_security::confusable_detection::skeleton as confusable;
    let plain: String = name.nfkc().collect();
    // Before lower case `I` is `l`; after it, `m` (of `M`) is `rn`.
    let lower: String = confusable(&plain).flat_map(char::to_lowercase).collect();
    confusable(&lower)
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .map(|c| match c {
            'а' | 'α' => 'a',
            'в' | 'β' => 'b',
            'с' | 'ϲ' => 'c',
            'е' | 'ё' | 'ε' | '3' => 'e',
            'һ' => 'h',
            'і' | 'ї' | 'ι' | '1' | 'i' | '|' | 'ӏ' => 'l',
            'ј' => 'j',
            'к' | 'κ' => 'k',
            'м' => 'm',
            'н' | 'η' => 'n',
            'о' | 'ο' | 'σ' | '0' => 'o',
            'р' | 'ρ' => 'p',
            'ѕ' | '5' => 's',
            'т' | 'τ' => 't',
            'у' | 'υ' => 'y',
            'х' | 'χ' => 'x',
            'ԁ' => 'd',
            'ɡ' => 'g',
            'ѡ' | 'ω' => 'w',
            c => c,
        })
        .collect()
}

/// The tables of the schema, checked to be there when a database is opened.
const TABLES: [&str; 10] =
    ["players", "tables", "seats", "games", "moves", "results", "places", "ratings", "codes", "rulesets"];

impl Db {
    /// Opens the database of the games directory `dir`, making or migrating it.
    pub fn open(dir: &Path) -> anyhow::Result<Db> {
        let path = dir.join(FILE);
        let fresh = !path.exists();
        let conn = Connection::open(&path).with_context(|| format!("cannot open {}", path.display()))?;
        #[cfg(unix)]
        if fresh {
            use std::os::unix::fs::PermissionsExt;
            // It holds the seats' tokens: the owner's only.
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
        }
        let _ = fresh;
        let mut db = Db { conn, path: Some(path) };
        db.prepare()?;
        Ok(db)
    }

    /// Opens the database of `dir` if it has one (for reading it: `diving host ratings`).
    pub fn open_existing(dir: &Path) -> anyhow::Result<Db> {
        let path = dir.join(FILE);
        if !path.exists() {
            anyhow::bail!(
                "{} has no {FILE}: no game was hosted there with ratings (diving host --dir DIR)",
                dir.display()
            );
        }
        Db::open(dir)
    }

    /// A database in memory, for a host without a games directory.
    pub fn in_memory() -> Db {
        let conn = Connection::open_in_memory().expect("SQLite opens a database in memory");
        let mut db = Db { conn, path: None };
        db.prepare().expect("a database in memory takes the schema");
        db
    }

    fn what(&self) -> String {
        self.path.as_ref().map_or_else(|| "the database".to_string(), |p| p.display().to_string())
    }

    /// WAL, durable commits, and the schema brought up to date.
    fn prepare(&mut self) -> anyhow::Result<()> {
        let what = self.what();
        let conn = &mut self.conn;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // Every statement a commit runs stays prepared (`execute`): about a dozen.
        conn.set_prepared_statement_cache_capacity(32);
        conn.pragma_update(None, "journal_mode", "WAL").with_context(|| format!("{what}: cannot use WAL"))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let tx = conn.transaction()?;
        tx.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")?;
        let version: Option<i64> = tx
            .query_row("SELECT version FROM schema_version", [], |r| r.get(0))
            .optional()
            .with_context(|| format!("{what} is not a diving database (or is damaged)"))?;
        let version = version.unwrap_or(0);
        let known = MIGRATIONS.len() as i64;
        if version > known {
            anyhow::bail!(
                "{what} has schema version {version}, made by a newer diving (this one knows up to {known}): host it with that version"
            );
        }
        for (i, step) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.execute_batch(step).with_context(|| format!("{what}: migration to schema version {}", i + 1))?;
        }
        if version == 0 {
            tx.execute("INSERT INTO schema_version (version) VALUES (?1)", [known])?;
        } else if version < known {
            tx.execute("UPDATE schema_version SET version = ?1", [known])?;
        }
        // A file whose version says it is whole but lacks a table (damaged, or edited): say
        // so, naming the file, before a query meets it ("no such table: moves").
        for table in TABLES {
            let found: Option<i64> = tx
                .query_row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", [table], |r| r.get(0))
                .optional()
                .with_context(|| format!("{what} is not a diving database (or is damaged)"))?;
            if found.is_none() {
                anyhow::bail!(
                    "{what} is damaged: its table '{table}' is missing (restore the file from a backup, or host with \
                     another --dir)"
                );
            }
        }
        // Names are compared as this version compares them ([`skeleton`]: a newer one finds
        // look-alikes an older one missed, as UTS #39's did): each person's row is brought up
        // to date, unless two players' names would then be one (both keep theirs as they were).
        let people: Vec<(PlayerId, String, String)> = {
            let mut rows = tx.prepare("SELECT id, name, skeleton FROM players WHERE kind = 'person'")?;
            rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<_, _>>()?
        };
        for (id, name, old) in people {
            let look = skeleton(&name);
            if look != old {
                tx.execute("UPDATE OR IGNORE players SET skeleton = ?1 WHERE id = ?2", params![look, id])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The person with `key` under `name`: their id, the name taken (or changed to) for them.
    /// Refused when another key owns the name or one that looks like it.
    pub fn person(&mut self, name: &str, key: &str) -> Result<PlayerId, NameRefused> {
        match self.register(name, key, true)? {
            Registered::Known(id) | Registered::New(id) => Ok(id),
            Registered::NotNew => unreachable!("a new key may be registered"),
        }
    }

    /// [`Db::person`], saying whether the key is new here; a key the host does not know is
    /// registered only when `new` allows it ([`Registered::NotNew`] otherwise: the lobby's
    /// limit of new players per address).
    pub fn register(&mut self, name: &str, key: &str, new: bool) -> Result<Registered, NameRefused> {
        check_key(key).map_err(NameRefused)?;
        let hash = key_hash(key);
        let look = skeleton(name);
        let fail = |e: rusqlite::Error| NameRefused(format!("the host's database failed: {e}"));
        let owner: Option<(PlayerId, String, Option<String>)> = self
            .conn
            .query_row("SELECT id, name, key_hash FROM players WHERE kind = 'person' AND skeleton = ?1", [&look], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()
            .map_err(fail)?;
        let mine: Option<(PlayerId, String)> = self
            .conn
            .query_row("SELECT id, name FROM players WHERE key_hash = ?1", [&hash], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
            .map_err(fail)?;
        // A player's own name stays theirs, even one kept from before names were compared
        // as now (and now like another's).
        let kept = mine.as_ref().is_some_and(|(_, old)| old == name);
        if let Some((_, taken, owner_key)) = &owner
            && owner_key.as_deref() != Some(hash.as_str())
            && !kept
        {
            return Err(NameRefused(if taken == name {
                format!("the name '{name}' belongs to another player here; pick another")
            } else {
                format!("'{name}' looks too much like '{taken}', another player's name here; pick another")
            }));
        }
        match mine {
            Some((id, old)) if old == name => Ok(Registered::Known(id)),
            Some((id, _)) => {
                self.conn
                    .execute("UPDATE players SET name = ?1, skeleton = ?2 WHERE id = ?3", params![name, look, id])
                    .map_err(fail)?;
                Ok(Registered::Known(id))
            }
            None if !new => Ok(Registered::NotNew),
            None => {
                self.conn
                    .execute(
                        "INSERT INTO players (kind, key_hash, name, skeleton, created) VALUES ('person', ?1, ?2, ?3, ?4)",
                        params![hash, name, look, now()],
                    )
                    .map_err(fail)?;
                Ok(Registered::New(self.conn.last_insert_rowid()))
            }
        }
    }

    /// A guest (a start-up seat's name) or a bot (`bot:SPEC`): found or made.
    pub fn unkeyed(&mut self, kind: Unkeyed, name: &str) -> anyhow::Result<PlayerId> {
        let (kind, look) = match kind {
            Unkeyed::Guest => ("guest", name.to_lowercase()),
            Unkeyed::Bot => ("bot", name.to_string()),
        };
        let found: Option<PlayerId> = self
            .conn
            .query_row("SELECT id FROM players WHERE kind = ?1 AND skeleton = ?2", [kind, &look], |r| r.get(0))
            .optional()?;
        if let Some(id) = found {
            return Ok(id);
        }
        self.conn.execute(
            "INSERT INTO players (kind, name, skeleton, created) VALUES (?1, ?2, ?3, ?4)",
            params![kind, name, look, now()],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// A player's name as boards show it.
    pub fn name_of(&self, player: PlayerId) -> anyhow::Result<String> {
        Ok(self.conn.query_row("SELECT name FROM players WHERE id = ?1", [player], |r| r.get(0))?)
    }

    /// Applies `changes` in one transaction, made durable before it returns.
    pub fn commit(&mut self, changes: &[Change]) -> anyhow::Result<()> {
        let tx = self.conn.transaction()?;
        for change in changes {
            apply(&tx, change)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The invite codes that still seat someone: those of open seats of tables not closed.
    pub fn codes(&self) -> anyhow::Result<Vec<(String, String, usize)>> {
        let mut statement = self.conn.prepare(
            "SELECT c.code, c.room, c.seat FROM codes c \
             JOIN tables t ON t.room = c.room JOIN seats s ON s.room = c.room AND s.seat = c.seat \
             WHERE t.closed IS NULL AND s.player IS NULL AND s.bot IS NULL ORDER BY c.code",
        )?;
        let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as usize)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every table not closed, with its current game's setup and moves.
    pub fn tables(&self) -> anyhow::Result<Vec<StoredTable>> {
        let mut out = Vec::new();
        let mut rows = self.conn.prepare(
            "SELECT room, spec, lobby, hints, game FROM tables WHERE closed IS NULL ORDER BY length(room), room",
        )?;
        let tables: Vec<(String, String, bool, bool, u32)> = rows
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
            .collect::<Result<_, _>>()?;
        for (room, spec, lobby, hints, game) in tables {
            let mut seat_rows = self.conn.prepare(
                "SELECT s.token, s.bot, s.player, p.name FROM seats s LEFT JOIN players p ON p.id = s.player \
                 WHERE s.room = ?1 ORDER BY s.seat",
            )?;
            let mut seats = Vec::new();
            let mut names = Vec::new();
            for row in seat_rows.query_map([&room], |r| {
                Ok((SeatRow { token: r.get(0)?, bot: r.get(1)?, player: r.get(2)? }, r.get::<_, Option<String>>(3)?))
            })? {
                let (seat, name) = row?;
                seats.push(seat);
                names.push(name);
            }
            let setup: Option<String> = self
                .conn
                .query_row("SELECT setup FROM games WHERE room = ?1 AND game = ?2", params![room, game], |r| r.get(0))
                .optional()?;
            let current = match setup {
                None => {
                    let moves: i64 = self.conn.query_row(
                        "SELECT count(*) FROM moves WHERE room = ?1 AND game = ?2",
                        params![room, game],
                        |r| r.get(0),
                    )?;
                    if moves > 0 {
                        anyhow::bail!(
                            "{}: room {room} game {game} has {moves} moves but no setup (its row of `games` is gone): the database is damaged",
                            self.what()
                        );
                    }
                    None
                }
                Some(text) => {
                    let at = format!("{}: room {room} game {game}", self.what());
                    let save: SaveFile =
                        serde_json::from_str(&text).with_context(|| format!("{at}: its setup is damaged"))?;
                    // The setup holds the moves made as the game was dealt (bots that move
                    // first); the table's moves follow them.
                    let base = save.actions.len() as i64;
                    let mut moves = Vec::new();
                    let mut statement = self.conn.prepare(
                        "SELECT number, step, action FROM moves WHERE room = ?1 AND game = ?2 ORDER BY number",
                    )?;
                    for row in statement.query_map(params![room, game], |r| {
                        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
                    })? {
                        let (number, step, action) = row?;
                        let expected = base + moves.len() as i64 + 1;
                        if number != expected {
                            anyhow::bail!(
                                "{at}: move {number} follows move {}: the moves between are missing",
                                expected - 1
                            );
                        }
                        let action: ActionJson =
                            serde_json::from_str(&action).with_context(|| format!("{at}: move {number} is damaged"))?;
                        moves.push((step, action));
                    }
                    Some((save, moves))
                }
            };
            out.push(StoredTable { room, spec, lobby, hints, game, seats, names, current });
        }
        Ok(out)
    }

    /// The rulesets players brought, in the order they were brought.
    pub fn rulesets(&self) -> anyhow::Result<Vec<StoredRuleset>> {
        let mut statement =
            self.conn.prepare("SELECT hash, id, files, offer FROM rulesets ORDER BY uploaded, rowid")?;
        let rows: Vec<(String, String, String, String)> =
            statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect::<Result<_, _>>()?;
        rows.into_iter()
            .map(|(hash, id, files, offer)| {
                let at = format!("{}: the ruleset {id}", self.what());
                Ok(StoredRuleset {
                    files: serde_json::from_str(&files).with_context(|| format!("{at}: its files are damaged"))?,
                    offer: serde_json::from_str(&offer).with_context(|| format!("{at}: its offer is damaged"))?,
                    hash,
                    id,
                })
            })
            .collect()
    }

    /// The name of every table the database holds, closed ones too.
    pub fn rooms(&self) -> anyhow::Result<std::collections::HashSet<String>> {
        let mut statement = self.conn.prepare("SELECT room FROM tables")?;
        Ok(statement.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?)
    }

    /// The highest room number any table ever had (new rooms are numbered on from it).
    pub fn last_room(&self) -> anyhow::Result<u64> {
        let mut statement = self.conn.prepare("SELECT room FROM tables")?;
        let rooms: Vec<String> = statement.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok(rooms.iter().filter_map(|r| r.parse::<u64>().ok()).max().unwrap_or(0))
    }

    /// The rulesets with rated games, most played first.
    pub fn rated_rulesets(&self) -> anyhow::Result<Vec<String>> {
        let mut statement =
            self.conn.prepare("SELECT ruleset FROM results GROUP BY ruleset ORDER BY count(*) DESC, ruleset")?;
        Ok(statement.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?)
    }

    /// The leaderboard of `ruleset`, best first (by μ − 3σ).
    pub fn leaderboard(&self, ruleset: &str) -> anyhow::Result<Vec<Standing>> {
        let mut statement = self.conn.prepare(
            "SELECT p.name, p.kind, r.mu, r.sigma, r.games, r.wins FROM ratings r JOIN players p ON p.id = r.player \
             WHERE r.ruleset = ?1 ORDER BY r.mu - 3 * r.sigma DESC, p.name",
        )?;
        let rows = statement.query_map([ruleset], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, f64>(2)?,
                r.get::<_, f64>(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?;
        let mut board = Vec::new();
        for (i, row) in rows.enumerate() {
            let (name, kind, mu, sigma, games, wins) = row?;
            let player = if kind == "bot" { format!("bot:{name}") } else { name };
            board.push(Standing {
                rank: i + 1,
                player,
                bot: kind == "bot",
                rating: mu - 3.0 * sigma,
                mu,
                uncertainty: sigma,
                games,
                wins,
            });
        }
        Ok(board)
    }

    /// The last `count` results of `ruleset`, newest first.
    pub fn recent(&self, ruleset: &str, count: usize) -> anyhow::Result<Vec<Recent>> {
        let mut statement = self.conn.prepare(
            "SELECT id, room, game, finished FROM results WHERE ruleset = ?1 ORDER BY finished DESC, id DESC LIMIT ?2",
        )?;
        let results: Vec<(i64, String, u32, i64)> = statement
            .query_map(params![ruleset, count as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        for (id, room, game, finished) in results {
            let mut places = self.conn.prepare(
                "SELECT p.name, p.kind, pl.place FROM places pl JOIN players p ON p.id = pl.player \
                 WHERE pl.result = ?1 ORDER BY pl.place, pl.seat",
            )?;
            let places = places
                .query_map([id], |r| {
                    let (name, kind, place): (String, String, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
                    Ok(Placed {
                        player: if kind == "bot" { format!("bot:{name}") } else { name },
                        place: place as usize,
                    })
                })?
                .collect::<Result<_, _>>()?;
            out.push(Recent { room, game, finished, places });
        }
        Ok(out)
    }
}

/// The boards `diving host --dir DIR ratings [--ruleset R]` prints: every rated ruleset's
/// (most played first), or `R`'s, from the database of `dir`, in the wire's shape (the lobby's
/// `ratings` message). Reads the file without changing it and starts no host.
pub fn boards(dir: &Path, ruleset: Option<&str>) -> anyhow::Result<Vec<Ratings>> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{}: no such directory (give the host's games directory: diving host --dir DIR ratings)",
            dir.display()
        );
    }
    let db = Db::open_existing(dir)?;
    let rated = db.rated_rulesets()?;
    let rulesets = match ruleset {
        Some(r) if !rated.iter().any(|x| x == r) => {
            let known = if rated.is_empty() { "none yet".to_string() } else { rated.join(", ") };
            anyhow::bail!("{} has no rated games of ruleset '{r}' (rated rulesets: {known})", dir.display());
        }
        Some(r) => vec![r.to_string()],
        None => rated,
    };
    rulesets.into_iter().map(|ruleset| db.board(&ruleset)).collect()
}

/// How many results a board lists under the standings.
pub const RECENT: usize = 20;

impl Db {
    /// The leaderboard of `ruleset` and its last [`RECENT`] results, as the lobby sends them.
    pub fn board(&self, ruleset: &str) -> anyhow::Result<Ratings> {
        Ok(Ratings {
            id: None,
            ruleset: ruleset.to_string(),
            rows: self.leaderboard(ruleset)?,
            recent: self.recent(ruleset, RECENT)?,
        })
    }
}

/// Which kind of player [`Db::unkeyed`] finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unkeyed {
    Guest,
    Bot,
}

/// Runs one statement of a commit, prepared once per connection: the keeper commits the
/// same few statements thousands of times, and preparing one costs more than running it.
fn execute(tx: &rusqlite::Transaction, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
    tx.prepare_cached(sql)?.execute(params)
}

fn write_seats(tx: &rusqlite::Transaction, room: &str, seats: &[SeatRow]) -> rusqlite::Result<()> {
    execute(tx, "DELETE FROM seats WHERE room = ?1", [room])?;
    for (i, seat) in seats.iter().enumerate() {
        execute(
            tx,
            "INSERT INTO seats (room, seat, token, bot, player) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![room, i as i64, seat.token, seat.bot, seat.player],
        )?;
    }
    Ok(())
}

fn apply(tx: &rusqlite::Transaction, change: &Change) -> anyhow::Result<()> {
    match change {
        Change::Table { room, spec, ruleset, lobby, hints, seats } => {
            execute(
                tx,
                "INSERT INTO tables (room, spec, ruleset, lobby, hints, game, created) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)",
                params![room, spec, ruleset, lobby, hints, now()],
            )?;
            write_seats(tx, room, seats)?;
        }
        Change::Sat { room, seat, player } => {
            execute(
                tx,
                "UPDATE seats SET player = ?1 WHERE room = ?2 AND seat = ?3",
                params![player, room, *seat as i64],
            )?;
        }
        Change::Dealt { room, game, setup, seats } => {
            let text = serde_json::to_string(setup.as_ref())?;
            execute(tx, "UPDATE tables SET game = ?1 WHERE room = ?2", params![game, room])?;
            execute(tx, "INSERT INTO games (room, game, setup) VALUES (?1, ?2, ?3)", params![room, game, text])?;
            write_seats(tx, room, seats)?;
        }
        Change::Moves { room, game, first, moves } => {
            let mut statement = tx.prepare_cached(
                "INSERT OR REPLACE INTO moves (room, game, number, step, action) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (i, (step, action)) in moves.iter().enumerate() {
                let action = serde_json::to_string(action)?;
                statement.execute(params![room, game, (first + i + 1) as i64, step, action])?;
            }
        }
        Change::Finished { room, game, ruleset, places } => {
            execute(tx, "UPDATE games SET over = 1 WHERE room = ?1 AND game = ?2", params![room, game])?;
            let fresh = execute(
                tx,
                "INSERT OR IGNORE INTO results (room, game, ruleset, finished) VALUES (?1, ?2, ?3, ?4)",
                params![room, game, ruleset, now()],
            )?;
            if fresh == 0 {
                // Rated once only (a resumed host told of it again).
                return Ok(());
            }
            let result = tx.last_insert_rowid();
            rate(tx, result, ruleset, places)?;
        }
        Change::Closed { room } => {
            execute(tx, "UPDATE tables SET closed = ?1 WHERE room = ?2", params![now(), room])?;
        }
        Change::Code { code, room, seat } => {
            execute(
                tx,
                "INSERT OR REPLACE INTO codes (code, room, seat) VALUES (?1, ?2, ?3)",
                params![code, room, *seat as i64],
            )?;
        }
        Change::Ruleset { stored, player } => {
            let files = serde_json::to_string(&stored.files)?;
            let offer = serde_json::to_string(&stored.offer)?;
            execute(
                tx,
                "INSERT OR IGNORE INTO rulesets (hash, id, files, offer, player, uploaded) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![stored.hash, stored.id, files, offer, player, now()],
            )?;
        }
    }
    Ok(())
}

/// The ratings a game's places move (Weng-Lin, each seat a team of one).
fn rate(tx: &rusqlite::Transaction, result: i64, ruleset: &str, places: &[Finish]) -> anyhow::Result<()> {
    let mut before = Vec::new();
    for place in places {
        let found: Option<(f64, f64)> = tx
            .prepare_cached("SELECT mu, sigma FROM ratings WHERE ruleset = ?1 AND player = ?2")?
            .query_row(params![ruleset, place.player], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let rating =
            found.map_or_else(WengLinRating::new, |(rating, uncertainty)| WengLinRating { rating, uncertainty });
        before.push([rating]);
    }
    let teams: Vec<(&[WengLinRating], MultiTeamOutcome)> =
        before.iter().zip(places).map(|(team, place)| (&team[..], MultiTeamOutcome::new(place.place))).collect();
    let after = weng_lin_multi_team(&teams, &WengLinConfig::new());
    for ((place, old), new) in places.iter().zip(&before).zip(&after) {
        let (old, new) = (old[0], new[0]);
        execute(
            tx,
            "INSERT INTO places (result, seat, player, place, before, after) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                result,
                place.seat as i64,
                place.player,
                place.place as i64,
                old.rating - 3.0 * old.uncertainty,
                new.rating - 3.0 * new.uncertainty
            ],
        )?;
        execute(
            tx,
            "INSERT INTO ratings (ruleset, player, mu, sigma, games, wins) VALUES (?1, ?2, ?3, ?4, 1, ?5) \
             ON CONFLICT (ruleset, player) DO UPDATE SET mu = ?3, sigma = ?4, games = games + 1, wins = wins + ?5",
            params![ruleset, place.player, new.rating, new.uncertainty, i64::from(place.won)],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY_A: &str = "0123456789abcdef0123456789abcdef";
    const KEY_B: &str = "fedcba9876543210fedcba9876543210";
    const KEY_C: &str = "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0";
    const KEY_D: &str = "d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0";

    /// Issue 43: `host --resume` over a database missing a table said "no such table: moves"
    /// without naming the file.
    #[test]
    fn a_database_missing_a_table_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        drop(Db::open(dir.path()).unwrap());
        let conn = Connection::open(dir.path().join(FILE)).unwrap();
        conn.execute_batch("DROP TABLE moves").unwrap();
        drop(conn);
        let e = Db::open(dir.path()).err().expect("a damaged database is refused").to_string();
        assert!(e.contains(&dir.path().join(FILE).display().to_string()), "{e}");
        assert!(e.contains("is damaged: its table 'moves' is missing"), "{e}");
    }

    #[test]
    fn a_name_is_its_first_keys_and_look_alikes_are_refused() {
        let mut db = Db::in_memory();
        let ann = db.person("ann", KEY_A).unwrap();
        assert_eq!(db.person("ann", KEY_A).unwrap(), ann);
        for other in ["ann", "Ann", "a_nn", "аnn", "a.n-n"] {
            let refused = db.person(other, KEY_B).unwrap_err();
            assert!(refused.0.contains("another player"), "{other}: {refused}");
        }
        assert_eq!(skeleton("B0b1"), skeleton("bobl"));
        // Full-width letters and digits (NFKC), a combining accent or a composed one, a
        // Cyrillic letter (UTS #39): all look like Marlow100.
        db.person("Marlow100", KEY_C).unwrap();
        for other in
            ["Ｍａｒｌｏｗ１００", "Mar\u{301}low100", "Ma\u{155}low100", "Marlow1OO", "rnarlow100", "МARLOW100"]
        {
            let refused = db.person(other, KEY_B).unwrap_err();
            assert!(refused.0.contains("looks too much like 'Marlow100'"), "{other}: {refused}");
        }
        let bob = db.person("bob", KEY_B).unwrap();
        assert_ne!(ann, bob);
        // A key may change its name; the old one is free again.
        assert_eq!(db.person("annie", KEY_A).unwrap(), ann);
        assert_eq!(db.name_of(ann).unwrap(), "annie");
        assert!(db.person("ann", KEY_B).is_ok_and(|id| id == bob));
        assert!(db.person("x", "short").is_err());
    }

    #[test]
    fn key_hashes_are_sha256() {
        assert_eq!(key_hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    fn seat(player: PlayerId) -> SeatRow {
        SeatRow { token: Some("t".into()), bot: None, player: Some(player) }
    }

    #[test]
    fn a_finished_game_rates_its_seats_once() {
        let mut db = Db::in_memory();
        let ann = db.person("ann", KEY_A).unwrap();
        let bot = db.unkeyed(Unkeyed::Bot, "greedy").unwrap();
        let table = Change::Table {
            room: "1".into(),
            spec: "standard".into(),
            ruleset: "standard".into(),
            lobby: true,
            hints: false,
            seats: vec![seat(ann), seat(bot)],
        };
        let places = vec![
            Finish { seat: 0, player: ann, place: 1, won: true },
            Finish { seat: 1, player: bot, place: 2, won: false },
        ];
        let finished = Change::Finished { room: "1".into(), game: 1, ruleset: "standard".into(), places };
        db.commit(&[table, finished.clone()]).unwrap();
        db.commit(&[finished]).unwrap();
        let board = db.leaderboard("standard").unwrap();
        assert_eq!(board.len(), 2);
        assert_eq!((board[0].player.as_str(), board[0].games, board[0].wins), ("ann", 1, 1));
        assert_eq!((board[1].player.as_str(), board[1].games, board[1].wins), ("bot:greedy", 1, 0));
        assert!(board[0].rating > board[1].rating);
        assert!(board[0].uncertainty < 25.0 / 3.0);
        let recent = db.recent("standard", 20).unwrap();
        let places: Vec<(&str, usize)> = recent[0].places.iter().map(|p| (p.player.as_str(), p.place)).collect();
        assert_eq!(places, [("ann", 1), ("bot:greedy", 2)]);
    }

    #[test]
    fn a_file_of_the_first_schema_is_migrated_and_keeps_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        {
            let conn = Connection::open(dir.path().join(FILE)).unwrap();
            conn.execute_batch(MIGRATIONS[0]).unwrap();
            conn.execute_batch(
                "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);",
            )
            .unwrap();
            conn.execute(
                "INSERT INTO players (kind, key_hash, name, skeleton, created) VALUES ('person', ?1, 'ann', ?2, 0)",
                params![key_hash(KEY_A), skeleton("ann")],
            )
            .unwrap();
        }
        let mut db = Db::open(dir.path()).unwrap();
        let version: i64 = db.conn.query_row("SELECT version FROM schema_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
        assert_eq!(db.codes().unwrap(), Vec::new());
        assert_eq!(db.rulesets().unwrap(), Vec::new(), "the rulesets players brought have their table");
        assert!(db.person("ann", KEY_A).is_ok(), "the first schema's player is still theirs");
        assert!(db.person("ann", KEY_B).is_err());
    }

    /// Names kept under an older comparison are compared as this version compares them once
    /// the file is opened; two that are now one keep their names (and players) as they were.
    #[test]
    fn names_kept_under_an_older_comparison_are_compared_anew() {
        let dir = tempfile::tempdir().unwrap();
        drop(Db::open(dir.path()).unwrap());
        {
            let conn = Connection::open(dir.path().join(FILE)).unwrap();
            let old = "INSERT INTO players (kind, key_hash, name, skeleton, created) VALUES ('person', ?1, ?2, ?3, 0)";
            conn.execute(old, params![key_hash(KEY_A), "Marlow100", "marlowloo"]).unwrap();
            conn.execute(old, params![key_hash(KEY_B), "Ｍａｒｌｏｗ", "ｍａｒｌｏｗ"]).unwrap();
            conn.execute(old, params![key_hash(KEY_C), "Marlow", "marlow"]).unwrap();
        }
        let mut db = Db::open(dir.path()).unwrap();
        let refused = db.person("Ｍａｒｌｏｗ１００", KEY_D).unwrap_err();
        assert!(refused.0.contains("looks too much like 'Marlow100'"), "{refused}");
        // Both Marlows are still their players'.
        assert!(db.person("Ｍａｒｌｏｗ", KEY_B).is_ok());
        assert!(db.person("Marlow", KEY_C).is_ok());
    }

    #[test]
    fn a_file_of_a_newer_schema_is_refused_and_an_old_one_kept() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut db = Db::open(dir.path()).unwrap();
            db.person("ann", KEY_A).unwrap();
        }
        // Opened again: the schema is there, nothing is made twice.
        let mut db = Db::open(dir.path()).unwrap();
        assert!(db.person("ann", KEY_A).is_ok());
        db.conn.execute("UPDATE schema_version SET version = 99", []).unwrap();
        drop(db);
        let refused = Db::open(dir.path()).err().unwrap().to_string();
        assert!(refused.contains("schema version 99") && refused.contains("newer diving"), "{refused}");
    }
}
