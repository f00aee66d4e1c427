//! The search for the plies a silent board played: every legal sequence of 1..N plies
//! (moves and drops, with the holdings as they stand) that turns the last committed
//! position into the placement the board shows after its link came back, with the side
//! the clock says is to move.
//!
//! Iterative deepening over the number of plies (only the lengths whose parity gives the
//! clock's side to move), depth-first within a length, pruned by the squares that still
//! differ: a side's move fills at most one square the target wants of its colour (two
//! for castling), and nothing the opponent does fills them, so a side with `k` moves left
//! and more than `k` such squares is cut off; a side with exactly `k` only tries moves
//! landing on one. The shortest length with a solution is the answer (a piece that went
//! out and came back in a longer sequence is not told apart from one that never moved),
//! and every solution of that length is collected, up to [`MAX_ALTERNATIVES`]: more than
//! one is a transposition the arbiter is told about. The work is bounded by a node
//! budget; a search that runs out gives up (no guess).

use std::collections::HashSet;

use crate::rules::{
    Bitboard, Board, ByColor, Color, Move, MoveList, Pockets, Position, PositionKey, Role,
};

use super::super::matcher;

/// How many solutions are collected at most (the first is committed, the others are the
/// alternatives offered to the arbiter).
pub const MAX_ALTERNATIVES: usize = 32;

/// What is searched for.
#[derive(Debug, Clone, Copy)]
pub struct GapQuery<'a> {
    /// The last committed position of the board.
    pub from: &'a Position,
    /// What the board shows now (true orientation).
    pub target: &'a Board,
    /// The side to move after the gap (the side whose clock runs), if known.
    pub turn: Option<Color>,
    /// The longest sequence tried, in plies.
    pub max_plies: usize,
    /// The most positions visited before giving up.
    pub node_budget: u64,
}

/// What the search found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GapSearch {
    /// The sequences of the shortest length that explains the board, in the order found
    /// (empty when none does within the bound).
    pub sequences: Vec<Vec<Move>>,
    /// Positions visited.
    pub nodes: u64,
    /// The budget ran out before the search was complete.
    pub exhausted: bool,
}

impl GapSearch {
    /// Exactly one sequence explains the board.
    #[must_use]
    pub fn is_unique(&self) -> bool {
        self.sequences.len() == 1
    }
}

/// Searches the sequences of plies that lead from `q.from` to `q.target` (see the module
/// docs). A board that already shows the committed position with the right side to move
/// gives one empty sequence.
#[must_use]
pub fn search(q: &GapQuery<'_>) -> GapSearch {
    let mut s = Searcher {
        target: q.target,
        budget: q.node_budget,
        nodes: 0,
        exhausted: false,
        path: Vec::with_capacity(q.max_plies),
        found: Vec::new(),
        buffers: (0..=q.max_plies)
            .map(|_| MoveList::with_capacity(256))
            .collect(),
        dead: HashSet::new(),
    };
    let turn_ok = |plies: usize| {
        q.turn
            .is_none_or(|t| (t == q.from.turn()) == plies.is_multiple_of(2))
    };
    if turn_ok(0) && matcher::diff(q.from, q.target).is_empty() {
        return GapSearch {
            sequences: vec![Vec::new()],
            nodes: 1,
            exhausted: false,
        };
    }
    for plies in 1..=q.max_plies {
        if !turn_ok(plies) {
            continue;
        }
        let mover = q.from.turn();
        let half = u32::try_from(plies / 2).unwrap_or(u32::MAX);
        let mut left = ByColor {
            white: half,
            black: half,
        };
        if plies % 2 == 1 {
            left[mover] += 1;
        }
        s.dfs(q.from, left, 0);
        if !s.found.is_empty() || s.exhausted {
            break;
        }
    }
    GapSearch {
        sequences: s.found,
        nodes: s.nodes,
        exhausted: s.exhausted,
    }
}

struct Searcher<'a> {
    target: &'a Board,
    budget: u64,
    nodes: u64,
    exhausted: bool,
    path: Vec<Move>,
    found: Vec<Vec<Move>>,
    /// One move list per depth (no allocation in the search).
    buffers: Vec<MoveList>,
    /// Positions (with holdings and moves left) already searched without a solution:
    /// the same plies in another order reach them again.
    dead: HashSet<(PositionKey, Pockets, ByColor<u32>)>,
}

