//! The `diving` binary: parse the command line, run the client it names, map failure to an
//! exit status (2 for bad arguments, an unreadable ruleset or save).

use std::io::Write;
use std::process::ExitCode;

/// mimalloc instead of the system's allocator: `diving host` allocates for every message, and
/// glibc's malloc took a fifth of its CPU under load (`PERF.md`, *The host under load*).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match diving::cli::Cli::from_args().and_then(diving::cli::run) {
        Ok(code) => code,
        // The reader of our output went away (`diving rules | head`): nothing to report.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // The message can quote a file, a save, a mod or the command line: shown with its
            // control characters escaped and cut to a bound, it cannot drive the terminal.
            let message = diving::limits::shown(&format!("{e:#}"), diving::limits::NewLines::Escaped);
            // Not `eprintln!`, which panics when stderr cannot be written.
            let _ = writeln!(std::io::stderr(), "diving: {message}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}
