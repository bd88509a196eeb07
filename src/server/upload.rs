//! Rulesets players bring to the lobby (`upload`, PROTOCOL.md *Bringing a ruleset*): the
//! bounds, the check, the limits per address and per player, and what is kept.
//!
//! A ruleset brought is a [`Bundle`] (its TOML and Lua files, within the host's
//! [`HostLimits`]), named by its SHA-256. The host checks it as `diving check` does
//! ([`check`]): it reads it confined to its own files ([`Ruleset::from_bundle`]), plays the
//! smoke games, each within its decision budget, then a few seeded games of greedy bots
//! against the standard rules for its balance line, and notes what each mod read of hidden
//! cards and whether it revealed any. The check runs on a thread of its own, never a room's
//! or the async workers', one at a time, and stops (its Lua at once) past
//! `upload_check_secs`. A refusal names the file and line as `check` does.
//!
//! A ruleset taken is offered in the lobby like the host's own, kept in the database by its
//! hash ([`super::db::Change::Ruleset`]) and registered so that its spec (`upload:ID`) loads it for a
//! table, a rematch or a resumed game ([`restore`]). Its id (`sharks@1f2e3d4c5b6a`) is what
//! tables, results and ratings name it by.

use std::collections::VecDeque;
use std::net::IpAddr;

use super::fair::Source;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::db::{Db, PlayerId, StoredRuleset};
use super::lobby::{HostedRuleset, MAX_SEATS};
use crate::ruleset::bundle::BundleError;
use crate::ruleset::{Bundle, BundleFile, ErrorKind, Ruleset, RulesetError, bundle};
use crate::sim::{Arena, GameRecord, Paired, SimConfig, Tally};
use crate::wire::server::{ModSecrets, Offered};
use crate::wire::{Code, HostLimits, UploadFile};

/// Games of greedy bots played for an uploaded ruleset's balance line (and as many under the
/// standard rules, on the same seeds).
pub const BALANCE_GAMES: u64 = 16;

/// Turns after which a balance game is stopped.
const BALANCE_TURNS: u32 = 300;

/// What the check says of a ruleset it refuses: the code and the message.
pub type Refusal = (Code, String);

/// A ruleset checked and taken.
#[derive(Debug, Clone)]
pub struct Checked {
    pub bundle: Arc<Bundle>,
    pub hosted: HostedRuleset,
    pub stored: StoredRuleset,
}

/// The files as sent, as a bundle within the host's bounds.
pub fn bundle_of(files: Vec<UploadFile>, limits: &HostLimits) -> Result<Bundle, Refusal> {
    let files = files.into_iter().map(|f| BundleFile { name: f.name, text: f.text }).collect();
    Bundle::new(files, limits.upload_bounds()).map_err(|e| match e {
        BundleError::TooBig(e) => (Code::TooBig, e),
        BundleError::Refused(e) => (Code::Upload, e),
    })
}

/// Checks a bundle as `diving check` does (load, smoke games, balance games): the ruleset as
/// the lobby offers it and as the database keeps it, or why it is refused. Run it where its
/// Lua may be stopped ([`crate::script::stop_when`]) and may take seconds.
pub fn check(bundle: Arc<Bundle>) -> Result<Checked, Refusal> {
    let ruleset = Ruleset::from_bundle(bundle.clone()).map_err(|e| refused(&e, None))?;
    let report = crate::ruleset::smoke(&ruleset, 1).map_err(|f| refused(&f.error, Some(&f.context)))?;
    let balance = balance(&ruleset).map_err(|e| (Code::Upload, format!("a balance game failed: {e}")))?;
    let id = bundle.id();
    let rules = &ruleset.rules;
    let mods = secrets(&report);
    let hosted = HostedRuleset {
        spec: bundle.spec(),
        title: ruleset.title.clone().unwrap_or_else(|| id.clone()),
        about: ruleset.description.clone(),
        balance: Some(balance),
        seats: (rules.min_players.max(2), rules.max_players.min(MAX_SEATS)),
        hash: Some(bundle.hash().to_string()),
        mods,
        id: id.clone(),
    };
    let files = bundle.files().iter().map(|f| UploadFile { name: f.name.clone(), text: f.text.clone() }).collect();
    let stored = StoredRuleset { hash: bundle.hash().to_string(), id, files, offer: hosted.offered() };
    Ok(Checked { bundle, hosted, stored })
}

/// A refusal as `check` words it: `file:line: error: message`, and the game it happened in.
fn refused(error: &RulesetError, context: Option<&str>) -> Refusal {
    let line = match &error.kind {
        ErrorKind::Unplaced => error.message.clone(),
        _ => error.compiler_line(),
    };
    match context {
        Some(context) if !context.is_empty() => (Code::Upload, format!("{line} (in {context})")),
        _ => (Code::Upload, line),
    }
}

