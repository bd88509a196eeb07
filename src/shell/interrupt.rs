//! Ctrl-C while the interactive shell is busy.
//!
//! At the prompt the line editor reads Ctrl-C as a key (and the shell answers "type 'quit' to
//! leave"). While a command runs — a bot thinking over its move, a hint's search — the
//! terminal is back in its normal mode, where Ctrl-C sends SIGINT, whose default ends the
//! program: the game was lost, unsaved, without a question. While a [`Held`] lives, SIGINT is
//! only noted; the command finishes (a move is never left half-made) and the shell says so.
//! The terminal echoes the key as `^C` wherever the cursor is: the shell's next line then
//! starts on a line of its own ([`take_echo`]).

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the handler; read and cleared by [`Held`].
static NOTED: AtomicBool = AtomicBool::new(false);

/// Set by the handler when the terminal echoes the Ctrl-C (`^C`, where the cursor was):
/// the next line written must start on a line of its own ([`take_echo`]).
static ECHOED: AtomicBool = AtomicBool::new(false);

/// Whether the terminal echoes control characters (`^C`), read when a [`Held`] begins.
static ECHOES: AtomicBool = AtomicBool::new(false);

/// While it lives, Ctrl-C (SIGINT) is noted instead of ending the program; dropping it puts
/// back what SIGINT did before.
pub struct Held {
    #[cfg(unix)]
    old: Option<libc::sigaction>,
}

#[cfg(unix)]
extern "C" fn note(_: libc::c_int) {
    // Async-signal-safe: atomic loads and stores.
    NOTED.store(true, Ordering::Relaxed);
    if ECHOES.load(Ordering::Relaxed) {
        ECHOED.store(true, Ordering::Relaxed);
    }
}

/// Whether a Ctrl-C was echoed (`^C`) since the last call: the terminal wrote it where the
/// cursor was, so what is written next would run on from it (`^Cbot plays 5D`); the caller
/// starts a new line first.
pub fn take_echo() -> bool {
    ECHOED.swap(false, Ordering::Relaxed)
}

/// Whether standard input is a terminal that echoes control characters as `^C`.
#[cfg(unix)]
fn echoes_control() -> bool {
    // SAFETY: `termios` is plain data; `tcgetattr` only fills in the struct it is given.
    unsafe {
        let mut mode: libc::termios = std::mem::zeroed();
        libc::tcgetattr(libc::STDIN_FILENO, &mut mode) == 0
            && mode.c_lflag & libc::ECHO != 0
            && mode.c_lflag & libc::ECHOCTL != 0
    }
}

impl Held {
    pub fn new() -> Held {
        NOTED.store(false, Ordering::Relaxed);
        ECHOED.store(false, Ordering::Relaxed);
        #[cfg(unix)]
        ECHOES.store(echoes_control(), Ordering::Relaxed);
        #[cfg(unix)]
        {
            // SAFETY: `sigaction` is plain data, zeroed then filled in; the handler only stores
            // to an atomic, which is async-signal-safe. `SA_RESTART`: a read or write the
            // signal lands in is resumed, not failed.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = note as extern "C" fn(libc::c_int) as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                let ok = libc::sigaction(libc::SIGINT, &action, &mut old) == 0;
                Held { old: ok.then_some(old) }
            }
        }
        #[cfg(not(unix))]
        Held {}
    }

    /// Whether Ctrl-C was pressed since [`Held::new`].
    pub fn noted(&self) -> bool {
        NOTED.load(Ordering::Relaxed)
    }
}

impl Default for Held {
    fn default() -> Held {
        Held::new()
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(old) = &self.old {
            // SAFETY: puts back the action `new` saved.
            unsafe {
                libc::sigaction(libc::SIGINT, old, std::ptr::null_mut());
            }
        }
    }
}

/// Set when the program goes on after being stopped (Ctrl-Z, then `fg`): SIGCONT.
static CONTINUED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn continued(_: libc::c_int) {
    // Async-signal-safe: an atomic store.
    CONTINUED.store(true, Ordering::Relaxed);
}

/// From now on, notes every time the program goes on after being stopped (Ctrl-Z): while it
/// was stopped, whoever had the keyboard could read the game's files. Read with
/// [`take_continued`]. The line editor stops and restarts the program itself; this only
/// notes that it happened.
pub fn watch_stops() {
    #[cfg(unix)]
    // SAFETY: as in `Held::new`: a zeroed `sigaction` filled in, whose handler only stores
    // to an atomic; SIGCONT still continues the program whatever its handler.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = continued as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGCONT, &action, std::ptr::null_mut());
    }
}

/// Whether the program went on after being stopped since the last call.
pub fn take_continued() -> bool {
    CONTINUED.swap(false, Ordering::Relaxed)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A SIGINT raised while a `Held` lives is noted and the process goes on.
    #[test]
    fn ctrl_c_is_noted_while_held() {
        let held = Held::new();
        assert!(!held.noted());
        // SAFETY: sends SIGINT to this process, whose handler is `note` while `held` lives.
        unsafe {
            libc::raise(libc::SIGINT);
        }
        assert!(held.noted());
    }

    /// SIGCONT (a stopped program going on) is noted once.
    #[test]
    fn going_on_after_a_stop_is_noted() {
        watch_stops();
        // SAFETY: sends SIGCONT to this process, which is running: it only runs the handler.
        unsafe {
            libc::raise(libc::SIGCONT);
        }
        assert!(take_continued());
        assert!(!take_continued());
    }
}
