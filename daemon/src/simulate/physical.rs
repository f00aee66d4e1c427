//! How a hand makes a move on a real board: the square readings it produces, with the
//! variations players actually show (capture orders, slides, castling styles, e.p. orders,
//! promotions with the pawn left standing).

use crate::rules::{
    Bitboard, Board, Move, Piece, Position, Role, Square, between, castle_king_target,
    castle_rook_target,
};

use super::Profile;
use super::rng::Rng;

/// One reading: after `delay` ms, `sq` shows `piece`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) delay: u64,
    pub(crate) sq: Square,
    pub(crate) piece: Option<Piece>,
}

fn step(rng: &mut Rng, sq: Square, piece: Option<Piece>) -> Step {
    Step {
        delay: rng.range(90, 450),
        sq,
        piece,
    }
}

fn pause(rng: &mut Rng, s: &mut [Step], lo: u64, hi: u64) {
    if let Some(last) = s.last_mut() {
        last.delay += rng.range(lo, hi);
    }
}

/// What the sensors will show on the landing square of `m`: the real piece, or for a
/// promotion not shown the pawn, for a promoted piece whatever the board showed before.
fn shown(pos: &Position, phys: &Board, m: &Move, show_pawn: bool) -> Option<Piece> {
    let color = pos.mover(m);
    match *m {
        Move::Drop { piece, .. } => Some(piece),
        Move::Normal {
            from, promotion, ..
        } => match promotion {
            Some(_) if show_pawn => Some(Role::Pawn.of(color)),
            Some(p) => Some(p.of(color)),
            None => phys.piece_at(from).or_else(|| pos.board().piece_at(from)),
        },
        Move::EnPassant { .. } => Some(Role::Pawn.of(color)),
        Move::Castle { .. } => Some(Role::King.of(color)),
    }
}

/// The readings of move `m` on a board whose sensors show `phys`, made in one of the
/// styles `profile` allows. The last step completes the move.
pub(crate) fn script(
    pos: &Position,
    phys: &Board,
    m: &Move,
    show_pawn: bool,
    profile: Profile,
    rng: &mut Rng,
) -> Vec<Step> {
    let noisy = profile != Profile::Clean;
    let mut s = Vec::with_capacity(8);
    let color = pos.mover(m);
    let Some(piece) = shown(pos, phys, m, show_pawn) else {
        return s;
    };
    match *m {
        Move::Drop { to, .. } => {
            if noisy && rng.chance(0.1) {
                // Hovering: the square reads the piece, loses it, reads it again.
                s.push(step(rng, to, Some(piece)));
                s.push(Step {
                    delay: 40,
                    sq: to,
                    piece: None,
                });
            }
            s.push(step(rng, to, Some(piece)));
        }
        Move::Normal { from, to, .. } => {
            let victim = pos.board().piece_at(to);
            if victim.is_some() {
                let style = if noisy { rng.below(4) } else { 0 };
                match style {
                    0 => {
                        s.push(step(rng, from, None));
                        s.push(step(rng, to, None));
                        s.push(step(rng, to, Some(piece)));
                    }
                    1 => {
                        // Victim first and held (case 3).
                        s.push(step(rng, to, None));
                        pause(rng, &mut s, 300, 2500);
                        s.push(step(rng, from, None));
                        s.push(step(rng, to, Some(piece)));
                    }
                    2 => {
                        // Direct replacement: the capturer is read on the square at once.
                        s.push(step(rng, from, None));
                        s.push(step(rng, to, Some(piece)));
                    }
                    _ => {
                        // Placed over the victim, which is read until it is pulled out
                        // (case 4).
                        s.push(step(rng, from, None));
                        pause(rng, &mut s, 100, 600);
                        s.push(step(rng, to, None));
                        s.push(Step {
                            delay: 50,
                            sq: to,
                            piece: Some(piece),
                        });
                    }
                }
            } else {
                s.push(step(rng, from, None));
                if noisy && rng.chance(0.1) {
                    // Hesitation: put back, lifted again (case 16 on the moving piece).
                    s.push(step(rng, from, Some(piece_at(phys, pos, from, piece))));
                    pause(rng, &mut s, 200, 1200);
                    s.push(step(rng, from, None));
                }
                if noisy && rng.chance(0.2) {
                    // A slide: the piece is read on the squares it crosses (case 1).
                    let path = between(from, to) - pos.board().occupied() - phys.occupied();
                    let slow = rng.chance(0.3);
                    for sq in path {
                        s.push(Step {
                            delay: rng.range(40, 120),
                            sq,
                            piece: Some(piece),
                        });
                        if slow {
                            pause(rng, &mut s, 700, 1300);
                        }
                        s.push(Step {
                            delay: rng.range(30, 100),
                            sq,
                            piece: None,
                        });
                    }
                }
                s.push(step(rng, to, Some(piece)));
            }
        }
        Move::EnPassant { from, to } => {
            let victim = Square::from_coords(to.file(), from.rank());
            if noisy && rng.chance(0.5) {
                // Victim first (case 10).
                s.push(step(rng, victim, None));
                s.push(step(rng, from, None));
                s.push(step(rng, to, Some(piece)));
            } else {
                // Victim last (case 9): the interim diagonal step is not a move.
                s.push(step(rng, from, None));
                s.push(step(rng, to, Some(piece)));
                s.push(step(rng, victim, None));
            }
        }
        Move::Castle { king, rook } => {
            let kt = castle_king_target(king, rook);
            let rt = castle_rook_target(king, rook);
            let k = Some(Role::King.of(color));
            let r = Some(Role::Rook.of(color));
            let style = if noisy { rng.below(4) } else { 0 };
            match style {
                0 => {
                    s.push(step(rng, king, None));
                    s.push(step(rng, kt, k));
                    pause(rng, &mut s, 100, 900);
                    s.push(step(rng, rook, None));
                    s.push(step(rng, rt, r));
                }
                1 => {
                    // Rook first (case 7).
                    s.push(step(rng, rook, None));
                    s.push(step(rng, rt, r));
                    pause(rng, &mut s, 200, 1200);
                    s.push(step(rng, king, None));
                    s.push(step(rng, kt, k));
                }
                2 => {
                    // Both in one hand (case 8).
                    s.push(step(rng, king, None));
                    s.push(Step {
                        delay: 60,
                        sq: rook,
                        piece: None,
                    });
                    s.push(step(rng, kt, k));
                    s.push(Step {
                        delay: 70,
                        sq: rt,
                        piece: r,
                    });
                }
                _ => {
                    // King onto the rook's square first, then fixed (case 8).
                    s.push(step(rng, king, None));
                    s.push(step(rng, rook, None));
                    s.push(step(rng, rook, k));
                    pause(rng, &mut s, 200, 800);
                    s.push(step(rng, rook, None));
                    s.push(step(rng, kt, k));
                    s.push(step(rng, rt, r));
                }
            }
        }
    }
    s
}

fn piece_at(phys: &Board, pos: &Position, sq: Square, fallback: Piece) -> Piece {
    phys.piece_at(sq)
        .or_else(|| pos.board().piece_at(sq))
        .unwrap_or(fallback)
}

/// Applies readings to a board.
pub(crate) fn apply(phys: &mut Board, steps: &[Step]) {
    for s in steps {
        phys.set_square(s.sq, s.piece);
    }
}

/// Squares a hand may touch without moving: occupied ones.
pub(crate) fn any_occupied(phys: &Board, rng: &mut Rng) -> Option<Square> {
    let occ: Bitboard = phys.occupied();
    let n = occ.count();
    if n == 0 {
        return None;
    }
    occ.into_iter().nth(rng.below(n))
}