/// The balance line: [`BALANCE_GAMES`] seeded games of greedy bots at the fewest seats,
/// against the standard rules on the same seeds (the verdict `diving sim --baseline standard`
/// gives), or the win shares and length alone when the standard rules cannot seat as many.
fn balance(ruleset: &Ruleset) -> Result<String, String> {
    let players = ruleset.rules.min_players.max(2);
    let config = SimConfig {
        games: BALANCE_GAMES,
        players: vec!["greedy".to_string(); players],
        seed: 1,
        jobs: 1,
        rotate: true,
        max_turns: BALANCE_TURNS,
    };
    let standard = Ruleset::standard();
    let baseline = standard.rules.validate_for(players).is_ok().then_some(&standard);
    let mut arena = Arena::new(ruleset, &config).map_err(|e| e.to_string())?;
    let mut base = baseline.map(|b| Arena::new(b, &config)).transpose().map_err(|e| e.to_string())?;
    let (mut tally, mut base_tally, mut paired) = (Tally::new(players), Tally::new(players), Paired::new(players));
    let (mut record, mut base_record) = (GameRecord::default(), GameRecord::default());
    for i in 0..BALANCE_GAMES {
        let seed = config.seed + i;
        let rotation = (i % players as u64) as usize;
        // Each game from freshly loaded mods: nothing a mod kept reaches the next.
        arena.reload_mods(ruleset).map_err(|e| e.to_string())?;
        arena.play(seed, rotation, &mut record).map_err(|e| format!("game seed {seed}: {e}"))?;
        tally.observe(&record, rotation);
        if let Some(base) = base.as_mut() {
            base.play(seed, rotation, &mut base_record)?;
            base_tally.observe(&base_record, rotation);
            paired.observe(&record, &base_record);
        }
    }
    let games = format!("{BALANCE_GAMES} games of {players} greedy bots");
    if base.is_some() {
        let verdict = crate::sim::report::verdict(&tally, &base_tally, &paired);
        return Ok(format!("against the standard rules ({games}): {verdict}"));
    }
    let first = tally.seat_wins.first().copied().unwrap_or(0) as f64 / BALANCE_GAMES as f64;
    Ok(format!(
        "{games}: seat 1 wins {:.0}%, {:.0}% drawn, {:.1} turns a game",
        first * 100.0,
        tally.draws as f64 / BALANCE_GAMES as f64 * 100.0,
        tally.turns.mean()
    ))
}

/// Runs [`check`] on a thread of its own, giving up past `within`: its Lua is stopped then,
/// and the ruleset refused. Async: it waits without holding an async worker.
pub async fn check_within(bundle: Arc<Bundle>, within: Duration) -> Result<Checked, Refusal> {
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = tokio::sync::oneshot::channel();
    let flag = stop.clone();
    let spawned = std::thread::Builder::new().name("upload check".into()).spawn(move || {
        let _stop = crate::script::stop_when(flag, "the check of the ruleset took too long");
        let _ = tx.send(check(bundle));
    });
    if spawned.is_err() {
        return Err((Code::Upload, "the host cannot check a ruleset now; try again later".into()));
    }
    match tokio::time::timeout(within, rx).await {
        Ok(Ok(checked)) => checked,
        Ok(Err(_)) => Err((Code::Upload, "the check of the ruleset failed".into())),
        Err(_) => {
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            Err((
                Code::Upload,
                format!(
                    "the check of the ruleset took longer than {}s (its smoke and balance games): make its mods do \
                     less work",
                    within.as_secs()
                ),
            ))
        }
    }
}

/// The rulesets brought in the last hour: by whom and from where.
#[derive(Debug, Default)]
pub struct Quota {
    taken: Mutex<VecDeque<(Instant, Source, PlayerId)>>,
}

impl Quota {
    /// Counts one more ruleset brought by `player` from `peer` at `now`, unless that would
    /// pass the limits of the last hour: then why not. An address counts as the lobby's
    /// limits count it ([`Source`]: an IPv6 address by its /64 prefix).
    pub fn take(&self, limits: &HostLimits, peer: IpAddr, player: PlayerId, now: Instant) -> Result<(), String> {
        const HOUR: Duration = Duration::from_secs(3600);
        let peer = Source::of(peer);
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        while taken.front().is_some_and(|(at, _, _)| now.saturating_duration_since(*at) >= HOUR) {
            taken.pop_front();
        }
        let by_player: Vec<Instant> = taken.iter().filter(|(_, _, p)| *p == player).map(|(at, _, _)| *at).collect();
        let from_peer: Vec<Instant> = taken.iter().filter(|(_, a, _)| *a == peer).map(|(at, _, _)| *at).collect();
        let wait = |ats: &[Instant]| {
            let first = ats.first().copied().unwrap_or(now);
            (HOUR.saturating_sub(now.saturating_duration_since(first)).as_secs() / 60).max(1)
        };
        if by_player.len() >= limits.uploads_per_player {
            return Err(format!(
                "you have brought {} rulesets in the last hour, the most one player may; try again in {} minutes",
                by_player.len(),
                wait(&by_player)
            ));
        }
        if from_peer.len() >= limits.uploads_per_address {
            return Err(format!(
                "your address has brought {} rulesets in the last hour, the most one address may; try again in {} \
                 minutes",
                from_peer.len(),
                wait(&from_peer)
            ));
        }
        taken.push_back((now, peer, player));
        Ok(())
    }
}

