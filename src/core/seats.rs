//! A set of seats ([`Seats`]): a bit mask, the form every "who can be targeted" and "who has
//! a card of this rank in front" answer takes.

/// A seat at the table: 0 is the first player named (D4).
pub type Seat = usize;

/// A set of seats, as a bit mask (seat 0 is bit 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Seats(pub u64);

impl Seats {
    pub fn insert(&mut self, seat: Seat) {
        self.0 |= 1 << seat;
    }
    pub fn contains(self, seat: Seat) -> bool {
        seat < 64 && self.0 & (1 << seat) != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    /// The seats in increasing order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let seat = bits.trailing_zeros() as Seat;
                bits &= bits - 1;
                seat
            })
        })
    }
}

impl FromIterator<Seat> for Seats {
    fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> Seats {
        let mut seats = Seats::default();
        for s in iter {
            seats.insert(s);
        }
        seats
    }
}