impl Searcher<'_> {
    fn dfs(&mut self, pos: &Position, left: ByColor<u32>, depth: usize) {
        if self.exhausted || self.found.len() >= MAX_ALTERNATIVES {
            return;
        }
        if self.nodes >= self.budget {
            self.exhausted = true;
            return;
        }
        self.nodes += 1;
        if left.white + left.black == 0 {
            if matcher::diff(pos, self.target).is_empty() {
                self.found.push(self.path.clone());
            }
            return;
        }
        let mut wanted = ByColor::new_with(|_| Bitboard::EMPTY);
        for c in Color::ALL {
            wanted[c] = wanted_squares(pos, self.target, c);
            if !reachable(pos, self.target, c, left, wanted[c]) {
                return;
            }
        }
        let mover = pos.turn();
        if left[mover] == 0 {
            return;
        }
        let key = (pos.key(), *pos.pockets(), left);
        if self.dead.contains(&key) {
            return;
        }
        let found_before = self.found.len();
        let tight = wanted[mover].count() >= (left[mover] + castle_slack(pos, mover)) as usize;
        let mut moves = std::mem::take(&mut self.buffers[depth]);
        pos.legal_moves_into(&mut moves);
        let differ = matcher::diff(pos, self.target);
        for m in &moves {
            if tight && !fills_wanted(pos, self.target, m, wanted[mover]) {
                continue;
            }
            if !tight && !drop_useful(pos, differ, m) {
                continue;
            }
            if !plausible_promotion(self.target, m, wanted[mover]) {
                continue;
            }
            let mut after = pos.clone();
            after.play(m);
            let mut rest = left;
            rest[mover] -= 1;
            self.path.push(*m);
            self.dfs(&after, rest, depth + 1);
            self.path.pop();
            if self.exhausted || self.found.len() >= MAX_ALTERNATIVES {
                break;
            }
        }
        self.buffers[depth] = moves;
        if !self.exhausted && self.found.len() == found_before {
            self.dead.insert(key);
        }
    }
}

/// The squares where the target shows a piece of `c` that the position does not have
/// there (a promoted piece shown as a pawn of its colour agrees).
pub(crate) fn wanted_squares(pos: &Position, target: &Board, c: Color) -> Bitboard {
    let b = pos.board();
    let mut same = Bitboard::EMPTY;
    for role in Role::ALL {
        same |= target.by_role(role) & b.by_role(role);
    }
    same = same & target.by_color(c) & b.by_color(c);
    same |= pos.promoted() & b.by_color(c) & target.by_color(c) & target.by_role(Role::Pawn);
    target.by_color(c) - same
}

/// The squares where the position has a piece of `c` that the target does not show there.
fn misplaced_squares(pos: &Position, target: &Board, c: Color) -> Bitboard {
    let b = pos.board();
    let mut same = Bitboard::EMPTY;
    for role in Role::ALL {
        same |= target.by_role(role) & b.by_role(role);
    }
    same = same & target.by_color(c) & b.by_color(c);
    same |= pos.promoted() & b.by_color(c) & target.by_color(c) & target.by_role(Role::Pawn);
    b.by_color(c) - same
}

/// A drop goes where the board differs, or where the dropped piece reaches such a square
/// (dropped to capture or move on: `N@g5`, then `Nxf7`). Drops elsewhere, which only
/// a later capture of the dropped piece would explain, are not searched: they would
/// multiply the work by every empty square for little.
fn drop_useful(pos: &Position, differ: Bitboard, m: &Move) -> bool {
    let Move::Drop { piece, to } = *m else {
        return true;
    };
    if differ.contains(to) {
        return true;
    }
    let occupied = pos.board().occupied();
    let reach = if piece.role == Role::Pawn {
        crate::rules::pawn_attacks(piece.color, to) | Bitboard::from_file(to.file())
    } else {
        crate::rules::attacks(piece.role, piece.color, to, occupied)
    };
    (reach & differ).any()
}

