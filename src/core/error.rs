//! Why an effect or hook failed ([`EffectError`]): a scripted entry's failure, or a change the
//! engine refused (a depth out of range, a second card of a rank in front). Every layer of
//! the core above the state speaks it; it names nothing else of the core.

use std::fmt;

use super::knowledge::Secret;

/// A failure inside an effect or hook (a scripted one, or a forbidden change such as a depth
/// out of range). The message says where, when it can.
///
/// A mod's own message (its `error("…")`) is its words, and may tell of the hidden cards it
/// knew when it failed ([`super::knowledge`]): then only the file that failed
/// (`mod sharks.lua`) is public, and the rest is read through a viewer
/// ([`Viewer::failure`](super::Viewer::failure)). The line is in the rest: which line a
/// script fails at is its choice, as much as its words (a mod that fails at line 10 + the
/// rank of a card it knows would tell the card). `Display` shows what everyone may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectError {
    message: String,
    /// The length of the public start of `message` (the place), when the rest is secret.
    public: usize,
    secret: Secret,
}

impl EffectError {
    /// A failure whose message tells of nothing hidden.
    pub fn new(message: impl Into<String>) -> EffectError {
        let message = message.into();
        EffectError { public: message.len(), message, secret: Secret::NONE }
    }

    /// A failure of a script at `file` (public) and `line` whose `message` may tell of
    /// `secret`: `file:line: message`, of which a reader who may not read `secret` reads only
    /// the file.
    pub fn located(file: &str, line: Option<u32>, message: &str, secret: Secret) -> EffectError {
        let whole = match line {
            Some(line) => format!("{file}:{line}: {message}"),
            None => format!("{file}: {message}"),
        };
        if secret.is_public() {
            return EffectError::new(whole);
        }
        EffectError { message: whole, public: file.len(), secret }
    }

    /// The same failure with `prefix` put in front (`mod x.lua:3: `); the prefix is public.
    pub fn prefixed(self, prefix: &str) -> EffectError {
        EffectError { message: format!("{prefix}{}", self.message), public: prefix.len() + self.public, ..self }
    }

    /// The same failure with `note` added at the end (a hint of the program's, public).
    pub fn noted(self, note: &str) -> EffectError {
        EffectError { message: format!("{}{note}", self.message), ..self }
    }

    pub fn secret_part(&self) -> Secret {
        self.secret
    }

    /// The whole message, and the length of its public start (the place), for
    /// [`Viewer::failure`](super::Viewer::failure) to show what a viewer may read.
    pub(super) fn parts(&self) -> (&str, usize) {
        (&self.message, self.public)
    }
}

/// What stands for the rest of a mod's failure message for a reader who may not read it.
pub const WITHHELD_MESSAGE: &str = "(the rest of the mod's message may tell of cards you cannot see)";

impl fmt::Display for EffectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.secret.is_public() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {WITHHELD_MESSAGE}", &self.message[..self.public])
        }
    }
}

impl std::error::Error for EffectError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Viewer;

    #[test]
    fn a_secret_failure_shows_its_place_to_everyone_and_its_message_to_those_who_may_read_it() {
        let e = EffectError::located("mod peek.lua", Some(4), "bob holds 7H", Secret::hand(1));
        assert_eq!(e.to_string(), format!("mod peek.lua: {WITHHELD_MESSAGE}"));
        assert_eq!(Viewer::Seat(1).failure(&e), "mod peek.lua:4: bob holds 7H");
        assert_eq!(Viewer::Seat(0).failure(&e), e.to_string());
        assert_eq!(EffectError::new("depth 120 is outside 0…100").to_string(), "depth 120 is outside 0…100");
        let prefixed = e.prefixed("in a copy: ");
        assert_eq!(Viewer::Everyone.failure(&prefixed), "in a copy: mod peek.lua:4: bob holds 7H");
        assert_eq!(prefixed.to_string(), format!("in a copy: mod peek.lua: {WITHHELD_MESSAGE}"));
    }

    #[test]
    fn the_line_a_script_fails_at_is_read_only_with_its_message() {
        let e = EffectError::located("mod peek.lua", Some(14), "x", Secret::hand(1));
        assert_eq!(e.to_string(), format!("mod peek.lua: {WITHHELD_MESSAGE}"), "line 14 may tell a card's rank");
        assert_eq!(Viewer::Seat(1).failure(&e), "mod peek.lua:14: x");
        assert_eq!(Viewer::Seat(0).failure(&e.clone().prefixed("in a copy: ")), format!("in a copy: {e}"));
        let public = EffectError::located("mod peek.lua", Some(14), "x", Secret::NONE);
        assert_eq!(public.to_string(), "mod peek.lua:14: x", "a mod that knows nothing hidden is located for all");
    }
}