/// What the mods of each ruleset `offers` holds read of hidden cards and whether they reveal
/// any, from its smoke games (as `diving check` says it); a ruleset without mods, or one whose
/// smoke games fail, says nothing.
pub fn note_secrets(offers: &mut [HostedRuleset]) {
    for offer in offers.iter_mut().filter(|o| o.mods.is_empty()) {
        let Ok(ruleset) = Ruleset::load(&offer.spec) else { continue };
        if ruleset.mods.is_empty() {
            continue;
        }
        if let Ok(report) = crate::ruleset::smoke(&ruleset, 1) {
            offer.mods = secrets(&report);
        }
    }
}

fn secrets(report: &crate::ruleset::SmokeReport) -> Vec<ModSecrets> {
    report
        .secrets
        .iter()
        .map(|(name, learned)| ModSecrets { name: name.clone(), reads: learned.reads(), reveals: learned.revealed })
        .collect()
}

/// The ruleset a stored one is as the lobby offers it.
pub fn hosted(stored: &StoredRuleset) -> HostedRuleset {
    let offer: &Offered = &stored.offer;
    HostedRuleset {
        id: stored.id.clone(),
        spec: format!("{}{}", bundle::SPEC_PREFIX, stored.id),
        title: offer.name.clone(),
        about: offer.about.clone(),
        balance: offer.balance.clone(),
        seats: (offer.seats[0], offer.seats[1]),
        hash: Some(stored.hash.clone()),
        mods: offer.mods.clone(),
    }
}

/// Registers every ruleset the database keeps (so that their tables load them) and returns
/// them as the lobby offers them. A stored ruleset whose files no longer make its hash (the
/// file was edited) is refused, naming it.
pub fn restore(db: &Db) -> anyhow::Result<Vec<HostedRuleset>> {
    let mut offers = Vec::new();
    for stored in db.rulesets()? {
        let files = stored.files.iter().map(|f| BundleFile { name: f.name.clone(), text: f.text.clone() }).collect();
        // Taken within the bounds of its day, which a host may since have lowered.
        let taken = crate::ruleset::Bounds { files: usize::MAX, file_bytes: usize::MAX, bytes: usize::MAX };
        let held = Bundle::new(files, taken)
            .map_err(|e| anyhow::anyhow!("the ruleset {} kept in the database: {e}", stored.id))?;
        if held.hash() != stored.hash || held.id() != stored.id {
            anyhow::bail!(
                "the ruleset {} kept in the database is damaged: its files do not make its hash {}",
                stored.id,
                stored.hash
            );
        }
        bundle::register(Arc::new(held));
        offers.push(hosted(&stored));
    }
    Ok(offers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_says_what_the_mods_of_its_own_rulesets_read_and_reveal() {
        let mut offers = crate::server::offers(&[], None).unwrap();
        note_secrets(&mut offers);
        let house = offers.iter().find(|o| o.id == "house").unwrap();
        let names: Vec<&str> = house.mods.iter().map(|m| m.name.as_str()).collect();
        assert!(names.contains(&"shark"), "{names:?}");
        assert!(house.mods.iter().all(|m| !m.reads.is_empty()), "{:?}", house.mods);
        assert!(offers.iter().find(|o| o.id == "standard").unwrap().mods.is_empty(), "no mods, nothing to say");
    }

    #[test]
    fn uploads_are_limited_per_player_and_per_address_for_an_hour() {
        let limits = HostLimits { uploads_per_player: 2, uploads_per_address: 3, ..HostLimits::default() };
        let quota = Quota::default();
        let (home, away): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let now = Instant::now();
        assert!(quota.take(&limits, home, 1, now).is_ok());
        assert!(quota.take(&limits, home, 1, now).is_ok());
        let no = quota.take(&limits, away, 1, now).unwrap_err();
        assert!(no.contains("one player") && no.contains("60 minutes"), "{no}");
        assert!(quota.take(&limits, home, 2, now).is_ok());
        let no = quota.take(&limits, home, 3, now).unwrap_err();
        assert!(no.contains("your address"), "{no}");
        // An hour on, all is forgotten.
        assert!(quota.take(&limits, home, 1, now + Duration::from_secs(3600)).is_ok());
    }
}
