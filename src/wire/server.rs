//! What a host sends its clients ([`ServerMessage`]): typed here, written once (by the host's
//! edge, [`ServerMessage::to_text`]) and read back by `diving join` with the same types. A
//! message is made whole for its reader — its `id` included when it answers one — and is
//! never edited or read again once made.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::RulesetId;
use super::client::Id;
use super::code::Code;
use super::limits::{LobbyLimits, RoomLimits};
use crate::table::completion::Words;
use crate::table::json::Object;

/// A message from a host to a client (a room's reader, or a lobby visitor).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// You are in: the room, your seat, the players, the ruleset and the limits.
    Hello(Hello),
    /// (version 5) The table waits for people to take its seats.
    Waiting(Waiting),
    /// (version 5) Who asked for another game at the table, and who it waits for.
    Rematch(Rematch),
    /// (version 5) The next game at the table, and your seat in it.
    NewGame(NewGame),
    /// Game output for you: JSON Lines objects and the same narrated.
    Output(Output),
    /// (version 3) What a terminal shows around the narration.
    Screen(Screen),
    /// A protocol error.
    Error(Refusal),
    /// (version 5) The lobby: rulesets offered, tables, limits.
    Lobby(Lobby),
    /// (version 5) You have a seat: its links.
    Seated(Seated),
    /// (version 5) A ruleset's leaderboard.
    Ratings(Ratings),
    /// (version 7) The ruleset you brought is taken: the lobby offers it.
    Uploaded(Uploaded),
    /// (version 8) Your transfer code (or that you have none, after `revoke`).
    Transfer(Transfer),
    /// (version 8) A transfer code was redeemed: this is who you are now.
    Identity(Identity),
}

impl ServerMessage {
    /// Every `type` a host sends, in PROTOCOL.md's order (a room's, then the lobby's).
    pub const KINDS: [&str; 13] = [
        "hello", "waiting", "rematch", "new_game", "output", "screen", "error", "lobby", "seated", "ratings",
        "uploaded", "transfer", "identity",
    ];

    /// The message's `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            ServerMessage::Hello(_) => "hello",
            ServerMessage::Waiting(_) => "waiting",
            ServerMessage::Rematch(_) => "rematch",
            ServerMessage::NewGame(_) => "new_game",
            ServerMessage::Output(_) => "output",
            ServerMessage::Screen(_) => "screen",
            ServerMessage::Error(_) => "error",
            ServerMessage::Lobby(_) => "lobby",
            ServerMessage::Seated(_) => "seated",
            ServerMessage::Ratings(_) => "ratings",
            ServerMessage::Uploaded(_) => "uploaded",
            ServerMessage::Transfer(_) => "transfer",
            ServerMessage::Identity(_) => "identity",
        }
    }

    /// The message as it goes over the wire: the one place a host's message becomes text.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("a server message serialises")
    }

    /// Reads a host's message (what `diving join` does with each one).
    pub fn parse(text: &str) -> Result<ServerMessage, String> {
        serde_json::from_str(text).map_err(|e| format!("the host sent a message this diving cannot read: {e}"))
    }

    /// A protocol error, answering the message with `id`.
    pub fn error(code: Code, message: impl Into<String>, id: Option<Id>) -> ServerMessage {
        ServerMessage::Error(Refusal { id, code, message: message.into() })
    }

    /// The error's code, if this is an error.
    pub fn code(&self) -> Option<Code> {
        match self {
            ServerMessage::Error(refusal) => Some(refusal.code),
            _ => None,
        }
    }
}

/// `hello`: the reader is in the room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// The version this host speaks to this client (the client's own).
    pub protocol: u32,
    pub room: String,
    /// The reader's seat, 1-based (`None`: watching).
    pub seat: Option<usize>,
    /// The seat's player.
    pub player: Option<String>,
    pub players: Vec<String>,
    /// Each seat's bot (`None`: a person).
    pub bots: Vec<Option<String>>,
    pub ruleset: RulesetId,
    pub limits: RoomLimits,
    /// (version 5) Which of the table's games this is, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<u32>,
}

/// `output`: what happened and what answers the reader, as JSON Lines objects (the local
/// `--json` contract) and as narration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Output {
    /// (version 4) The `id` of the message this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// The moves played when it was made.
    pub at: usize,
    pub json: Vec<Object>,
    pub text: Vec<String>,
    /// (version 6) What the reader may see now, in an output that tells a change (a move, a
    /// question asked or dropped, the state a join or a new game starts from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<View>>,
}

