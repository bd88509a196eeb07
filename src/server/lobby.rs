//! The lobby's state (`ws://HOST:PORT/lobby`, PROTOCOL.md *The lobby*): the rulesets the host
//! offers, the listing of its tables that every lobby connection is sent, the invite codes,
//! and the checks of a `create`. The connections themselves are [`super::net`]'s; a table
//! is a [`Room`] like any other, made by [`Room::waiting`].
//!
//! A stranger's `create` names only what the host offers: one of its rulesets by `id`, and
//! built-in bots by name (never a Lua bot's path, which would be a file on the host).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use tokio::sync::watch;

use super::db::PlayerId;
use super::protocol::{Limits, PROTOCOL};
use super::room::{Plan, Room};
use crate::core::Seat;
use crate::ruleset::{self, Ruleset};

pub use super::room::BOTS;

/// The most seats a lobby table has (the most any shipped ruleset seats).
pub const MAX_SEATS: usize = 8;

/// A ruleset the host offers.
#[derive(Debug, Clone)]
pub struct Offer {
    /// What a `create` names it by: its shown name.
    pub id: String,
    /// How the host loads it (a shipped name or a path).
    pub spec: String,
    /// The file's own `name` (`"House rules"`), else the id.
    pub title: String,
    pub about: Option<String>,
    /// The first line of `DIR/balance/ID.txt`, where the host keeps a verdict of `diving sim`.
    pub balance: Option<String>,
    pub seats: (usize, usize),
}

/// The rulesets offered: the shipped ones and `extra` (the host's `--ruleset` files), each
/// loaded once to check it. An `extra` that does not load is an error.
pub fn offers(extra: &[String], dir: Option<&Path>) -> anyhow::Result<Vec<Offer>> {
    let mut specs: Vec<String> = ruleset::shipped_names().map(String::from).collect();
    for spec in extra {
        if !specs.contains(spec) {
            specs.push(spec.clone());
        }
    }
    let mut offers: Vec<Offer> = Vec::new();
    for spec in specs {
        let loaded = Ruleset::load(&spec).map_err(|e| anyhow::anyhow!("cannot load ruleset '{spec}': {e}"))?;
        let id = super::protocol::RulesetId::of(&loaded).name;
        if offers.iter().any(|o| o.id == id) {
            anyhow::bail!("two rulesets offered are both named '{id}': rename one of the files");
        }
        let balance = dir
            .map(|d| d.join("balance").join(format!("{id}.txt")))
            .and_then(|path| std::fs::read_to_string(path).ok())
            .and_then(|text| {
                text.lines().map(str::trim).find(|l| !l.is_empty()).map(|l| l.chars().take(200).collect())
            });
        let seats = (loaded.rules.min_players.max(2), loaded.rules.max_players.min(MAX_SEATS));
        let title = loaded.title.clone().unwrap_or_else(|| id.clone());
        offers.push(Offer { id, spec, title, about: loaded.description.clone(), balance, seats });
    }
    Ok(offers)
}

/// A table as a `create` asks for it, checked against what the host offers.
#[derive(Debug, Clone)]
pub struct Order {
    pub spec: String,
    pub plan: Vec<Plan>,
    pub hints: bool,
}

/// The lobby's state, shared by every connection.
pub struct Lobby {
    pub offers: Vec<Offer>,
    /// Each table's line of the listing, by room number.
    listing: Mutex<BTreeMap<(usize, String), Value>>,
    /// Who made each waiting lobby table (for the limit per player).
    makers: Mutex<HashMap<String, PlayerId>>,
    /// Bumped at each change of the listing: lobby connections send it again.
    pub version: watch::Sender<u64>,
    codes: Mutex<HashMap<String, (String, Seat)>>,
    next_room: AtomicU64,
}

impl Lobby {
    /// A lobby offering `offers`, numbering new rooms on from `last_room`.
    pub fn new(offers: Vec<Offer>, last_room: u64) -> Lobby {
        Lobby {
            offers,
            listing: Mutex::new(BTreeMap::new()),
            makers: Mutex::new(HashMap::new()),
            version: watch::channel(0).0,
            codes: Mutex::new(HashMap::new()),
            next_room: AtomicU64::new(last_room + 1),
        }
    }

