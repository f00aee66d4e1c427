//! Castling rights, for standard chess and Chess960 alike.
//!
//! Chess960 castling is the general case and standard castling its special case: the king
//! starts on any file of its home rank with a rook on each side; castling puts the king on
//! the g-file (towards the h-side rook) or the c-file (towards the a-side rook) and that
//! rook on the f- or d-file, whatever their files were. So the rules core keeps, per
//! colour, the square the castling king started on (e1/e8 in standard chess) and the rooks
//! that keep the right by their square; nothing else about castling depends on the start.
//!
//! A bughouse rook dropped on a rook's start square may castle with the unmoved king when
//! the ruleset allows it (000 §8): the start squares are the corners in standard chess, and
//! the squares of the rooks that held the right at set-up in a Chess960 start.

use super::{Bitboard, Board, ByColor, Color, File, Rank, Role, Square};

/// The castling state of one board (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Castling {
    /// The rooks that keep the right to castle, by their square.
    rights: Bitboard,
    /// The square each colour's castling king started on.
    king_start: ByColor<Square>,
    /// Kings that never moved: a rook dropped on a start square may castle with them.
    king_unmoved: ByColor<bool>,
    /// Where a dropped rook regains the right (the rooks' start squares).
    rook_starts: Bitboard,
}

const CORNERS: Bitboard = Bitboard(0x8100_0000_0000_0081);

fn home_rank(color: Color) -> Bitboard {
    Bitboard::from_rank(Rank::First.relative_to(color))
}

fn standard_king(color: Color) -> Square {
    Square::from_coords(File::E, Rank::First.relative_to(color))
}

impl Castling {
    /// Standard chess at the start: kings on e1/e8, rights with the four corner rooks.
    pub(crate) fn standard() -> Castling {
        Castling {
            rights: CORNERS,
            king_start: ByColor::new_with(standard_king),
            king_unmoved: ByColor {
                white: true,
                black: true,
            },
            rook_starts: CORNERS,
        }
    }

    /// The castling state of a set-up position: a right is kept for a rook of its colour
    /// on its home rank, when that colour has a king on its home rank (wherever on it:
    /// Chess960; the one on the e-file when Koedem gives it two). That king counts as
    /// unmoved when its colour keeps a right.
    pub(crate) fn from_setup(board: &Board, requested: Bitboard) -> Castling {
        let mut castling = Castling {
            rights: Bitboard::EMPTY,
            king_start: ByColor::new_with(standard_king),
            king_unmoved: ByColor::default(),
            rook_starts: Bitboard::EMPTY,
        };
        for color in Color::ALL {
            let home = home_rank(color);
            let rooks = requested & home & board.by_piece(Role::Rook.of(color));
            // Koedem may have two kings: the one on the standard square is the original.
            let kings = board.kings(color) & home;
            let king = if kings.contains(standard_king(color)) {
                standard_king(color)
            } else if let Some(k) = kings.single() {
                k
            } else {
                continue;
            };
            if rooks.is_empty() {
                continue;
            }
            castling.rights |= rooks;
            castling.king_start[color] = king;
            castling.king_unmoved[color] = true;
            castling.rook_starts |= rooks;
            if king == standard_king(color) {
                castling.rook_starts |= CORNERS & home;
            }
        }
        castling
    }

    /// The rooks (by square) that keep the right to castle.
    pub(crate) const fn rights(&self) -> Bitboard {
        self.rights
    }

    /// The square `color`'s castling king started on.
    pub(crate) fn king_start(&self, color: Color) -> Square {
        self.king_start[color]
    }

    /// The rook of `color` that keeps the right on the h-side (`king_side`) or the a-side
    /// of its king, if any.
    pub(crate) fn rook(&self, color: Color, king_side: bool) -> Option<Square> {
        let king = self.king_start[color];
        let ours = self.rights & home_rank(color);
        let mut side = ours.into_iter().filter(|&r| (r > king) == king_side);
        if king_side { side.last() } else { side.next() }
    }

