//! Holdings ("pocket", "stock"): the pieces a player may drop.

use std::fmt;

use super::{ByColor, Color, Piece, Role};

/// How many pieces of each role one player holds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pocket {
    counts: [u8; 6],
}

impl Pocket {
    /// An empty pocket.
    #[must_use]
    pub const fn new() -> Pocket {
        Pocket { counts: [0; 6] }
    }

    /// How many of `role`.
    #[must_use]
    pub const fn count(&self, role: Role) -> u8 {
        self.counts[role as usize]
    }

    /// Whether it holds at least one `role`.
    #[must_use]
    pub const fn has(&self, role: Role) -> bool {
        self.counts[role as usize] > 0
    }

    /// Adds one `role` (saturating: a pocket never overflows on corrupt input).
    pub fn add(&mut self, role: Role) {
        self.counts[role as usize] = self.counts[role as usize].saturating_add(1);
    }

    /// Takes one `role`; `false` when there was none.
    pub fn take(&mut self, role: Role) -> bool {
        let c = &mut self.counts[role as usize];
        if *c > 0 {
            *c -= 1;
            true
        } else {
            false
        }
    }

    /// Whether it holds nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0)
    }

    /// How many pieces in all.
    #[must_use]
    pub fn total(&self) -> usize {
        self.counts.iter().map(|&c| c as usize).sum()
    }

    /// The roles held, each once, strongest first (queen, rook, bishop, knight, pawn, king).
    pub fn roles(&self) -> impl Iterator<Item = Role> + '_ {
        DISPLAY_ORDER.into_iter().filter(|&r| self.has(r))
    }
}

/// The order pieces are written in holdings: queen, rook, bishop, knight, pawn, then king.
const DISPLAY_ORDER: [Role; 6] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
    Role::King,
];

impl fmt::Debug for Pocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        for r in DISPLAY_ORDER {
            for _ in 0..self.count(r) {
                s.push(r.upper_char());
            }
        }
        write!(f, "Pocket({s})")
    }
}

/// Both players' holdings on one board.
pub type Pockets = ByColor<Pocket>;

/// Writes the holdings of both players as in BFEN: White's upper case, then Black's lower
/// case (`QRbnp`); empty when both are empty.
#[must_use]
pub fn holdings_string(pockets: &Pockets) -> String {
    let mut s = String::new();
    for color in Color::ALL {
        for r in DISPLAY_ORDER {
            for _ in 0..pockets[color].count(r) {
                s.push(r.of(color).char());
            }
        }
    }
    s
}

/// Reads holdings written as piece letters (`BrpBBqppN`), any order.
///
/// # Errors
///
/// The byte offset of the first character that is not a piece letter.
pub fn parse_holdings(s: &str) -> Result<Pockets, usize> {
    let mut pockets = Pockets::default();
    for (i, c) in s.char_indices() {
        let piece: Piece = Piece::from_char(c).ok_or(i)?;
        pockets[piece.color].add(piece.role);
    }
    Ok(pockets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holdings_round_trip_in_canonical_order() {
        let p = parse_holdings("BrpBBqppN").unwrap();
        assert_eq!(p.white.count(Role::Bishop), 3);
        assert_eq!(p.black.count(Role::Pawn), 3);
        assert_eq!(holdings_string(&p), "BBBNqrppp");
        assert_eq!(parse_holdings("Bx"), Err(1));
    }
}