    /// The name of the next new room.
    pub fn next_room(&self) -> String {
        self.next_room.fetch_add(1, Ordering::SeqCst).to_string()
    }

    /// Numbers new rooms past `id` too (a room made at start-up or resumed).
    pub fn seen_room(&self, id: &str) {
        if let Ok(n) = id.parse::<u64>() {
            self.next_room.fetch_max(n + 1, Ordering::SeqCst);
        }
    }

    fn key(id: &str) -> (usize, String) {
        (id.len(), id.to_string())
    }

    /// The room's line of the listing is new or changed.
    pub fn list(&self, room: &Room) {
        let summary = room.summary();
        let mut listing = self.listing.lock().unwrap_or_else(|e| e.into_inner());
        listing.insert(Self::key(room.id()), summary);
        drop(listing);
        if !room.is_waiting() {
            self.makers.lock().unwrap_or_else(|e| e.into_inner()).remove(room.id());
        }
        self.version.send_modify(|v| *v += 1);
    }

    /// The room is closed.
    pub fn unlist(&self, id: &str) {
        self.listing.lock().unwrap_or_else(|e| e.into_inner()).remove(&Self::key(id));
        self.makers.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
        self.codes.lock().unwrap_or_else(|e| e.into_inner()).retain(|_, (room, _)| room != id);
        self.version.send_modify(|v| *v += 1);
    }

    /// How many waiting tables `player` made.
    pub fn waiting_made_by(&self, player: PlayerId) -> usize {
        self.makers.lock().unwrap_or_else(|e| e.into_inner()).values().filter(|&&p| p == player).count()
    }

    pub fn made(&self, room: &str, player: PlayerId) {
        self.makers.lock().unwrap_or_else(|e| e.into_inner()).insert(room.to_string(), player);
    }

    /// The `lobby` message for a connection that is `you` (a name, or none).
    pub fn message(&self, you: Option<&str>, limits: &Limits) -> String {
        let rulesets: Vec<Value> = self
            .offers
            .iter()
            .map(|o| {
                json!({ "id": o.id, "name": o.title, "about": o.about, "balance": o.balance, "seats": [o.seats.0, o.seats.1] })
            })
            .collect();
        let listing = self.listing.lock().unwrap_or_else(|e| e.into_inner());
        // Waiting tables first (they are the ones to sit at), then those playing, then over;
        // at most `MAX_LISTED` in all.
        let rank = |t: &Value| match t["state"].as_str() {
            Some("waiting") => 0,
            Some("playing") => 1,
            _ => 2,
        };
        let mut tables: Vec<&Value> = listing.values().collect();
        tables.sort_by_key(|t| rank(t));
        let total = tables.len();
        tables.truncate(MAX_LISTED);
        json!({
            "type": "lobby",
            "protocol": PROTOCOL,
            "you": you.map(|name| json!({ "name": name })),
            "rulesets": rulesets,
            "bots": BOTS,
            "tables": tables,
            "more_tables": total - tables.len(),
            "limits": {
                "tables_per_connection": limits.tables_per_connection,
                "tables": limits.tables,
                "idle_secs": limits.idle_secs,
                "abandoned_secs": limits.abandoned_secs,
                "max_message": limits.max_message,
                "per_second": limits.per_second,
                "burst": limits.burst,
            },
        })
        .to_string()
    }

