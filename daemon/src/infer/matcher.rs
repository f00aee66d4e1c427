//! Which move explains a physical placement.
//!
//! At a clock press the inference compares the committed position with what the sensors
//! show. The squares that differ are explained by one move of the presser (legal moves
//! first, then anything physically possible: wrong geometry, drops not in hand, moves of
//! the opponent's pieces), and what is left over must look like the opponent's work in
//! progress (a premove, `rules.md` §6). Only bitboards are compared; positions are cloned
//! only for the few candidates whose squares all changed.

use crate::rules::{
    Bitboard, Board, Color, Legality, Move, MoveList, Piece, Position, Rank, Role, Square,
};

/// The squares where the sensors disagree with the committed position. A promoted piece
/// shown as a pawn of its colour agrees (players leave the pawn standing or lay it down).
pub(crate) fn diff(pos: &Position, phys: &Board) -> Bitboard {
    let b = pos.board();
    let mut d = b.occupied() ^ phys.occupied();
    for role in Role::ALL {
        d |= b.by_role(role) ^ phys.by_role(role);
    }
    d |= b.by_color(Color::White) ^ phys.by_color(Color::White);
    let promoted = d & pos.promoted();
    for sq in promoted {
        if let (Some(c), Some(p)) = (b.piece_at(sq), phys.piece_at(sq))
            && p == Role::Pawn.of(c.color)
        {
            d.discard(sq);
        }
    }
    d
}

/// The squares a move changes.
pub(crate) fn touched(m: &Move) -> Bitboard {
    match *m {
        Move::Normal { from, to, .. } => Bitboard::from_square(from).with(to),
        Move::EnPassant { from, to } => {
            let victim = Square::from_coords(to.file(), from.rank());
            Bitboard::from_square(from).with(to).with(victim)
        }
        Move::Castle { king, rook } => Bitboard::from_square(king)
            .with(rook)
            .with(crate::rules::castle_king_target(king, rook))
            .with(crate::rules::castle_rook_target(king, rook)),
        Move::Drop { to, .. } => Bitboard::from_square(to),
    }
}

/// Whether the squares left over after `mover`'s move look like the other side's
/// unfinished next move: its pieces lifted or put (on empty squares or on `mover`'s
/// pieces). A piece of `mover` appearing is never the other side's work. A piece of
/// `mover` missing is the other side's victim only when the sensors did show it there and
/// the other side has visibly put a piece down (an e.p. or a capture in progress);
/// otherwise it may be in the hand that makes the move (a slide still going on), and the
/// press waits until the board tells.
fn residual_is_other_side(
    after: &Position,
    phys: &Board,
    lifts: &LiftOrder,
    residual: Bitboard,
    mover: Color,
    missing_ok: Bitboard,
) -> bool {
    let other = mover.other();
    let other_put = (residual & phys.by_color(other)).any();
    residual
        .into_iter()
        .all(|sq| match (after.board().piece_at(sq), phys.piece_at(sq)) {
            (_, Some(p)) => p.color == other,
            (Some(a), None) => {
                a.color == other
                    || missing_ok.contains(sq)
                    || (other_put
                        && lifts
                            .iter()
                            .any(|&(s, p)| s == sq && p.is_some_and(|p| p.color == mover)))
            }
            (None, None) => true,
        })
}

/// A move that explains the board.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Explanation {
    /// The move (normalised).
    pub(crate) mv: Move,
    /// Whose move it is (the colour of the piece, or of the dropped piece).
    pub(crate) mover: Color,
    /// How the committed position classifies it.
    pub(crate) legality: Legality,
    /// The squares still different after it (the opponent's work in progress).
    pub(crate) residual: Bitboard,
    /// A promotion whose square shows a pawn.
    pub(crate) promotion_not_shown: bool,
}

/// The square readings since the last commit, in order: the piece lifted first is the
/// mover when two moves fit equally (case 5), and a piece seen put on a square that the
/// opponent's premove has since captured is still known.
pub(crate) type LiftOrder = [(Square, Option<Piece>)];

/// Finds the best move of `presser` (or, failing that, of the other side: out of turn)
/// explaining `phys` from `pos`. `exact` demands no leftover squares (clockless boards,
/// link gaps).
pub(crate) fn explain(
    pos: &Position,
    phys: &Board,
    presser: Color,
    lifts: &LiftOrder,
    scratch: &mut MoveList,
    exact: bool,
) -> Option<Explanation> {
    explain_with(pos, phys, presser, lifts, scratch, exact, Bitboard::EMPTY)
}