    /// The king of `color` left its start square (moved, castled or was taken): no more
    /// rights for that colour, ever. What is kept for it becomes what a set-up without
    /// rights gives, so that equal positions compare equal however they were reached.
    pub(crate) fn king_left(&mut self, color: Color) {
        self.rights = self.rights - home_rank(color);
        self.king_unmoved[color] = false;
        self.king_start[color] = standard_king(color);
        self.rook_starts = self.rook_starts - home_rank(color);
    }

    /// A piece left or arrived on `sq`: a rook there loses its right.
    pub(crate) fn discard(&mut self, sq: Square) {
        self.rights.discard(sq);
    }

    /// A rook of `color` was dropped on `sq`, the kings of `color` standing on `kings`: it
    /// regains the right when `sq` is a rook start square and the king never moved.
    pub(crate) fn rook_dropped(&mut self, color: Color, sq: Square, kings: Bitboard) {
        if (self.rook_starts & home_rank(color)).contains(sq)
            && self.king_unmoved[color]
            && kings.contains(self.king_start[color])
        {
            self.rights.add(sq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(placement: &str) -> Board {
        Board::from_placement(placement).unwrap()
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn chess960_set_up_keeps_rights_for_any_king_file() {
        let b = board("nrbbqnkr/pppppppp/8/8/8/8/PPPPPPPP/NRBBQNKR");
        let requested = Bitboard::EMPTY
            .with(sq("b1"))
            .with(sq("h1"))
            .with(sq("b8"))
            .with(sq("h8"));
        let c = Castling::from_setup(&b, requested);
        assert_eq!(c.rights(), requested);
        assert_eq!(c.king_start(Color::White), sq("g1"));
        assert_eq!(c.king_start(Color::Black), sq("g8"));
        assert_eq!(c.rook(Color::White, true), Some(sq("h1")));
        assert_eq!(c.rook(Color::White, false), Some(sq("b1")));
        assert_eq!(c.rook(Color::Black, false), Some(sq("b8")));
    }

    #[test]
    fn rights_need_a_rook_and_a_known_king_on_the_home_rank() {
        // The rook on b1 has gone; a8 has a knight; two black kings, neither on e8.
        let b = board("nk1bq1kr/8/8/8/8/8/8/N1BBQNKR");
        let requested = Bitboard::EMPTY
            .with(sq("b1"))
            .with(sq("h1"))
            .with(sq("a8"))
            .with(sq("h8"));
        let c = Castling::from_setup(&b, requested);
        assert_eq!(c.rights(), Bitboard::EMPTY.with(sq("h1")));
        assert_eq!(c.rook(Color::White, false), None);
    }

    #[test]
    fn a_dropped_rook_regains_the_right_on_a_start_square_only() {
        let b = board("1r4kr/8/8/8/8/8/8/1R4KR");
        let rights = Bitboard::EMPTY.with(sq("b1")).with(sq("h1"));
        let mut c = Castling::from_setup(&b, rights);
        c.discard(sq("b1"));
        c.rook_dropped(Color::White, sq("a1"), b.kings(Color::White));
        assert!(!c.rights().contains(sq("a1")), "a1 is no start square here");
        c.rook_dropped(Color::White, sq("b1"), b.kings(Color::White));
        assert!(c.rights().contains(sq("b1")));
        c.king_left(Color::White);
        assert_eq!(c.rights() & home_rank(Color::White), Bitboard::EMPTY);
        let moved = board("1r4kr/8/8/8/8/8/8/1R4K1");
        assert_eq!(
            c,
            Castling::from_setup(&moved, Bitboard::EMPTY),
            "as a set-up without White's rights"
        );
        c.rook_dropped(Color::White, sq("b1"), b.kings(Color::White));
        assert!(!c.rights().contains(sq("b1")), "the king has moved");
    }

    #[test]
    fn standard_start_is_the_corners_and_the_e_file() {
        let c = Castling::standard();
        assert_eq!(c.king_start(Color::White), sq("e1"));
        assert_eq!(c.rook(Color::Black, true), Some(sq("h8")));
        assert_eq!(c.rook(Color::Black, false), Some(sq("a8")));
        let from_fen = Castling::from_setup(&Board::start(), CORNERS);
        assert_eq!(from_fen, c);
    }

    /// Chess960 castling as the rules core plays it, through FEN and SAN.
    mod chess960 {
        use crate::rules::notation::{
            San, bfen::castling_string, parse_board_fen, write_board_fen,
        };
        use crate::rules::{Color, IllegalReason, Legality, Move, Position, Role, Ruleset, Square};

        fn pos(fen: &str) -> Position {
            parse_board_fen(fen, Ruleset::default()).unwrap().position
        }

        fn sq(s: &str) -> Square {
            s.parse().unwrap()
        }

        fn castles(p: &Position) -> Vec<String> {
            let mut v: Vec<String> = p
                .legal_moves()
                .into_iter()
                .filter(|m| matches!(m, Move::Castle { .. }))
                .map(|m| format!("{m:?}"))
                .collect();
            v.sort();
            v
        }

        fn play_san(p: &mut Position, san: &str) -> Move {
            let m = san.parse::<San>().unwrap().to_move(p).unwrap();
            assert!(p.is_legal(&m), "{san} on {p:?}");
            p.play(&m);
            m
        }

        #[test]
        fn shredder_letters_of_the_bughouse_pro_start() {
            let start = "nrbbqnkr/pppppppp/8/8/8/8/PPPPPPPP/NRBBQNKR w BHbh - 0 1";
            let p = pos(start);
            assert_eq!(p.castling_king(Color::White), sq("g1"));
            assert_eq!(p.castling_rook(Color::White, true), Some(sq("h1")));
            assert_eq!(p.castling_rook(Color::White, false), Some(sq("b1")));
            assert_eq!(p.castling_rook(Color::Black, false), Some(sq("b8")));
            // X-FEN: both rooks are the outermost of their side, so KQkq, read back alike.
            assert_eq!(castling_string(&p), "KQkq");
            let again = pos(&write_board_fen(&p, None));
            assert_eq!(again.castling_rights(), p.castling_rights());
            assert_eq!(pos(&start.replace("BHbh", "KQkq")), p);
        }

        #[test]
        fn king_already_on_g_castles_by_moving_the_rook_only() {
            // Kg1 Rh1: O-O leaves the king on g1 and puts the rook on f1.
            let mut p = pos("1r4kr/8/8/8/8/8/8/1R4KR w BHbh - 0 1");
            assert_eq!(castles(&p), ["g1c1", "g1g1"]);
            let m = play_san(&mut p, "O-O");
            assert_eq!(
                m,
                Move::Castle {
                    king: sq("g1"),
                    rook: sq("h1")
                }
            );
            assert_eq!(
                p.board().piece_at(sq("g1")),
                Some(Role::King.of(Color::White))
            );
            assert_eq!(
                p.board().piece_at(sq("f1")),
                Some(Role::Rook.of(Color::White))
            );
            assert_eq!(p.board().piece_at(sq("h1")), None);
            assert_eq!(castling_string(&p), "kq", "White's rights are gone");
            // Black's O-O-O would cross f8, now attacked by the rook on f1; O-O would not.
            assert_eq!(castles(&p), ["g8g8"]);
            play_san(&mut p, "O-O");
            assert_eq!(
                p.board().piece_at(sq("f8")),
                Some(Role::Rook.of(Color::Black))
            );
            assert_eq!(castling_string(&p), "-");
        }

        #[test]
        fn king_and_rook_may_stand_on_each_others_targets() {
            // Kf1 Rg1: O-O swaps them (king to g1, rook to f1).
            let mut p = pos("4k3/8/8/8/8/8/8/5KR1 w G - 0 1");
            assert_eq!(castles(&p), ["f1g1"]);
            play_san(&mut p, "O-O");
            assert_eq!(
                p.board().piece_at(sq("g1")),
                Some(Role::King.of(Color::White))
            );
            assert_eq!(
                p.board().piece_at(sq("f1")),
                Some(Role::Rook.of(Color::White))
            );
            // Kd1 Rc1: the rook is on the a-side, so O-O-O, the king to c1, the rook to d1.
            let mut q = pos("4k3/8/8/8/8/8/8/2RK4 w C - 0 1");
            assert_eq!(castles(&q), ["d1c1"]);
            play_san(&mut q, "O-O-O");
            assert_eq!(
                q.board().piece_at(sq("c1")),
                Some(Role::King.of(Color::White))
            );
            assert_eq!(
                q.board().piece_at(sq("d1")),
                Some(Role::Rook.of(Color::White))
            );
        }

        #[test]
        fn every_square_king_and_rook_cross_or_reach_must_be_empty() {
            // Kb1 Ra1, O-O-O: king to c1, rook to d1.
            let free = "4k3/8/8/8/8/8/8/RK6 w A - 0 1";
            assert_eq!(castles(&pos(free)), ["b1c1"]);
            // A knight on d1 (the rook's target only) forbids it; so does one on c1.
            for blocked in [
                "4k3/8/8/8/8/8/8/RK1N4 w A - 0 1",
                "4k3/8/8/8/8/8/8/RKN5 w A - 0 1",
            ] {
                let p = pos(blocked);
                assert!(castles(&p).is_empty(), "{blocked}");
                let m = Move::Castle {
                    king: sq("b1"),
                    rook: sq("a1"),
                };
                assert_eq!(
                    p.classify(&m),
                    Legality::Illegal(IllegalReason::CastlingNotAllowed),
                    "{blocked}"
                );
            }
            // A piece between the king and its rook: Kg1 Rb1 with a bishop on c1.
            assert!(castles(&pos("4k3/8/8/8/8/8/8/1RB3K1 w B - 0 1")).is_empty());
        }

        #[test]
        fn the_kings_squares_must_not_be_attacked_the_rooks_may() {
            // Kb1 Ra1 O-O-O passes nothing but lands on c1: a bishop on e3 attacks c1.
            let p = pos("4k3/8/8/8/8/4b3/8/RK6 w A - 0 1");
            assert!(castles(&p).is_empty());
            // A bishop on e2 attacks d1, the rook's target only: allowed.
            let p = pos("4k3/8/8/8/8/8/4b3/RK6 w A - 0 1");
            assert_eq!(castles(&p), ["b1c1"]);
            // Kc1 Rh1 O-O: the king crosses d1, e1, f1 to g1; a rook on e8 forbids it.
            let p = pos("4r1k1/8/8/8/8/8/8/2K4R w H - 0 1");
            assert!(castles(&p).is_empty());
            // In check: no castling at all.
            let p = pos("2r3k1/8/8/8/8/8/8/2K4R w H - 0 1");
            assert!(castles(&p).is_empty());
        }

        #[test]
        fn a_king_step_onto_its_own_rook_or_to_g_is_castling() {
            let p = pos("4k3/8/8/8/8/8/8/1R3K1R w BH - 0 1");
            let onto_rook = Move::Normal {
                role: Role::King,
                from: sq("f1"),
                capture: Some(Role::Rook),
                to: sq("b1"),
                promotion: None,
            };
            assert_eq!(
                p.normalize(&onto_rook),
                Move::Castle {
                    king: sq("f1"),
                    rook: sq("b1")
                }
            );
            let two_steps = Move::Normal {
                role: Role::King,
                from: sq("f1"),
                capture: None,
                to: sq("c1"),
                promotion: None,
            };
            assert_eq!(
                p.normalize(&two_steps),
                Move::Castle {
                    king: sq("f1"),
                    rook: sq("b1")
                }
            );
            assert!(p.is_legal(&two_steps));
            // A one-square step to g1 stays a king move (the rook stays on h1).
            let step = Move::Normal {
                role: Role::King,
                from: sq("f1"),
                capture: None,
                to: sq("g1"),
                promotion: None,
            };
            assert_eq!(p.normalize(&step), step);
        }

        #[test]
        fn a_right_of_an_inner_rook_is_written_with_its_file() {
            // Kg1 with the right on d1 and a rook without it on a1: X-FEN writes `D`.
            let p = pos("4k3/8/8/8/8/8/8/R2R2K1 w D - 0 1");
            assert_eq!(castling_string(&p), "D");
            assert_eq!(castles(&p), ["g1c1"]);
            let again = pos(&write_board_fen(&p, None));
            assert_eq!(again.castling_rights(), p.castling_rights());
            // `Q` names the outermost rook, a1.
            let q = pos("4k3/8/8/8/8/8/8/R2R2K1 w Q - 0 1");
            assert_eq!(q.castling_rook(Color::White, false), Some(sq("a1")));
        }
    }
}