/// Castling fills two wanted squares with one move.
fn castle_slack(pos: &Position, c: Color) -> u32 {
    u32::from((pos.castling_rights() & pos.board().by_color(c)).any())
}

/// Whether `c` can still turn the position into the target with the moves left: enough
/// moves for the squares it must fill, and piece counts within what drops and captures
/// can change.
fn reachable(
    pos: &Position,
    target: &Board,
    c: Color,
    left: ByColor<u32>,
    wanted: Bitboard,
) -> bool {
    let slack = castle_slack(pos, c);
    if wanted.count() > (left[c] + slack) as usize {
        return false;
    }
    // The squares `c` must leave: each move of `c` leaves one (castling two), each capture
    // by the opponent clears one.
    let misplaced = misplaced_squares(pos, target, c);
    if misplaced.count() > (left[c] + slack + left[c.other()]) as usize {
        return false;
    }
    // One last move cannot leave everything as it is: it empties its origin for good
    // (only a dropped piece may vanish again, captured).
    if left[c] == 1 && wanted.is_empty() && misplaced.is_empty() && pos.pockets()[c].is_empty() {
        return false;
    }
    let on_board = pos.board().by_color(c).count();
    let shown = target.by_color(c).count();
    // Only drops add pieces of `c` (one a move, from the holdings); only the opponent's
    // captures remove them (one a move).
    let held = pos.pockets()[c].total();
    if shown > on_board && shown - on_board > (left[c] as usize).min(held) {
        return false;
    }
    on_board <= shown || on_board - shown <= left[c.other()] as usize
}

/// Whether `m` puts a piece of its mover on a wanted square, showing what the target
/// shows there.
fn fills_wanted(pos: &Position, target: &Board, m: &Move, wanted: Bitboard) -> bool {
    let b = pos.board();
    match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => {
            if !wanted.contains(to) {
                return false;
            }
            let Some(piece) = b.piece_at(from) else {
                return false;
            };
            let landed = promotion.map_or(piece, |r| r.of(piece.color));
            let shown = target.piece_at(to);
            shown == Some(landed)
                || (shown == Some(Role::Pawn.of(piece.color))
                    && (promotion.is_some() || pos.promoted().contains(from)))
        }
        Move::EnPassant { to, .. } => wanted.contains(to),
        Move::Castle { king, rook } => {
            wanted.contains(crate::rules::castle_king_target(king, rook))
                || wanted.contains(crate::rules::castle_rook_target(king, rook))
        }
        Move::Drop { piece, to } => wanted.contains(to) && target.piece_at(to) == Some(piece),
    }
}

/// The colour that promotes on `to` (White on the eighth rank).
fn promotion_color(to: crate::rules::Square) -> Color {
    if to.rank() == crate::rules::Rank::Eighth {
        Color::White
    } else {
        Color::Black
    }
}