/// [`explain`], accepting pieces missing from the squares of `missing_ok` (known to be
/// off the board: hidden, taken away) as they stand.
pub(crate) fn explain_with(
    pos: &Position,
    phys: &Board,
    presser: Color,
    lifts: &LiftOrder,
    scratch: &mut MoveList,
    exact: bool,
    missing_ok: Bitboard,
) -> Option<Explanation> {
    let d = diff(pos, phys);
    if d.is_empty() {
        return None;
    }
    // Squares read since the last commit count too: an opponent's premove may have put
    // back what the move changed (a recapture leaves the square as it was).
    let d_ext = lifts.iter().fold(d, |acc, &(sq, _)| acc.with(sq));
    let mut best: Option<(Score, Explanation)> = None;
    for (rank, mover) in [presser, presser.other()].into_iter().enumerate() {
        let legal = candidates(pos, phys, mover, d_ext, lifts, scratch);
        let known_legal = mover == pos.turn();
        for (i, m) in scratch.iter().enumerate() {
            let mode = Mode { exact, missing_ok };
            if let Some(e) = evaluate(pos, phys, m, mover, lifts, known_legal && i < legal, mode) {
                let score = Score {
                    acausal: usize::from(acausal(&e.mv, mover, lifts)),
                    unseen: usize::from(shown_at(phys, lifts, mover, e.mv.to()).is_none()),
                    passed: passed_through(&e.mv, mover, lifts),
                    // A piece known to be off the board (grabbed, hidden) leaves
                    // nothing to explain.
                    residual: (e.residual - missing_ok).count(),
                    out_of_turn: rank,
                    illegal: usize::from(!e.legality.is_legal()),
                    not_queen: usize::from(
                        e.promotion_not_shown && e.mv.promotion() != Some(Role::Queen),
                    ),
                    order: order_rank(m, mover, lifts),
                };
                if best.as_ref().is_none_or(|(s, _)| score < *s) {
                    best = Some((score, e));
                }
            }
        }
        if best.is_some() {
            break;
        }
    }
    best.map(|(_, e)| e)
}

/// How strict a match must be.
#[derive(Debug, Clone, Copy)]
struct Mode {
    /// No leftover squares at all.
    exact: bool,
    /// Squares whose piece is known to be off the board.
    missing_ok: Bitboard,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Score {
    /// The piece arrived on the landing square before it left its origin.
    acausal: usize,
    /// The landing square never showed the mover's piece (taken in hand, or a premove's
    /// victim): only when nothing better fits.
    unseen: usize,
    /// The same piece was put down elsewhere after it was seen on the landing square: the
    /// square was on its way (a slide), not its destination.
    passed: usize,
    residual: usize,
    out_of_turn: usize,
    illegal: usize,
    not_queen: usize,
    order: usize,
}

/// Whether the sensors saw the piece land on `to` before it left its origin: then the
/// origin was emptied by something else (the opponent's capture), and this is not the
/// move.
fn acausal(m: &Move, mover: Color, lifts: &LiftOrder) -> bool {
    let Some(from) = m.from() else {
        return false;
    };
    let to = m.to();
    let lift = lifts.iter().position(|&(s, p)| s == from && p.is_none());
    let put = lifts
        .iter()
        .rposition(|&(s, p)| s == to && p.is_some_and(|p| p.color == mover));
    matches!((lift, put), (Some(l), Some(p)) if l > p)
}

fn passed_through(m: &Move, mover: Color, lifts: &LiftOrder) -> usize {
    let to = m.to();
    let Some((at, piece)) = lifts
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, &(s, p))| p.filter(|p| s == to && p.color == mover).map(|p| (i, p)))
    else {
        return 0;
    };
    lifts[at + 1..]
        .iter()
        .filter(|&&(s, p)| s != to && p == Some(piece))
        .count()
}

fn order_rank(m: &Move, mover: Color, lifts: &LiftOrder) -> usize {
    match m.from() {
        // A piece never seen leaving its square is less likely the mover than a drop
        // (a capture by direct replacement overwrites a square without emptying it). A
        // piece lifted and put back (a j'adoube) has not left it either.
        Some(from) => {
            let put_back = lifts
                .iter()
                .rposition(|&(s, p)| s == from && p.is_none())
                .is_some_and(|last| {
                    lifts[last + 1..]
                        .iter()
                        .any(|&(s, p)| s == from && p.is_some_and(|p| p.color == mover))
                });
            lifts
                .iter()
                .position(|&(s, p)| s == from && p.is_none())
                .filter(|_| !put_back)
                .unwrap_or(lifts.len() + 2)
        }
        None => lifts.len() + 1,
    }
}

fn evaluate(
    pos: &Position,
    phys: &Board,
    m: &Move,
    mover: Color,
    lifts: &LiftOrder,
    known_legal: bool,
    mode: Mode,
) -> Option<Explanation> {
    let Mode { exact, missing_ok } = mode;
    let mv = pos.normalize(m);
    let mut after = pos.clone();
    after.play(&mv);
    let residual = diff(&after, phys);
    if exact && residual.any() {
        return None;
    }
    if !residual_is_other_side(&after, phys, lifts, residual, mover, missing_ok) {
        return None;
    }
    let shown = shown_at(phys, lifts, mover, mv.to()).map(|p| p.role);
    // The mover's piece must have been seen on its landing square (it may since have been
    // taken by the opponent's premove); otherwise the move is not (yet) on the board.
    shown?;
    if let Some(promotion) = mv.promotion() {
        // A promotion shows the declared piece or the pawn; another piece is another
        // promotion.
        if shown.is_some_and(|r| r != Role::Pawn && r != promotion) {
            return None;
        }
    }
    let promotion_not_shown = mv.promotion().is_some() && shown.is_none_or(|r| r == Role::Pawn);
    Some(Explanation {
        mv,
        mover,
        // Classifying generates moves again: skip it for moves from the legal list.
        legality: if known_legal {
            Legality::Legal
        } else {
            pos.classify(&mv)
        },
        residual,
        promotion_not_shown,
    })
}

