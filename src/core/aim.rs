//! What a card asks of the player who wants to play it now ([`Aim`]): blocked with a reason,
//! or open with its choices. The built-in cards and every registry entry answer in it, and the
//! listing of moves reads it.

use super::knowledge::Words;
use super::seats::Seats;

/// What a card asks of the player who wants to play it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Aim {
    /// It cannot be played now, and why.
    Blocked(Words),
    /// It can be played, with these choices.
    Open {
        /// `Some(seats)`: a target must be picked among these. `None`: no target.
        targets: Option<Seats>,
        /// Whether the player may choose the order of cards going onto the discard.
        order_choice: bool,
    },
}

impl Aim {
    pub const FREE: Aim = Aim::Open { targets: None, order_choice: false };
}
