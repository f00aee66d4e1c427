//! Files, ranks and squares.
//!
//! Squares are numbered a1 = 0, b1 = 1, …, h8 = 63 (little-endian rank-file), so that a
//! [`Bitboard`](super::Bitboard) bit `i` is square `i`.

use std::fmt;
use std::str::FromStr;

use super::Color;

/// A file, `a` to `h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum File {
    A = 0,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}

impl File {
    /// All files, a to h.
    pub const ALL: [File; 8] = [
        File::A,
        File::B,
        File::C,
        File::D,
        File::E,
        File::F,
        File::G,
        File::H,
    ];

    /// The file with index `i` (0 = a), if `i < 8`.
    #[must_use]
    pub const fn new(i: u8) -> Option<File> {
        if i < 8 {
            Some(File::ALL[i as usize])
        } else {
            None
        }
    }

    /// The file of a lower-case letter `a`..`h`.
    #[must_use]
    pub const fn from_char(c: char) -> Option<File> {
        match c {
            'a'..='h' => File::new(c as u8 - b'a'),
            _ => None,
        }
    }

    /// Its letter, `a`..`h`.
    #[must_use]
    pub const fn char(self) -> char {
        (b'a' + self as u8) as char
    }

    /// 0 for a … 7 for h.
    #[must_use]
    pub const fn index(self) -> u8 {
        self as u8
    }
}

/// A rank, `1` to `8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Rank {
    First = 0,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}

impl Rank {
    /// All ranks, 1 to 8.
    pub const ALL: [Rank; 8] = [
        Rank::First,
        Rank::Second,
        Rank::Third,
        Rank::Fourth,
        Rank::Fifth,
        Rank::Sixth,
        Rank::Seventh,
        Rank::Eighth,
    ];

    /// The rank with index `i` (0 = rank 1), if `i < 8`.
    #[must_use]
    pub const fn new(i: u8) -> Option<Rank> {
        if i < 8 {
            Some(Rank::ALL[i as usize])
        } else {
            None
        }
    }

    /// The rank of a digit `1`..`8`.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Rank> {
        match c {
            '1'..='8' => Rank::new(c as u8 - b'1'),
            _ => None,
        }
    }

    /// Its digit, `1`..`8`.
    #[must_use]
    pub const fn char(self) -> char {
        (b'1' + self as u8) as char
    }

    /// 0 for rank 1 … 7 for rank 8.
    #[must_use]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The rank as seen by `color`: White's 1st rank is rank 1, Black's 1st rank is rank 8.
    #[must_use]
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank::ALL[7 - self as usize],
        }
    }
}

/// A square of the board.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// All 64 squares, a1 first.
    pub const ALL: [Square; 64] = {
        let mut all = [Square(0); 64];
        let mut i = 0;
        while i < 64 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square with index `i` (a1 = 0, h8 = 63), if `i < 64`.
    #[must_use]
    pub const fn new(i: u8) -> Option<Square> {
        if i < 64 { Some(Square(i)) } else { None }
    }

    /// The square with index `i & 63`: for table-driven code where the index is known good.
    #[must_use]
    pub const fn from_index_masked(i: u32) -> Square {
        Square((i & 63) as u8)
    }

    /// The square on `file` and `rank`.
    #[must_use]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank as u8 * 8 + file as u8)
    }

    /// Its file.
    #[must_use]
    pub const fn file(self) -> File {
        File::ALL[(self.0 & 7) as usize]
    }

    /// Its rank.
    #[must_use]
    pub const fn rank(self) -> Rank {
        Rank::ALL[(self.0 >> 3) as usize]
    }

    /// Its index, a1 = 0 … h8 = 63.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    #[must_use]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = (self.0 & 7) as i8 + df;
        let r = (self.0 >> 3) as i8 + dr;
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            Some(Square((r * 8 + f) as u8))
        } else {
            None
        }
    }

    /// The same square seen from the other side of the board (a1 ↔ h8): how a board turned
    /// 180° reports it.
    #[must_use]
    pub const fn rotate_180(self) -> Square {
        Square(63 - self.0)
    }

    /// The square mirrored across the middle rank (a1 ↔ a8).
    #[must_use]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// Parses `e4` (exactly two bytes, lower-case file).
    ///
    /// # Errors
    ///
    /// [`ParseSquareError`] when the text is not a square name.
    pub fn from_ascii(s: &[u8]) -> Result<Square, ParseSquareError> {
        match s {
            [f, r] => match (File::from_char(*f as char), Rank::from_char(*r as char)) {
                (Some(f), Some(r)) => Ok(Square::from_coords(f, r)),
                _ => Err(ParseSquareError),
            },
            _ => Err(ParseSquareError),
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        Square::from_ascii(s.as_bytes())
    }
}

/// A text that is not a square name (`a1`..`h8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected a square name a1..h8")
    }
}

impl std::error::Error for ParseSquareError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::ALL {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        assert_eq!("e4".parse::<Square>().map(Square::index), Ok(28));
        assert!("i1".parse::<Square>().is_err());
        assert!("e9".parse::<Square>().is_err());
        assert!("e".parse::<Square>().is_err());
    }

    #[test]
    fn offsets_stay_on_the_board() {
        let h8: Square = "h8".parse().unwrap();
        assert_eq!(h8.offset(1, 0), None);
        assert_eq!(h8.offset(-7, -7).map(|s| s.to_string()), Some("a1".into()));
        assert_eq!(h8.rotate_180().to_string(), "a1");
    }
}
