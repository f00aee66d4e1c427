//! Attack tables: which squares a piece on a square attacks, given the occupancy.
//!
//! Leapers come from tables computed at compile time. Sliders use the hyperbola
//! quintessence trick (`o - 2s` forward, the same on the byte- or bit-reversed board
//! backward), which needs only four line masks per square and no large tables.

use super::{Bitboard, Color, Role, Square};

const fn leaper_table(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let f = (sq % 8) as i8;
        let r = (sq / 8) as i8;
        let mut i = 0;
        let mut bits = 0u64;
        while i < deltas.len() {
            let (df, dr) = deltas[i];
            let (nf, nr) = (f + df, r + dr);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                bits |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        table[sq] = bits;
        sq += 1;
    }
    table
}

static KNIGHT: [u64; 64] = leaper_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [u64; 64] = leaper_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static WHITE_PAWN: [u64; 64] = leaper_table(&[(-1, 1), (1, 1)]);
static BLACK_PAWN: [u64; 64] = leaper_table(&[(-1, -1), (1, -1)]);

/// Masks of the file, rank, diagonal and anti-diagonal through each square, without the
/// square itself.
const fn line_masks(df: i8, dr: i8) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut bits = 0u64;
        let mut dir = 0;
        while dir < 2 {
            let (sf, sr) = if dir == 0 { (df, dr) } else { (-df, -dr) };
            let mut f = (sq % 8) as i8 + sf;
            let mut r = (sq / 8) as i8 + sr;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                bits |= 1 << (r * 8 + f);
                f += sf;
                r += sr;
            }
            dir += 1;
        }
        table[sq] = bits;
        sq += 1;
    }
    table
}

static FILE_MASK: [u64; 64] = line_masks(0, 1);
static RANK_MASK: [u64; 64] = line_masks(1, 0);
static DIAG_MASK: [u64; 64] = line_masks(1, 1);
static ANTI_MASK: [u64; 64] = line_masks(1, -1);

/// `BETWEEN[a][b]`: the squares strictly between two aligned squares; `RAY[a][b]`: the
/// whole line through them (both empty when not aligned).
struct Lines {
    between: [[u64; 64]; 64],
    ray: [[u64; 64]; 64],
}

static LINES: Lines = {
    let mut lines = Lines {
        between: [[0; 64]; 64],
        ray: [[0; 64]; 64],
    };
    let dirs: [(i8, i8); 8] = [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (-1, -1),
        (1, -1),
        (-1, 1),
    ];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = dirs[d];
            let line = if df == 0 {
                FILE_MASK[a]
            } else if dr == 0 {
                RANK_MASK[a]
            } else if df == dr {
                DIAG_MASK[a]
            } else {
                ANTI_MASK[a]
            } | (1 << a);
            let mut f = (a % 8) as i8 + df;
            let mut r = (a / 8) as i8 + dr;
            let mut between = 0u64;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                let b = (r * 8 + f) as usize;
                lines.between[a][b] = between;
                lines.ray[a][b] = line;
                between |= 1 << b;
                f += df;
                r += dr;
            }
            d += 1;
        }
        a += 1;
    }
    lines
};

#[inline]
fn hyperbola(sq: Square, occupied: Bitboard, mask: u64) -> u64 {
    let s = 1u64 << sq.index();
    let o = occupied.0 & mask;
    let forward = o.wrapping_sub(s.wrapping_mul(2));
    let reverse = o
        .swap_bytes()
        .wrapping_sub(s.swap_bytes().wrapping_mul(2))
        .swap_bytes();
    (forward ^ reverse) & mask
}

#[inline]
fn rank_attacks(sq: Square, occupied: Bitboard) -> u64 {
    let mask = RANK_MASK[sq.index()];
    let s = 1u64 << sq.index();
    let o = occupied.0 & mask;
    let forward = o.wrapping_sub(s.wrapping_mul(2));
    let reverse = o
        .reverse_bits()
        .wrapping_sub(s.reverse_bits().wrapping_mul(2))
        .reverse_bits();
    (forward ^ reverse) & mask
}

/// Squares a knight on `sq` attacks.
#[inline]
#[must_use]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// Squares a king on `sq` attacks.
#[inline]
#[must_use]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks (diagonally forward).
#[inline]
#[must_use]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    match color {
        Color::White => Bitboard(WHITE_PAWN[sq.index()]),
        Color::Black => Bitboard(BLACK_PAWN[sq.index()]),
    }
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
#[inline]
#[must_use]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(
        hyperbola(sq, occupied, DIAG_MASK[sq.index()])
            | hyperbola(sq, occupied, ANTI_MASK[sq.index()]),
    )
}

/// Squares a rook on `sq` attacks, given the occupied squares.
#[inline]
#[must_use]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(hyperbola(sq, occupied, FILE_MASK[sq.index()]) | rank_attacks(sq, occupied))
}

/// Squares a queen on `sq` attacks, given the occupied squares.
#[inline]
#[must_use]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    bishop_attacks(sq, occupied) | rook_attacks(sq, occupied)
}

/// Squares a piece of `role` and `color` on `sq` attacks.
#[inline]
#[must_use]
pub fn attacks(role: Role, color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::Queen => queen_attacks(sq, occupied),
        Role::King => king_attacks(sq),
    }
}

/// The squares strictly between `a` and `b` if they share a line, else empty.
#[inline]
#[must_use]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.between[a.index()][b.index()])
}

/// The whole line (edge to edge) through `a` and `b` if they share one, else empty.
#[inline]
#[must_use]
pub fn ray(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.ray[a.index()][b.index()])
}

/// Whether `a`, `b` and `c` lie on one line.
#[inline]
#[must_use]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    ray(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn names(bb: Bitboard) -> Vec<String> {
        let mut v: Vec<String> = bb.map(|s| s.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn rook_stops_at_blockers() {
        let occ = Bitboard::from_square(sq("d6")) | Bitboard::from_square(sq("f4"));
        let att = rook_attacks(sq("d4"), occ);
        assert_eq!(
            names(att),
            ["a4", "b4", "c4", "d1", "d2", "d3", "d5", "d6", "e4", "f4"]
        );
    }

    #[test]
    fn bishop_on_corner_sees_long_diagonal() {
        assert_eq!(bishop_attacks(sq("a1"), Bitboard::EMPTY).count(), 7);
        let att = bishop_attacks(sq("c1"), Bitboard::from_square(sq("e3")));
        assert_eq!(names(att), ["a3", "b2", "d2", "e3"]);
    }

    #[test]
    fn lines_between_and_through() {
        assert_eq!(names(between(sq("a1"), sq("d4"))), ["b2", "c3"]);
        assert!(between(sq("a1"), sq("b3")).is_empty());
        assert_eq!(ray(sq("b2"), sq("c3")).count(), 8);
        assert!(aligned(sq("a1"), sq("c3"), sq("h8")));
    }

    #[test]
    fn leapers() {
        assert_eq!(knight_attacks(sq("a1")).count(), 2);
        assert_eq!(king_attacks(sq("e4")).count(), 8);
        assert_eq!(names(pawn_attacks(Color::White, sq("a2"))), ["b3"]);
        assert_eq!(names(pawn_attacks(Color::Black, sq("e7"))), ["d6", "f6"]);
    }
}