/// A reader's view: what it may see now, made for it alone (its own hand, no other), the
/// moves it may make with what each would do, and what the cards it can see mean. Pushed to a
/// reader of version 6 after every change; the answer to `seat_view` before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct View {
    /// Which of the table's games this is, from 1.
    pub game: u32,
    /// The moves played: the state this view shows, which a `move` names.
    pub at: usize,
    pub turn: u32,
    /// Whose turn it is (`None` once the game is over).
    pub current: Option<String>,
    pub over: bool,
    /// The reader's seat, 1-based (`None`: watching).
    pub seat: Option<usize>,
    /// The `state` object as the reader may see it: `hand` only for its own seat, no `deck`.
    pub state: Object,
    /// What the gauges are drawn against.
    pub rules: Gauges,
    /// The reader's legal moves when it is its turn (else none), in the listing's order.
    pub moves: Vec<Listed>,
    /// The reader's pending target question.
    pub question: Option<Question>,
    /// For each rank the reader can see, what it does.
    pub card_help: BTreeMap<String, String>,
    /// For each rank kept in front of a diver, what it means there.
    pub front: BTreeMap<String, String>,
    /// For a terminal (a reader that gave a `display`): the board as it may see it, laid out
    /// for its display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// For a terminal, once the game is over: the end-of-game lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Vec<String>>,
    /// For a terminal: what Tab completes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion: Option<Words>,
}

/// The scales a view's gauges are drawn against: a depth is shown as `depth × depth_scale`
/// and the unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gauges {
    pub max_depth: u32,
    pub max_oxygen: u32,
    pub depth_scale: u32,
    pub depth_unit: String,
}

/// A target question waiting for the reader's answer (a player's name or seat number).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub text: String,
    pub options: Vec<String>,
}

/// One of the reader's legal moves, as its view lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listed {
    /// Its place in the listing: what a `move` sends.
    pub index: usize,
    #[serde(flatten)]
    pub action: ListedAction,
    /// The line that makes it (`play 7H t2 bob`).
    pub command: String,
    /// What it would do, worked out on what the reader can see (may be empty).
    pub preview: String,
}

/// What a listed move does, by kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ListedAction {
    Play {
        card: String,
        /// The table slot, 1-based (`None`: from the hand).
        slot: Option<usize>,
        /// The player it aims at.
        target: Option<String>,
        /// The face card on top.
        over: bool,
    },
    Recover {
        cards: Vec<String>,
        over: bool,
    },
    Pass,
    /// An action a mod added.
    Act {
        name: String,
        target: Option<String>,
        card: Option<String>,
        /// The mod's line for it.
        describe: Option<String>,
    },
}

/// `screen` (version 3, to a terminal reader): the board, the end-of-game summary and what
/// Tab completes, as this reader may see them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Screen {
    pub at: usize,
    pub turn: u32,
    /// Whose turn it is (`None` once the game is over).
    pub current: Option<String>,
    pub over: bool,
    pub board: String,
    pub summary: Vec<String>,
    pub completion: Words,
}

/// `error`: a message refused, or why the connection ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    pub code: Code,
    pub message: String,
}

/// A seat as the lobby lists it and a waiting table shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatLine {
    /// 1-based.
    pub seat: usize,
    /// The person or bot sitting there (`None`: open).
    pub player: Option<String>,
    /// The bot's spec, for a bot's seat.
    pub bot: Option<String>,
}

/// `waiting`: a table's seats while it waits for its people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiting {
    pub room: String,
    pub seats: Vec<SeatLine>,
    /// How many seats are still open.
    pub open: usize,
}

/// `rematch`: who asked for another game, and who it waits for (people only: bots agree).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rematch {
    pub asked: Vec<String>,
    pub waiting_for: Vec<String>,
}

/// `new_game`: the table's next game; the reader's seat in it (`None`: watching).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewGame {
    pub room: String,
    pub game: u32,
    pub seat: Option<usize>,
}

/// `lobby`: what the host offers and holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lobby {
    /// The `id` of the `lobby` hello it answers (the ones sent at a change carry none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    pub protocol: u32,
    /// Who the visitor is (`None`: looking only).
    pub you: Option<You>,
    pub rulesets: Vec<Offered>,
    pub bots: Vec<String>,
    /// Waiting tables first, at most 200.
    pub tables: Vec<TableLine>,
    /// How many tables were left out.
    pub more_tables: usize,
    pub limits: LobbyLimits,
    /// (version 7) The host takes rulesets its players bring (`upload`).
    #[serde(default)]
    pub uploads: bool,
}