    /// Checks a `create` against the offers: the ruleset by id, the seats within its range,
    /// built-in bots only, at least one seat besides the maker's left for… anyone (the maker
    /// takes seat 1).
    pub fn order(
        &self,
        ruleset: &str,
        seats: usize,
        bots: &[String],
        hints: bool,
        maker: (&str, PlayerId),
    ) -> Result<Order, String> {
        let Some(offer) = self.offers.iter().find(|o| o.id == ruleset) else {
            let ids: Vec<&str> = self.offers.iter().map(|o| o.id.as_str()).collect();
            return Err(format!("this host offers no ruleset '{ruleset}' (it offers {})", ids.join(", ")));
        };
        let (min, max) = offer.seats;
        if !(min..=max).contains(&seats) {
            return Err(format!("ruleset '{}' seats {min} to {max}, not {seats}", offer.id));
        }
        if bots.len() >= seats {
            return Err(format!("{seats} seats with {} bots leaves no seat for you", bots.len()));
        }
        for bot in bots {
            let bot = bot.strip_prefix("bot:").unwrap_or(bot);
            if !BOTS.contains(&bot) {
                return Err(format!("there is no bot '{bot}' here (bots: {})", BOTS.join(", ")));
            }
        }
        let mut plan = vec![Plan::Taken { name: maker.0.to_string(), player: maker.1 }];
        plan.extend(std::iter::repeat_n(Plan::Open, seats - 1 - bots.len()));
        plan.extend(
            bots.iter().map(|b| Plan::Bot { spec: b.strip_prefix("bot:").unwrap_or(b).to_string(), player: None }),
        );
        Ok(Order { spec: offer.spec.clone(), plan, hints })
    }

    /// A new invite code for `seat` of `room`: six letters and digits that cannot be misread
    /// (no 0/O, 1/I/L).
    pub fn new_code(&self, room: &str, seat: Seat) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
        let mut codes = self.codes.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let mut bytes = [0u8; 6];
            getrandom::fill(&mut bytes).expect("the operating system's RNG works");
            let code: String = bytes.iter().map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char).collect();
            if !codes.contains_key(&code) {
                codes.insert(code.clone(), (room.to_string(), seat));
                return code;
            }
        }
    }

    /// A code given out before (the host's database keeps them across a restart).
    pub fn keep_code(&self, code: &str, room: &str, seat: Seat) {
        self.codes.lock().unwrap_or_else(|e| e.into_inner()).insert(code.to_string(), (room.to_string(), seat));
    }

    /// The code of `seat` of `room` is used up (the seat is taken).
    pub fn forget_code(&self, room: &str, seat: Seat) {
        self.codes.lock().unwrap_or_else(|e| e.into_inner()).retain(|_, taken| taken != &(room.to_string(), seat));
    }

    /// The seat an invite code names (case and spaces ignored).
    pub fn code(&self, code: &str) -> Option<(String, Seat)> {
        let code: String = code.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_uppercase();
        self.codes.lock().unwrap_or_else(|e| e.into_inner()).get(&code).cloned()
    }
}

/// The most tables one `lobby` message lists (`more_tables` says how many are left out).
pub const MAX_LISTED: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_create_names_only_what_the_host_offers() {
        let lobby = Lobby::new(offers(&[], None).unwrap(), 0);
        let maker = ("ann", 1);
        assert!(lobby.order("standard", 3, &["greedy".into()], false, maker).is_ok());
        let no = |ruleset: &str, seats: usize, bots: &[&str]| {
            let bots: Vec<String> = bots.iter().map(|b| b.to_string()).collect();
            lobby.order(ruleset, seats, &bots, false, maker).unwrap_err()
        };
        assert!(no("nope", 2, &[]).contains("no ruleset 'nope'"));
        assert!(no("standard", 9, &[]).contains("2 to 8"));
        assert!(no("standard", 2, &["greedy", "greedy"]).contains("no seat for you"));
        assert!(no("standard", 3, &["/etc/evil.lua"]).contains("no bot"));
    }

    #[test]
    fn an_invite_code_is_read_back_whatever_its_case() {
        let lobby = Lobby::new(Vec::new(), 0);
        let code = lobby.new_code("4", 1);
        assert_eq!(code.len(), 6);
        assert_eq!(lobby.code(&code.to_lowercase()), Some(("4".to_string(), 1)));
        lobby.unlist("4");
        assert_eq!(lobby.code(&code), None);
    }
}