/// A promotion whose square shows a pawn is the queen (the declared default); an
/// under-promotion must show its piece somewhere it is wanted.
fn plausible_promotion(target: &Board, m: &Move, wanted: Bitboard) -> bool {
    let Move::Normal {
        to,
        promotion: Some(role),
        from: _,
        ..
    } = *m
    else {
        return true;
    };
    if role == Role::Queen {
        return true;
    }
    let Some(shown) = target.piece_at(to) else {
        return (target.by_role(role) & wanted).any();
    };
    if shown.color != promotion_color(to) {
        // Taken at once: any promotion fits (the partner receives a pawn either way);
        // they are alternatives.
        return true;
    }
    if shown.role == Role::Pawn {
        return false;
    }
    shown.role == role || (target.by_role(role) & wanted).any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::san_string;
    use crate::rules::{Ruleset, Square};

    fn play_sans(pos: &mut Position, sans: &[&str]) {
        for san in sans {
            let m = pos
                .legal_moves()
                .into_iter()
                .find(|m| san_string(pos, m) == *san)
                .unwrap_or_else(|| panic!("{san} is not legal"));
            pos.play(&m);
        }
    }

    fn sans(start: &Position, seq: &[Move]) -> Vec<String> {
        let mut pos = start.clone();
        seq.iter()
            .map(|m| {
                let s = san_string(&pos, m);
                pos.play(m);
                s
            })
            .collect()
    }

    fn find(start: &Position, target: &Position, max_plies: usize) -> GapSearch {
        search(&GapQuery {
            from: start,
            target: target.board(),
            turn: Some(target.turn()),
            max_plies,
            node_budget: 500_000,
        })
    }

    #[test]
    fn a_four_ply_gap_is_found_exactly() {
        let start = Position::new(Ruleset::default());
        let mut target = start.clone();
        play_sans(&mut target, &["e4", "d5", "exd5", "Qxd5"]);
        let r = find(&start, &target, 6);
        assert_eq!(r.sequences.len(), 1, "{r:?}");
        assert_eq!(sans(&start, &r.sequences[0]), ["e4", "d5", "exd5", "Qxd5"]);
    }

    #[test]
    fn a_transposition_gives_every_order() {
        let start = Position::new(Ruleset::default());
        let mut target = start.clone();
        play_sans(&mut target, &["Nf3", "e5", "Nc3"]);
        let r = find(&start, &target, 6);
        let mut all: Vec<Vec<String>> = r.sequences.iter().map(|s| sans(&start, s)).collect();
        all.sort();
        assert_eq!(all, [["Nc3", "e5", "Nf3"], ["Nf3", "e5", "Nc3"]]);
    }

    #[test]
    fn drops_from_the_holdings_are_searched() {
        let mut start = Position::new(Ruleset::default());
        play_sans(&mut start, &["e4", "e5"]);
        start.pockets_mut()[Color::White].add(Role::Knight);
        start.pockets_mut()[Color::Black].add(Role::Bishop);
        let mut target = start.clone();
        play_sans(&mut target, &["N@f5", "B@c5", "Nxg7+"]);
        let r = find(&start, &target, 6);
        let all: Vec<Vec<String>> = r.sequences.iter().map(|s| sans(&start, s)).collect();
        // The knight may have come from any square that reaches g7: each is an
        // alternative.
        assert!(all.contains(&vec!["N@f5".into(), "B@c5".into(), "Nxg7+".into()]));
        assert_eq!(all.len(), 3, "{all:?}");
        assert!(all.iter().all(|s| s[1] == "B@c5" && s[2] == "Nxg7+"));
    }

    /// A pawn gone from a2 and one on h5: no sequence of plies does that.
    fn unreachable() -> (Position, Board) {
        let start = Position::new(Ruleset::default());
        let mut target = *start.board();
        let sq = |s: &str| s.parse::<Square>().expect("square");
        target.set_square(sq("a2"), None);
        target.set_square(sq("h5"), Some(Role::Pawn.of(Color::White)));
        (start, target)
    }

    #[test]
    fn pieces_added_to_the_board_are_cut_off_at_once() {
        let start = Position::new(Ruleset::default());
        let mut target = *start.board();
        let sq = |s: &str| s.parse::<Square>().expect("square");
        target.set_square(sq("e4"), Some(Role::Pawn.of(Color::White)));
        let r = search(&GapQuery {
            from: &start,
            target: &target,
            turn: Some(Color::Black),
            max_plies: 6,
            node_budget: 1_000_000,
        });
        assert!(
            r.sequences.is_empty() && !r.exhausted && r.nodes <= 4,
            "{r:?}"
        );
    }

    #[test]
    fn a_board_no_sequence_reaches_gives_none_within_the_budget() {
        let (start, target) = unreachable();
        let r = search(&GapQuery {
            from: &start,
            target: &target,
            turn: Some(Color::Black),
            max_plies: 6,
            node_budget: 1_000_000,
        });
        assert!(r.sequences.is_empty(), "{r:?}");
    }

    #[test]
    fn the_budget_bounds_the_work() {
        let (start, target) = unreachable();
        let r = search(&GapQuery {
            from: &start,
            target: &target,
            turn: Some(Color::Black),
            max_plies: 6,
            node_budget: 50,
        });
        assert!(
            r.exhausted && r.nodes <= 50 && r.sequences.is_empty(),
            "{r:?}"
        );
    }
}
