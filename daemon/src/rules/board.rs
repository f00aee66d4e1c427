//! Piece placement only: which piece stands on which square.

use std::fmt;

use super::{Bitboard, ByColor, Color, File, Piece, Rank, Role, Square};

/// The pieces on one board, as bitboards by role and by colour.
///
/// Any arrangement is representable: no kings, three kings, pawns on the back rank. Rules
/// live in [`Position`](super::Position).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    by_role: [Bitboard; 6],
    by_color: ByColor<Bitboard>,
    occupied: Bitboard,
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl Board {
    /// A board with no pieces.
    #[must_use]
    pub const fn empty() -> Board {
        Board {
            by_role: [Bitboard::EMPTY; 6],
            by_color: ByColor {
                white: Bitboard::EMPTY,
                black: Bitboard::EMPTY,
            },
            occupied: Bitboard::EMPTY,
        }
    }

    /// The start position of chess.
    #[must_use]
    pub fn start() -> Board {
        Board::from_placement("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
            .expect("the start placement is valid")
    }

    /// Every occupied square.
    #[must_use]
    pub const fn occupied(&self) -> Bitboard {
        self.occupied
    }

    /// The squares of `color`'s pieces.
    #[must_use]
    pub const fn by_color(&self, color: Color) -> Bitboard {
        *self.by_color.get(color)
    }

    /// The squares of pieces of `role`, both colours.
    #[must_use]
    pub const fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role as usize]
    }

    /// The squares of `piece`.
    #[must_use]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role(piece.role) & self.by_color(piece.color)
    }

    /// The kings of `color` (normally one; none or several after a Koedem capture or an
    /// illegal drop).
    #[must_use]
    pub fn kings(&self, color: Color) -> Bitboard {
        self.by_piece(Role::King.of(color))
    }

    /// Rooks and queens.
    #[must_use]
    pub fn rooks_and_queens(&self) -> Bitboard {
        self.by_role(Role::Rook) | self.by_role(Role::Queen)
    }

    /// Bishops and queens.
    #[must_use]
    pub fn bishops_and_queens(&self) -> Bitboard {
        self.by_role(Role::Bishop) | self.by_role(Role::Queen)
    }

    /// The colour of the piece on `sq`.
    #[must_use]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        if self.by_color.white.contains(sq) {
            Some(Color::White)
        } else if self.by_color.black.contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The role of the piece on `sq`.
    #[must_use]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied.contains(sq) {
            return None;
        }
        Role::ALL
            .into_iter()
            .find(|&r| self.by_role[r as usize].contains(sq))
    }

    /// The piece on `sq`.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let role = self.role_at(sq)?;
        let color = self.color_at(sq)?;
        Some(Piece { color, role })
    }

    /// Removes and returns the piece on `sq`.
    pub fn remove_piece_at(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        self.by_role[piece.role as usize].discard(sq);
        self.by_color.get_mut(piece.color).discard(sq);
        self.occupied.discard(sq);
        Some(piece)
    }

    /// Puts `piece` on `sq`, replacing whatever stood there.
    pub fn set_piece_at(&mut self, sq: Square, piece: Piece) {
        self.remove_piece_at(sq);
        self.by_role[piece.role as usize].add(sq);
        self.by_color.get_mut(piece.color).add(sq);
        self.occupied.add(sq);
    }

    /// Sets or clears `sq`.
    pub fn set_square(&mut self, sq: Square, piece: Option<Piece>) {
        match piece {
            Some(p) => self.set_piece_at(sq, p),
            None => {
                self.remove_piece_at(sq);
            }
        }
    }

    /// How many pieces of `piece` stand on the board.
    #[must_use]
    pub fn count(&self, piece: Piece) -> usize {
        self.by_piece(piece).count()
    }

    /// The board turned 180° (a1 ↔ h8): what a board set up the other way round reports.
    #[must_use]
    pub fn rotate_180(&self) -> Board {
        Board {
            by_role: self.by_role.map(Bitboard::rotate_180),
            by_color: self.by_color.map(Bitboard::rotate_180),
            occupied: self.occupied.rotate_180(),
        }
    }

    /// Parses the piece-placement field of a FEN (8 ranks, rank 8 first).
    ///
    /// # Errors
    ///
    /// [`ParsePlacementError`] with the byte offset of the first problem.
    pub fn from_placement(s: &str) -> Result<Board, ParsePlacementError> {
        let mut board = Board::empty();
        let mut rank = 7i8;
        let mut file = 0u8;
        for (i, c) in s.char_indices() {
            let err = |what| ParsePlacementError { offset: i, what };
            match c {
                '/' => {
                    if file != 8 {
                        return Err(err("8 squares in each rank"));
                    }
                    rank -= 1;
                    file = 0;
                    if rank < 0 {
                        return Err(err("at most 8 ranks"));
                    }
                }
                '1'..='8' => {
                    file += c as u8 - b'0';
                    if file > 8 {
                        return Err(err("at most 8 squares in a rank"));
                    }
                }
                _ => {
                    let piece = Piece::from_char(c).ok_or(err("a piece letter, a digit or '/'"))?;
                    if file >= 8 {
                        return Err(err("at most 8 squares in a rank"));
                    }
                    let sq = Square::from_coords(
                        File::new(file).unwrap_or(File::A),
                        Rank::new(rank as u8).unwrap_or(Rank::First),
                    );
                    board.set_piece_at(sq, piece);
                    file += 1;
                }
            }
        }
        if rank != 0 || file != 8 {
            return Err(ParsePlacementError {
                offset: s.len(),
                what: "8 ranks of 8 squares",
            });
        }
        Ok(board)
    }

    /// The piece-placement field of a FEN.
    #[must_use]
    pub fn placement(&self) -> String {
        self.placement_with(Bitboard::EMPTY)
    }

    /// The placement with `~` after every piece on a `promoted` square (BFEN).
    #[must_use]
    pub fn placement_with(&self, promoted: Bitboard) -> String {
        let mut s = String::with_capacity(80);
        for rank in Rank::ALL.into_iter().rev() {
            let mut empty = 0;
            for file in File::ALL {
                let sq = Square::from_coords(file, rank);
                match self.piece_at(sq) {
                    Some(p) => {
                        if empty > 0 {
                            s.push((b'0' + empty) as char);
                            empty = 0;
                        }
                        s.push(p.char());
                        if promoted.contains(sq) {
                            s.push('~');
                        }
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
            if rank != Rank::First {
                s.push('/');
            }
        }
        s
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({})", self.placement())
    }
}

/// A placement field that is not 8 ranks of 8 squares of piece letters and digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsePlacementError {
    /// Byte offset in the field.
    pub offset: usize,
    /// What was expected there.
    pub what: &'static str,
}

impl fmt::Display for ParsePlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad piece placement at byte {}: expected {}",
            self.offset, self.what
        )
    }
}

impl std::error::Error for ParsePlacementError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_round_trips() {
        let b = Board::start();
        assert_eq!(b.placement(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
        assert_eq!(b.occupied().count(), 32);
        let odd = "k7/8/8/8/8/8/8/PPPPPPPP";
        assert_eq!(Board::from_placement(odd).unwrap().placement(), odd);
    }

    #[test]
    fn bad_placements_name_the_byte() {
        assert_eq!(Board::from_placement("9/8").unwrap_err().offset, 0);
        let e = Board::from_placement("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR").unwrap_err();
        assert_eq!(e.offset, 13);
        assert!(Board::from_placement("8/8/8/8/8/8/8").is_err());
        assert!(Board::from_placement("8/8/8/8/8/8/8/8/8").is_err());
        assert!(Board::from_placement("").is_err());
    }
}
