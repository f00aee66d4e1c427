//! [`Occupancy`]: which squares hold *a* piece, for boards that cannot tell which (Sentio).

use std::fmt;
use std::str::FromStr;

use super::piece::{ParseFenError, Placement};
use super::square::Square;

/// The set of occupied squares (bit = square index, a1 = bit 0).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Occupancy(pub u64);

impl Occupancy {
    /// No square occupied.
    pub const EMPTY: Occupancy = Occupancy(0);

    /// Whether `sq` is occupied.
    #[must_use]
    pub const fn get(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// Marks `sq` occupied or empty.
    pub fn set(&mut self, sq: Square, occupied: bool) {
        if occupied {
            self.0 |= 1 << sq.index();
        } else {
            self.0 &= !(1 << sq.index());
        }
    }

    /// The same with `sq` set.
    #[must_use]
    pub fn with(mut self, sq: Square, occupied: bool) -> Occupancy {
        self.set(sq, occupied);
        self
    }

    /// The squares a placement occupies.
    #[must_use]
    pub fn of(p: &Placement) -> Occupancy {
        let mut o = Occupancy::EMPTY;
        for sq in Square::all() {
            o.set(sq, p.get(sq).is_some());
        }
        o
    }

    /// Seen from the other end of the board.
    #[must_use]
    pub fn rotated(self) -> Occupancy {
        Occupancy(self.0.reverse_bits())
    }

    /// Number of occupied squares.
    #[must_use]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The squares whose state differs from `other`, a1 first, with this state.
    pub fn diff(self, other: Occupancy) -> impl Iterator<Item = (Square, bool)> {
        Square::all()
            .filter(move |&sq| self.get(sq) != other.get(sq))
            .map(move |sq| (sq, self.get(sq)))
    }
}

/// Written like a FEN placement with `X` for an occupied square:
/// `XXXXXXXX/XXXXXXXX/8/8/8/8/XXXXXXXX/XXXXXXX1`.
impl fmt::Display for Occupancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8u8).rev() {
            let mut empty = 0;
            for file in 0..8u8 {
                let sq = Square::from_coords(file, rank).ok_or(fmt::Error)?;
                if self.get(sq) {
                    if empty > 0 {
                        write!(f, "{empty}")?;
                        empty = 0;
                    }
                    f.write_str("X")?;
                } else {
                    empty += 1;
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

impl fmt::Debug for Occupancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Occupancy({self})")
    }
}

impl FromStr for Occupancy {
    type Err = ParseFenError;

    /// Parses the `X`-and-digits form of [`Occupancy`]'s `Display`.
    fn from_str(s: &str) -> Result<Occupancy, ParseFenError> {
        let ranks: Vec<&str> = s.split('/').collect();
        if ranks.len() != 8 {
            return Err(ParseFenError(format!("{} ranks instead of 8", ranks.len())));
        }
        let mut o = Occupancy::EMPTY;
        for (i, text) in ranks.iter().enumerate() {
            let rank = 7 - i as u8;
            let mut file: u8 = 0;
            let mut last_digit = false;
            for c in text.chars() {
                match c {
                    'X' => {
                        let sq = Square::from_coords(file, rank).ok_or_else(|| {
                            ParseFenError(format!("rank {} has more than 8 squares", rank + 1))
                        })?;
                        o.set(sq, true);
                        file += 1;
                        last_digit = false;
                    }
                    '1'..='8' if !last_digit => {
                        file += c as u8 - b'0';
                        last_digit = true;
                    }
                    other => {
                        return Err(ParseFenError(format!(
                            "'{other}' in rank {} (only X and empty-square digits)",
                            rank + 1
                        )));
                    }
                }
            }
            if file != 8 {
                return Err(ParseFenError(format!(
                    "rank {} has {file} squares instead of 8",
                    rank + 1
                )));
            }
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_and_read_back() {
        let start = Occupancy::of(&Placement::start());
        assert_eq!(
            start.to_string(),
            "XXXXXXXX/XXXXXXXX/8/8/8/8/XXXXXXXX/XXXXXXXX"
        );
        let h1 = Square::from_name("h1").expect("h1");
        let o = start.with(h1, false);
        assert_eq!(o.to_string(), "XXXXXXXX/XXXXXXXX/8/8/8/8/XXXXXXXX/XXXXXXX1");
        assert_eq!(o.to_string().parse::<Occupancy>(), Ok(o));
        assert_eq!(o.count(), 31);
        assert_eq!(o.rotated().rotated(), o);
        assert!(!o.rotated().get(Square::from_name("a8").expect("a8")));
        for bad in [
            "XXXXXXXX",
            "XXXXXXXXX/8/8/8/8/8/8/8",
            "K7/8/8/8/8/8/8/8",
            "44/8/8/8/8/8/8/8",
        ] {
            assert!(bad.parse::<Occupancy>().is_err(), "{bad}");
        }
    }

    #[test]
    fn occupancy_lines_round_trip_and_bad_ones_are_named() {
        use crate::trace::{BoardId, TraceEvent, TraceLine, line_to_string, parse_line};
        let line = TraceLine {
            t: 1200,
            event: TraceEvent::Occupancy {
                board: BoardId::B,
                occupied: Occupancy::of(&Placement::start()),
            },
        };
        let text = line_to_string(&line);
        assert_eq!(
            text,
            r#"{"t":1200,"board":"B","ev":"occupancy","occupied":"XXXXXXXX/XXXXXXXX/8/8/8/8/XXXXXXXX/XXXXXXXX"}"#
        );
        assert_eq!(parse_line(&text, false).expect("parses"), line);
        let bad = r#"{"t":0,"board":"A","ev":"occupancy","occupied":"XXXXXXXX/8/8"}"#;
        let err = parse_line(bad, false).expect_err("three ranks").to_string();
        assert!(err.contains("3 ranks"), "{err}");
        let missing = r#"{"t":0,"board":"A","ev":"occupancy"}"#;
        assert!(parse_line(missing, false).is_err());
    }
}
