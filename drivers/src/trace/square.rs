//! Small vocabulary types: [`BoardId`], [`Square`], [`Side`].

use std::fmt;
use std::str::FromStr;

/// Which of the two bughouse boards an event belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoardId {
    /// Board `A`.
    A,
    /// Board `B`.
    B,
}

impl BoardId {
    /// The letter used in traces: `'A'` or `'B'`.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            BoardId::A => 'A',
            BoardId::B => 'B',
        }
    }

    /// Parses `"A"` or `"B"`.
    #[must_use]
    pub fn from_name(s: &str) -> Option<BoardId> {
        match s {
            "A" => Some(BoardId::A),
            "B" => Some(BoardId::B),
            _ => None,
        }
    }
}

impl fmt::Display for BoardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

impl FromStr for BoardId {
    type Err = ParseBoardIdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BoardId::from_name(s).ok_or(ParseBoardIdError)
    }
}

/// The text was not `A` or `B`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("board must be \"A\" or \"B\"")]
pub struct ParseBoardIdError;

/// A player colour, used for which clock side is `running`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl Side {
    /// `"white"` or `"black"`, as in traces.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }

    /// Parses `"white"` or `"black"`.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Side> {
        match s {
            "white" => Some(Side::White),
            "black" => Some(Side::Black),
            _ => None,
        }
    }

    /// The other side.
    #[must_use]
    pub const fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A sensor square: index a1 = 0, b1 = 1, … h1 = 7, a2 = 8, … h8 = 63.
///
/// Always in the board's *normal* orientation (white at the bottom); drivers undo a rotated
/// board before they build one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this index (a1 = 0 … h8 = 63), or `None` when out of range.
    #[must_use]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), or `None` when out of range.
    #[must_use]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// Every square, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }

    /// The index, a1 = 0 … h8 = 63.
    #[must_use]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The file, 0 = a … 7 = h.
    #[must_use]
    pub const fn file(self) -> u8 {
        self.0 % 8
    }

    /// The rank, 0 = rank 1 … 7 = rank 8.
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0 / 8
    }

    /// The square seen from the other end of the board (a1 ↔ h8).
    #[must_use]
    pub const fn rotated(self) -> Square {
        Square(63 - self.0)
    }

    /// Parses a name such as `"e4"`.
    #[must_use]
    pub fn from_name(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'1');
        Square::from_coords(file, rank)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file()) as char,
            (b'1' + self.rank()) as char
        )
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The text was not a square name `a1`..`h8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not a square name (a1..h8)")]
pub struct ParseSquareError;

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Square::from_name(s).ok_or(ParseSquareError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        assert_eq!(Square::from_name("a1").map(Square::index), Some(0));
        assert_eq!(Square::from_name("h8").map(Square::index), Some(63));
        assert_eq!(Square::from_name("e4").map(Square::index), Some(28));
        for bad in ["", "e", "e9", "i1", "E4", "e44", "é4"] {
            assert_eq!(Square::from_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn rotation_swaps_corners() {
        assert_eq!(
            Square::from_name("a1").map(Square::rotated),
            Square::from_name("h8")
        );
        assert_eq!(
            Square::from_name("e2").map(Square::rotated),
            Square::from_name("d7")
        );
    }
}
