//! The keeper: the thread that keeps the games in the host's database ([`super::db`]) and
//! sends each room call's messages once what they tell of is committed (so no one is told of
//! a move the database does not hold), then writes finished games' save files.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::db::{Change, Db};
use super::link::{Link, Out};
use crate::table::save::SaveFile;

/// Keeps the games in the host's database ([`db`]), on a thread of its own, away from the
/// rooms' locks and the async workers. What a room call changed (a table made, a seat taken,
/// a game dealt, its moves, a result) is handed over with the messages it made; the keeper
/// commits everything waiting, of every room, in one transaction (one `fsync` however many
/// rooms moved), and only then sends those messages. So **no one is told of a move the
/// database does not hold**: a host killed at any moment loses only moves no one heard of.
/// A finished game's save file (`ROOM.save.json`, `ROOM~N.save.json`) is written after its
/// commit, for `diving replay` and `--load`.
pub(super) struct Keeper {
    state: Mutex<Keeping>,
    /// Wakes the writer (work or stop) and those waiting for it to be idle.
    changed: Condvar,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    db: Arc<Mutex<Db>>,
}

/// A room call's messages, sent once its changes are committed.
pub(super) struct Delivery {
    pub sends: Vec<(Link, Out)>,
    /// The room's count of deliveries waiting, taken down once these are sent.
    pub queued: Option<Arc<AtomicUsize>>,
}

/// What waits for the writer.
#[derive(Default)]
struct Keeping {
    changes: Vec<Change>,
    /// Finished games' save files.
    exports: Vec<(PathBuf, SaveFile)>,
    deliveries: Vec<Delivery>,
    writing: bool,
    stop: bool,
}

fn lock_keeping(keeper: &Keeper) -> MutexGuard<'_, Keeping> {
    keeper.state.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn lock_db(db: &Mutex<Db>) -> MutexGuard<'_, Db> {
    db.lock().unwrap_or_else(|e| e.into_inner())
}

fn is_symlink(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

pub(super) fn log_error(what: &str, e: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr(), "diving host: {what}: {e:#}");
}

impl Keeper {
    pub(super) fn start(db: Arc<Mutex<Db>>, dir: Option<PathBuf>) -> Arc<Keeper> {
        let keeper = Arc::new(Keeper {
            state: Mutex::new(Keeping::default()),
            changed: Condvar::new(),
            thread: Mutex::new(None),
            db,
        });
        let this = Arc::clone(&keeper);
        let thread = std::thread::Builder::new()
            .name("diving-keeper".into())
            .spawn(move || this.run(dir))
            .expect("the keeper thread starts");
        *keeper.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread);
        keeper
    }

    /// Hands over a room call's changes, files and messages.
    pub(super) fn hand(&self, changes: Vec<Change>, exports: Vec<(PathBuf, SaveFile)>, delivery: Delivery) {
        let mut state = lock_keeping(self);
        state.changes.extend(changes);
        state.exports.extend(exports);
        state.deliveries.push(delivery);
        if !state.writing {
            self.changed.notify_all();
        }
    }

    /// Returns once everything handed over is committed and sent.
    pub(super) fn flush(&self) {
        let mut state = lock_keeping(self);
        while !state.changes.is_empty() || !state.deliveries.is_empty() || !state.exports.is_empty() || state.writing {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Commits and sends what is handed over, then stops the writer thread.
    pub(super) fn stop(&self) {
        lock_keeping(self).stop = true;
        self.changed.notify_all();
        if let Some(thread) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = thread.join();
        }
    }

    fn run(&self, dir: Option<PathBuf>) {
        if let Some(dir) = &dir {
            // What saves killed while being written left (see `exports` below).
            crate::table::save::remove_stale_temporaries_in(dir, |name| name.ends_with(b".save.json"));
        }
        let mut state = lock_keeping(self);
        loop {
            if !state.changes.is_empty() || !state.deliveries.is_empty() || !state.exports.is_empty() {
                state.writing = true;
                let changes = std::mem::take(&mut state.changes);
                let deliveries = std::mem::take(&mut state.deliveries);
                // A save file waits until no room's messages do: writing a file (and making it
                // durable) takes a millisecond or more, and a thousand games ending together
                // held every room's answers up behind their files (p99 240 ms in the load
                // example). One file at a time between batches.
                let exports = if changes.is_empty() && deliveries.is_empty() {
                    state.exports.pop().into_iter().collect()
                } else {
                    Vec::new()
                };
                drop(state);
                self.write(&changes, exports, deliveries);
                state = lock_keeping(self);
                state.writing = false;
                self.changed.notify_all();
                continue;
            }
            if state.stop {
                return;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn write(&self, changes: &[Change], exports: Vec<(PathBuf, SaveFile)>, deliveries: Vec<Delivery>) {
        if !changes.is_empty() {
            let mut db = lock_db(&self.db);
            // Once more after a failure (a disk briefly full, a lock held by a reader); then
            // the games go on, and the host's log says what is not kept.
            if let Err(first) = db.commit(changes)
                && let Err(e) = db.commit(changes)
            {
                log_error(&format!("cannot keep {} changes in the database (first: {first:#})", changes.len()), e);
            }
        }
        for delivery in deliveries {
            for (link, out) in delivery.sends {
                link.send(out);
            }
            if let Some(queued) = delivery.queued {
                queued.fetch_sub(1, Ordering::SeqCst);
            }
        }
        for (path, save) in exports {
            // The directory's stale temporaries went when the keeper began (`run`): a save is
            // written without reading the directory again (a thousand times, a thousand
            // entries each), unless it is a link to elsewhere, whose own directory is looked at.
            let written = if is_symlink(&path) {
                crate::table::save::write(&path, &save)
            } else {
                crate::table::save::write_again(&path, &save)
            };
            if let Err(e) = written {
                log_error(&format!("cannot write {}", path.display()), e);
            }
        }
    }
}