/// The visitor, as the lobby knows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct You {
    pub name: String,
}

/// A ruleset the lobby offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offered {
    /// What a `create` names it by.
    pub id: String,
    /// The file's own name.
    pub name: String,
    pub about: Option<String>,
    /// The first line of the host's `DIR/balance/ID.txt`.
    pub balance: Option<String>,
    /// The fewest and most seats.
    pub seats: [usize; 2],
    /// (version 7) A ruleset a player brought: the SHA-256 of its files, which names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// (version 7) What each of its mods reads of hidden cards and whether it reveals any
    /// (as `diving check` says it), when the host checked it so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mods: Vec<ModSecrets>,
}

/// What a mod reads of hidden cards, and whether it shows any to the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModSecrets {
    /// The mod's name.
    pub name: String,
    /// What it reads: `no hidden card`, or `the cards drawn into hands`, `the mover's hand` …
    pub reads: String,
    /// It reveals hidden cards to the table (`ctx:reveal`).
    pub reveals: bool,
}

/// (version 7) A ruleset brought to the host is taken (answers `upload`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Uploaded {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// The ruleset as the lobby offers it: `create` names it by its `id`.
    pub ruleset: Offered,
    /// It was on this host already (uploaded before, by anyone): nothing was checked again.
    pub known: bool,
}

/// Where a table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableState {
    /// Seats are open.
    Waiting,
    Playing,
    Over,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A table as the lobby lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLine {
    pub room: String,
    pub ruleset: String,
    pub about: Option<String>,
    /// The games played at it (1 for the first).
    pub game: u32,
    pub state: TableState,
    pub seats: Vec<SeatLine>,
    /// How many seats wait for a person and anyone in the lobby may take (`sit`) …
    pub open: usize,
    /// … and how many more wait for the people the maker invited (taken by their codes).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invited: usize,
    /// The page's path.
    pub watch: String,
    /// (version 8) Your own seat at this table, listed to you alone (by your key): the way
    /// back to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yours: Option<YourSeat>,
}

/// (version 8) A seat of yours at a listed table: what takes you back to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct YourSeat {
    /// 1-based.
    pub seat: usize,
    /// The seat's secret token (as `seated` gives it).
    pub token: String,
    /// The seat page's path, with its seat and token (`/ROOM#seat=N&token=T`).
    pub path: String,
}

/// `seated`: the seat is yours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seated {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    pub room: String,
    pub seat: usize,
    pub token: String,
    /// The seat's link.
    pub browser: String,
    /// The `diving join` command that takes it.
    pub join: String,
    /// For a `create`, when other people play: each other person's seat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invites: Vec<Invite>,
}

/// Another person's seat at a new table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invite {
    pub seat: usize,
    pub code: String,
    pub token: String,
    pub browser: String,
    pub join: String,
}

/// `ratings`: a ruleset's leaderboard (the same shape `diving host ratings --json` prints).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ratings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    pub ruleset: String,
    /// Best first.
    pub rows: Vec<Standing>,
    /// The last results, newest first.
    pub recent: Vec<Recent>,
}

/// A line of a leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    pub rank: usize,
    pub player: String,
    pub bot: bool,
    /// The conservative estimate μ − 3σ, which the board sorts by.
    pub rating: f64,
    /// Weng-Lin's μ.
    pub mu: f64,
    /// Weng-Lin's σ.
    pub uncertainty: f64,
    pub games: u32,
    pub wins: u32,
}

/// A finished game on a board's list of recent results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recent {
    pub room: String,
    pub game: u32,
    /// Seconds since 1970.
    pub finished: i64,
    /// In place order.
    pub places: Vec<Placed>,
}

/// A player's place in a finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed {
    pub player: String,
    pub place: usize,
}

/// (version 8) `transfer`: the answer to `transfer` and `revoke`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transfer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// Your code (`None`: you have none, it was revoked).
    pub transfer: Option<TransferCode>,
}

/// A transfer code, and the ways to redeem it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferCode {
    /// Twelve letters and digits, in groups of four (`ABCD-EFGH-JKMN`; case, spaces and
    /// dashes do not count).
    pub code: String,
    /// The lobby page's link that redeems it (`http://HOST:PORT/#transfer=CODE`).
    pub browser: String,
    /// The `diving join` command that redeems it.
    pub join: String,
    /// Seconds until it expires.
    pub expires_secs: u64,
}

/// (version 8) `identity`: who you are now, after a transfer code: keep the name and key
/// (the key is secret: it is you).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    pub name: String,
    pub key: String,
}
