//! Fair under strangers: what one address and one player may take of a lobby in an hour,
//! as counts without I/O (the [`Lobby`](super::lobby::Lobby) asks, giving the time).
//!
//! A flood from one machine used to fill every table a host holds: a fresh name and key per
//! connection, three tables each. So the lobby counts, besides each connection and each
//! player, each [`Source`] (an IPv4 address, or an IPv6 address's /64 prefix, which one
//! machine is usually given whole): the tables it made in the last hour, the tables it made
//! that still wait, and the new keys (players) it registered in the last hour. One address
//! past its limits is refused `limit`; a player from any other address is not affected.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::time::{Duration, Instant};

use super::db::PlayerId;

/// The window the hourly limits count in.
pub const HOUR: Duration = Duration::from_secs(3600);

/// Where connections come from, as the limits count them: an IPv4 address, or the /64
/// prefix of an IPv6 one (an IPv4 address mapped into IPv6 counts as itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Source(IpAddr);

impl Source {
    pub fn of(ip: IpAddr) -> Source {
        match ip {
            IpAddr::V4(_) => Source(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Source(IpAddr::V4(v4)),
                None => Source(IpAddr::V6(Ipv6Addr::from(v6.to_bits() & !u128::from(u64::MAX)))),
            },
        }
    }
}

impl Default for Source {
    /// The unspecified address (tests of the lobby alone, which have no socket).
    fn default() -> Source {
        Source(IpAddr::from([0, 0, 0, 0]))
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// When something happened, over the last hour.
#[derive(Debug, Clone, Default)]
struct Recent(VecDeque<Instant>);

impl Recent {
    /// Forgets what is an hour old at `now`; how many are left.
    fn count(&mut self, now: Instant) -> usize {
        while self.0.front().is_some_and(|&t| now.saturating_duration_since(t) >= HOUR) {
            self.0.pop_front();
        }
        self.0.len()
    }

    /// How long until the oldest is an hour old (one more may then happen).
    fn wait(&self, now: Instant) -> Duration {
        self.0.front().map_or(Duration::ZERO, |&t| (t + HOUR).saturating_duration_since(now))
    }
}

/// A refusal under the hourly limits: what it says.
pub fn minutes(wait: Duration) -> String {
    let minutes = wait.as_secs().div_ceil(60).max(1);
    if minutes == 1 { "a minute".to_string() } else { format!("{minutes} minutes") }
}

/// The hourly counts of a lobby, by source and by player.
#[derive(Debug, Default)]
pub struct Counts {
    made_from: HashMap<Source, Recent>,
    made_by: HashMap<PlayerId, Recent>,
    keys_from: HashMap<Source, Recent>,
    /// Wrong transfer codes tried.
    tries_from: HashMap<Source, Recent>,
}

/// Which hourly count is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    /// The tables one player made …
    MadeBy(usize, Duration),
    /// … one source made …
    MadeFrom(usize, Duration),
    /// … and the new keys one source registered (with how long until one more may be) …
    KeysFrom(usize, Duration),
    /// … and the wrong transfer codes one source tried.
    TriesFrom(usize, Duration),
}

impl fmt::Display for Full {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Full::MadeBy(n, wait) => write!(
                f,
                "you have made {n} tables in the last hour (the most one player makes in an hour); try again in {}",
                minutes(wait)
            ),
            Full::MadeFrom(n, wait) => write!(
                f,
                "{n} tables were made from your address in the last hour (the most one address makes in an hour); try again in {}",
                minutes(wait)
            ),
            Full::KeysFrom(n, wait) => write!(
                f,
                "{n} new players came from your address in the last hour (the most one address brings in an hour); \
                 come back under a name you have played here, or try again in {}",
                minutes(wait)
            ),
            Full::TriesFrom(n, wait) => write!(
                f,
                "{n} wrong transfer codes were tried from your address in the last hour (the most one address may try); \
                 try again in {}",
                minutes(wait)
            ),
        }
    }
}

impl Counts {
    /// Whether `player` from `from` may make one more table at `now`: `per_player` and
    /// `per_source` an hour.
    pub fn may_make(
        &mut self,
        player: PlayerId,
        from: Source,
        now: Instant,
        per_player: usize,
        per_source: usize,
    ) -> Result<(), Full> {
        let by = self.made_by.entry(player).or_default();
        if by.count(now) >= per_player {
            return Err(Full::MadeBy(per_player, by.wait(now)));
        }
        let from = self.made_from.entry(from).or_default();
        if from.count(now) >= per_source {
            return Err(Full::MadeFrom(per_source, from.wait(now)));
        }
        Ok(())
    }