/// Every move of `mover` that could explain the differing squares `d`: its legal moves,
/// then the physically possible ones read off the squares (a piece of `mover` vanished
/// from one square and one appeared on another; a piece appeared from nowhere). Returns
/// how many of them (first in `out`) come from the legal list.
pub(crate) fn candidates(
    pos: &Position,
    phys: &Board,
    mover: Color,
    d: Bitboard,
    lifts: &LiftOrder,
    out: &mut MoveList,
) -> usize {
    out.clear();
    if pos.turn() == mover {
        pos.legal_moves_into(out);
    } else {
        let mut turned = pos.clone();
        turned.set_turn(mover);
        turned.legal_moves_into(out);
    }
    out.retain(|m| {
        (touched(m) - d).is_empty()
            && match *m {
                Move::Drop { piece, to } => {
                    phys.piece_at(to) == Some(piece)
                        || (phys.color_at(to) == Some(mover.other())
                            && lifts.contains(&(to, Some(piece))))
                }
                _ => true,
            }
    });
    let legal_count = out.len();
    physical_moves(pos, phys, mover, d, lifts, out);
    // Keep the physical reading only where it adds something to the legal ones.
    let mut i = legal_count;
    while i < out.len() {
        let n = pos.normalize(&out[i]);
        if out[..legal_count].contains(&n) {
            out.swap_remove(i);
        } else {
            i += 1;
        }
    }
    legal_count
}

/// Moves read off the squares: any piece of `mover` that vanished, to any square where a
/// piece of `mover` appeared.
fn physical_moves(
    pos: &Position,
    phys: &Board,
    mover: Color,
    d: Bitboard,
    lifts: &LiftOrder,
    out: &mut MoveList,
) {
    let b = pos.board();
    let vanished = d & b.by_color(mover);
    let shown_at =
        |sq: Square| shown_at(phys, lifts, mover, sq).filter(|p| b.piece_at(sq) != Some(*p));
    let appeared: Bitboard = d.into_iter().filter(|&sq| shown_at(sq).is_some()).collect();
    // A bound on the pairs tried (a slide's crossed squares count as appeared).
    if appeared.count() > 6 || vanished.count() > 6 {
        return;
    }
    let last = Bitboard::from_rank(Rank::Eighth.relative_to(mover));
    for to in appeared {
        let Some(shown) = shown_at(to) else {
            continue;
        };
        if b.piece_at(to).is_none() || b.color_at(to) == Some(mover.other()) {
            out.push(Move::Drop { piece: shown, to });
        }
        for from in vanished {
            if from == to {
                continue;
            }
            let Some(role) = b.role_at(from) else {
                continue;
            };
            let promoted = pos.promoted().contains(from);
            let promotion = if role == Role::Pawn && last.contains(to) {
                match shown.role {
                    Role::Pawn | Role::King => Some(Role::Queen),
                    r => Some(r),
                }
            } else {
                None
            };
            let fits =
                role == shown.role || promotion.is_some() || (promoted && shown.role == Role::Pawn);
            if fits {
                out.push(Move::Normal {
                    role,
                    from,
                    capture: b.role_at(to),
                    to,
                    promotion,
                });
            }
        }
    }
}

/// The piece of `mover` the sensors show on `sq`, or the last one they showed there before
/// the opponent's premove took it.
fn shown_at(phys: &Board, lifts: &LiftOrder, mover: Color, sq: Square) -> Option<Piece> {
    match phys.piece_at(sq) {
        Some(p) if p.color == mover => Some(p),
        _ => lifts
            .iter()
            .rev()
            .find_map(|&(s, p)| p.filter(|p| s == sq && p.color == mover)),
    }
}

/// The squares where a piece of the committed position is missing from the board.
pub(crate) fn missing(pos: &Position, phys: &Board) -> Bitboard {
    pos.board().occupied() - phys.occupied()
}

/// Whether the differing squares look like `mover` has started a move but not finished
/// it: only pieces lifted (own pieces, or victims), nothing of `mover` put anywhere new.
pub(crate) fn looks_unfinished(pos: &Position, phys: &Board, mover: Color) -> bool {
    let d = diff(pos, phys);
    d.any()
        && d.into_iter().all(|sq| {
            let shown: Option<Piece> = phys.piece_at(sq);
            shown.is_none() || shown.is_some_and(|p| p.color != mover)
        })
}
