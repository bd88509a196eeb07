//! What a seat may see: the one place that decides it. A [`Viewer`] is a seat, a spectator,
//! or everyone (a finished game shown whole); [`Viewer::sees_hand`] says whose hand it sees,
//! [`Viewer::sees`] what an [`Event`] looks like to it, and [`Viewer::read`] whether it may
//! read a mod's [`Words`].
//!
//! Everything else is public: depths, oxygen, cards in front, the table, the discard pile,
//! the number of cards in each hand and in the deck. Hidden are the other hands, the deck
//! order and the seed; the only events that name a hidden card are [`Event::Drew`] and
//! [`Event::Returned`] from a hand (every other card an event names is face up on the table,
//! the pile or in front of a diver, or was: a card taken from the pile into a hand, or shown
//! to the table by a mod's [`Event::Revealed`]). A mod's words ([`Event::Said`], a refusal's
//! reason, a failure's message) may tell of hidden cards the mod was told of: a viewer reads
//! them only if it sees every hidden place they may tell of ([`super::knowledge`]). The
//! hot-seat shell, the JSON layer and the server show events through this; a bot sees the
//! state through a [`View`](super::View), which has no accessor for what is hidden.

use super::action::{ActionError, Seat};
use super::error::{EffectError, WITHHELD_MESSAGE};
use super::event::Event;
use super::knowledge::{ModId, Secret, Words};

/// Who is looking at a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    /// A player: sees their own hand.
    Seat(Seat),
    /// Someone watching: sees no hand.
    Spectator,
    /// Every card (a finished game, a scripted game whose driver sees everything, the host's
    /// log).
    Everyone,
}

/// An event as one viewer sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen<'e> {
    /// The whole event: it names nothing this viewer may not see.
    Whole(&'e Event),
    /// `player` drew a card this viewer may not see.
    HiddenDraw { player: Seat },
    /// `player` put a card from their hand back into the deck, which this viewer may not see.
    HiddenReturn { player: Seat },
    /// Mod `by` said something that may tell of cards this viewer may not see.
    Withheld { by: ModId },
}

impl Viewer {
    /// Whether this viewer sees the cards in `seat`'s hand.
    #[inline]
    pub fn sees_hand(self, seat: Seat) -> bool {
        match self {
            Viewer::Seat(me) => me == seat,
            Viewer::Spectator => false,
            Viewer::Everyone => true,
        }
    }

    /// Whether this viewer sees every hidden place `secret` tells of.
    pub fn reads(self, secret: Secret) -> bool {
        match self {
            Viewer::Everyone => true,
            Viewer::Spectator => secret.is_public(),
            Viewer::Seat(me) => !secret.tells_of_deck() && secret.hands().iter().all(|s| s == me),
        }
    }

    /// The text of `words`, if this viewer may read it.
    pub fn read(self, words: &Words) -> Option<&str> {
        self.reads(words.secret()).then(|| words.text())
    }

    /// The text of `words` for this viewer: the text, or the neutral line
    /// ([`WITHHELD`](super::knowledge::WITHHELD)) when it may not read it.
    pub fn shown(self, words: &Words) -> &str {
        self.read(words).unwrap_or(super::knowledge::WITHHELD)
    }

    /// A failure's message as this viewer may read it: a mod's message in full when it may
    /// read what the mod knew, else the public place and a neutral line ([`EffectError`]'s
    /// `Display`).
    pub fn failure(self, e: &EffectError) -> String {
        let (message, public) = e.parts();
        if self.reads(e.secret_part()) {
            message.to_string()
        } else {
            format!("{}: {WITHHELD_MESSAGE}", &message[..public])
        }
    }