    /// `player` from `from` made a table at `now`.
    pub fn made(&mut self, player: PlayerId, from: Source, now: Instant) {
        self.made_by.entry(player).or_default().0.push_back(now);
        self.made_from.entry(from).or_default().0.push_back(now);
    }

    /// Whether one more new key may come from `from` at `now` (`per_source` an hour).
    pub fn may_register(&mut self, from: Source, now: Instant, per_source: usize) -> Result<(), Full> {
        let keys = self.keys_from.entry(from).or_default();
        if keys.count(now) >= per_source {
            return Err(Full::KeysFrom(per_source, keys.wait(now)));
        }
        Ok(())
    }

    /// A new key came from `from` at `now`.
    pub fn registered(&mut self, from: Source, now: Instant) {
        self.keys_from.entry(from).or_default().0.push_back(now);
    }

    /// Whether one more transfer code may be tried from `from` at `now`: fewer than
    /// `per_source` wrong ones in the last hour.
    pub fn may_try(&mut self, from: Source, now: Instant, per_source: usize) -> Result<(), Full> {
        let tries = self.tries_from.entry(from).or_default();
        if tries.count(now) >= per_source {
            return Err(Full::TriesFrom(per_source, tries.wait(now)));
        }
        Ok(())
    }

    /// A wrong transfer code was tried from `from` at `now`.
    pub fn tried_wrong(&mut self, from: Source, now: Instant) {
        self.tries_from.entry(from).or_default().0.push_back(now);
    }

    /// Forgets the sources and players with nothing in the last hour (so that the counts
    /// hold only the last hour's visitors, however many came before).
    pub fn forget(&mut self, now: Instant) {
        self.made_from.retain(|_, r| r.count(now) > 0);
        self.made_by.retain(|_, r| r.count(now) > 0);
        self.keys_from.retain(|_, r| r.count(now) > 0);
        self.tries_from.retain(|_, r| r.count(now) > 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_address_counts_by_its_64_prefix_and_a_mapped_ipv4_as_itself() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(Source::of(a), Source::of(b));
        assert_ne!(Source::of(a), Source::of(c));
        assert_eq!(Source::of(a).to_string(), "2001:db8:1:2::/64");
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(Source::of(mapped), Source::of("192.0.2.7".parse().unwrap()));
        assert_ne!(Source::of("192.0.2.7".parse().unwrap()), Source::of("192.0.2.8".parse().unwrap()));
    }

    #[test]
    fn the_hourly_counts_refuse_one_source_and_let_the_others_pass_then_forget() {
        let start = Instant::now();
        let (flood, honest) = (Source::of([10, 0, 0, 1].into()), Source::of([10, 0, 0, 2].into()));
        let mut counts = Counts::default();
        for player in 0..3 {
            counts.may_make(player, flood, start, 2, 3).unwrap();
            counts.made(player, flood, start);
        }
        let full = counts.may_make(99, flood, start + Duration::from_secs(60), 2, 3).unwrap_err();
        assert_eq!(full, Full::MadeFrom(3, Duration::from_secs(59 * 60)));
        assert!(full.to_string().ends_with("try again in 59 minutes"), "{full}");
        assert!(counts.may_make(99, honest, start, 2, 3).is_ok());
        counts.made(7, honest, start);
        counts.made(7, honest, start);
        assert!(matches!(counts.may_make(7, honest, start, 2, 3), Err(Full::MadeBy(2, _))));
        for _ in 0..2 {
            counts.may_register(flood, start, 2).unwrap();
            counts.registered(flood, start);
        }
        assert!(matches!(counts.may_register(flood, start, 2), Err(Full::KeysFrom(2, _))));
        assert!(counts.may_register(honest, start, 2).is_ok());
        // An hour on, every count is empty again, and forgotten.
        let later = start + HOUR;
        assert!(counts.may_make(99, flood, later, 2, 3).is_ok());
        assert!(counts.may_register(flood, later, 2).is_ok());
        counts.forget(later);
        assert!(counts.made_from.is_empty() && counts.made_by.is_empty() && counts.keys_from.is_empty());
    }
}
