//! [`SensorPiece`] (a validated piece letter) and [`Placement`] (what 64 squares show).

use std::fmt;
use std::str::FromStr;

use super::square::Square;

/// A piece letter as the sensors report it: one of `KQRBNPkqrbnp` (upper case = white).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SensorPiece(u8);

impl SensorPiece {
    /// White king.
    pub const WHITE_KING: SensorPiece = SensorPiece(b'K');
    /// Black king.
    pub const BLACK_KING: SensorPiece = SensorPiece(b'k');

    /// The piece for an ASCII letter, or `None` if it is not one of `KQRBNPkqrbnp`.
    #[must_use]
    pub const fn from_ascii(b: u8) -> Option<SensorPiece> {
        match b {
            b'K' | b'Q' | b'R' | b'B' | b'N' | b'P' | b'k' | b'q' | b'r' | b'b' | b'n' | b'p' => {
                Some(SensorPiece(b))
            }
            _ => None,
        }
    }

    /// The piece for a letter, or `None`.
    #[must_use]
    pub fn from_char(c: char) -> Option<SensorPiece> {
        u8::try_from(c).ok().and_then(SensorPiece::from_ascii)
    }

    /// The ASCII letter.
    #[must_use]
    pub const fn ascii(self) -> u8 {
        self.0
    }

    /// The letter.
    #[must_use]
    pub const fn char(self) -> char {
        self.0 as char
    }

    /// True for white pieces (upper-case letters).
    #[must_use]
    pub const fn is_white(self) -> bool {
        self.0.is_ascii_uppercase()
    }
}

impl fmt::Display for SensorPiece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

impl fmt::Debug for SensorPiece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// The text was not a single piece letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not a piece letter (KQRBNPkqrbnp)")]
pub struct ParsePieceError;

impl FromStr for SensorPiece {
    type Err = ParsePieceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.as_bytes() {
            [b] => SensorPiece::from_ascii(*b).ok_or(ParsePieceError),
            _ => Err(ParsePieceError),
        }
    }
}

/// What all 64 squares show; indexed by [`Square`] (a1 = 0).
///
/// Any arrangement is allowed (no kings, ten queens…): this is a sensor reading, not a position.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement([Option<SensorPiece>; 64]);

/// The standard starting placement's FEN field.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

impl Placement {
    /// All squares empty.
    #[must_use]
    pub const fn empty() -> Placement {
        Placement([None; 64])
    }

    /// The standard starting placement.
    #[must_use]
    pub fn start() -> Placement {
        // START_FEN is a valid constant, so the fallback is never taken.
        START_FEN.parse().unwrap_or_else(|_| Placement::empty())
    }

    /// What `sq` shows.
    #[must_use]
    pub const fn get(&self, sq: Square) -> Option<SensorPiece> {
        self.0[sq.index() as usize]
    }

    /// Sets what `sq` shows.
    pub fn set(&mut self, sq: Square, piece: Option<SensorPiece>) {
        self.0[sq.index() as usize] = piece;
    }

    /// The same placement seen from the other end of the board.
    #[must_use]
    pub fn rotated(&self) -> Placement {
        let mut out = Placement::empty();
        for sq in Square::all() {
            out.set(sq.rotated(), self.get(sq));
        }
        out
    }

    /// The squares whose contents differ from `other`, a1 first, with this placement's value.
    pub fn diff<'a>(
        &'a self,
        other: &'a Placement,
    ) -> impl Iterator<Item = (Square, Option<SensorPiece>)> + 'a {
        Square::all()
            .filter(move |&sq| self.get(sq) != other.get(sq))
            .map(move |sq| (sq, self.get(sq)))
    }

    /// Number of occupied squares.
    #[must_use]
    pub fn count(&self) -> usize {
        self.0.iter().filter(|p| p.is_some()).count()
    }

    /// Parses the piece-placement field of a FEN.
    ///
    /// # Errors
    /// A [`ParseFenError`] saying what is wrong.
    pub fn from_fen(fen: &str) -> Result<Placement, ParseFenError> {
        let mut out = Placement::empty();
        let ranks: Vec<&str> = fen.split('/').collect();
        if ranks.len() != 8 {
            return Err(ParseFenError(format!("{} ranks instead of 8", ranks.len())));
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = 7 - i as u8;
            let mut file: u8 = 0;
            let mut last_digit = false;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    if !(1..=8).contains(&d) || last_digit {
                        return Err(ParseFenError(format!("bad empty-run in rank {}", rank + 1)));
                    }
                    file = file.saturating_add(d as u8);
                    last_digit = true;
                } else {
                    let piece = SensorPiece::from_char(c).ok_or_else(|| {
                        ParseFenError(format!("bad piece letter {c:?} in rank {}", rank + 1))
                    })?;
                    let sq = Square::from_coords(file, rank).ok_or_else(|| {
                        ParseFenError(format!("rank {} has more than 8 squares", rank + 1))
                    })?;
                    out.set(sq, Some(piece));
                    file += 1;
                    last_digit = false;
                }
                if file > 8 {
                    return Err(ParseFenError(format!(
                        "rank {} has more than 8 squares",
                        rank + 1
                    )));
                }
            }
            if file != 8 {
                return Err(ParseFenError(format!(
                    "rank {} has {file} squares instead of 8",
                    rank + 1
                )));
            }
        }
        Ok(out)
    }
}

impl Default for Placement {
    fn default() -> Self {
        Placement::empty()
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8u8).rev() {
            let mut empty = 0;
            for file in 0..8u8 {
                match Square::from_coords(file, rank).and_then(|sq| self.get(sq)) {
                    Some(p) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{p}")?;
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Placement({self})")
    }
}

/// A FEN placement field could not be parsed; the text says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad fen: {0}")]
pub struct ParseFenError(pub String);

impl FromStr for Placement {
    type Err = ParseFenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Placement::from_fen(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_round_trips() {
        for fen in [
            START_FEN,
            "8/8/8/8/8/8/8/8",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R",
            "QQQQQQQQ/8/8/8/8/8/8/kkkkkkkk",
        ] {
            let p: Placement = fen.parse().expect(fen);
            assert_eq!(p.to_string(), fen);
        }
        assert_eq!(Placement::start().count(), 32);
    }

    #[test]
    fn bad_fens_are_rejected() {
        for bad in [
            "",
            "8/8/8/8/8/8/8",
            "8/8/8/8/8/8/8/8/8",
            "9/8/8/8/8/8/8/8",
            "44/8/8/8/8/8/8/8",
            "7/8/8/8/8/8/8/8",
            "ppppppppp/8/8/8/8/8/8/8",
            "x7/8/8/8/8/8/8/8",
            "0p7/8/8/8/8/8/8/8",
        ] {
            assert!(bad.parse::<Placement>().is_err(), "{bad}");
        }
    }

    #[test]
    fn pieces_are_validated() {
        assert!(SensorPiece::from_char('K').is_some());
        assert!(SensorPiece::from_char('x').is_none());
        assert!("".parse::<SensorPiece>().is_err());
        assert!("Kq".parse::<SensorPiece>().is_err());
        assert!(SensorPiece::from_char('Q').is_some_and(SensorPiece::is_white));
    }

    #[test]
    fn rotation_is_an_involution() {
        let p = Placement::start();
        assert_ne!(p.rotated(), p);
        assert_eq!(p.rotated().rotated(), p);
    }
}