    /// A refusal as this viewer may read it: a mod's reason or message in full when it may
    /// read it, else with the neutral line `Display` shows.
    pub fn error(self, e: &ActionError) -> String {
        let open = |w: &Words| match self.read(w) {
            Some(text) => Words::public(text.to_string()),
            None => w.clone(),
        };
        let opened = match e {
            ActionError::BadTarget { card, target, reason } => {
                ActionError::BadTarget { card: *card, target: *target, reason: open(reason) }
            }
            ActionError::NotPlayable { card, reason } => ActionError::NotPlayable { card: *card, reason: open(reason) },
            ActionError::ActBadTarget { name, target, reason } => {
                ActionError::ActBadTarget { name: *name, target: *target, reason: open(reason) }
            }
            ActionError::ActNotAllowed { name, reason } => {
                ActionError::ActNotAllowed { name: *name, reason: open(reason) }
            }
            ActionError::ActBadCard { name, card, reason } => {
                ActionError::ActBadCard { name: *name, card: *card, reason: open(reason) }
            }
            ActionError::Script(e) => return self.failure(e),
            other => return other.to_string(),
        };
        opened.to_string()
    }

    /// Whether `event` is a mod's line this viewer may not read following `previous`, another
    /// of the same mod's it may not read: the two are shown as one neutral line. How many
    /// lines a mod says is its choice, so a neutral line per line would tell what it knows
    /// (one line per pip of the card it was told).
    pub fn repeats_withheld(self, previous: &Event, event: &Event) -> bool {
        match (self.sees(previous), self.sees(event)) {
            (Seen::Withheld { by: a }, Seen::Withheld { by: b }) => a == b,
            _ => false,
        }
    }

    /// What `event` looks like to this viewer.
    pub fn sees(self, event: &Event) -> Seen<'_> {
        match *event {
            Event::Drew { player, .. } if !self.sees_hand(player) => Seen::HiddenDraw { player },
            Event::Returned { player: Some(player), .. } if !self.sees_hand(player) => Seen::HiddenReturn { player },
            Event::Said { by, ref words } if !self.reads(words.secret()) => Seen::Withheld { by },
            _ => Seen::Whole(event),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_reads_words_that_tell_only_of_its_own_hand() {
        let mine = Secret::hand(1);
        let theirs = Secret::hand(0).union(Secret::hand(1));
        assert!(Viewer::Seat(1).reads(mine));
        assert!(!Viewer::Seat(0).reads(mine));
        assert!(!Viewer::Seat(1).reads(theirs));
        assert!(!Viewer::Spectator.reads(mine));
        assert!(Viewer::Spectator.reads(Secret::NONE));
        assert!(!Viewer::Seat(1).reads(Secret::deck()), "nobody at the table sees the deck");
        assert!(Viewer::Everyone.reads(theirs.union(Secret::deck())));
    }

    #[test]
    fn a_said_event_is_withheld_from_a_viewer_who_may_not_read_it() {
        let said = Event::Said { by: ModId(2), words: Words::new("bob holds 7H", Secret::hand(1)) };
        assert_eq!(Viewer::Seat(0).sees(&said), Seen::Withheld { by: ModId(2) });
        assert_eq!(Viewer::Seat(1).sees(&said), Seen::Whole(&said));
        let Event::Said { words, .. } = &said else { unreachable!() };
        assert_eq!(Viewer::Seat(0).read(words), None);
        assert_eq!(Viewer::Everyone.read(words), Some("bob holds 7H"));
    }

    #[test]
    fn a_run_of_one_mods_withheld_lines_is_one_line() {
        let said = |by, secret| Event::Said { by: ModId(by), words: Words::new("7", secret) };
        let (a, b) = (said(0, Secret::hand(1)), said(0, Secret::hand(1)));
        assert!(Viewer::Seat(0).repeats_withheld(&a, &b), "how many lines it said would tell the card");
        assert!(!Viewer::Seat(1).repeats_withheld(&a, &b), "bob reads both");
        assert!(!Viewer::Seat(0).repeats_withheld(&a, &said(1, Secret::hand(1))), "another mod's line");
        assert!(!Viewer::Seat(0).repeats_withheld(&a, &said(0, Secret::NONE)), "a line ann reads");
    }
}
