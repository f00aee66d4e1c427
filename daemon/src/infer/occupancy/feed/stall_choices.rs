//! A board that stalls, or shows what no move explains, is said with the readings its own
//! snapshots admit, each one click away.
//!
//! The arbiter walks over to a stalled board and looks: what he must tell the daemon is the
//! board's next move, most often one of the few the inference could not choose between (a
//! capturer set straight onto one of several victims, a piece put back or a capture and a
//! drop where it stood). Those are the legal moves from the record's position that leave
//! the squares occupied as the board showed them at some moment since its last recorded
//! move (other than as they stood at that move, which a capture and a drop where the
//! capturer stood always give back). Each is offered as a `fill` of that one move, naming
//! the move the board waits for (a click after the board moved on is refused); the board's
//! snapshots since are then read again from where it showed it (see `fill.rs`). A piece of
//! open kind also moves as each other kind it may be: its fill names it by its square
//! (`Qe3xg5`), which settles that kind as the move is entered. When no single move fits,
//! the pairs of plies that do (a move and the opponent's reply read together) are offered.
//! A move another piece's placeholder rules out (a promotion recorded as the default queen
//! "checking" the king, where the board holds a knight) is offered with the opponent's
//! piece as each other kind it may be, its fill stating that kind first (`(f1=N)`, see
//! `kind_statement.rs`). A drop of a kind the record's hand lacks is offered too while that
//! hand may hold it (see `open_hand.rs`: a placeholder "knight" taken from a drop in doubt
//! that was a rook; the partner board's capture not read yet). Nothing is chosen for him:
//! the choices are the readings, those of what the board shows now first (a piece put
//! back, then moved on, shows the move its player meant last), the others in the order the
//! board first showed them, at most 24, and the detail says what the board could not tell.

use crate::infer::{Alert, AlertChoice, AlertCode, Inference, OperatorAction};
use crate::rules::notation::{San, SanKind, san_string};
use crate::rules::{BoardId, Color, Move, Piece, Position, Role, Square};

use super::OccupancyFeed;
use super::choices::numbered_san;
use super::kind_statement::KindStatement;

/// The most choices an alert offers: beyond that the board showed so much that a list is
/// no help, and the arbiter enters the moves. A capturer of open kind set straight onto its
/// victim reads as each of its kinds' captures, and a pawn's onto the last rank as four
/// promotions, each onto each victim: over 300 random noisy games 8 cut the truth off
/// about one stall in 55, 16 one in 156 (a pawn dropped in doubt, set down beside its
/// capture readings and pushed to promote), 24 none (no more than 64 did).
const CHOICES_MAX: usize = 24;

impl OccupancyFeed {
    /// The `occupancy-stalled` alert of `board` at `t`, with `detail`: the move it stalled
    /// on (number and side) and its readings as choices.
    pub(super) fn stall_alert(&self, t: u64, board: BoardId, detail: String) -> Inference {
        let side = self.shown.board(board).turn();
        let number = self.number(self.handed.len(), board, side);
        let mut alert = Alert::about_board(t, board, AlertCode::OccupancyStalled, detail);
        alert.number = Some(number);
        alert.side = Some(side);
        alert.choices = self.stall_choices(board, number);
        Inference::Alert(alert)
    }

    /// The readings of `board`'s snapshots since its last move recorded, its next move
    /// being `number`, as one-click choices (see the module's doc).
    fn stall_choices(&self, board: BoardId, number: u32) -> Vec<AlertChoice> {
        let pos = self.shown.board(board);
        let side = pos.turn();
        // The recorded position's own occupancy is no reading: a capture and a drop where
        // the capturer stood always give it back (the plies that lead there are the
        // single moves' readings, below).
        let base = pos.board().occupied().0;
        let shown: Vec<u64> = self
            .log
            .of(board)
            .iter()
            .map(|&(_, occ)| occ)
            .filter(|&occ| occ != base)
            .collect();
        // What the board shows now comes first (the arbiter sees it; a piece put back and
        // then moved on shows its true move last), then the rest as first shown.
        let now = self.log.of(board).last().map(|&(_, occ)| occ);
        let first_shown = |occ: u64| {
            shown
                .iter()
                .position(|&o| o == occ)
                .map(|at| (Some(occ) != now, at))
        };
        let legal = pos.legal_moves();
        // Each first move with the position it is played from: the record's, or for a
        // drop of a kind the record's hand lacks, that hand as it may be (see
        // `open_hand.rs`; none when every hand is known, its drops being the record's).
        let mut firsts: Vec<(&Position, Move)> = legal.iter().map(|&mv| (pos, mv)).collect();
        let any = self.inf.with_open_hands(board, pos);
        firsts.extend(
            any.legal_moves()
                .into_iter()
                .filter(|mv| mv.is_drop() && !legal.iter().any(|l| same_move_squares(l, mv)))
                .map(|mv| (&any, mv)),
        );
        let mut found: Vec<((bool, usize), AlertChoice)> = Vec::new();
        for &(from, mv) in &firsts {
            let after = played(from, &mv);
            if let Some(at) = first_shown(after.board().occupied().0) {
                found.push((at, fill_choice(board, from, number, &[mv])));
            }
        }
        // A piece of open kind moving as another of its kinds than its placeholder (the
        // record's placeholder cannot make the move the board shows).
        for (sq, _, kinds) in self.inf.kinds_now(board) {
            if pos.board().piece_at(sq).is_none_or(|p| p.color != side) {
                continue;
            }
            for (as_kind, mv) in moves_as_other_kinds(pos, sq, &kinds) {
                let after = played(&as_kind, &mv);
                if let Some(at) = first_shown(after.board().occupied().0) {
                    found.push((at, kind_choice(board, &as_kind, number, &mv)));
                }
            }
        }
        // Moves that need a piece of open kind's kind stated first (`(f1=N)`, see
        // `kind_statement.rs`): the moves legal with a piece of the opponent's as another of
        // its kinds (its placeholder checks or pins what the piece it is does not), and the
        // mover's own piece's moves as a pawn (a pawn dropped in doubt, pushed or promoting:
        // a pawn's move cannot name its piece by its square).
        for (sq, _, kinds) in self.inf.kinds_now(board) {
            let own = pos.board().piece_at(sq).is_some_and(|p| p.color == side);
            for (as_kind, role) in as_other_kinds(pos, sq, &kinds) {
                if own && role != Role::Pawn {
                    // Named by its square instead (above).
                    continue;
                }
                for mv in as_kind.legal_moves() {
                    if (own && mv.from() != Some(sq))
                        || legal.iter().any(|l| same_move_squares(l, &mv))
                    {
                        continue;
                    }
                    let after = played(&as_kind, &mv);
                    if let Some(at) = first_shown(after.board().occupied().0) {
                        let stated = KindStatement { sq, role };
                        found.push((at, stated_choice(board, &as_kind, number, stated, &mv)));
                    }
                }
            }
        }
        if found.is_empty() {
            for &(from, mv) in &firsts {
                let after = played(from, &mv);
                for reply in after.legal_moves() {
                    let last = played(&after, &reply);
                    if let Some(at) = first_shown(last.board().occupied().0) {
                        found.push((at, fill_choice(board, from, number, &[mv, reply])));
                    }
                }
            }
        }
        found.sort_by_key(|(at, _)| *at);
        found
            .into_iter()
            .take(CHOICES_MAX)
            .map(|(_, choice)| choice)
            .collect()
    }
}

/// The choice entering `moves` on `board` from `pos`, the first being move `number`:
/// labelled as the record will number them.
pub(super) fn fill_choice(
    board: BoardId,
    pos: &Position,
    number: u32,
    moves: &[Move],
) -> AlertChoice {
    let mut at = pos.clone();
    let mut n = number;
    let mut sans = Vec::with_capacity(moves.len());
    let mut label = Vec::with_capacity(moves.len());
    for mv in moves {
        let side = at.turn();
        let san = san_string(&at, mv);
        label.push(numbered_san(n, side, &san));
        if side == Color::Black {
            n += 1;
        }
        sans.push(san);
        at.play(mv);
    }
    AlertChoice {
        label: label.join(" "),
        action: OperatorAction::Fill {
            board,
            moves: sans,
            first: Some((number, pos.turn())),
        },
    }
}

/// The choice entering `mv`, move `number` of a piece of open kind on `board`, as the kind
/// it has in `as_kind`: the fill names the piece by its square (`Qb4xc4`), which settles
/// its kind as it enters the move (see `fill.rs`); the label says the move as it will be
/// recorded and the kind.
pub(super) fn kind_choice(
    board: BoardId,
    as_kind: &Position,
    number: u32,
    mv: &Move,
) -> AlertChoice {
    let side = as_kind.turn();
    let mut named = San::from_move(as_kind, mv);
    if let (SanKind::Normal { file, rank, .. }, Some(from)) = (&mut named.kind, mv.from()) {
        *file = Some(from.file());
        *rank = Some(from.rank());
    }
    let kind = mv.from().and_then(|from| as_kind.board().piece_at(from));
    AlertChoice {
        label: format!(
            "{} ({} a {})",
            numbered_san(number, side, &san_string(as_kind, mv)),
            mv.from().map(|f| f.to_string()).unwrap_or_default(),
            kind.map_or_else(|| "piece".to_owned(), |p| p.role.to_string())
        ),
        action: OperatorAction::Fill {
            board,
            moves: vec![named.to_string()],
            first: Some((number, side)),
        },
    }
}

/// The choice entering `mv`, move `number` of `board`, legal in `as_kind` where a piece
/// of open kind (the opponent's, or the mover as a pawn) is the kind `stated` says: the
/// fill states it first.
pub(super) fn stated_choice(
    board: BoardId,
    as_kind: &Position,
    number: u32,
    stated: KindStatement,
    mv: &Move,
) -> AlertChoice {
    let side = as_kind.turn();
    let san = san_string(as_kind, mv);
    AlertChoice {
        label: format!(
            "{} ({} a {})",
            numbered_san(number, side, &san),
            stated.sq,
            stated.role
        ),
        action: OperatorAction::Fill {
            board,
            moves: vec![stated.to_ply(), san],
            first: Some((number, side)),
        },
    }
}

/// `pos` with the piece on `sq` as each of `kinds` other than its own (a king, and a pawn
/// on the first or last rank, excepted), each with that kind.
pub(super) fn as_other_kinds(pos: &Position, sq: Square, kinds: &[Role]) -> Vec<(Position, Role)> {
    let Some(piece) = pos.board().piece_at(sq) else {
        return Vec::new();
    };
    let back_rank = matches!(sq.rank().index(), 0 | 7);
    kinds
        .iter()
        .filter(|&&r| r != piece.role && r != Role::King && !(r == Role::Pawn && back_rank))
        .map(|&role| {
            let mut as_kind = pos.clone();
            as_kind.set_piece_at(sq, Piece { role, ..piece });
            (as_kind, role)
        })
        .collect()
}

/// Whether two moves go between the same squares, promoting alike (a capture of a piece
/// of open kind names its victim's kind).
fn same_move_squares(a: &Move, b: &Move) -> bool {
    let promotion = |m: &Move| match *m {
        Move::Normal { promotion, .. } => promotion,
        _ => None,
    };
    let dropped = |m: &Move| match *m {
        Move::Drop { piece, .. } => Some(piece.role),
        _ => None,
    };
    a.from() == b.from()
        && a.to() == b.to()
        && promotion(a) == promotion(b)
        && dropped(a) == dropped(b)
}

/// The legal moves of the piece on `sq` of `pos` as each of `kinds` other than its own
/// placeholder (a king or a pawn excepted: a piece of open kind moving as one of those
/// reads as a move of the placeholder's), each with the position holding it as that kind.
pub(super) fn moves_as_other_kinds(
    pos: &Position,
    sq: Square,
    kinds: &[Role],
) -> Vec<(Position, Move)> {
    let Some(piece) = pos.board().piece_at(sq) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &role in kinds
        .iter()
        .filter(|&&r| r != piece.role && r != Role::Pawn && r != Role::King)
    {
        let mut as_kind = pos.clone();
        as_kind.set_piece_at(sq, Piece { role, ..piece });
        for mv in as_kind.legal_moves() {
            if mv.from() == Some(sq) {
                out.push((as_kind.clone(), mv));
            }
        }
    }
    out
}

/// `pos` after `mv`.
fn played(pos: &Position, mv: &Move) -> Position {
    let mut after = pos.clone();
    after.play(mv);
    after
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{Board, feed_with, stalls};
    use super::*;

    /// White's rook on d4 may take the pawn on d7 or the one on g4.
    const ROOK_AND_TWO_PAWNS: &str = "4k3/3p4/8/8/3R2p1/8/8/4K3 w - - | 4k3/8/8/8/8/8/8/4K3 w - -";

    #[test]
    fn a_rook_held_over_one_of_two_victims_is_said_with_both_captures_and_a_late_click_refused() {
        let mut feed = feed_with(ROOK_AND_TWO_PAWNS);
        let mut board = Board::of(&feed);
        // The rook is set straight onto its victim: only d4 empties.
        let (_, mut said) = board.set(&mut feed, "d4", false);
        for t in (1..=120).map(|i| board.t + i * 100) {
            said.extend(feed.tick(t).1);
        }
        let [alert] = stalls(&said)
            .try_into()
            .unwrap_or_else(|s| panic!("one: {s:?}"));
        assert_eq!((alert.number, alert.side), (Some(1), Some(Color::White)));
        let mut labels: Vec<&str> = alert.choices.iter().map(|c| c.label.as_str()).collect();
        labels.sort_unstable();
        assert_eq!(labels, ["1. Rxd7", "1. Rxg4"], "{}", alert.detail);
        let choice = |label: &str| {
            alert
                .choices
                .iter()
                .find(|c| c.label == label)
                .unwrap_or_else(|| panic!("{label}"))
        };
        let fill = |choice: &AlertChoice| match &choice.action {
            OperatorAction::Fill {
                board,
                moves,
                first,
            } => (*board, moves.clone(), *first),
            other => panic!("a fill: {other:?}"),
        };
        // One click enters the capture: the rook stands on g4 in the record.
        let (b, moves, first) = fill(choice("1. Rxg4"));
        assert_eq!(first, Some((1, Color::White)));
        let mut entered = feed.clone();
        entered
            .fill(b, &moves, first, board.t + 20_000)
            .unwrap_or_else(|e| panic!("{e}"));
        let rook = entered
            .shown
            .board(BoardId::A)
            .board()
            .piece_at("g4".parse().expect("g4"));
        assert_eq!(rook.map(|p| p.role), Some(crate::rules::Role::Rook));
        // The other choice, clicked after that, names a move the board no longer waits for.
        let (b, moves, first) = fill(choice("1. Rxd7"));
        let refused = entered
            .fill(b, &moves, first, board.t + 21_000)
            .expect_err("the board moved on");
        assert!(refused.to_string().contains("moved on"), "{refused}");
    }
}

#[cfg(test)]
mod open_kind_tests {
    use super::super::Handed;
    use super::super::test_support::{Board, feed_with, fill_of, sq, stalls};
    use super::*;

    #[test]
    fn a_piece_of_open_kind_held_over_a_victim_only_another_of_its_kinds_reaches_is_one_click() {
        // White holds a rook and a queen and drops one on e3 (the board cannot tell which;
        // the record carries a placeholder); Black's king steps to f8; the piece on e3 is
        // then set straight onto g5, which only a queen reaches.
        let mut feed = feed_with("4k3/4p3/8/6p1/8/8/8/4K3/RQ w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        let mut board = Board::of(&feed);
        let alert = board.stall_after(
            &mut feed,
            &[("e3", true), ("e8", false), ("f8", true), ("e3", false)],
        );
        assert_eq!((alert.number, alert.side), (Some(2), Some(Color::White)));
        let choice = alert
            .choices
            .iter()
            .find(|c| c.label == "2. Qxg5 (e3 a queen)")
            .unwrap_or_else(|| panic!("{:?}", alert.choices));
        let (b, moves, first) = fill_of(choice);
        assert_eq!(moves, &["Qe3xg5".to_owned()]);
        let (handed, _) = feed
            .fill(b, &moves, first, board.t + 90_000)
            .unwrap_or_else(|e| panic!("{e}"));
        // The drop is corrected to the queen's, then the capture entered.
        assert!(
            handed.iter().any(|h| matches!(
                h,
                Handed::Settled { ply: 0, mv: Move::Drop { piece, .. }, open: false, .. }
                    if piece.role == Role::Queen
            )),
            "{handed:?}"
        );
        let g5 = feed
            .shown
            .board(BoardId::A)
            .board()
            .piece_at("g5".parse().expect("g5"));
        assert_eq!(
            g5.map(|p| (p.color, p.role)),
            Some((Color::White, Role::Queen))
        );
    }

    #[test]
    fn a_stalled_board_played_on_is_said_again_only_with_readings_not_offered_before() {
        // White drops a rook or a queen on e3 (Black holds a pawn to drop), Black's king
        // steps to f8; the piece on e3 is lifted and put back: put back, or set onto the
        // pawn on e7 (or g5, as a queen) with Black's drop on e3. The board stalls.
        let mut feed = feed_with("4k3/4p3/8/6p1/8/8/8/4K3/RQp w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        let mut board = Board::of(&feed);
        let first = board.stall_after(
            &mut feed,
            &[
                ("e3", true),
                ("e8", false),
                ("f8", true),
                ("e3", false),
                ("e3", true),
            ],
        );
        let offered: Vec<String> = first.choices.iter().map(|c| c.label.clone()).collect();
        assert!(
            offered.iter().all(|l| !l.contains("e5")),
            "{offered:?}: {}",
            first.detail
        );
        // It was put back: its player now moves it to e5, which the first alert could not
        // offer. The board is said again, with that reading.
        let ticks = |feed: &mut OccupancyFeed, from: u64, said: &mut Vec<Inference>| {
            for t in (1..=100).map(|i| from + i * 100) {
                said.extend(feed.tick(t).1);
            }
        };
        board.set(&mut feed, "e3", false);
        let (_, mut said) = board.set(&mut feed, "e5", true);
        ticks(&mut feed, board.t, &mut said);
        let [again] = stalls(&said)
            .try_into()
            .unwrap_or_else(|s| panic!("said again once: {s:?}"));
        assert!(again.detail.contains("said again"), "{}", again.detail);
        assert_eq!((again.number, again.side), (first.number, first.side));
        let to_e5 = again
            .choices
            .iter()
            .find(|c| c.label.starts_with("2. ") && c.label.contains("e5"))
            .unwrap_or_else(|| panic!("{:?}", again.choices));
        // What the board shows now is read first: the list is cut at its longest, and the
        // move its player meant is the last thing a board put back shows.
        assert!(again.choices[0].label.contains("e5"), "{:?}", again.choices);
        // Lifted and put down there again: nothing new, nothing said.
        board.set(&mut feed, "e5", false);
        let (_, mut said) = board.set(&mut feed, "e5", true);
        ticks(&mut feed, board.t, &mut said);
        assert!(stalls(&said).is_empty(), "{said:?}");
        // The click on the reading said again enters it.
        let (b, moves, first_move) = fill_of(to_e5);
        feed.fill(b, &moves, first_move, board.t + 20_000)
            .unwrap_or_else(|e| panic!("{e}"));
        let e5 = feed.shown.board(BoardId::A).board().piece_at(sq("e5"));
        assert_eq!(e5.map(|p| p.color), Some(Color::White));
    }

    /// White drops a pawn or a rook on g7 and takes it to g8 (a pawn promoting there, or
    /// a rook), Black's king stepping aside each time; the piece on g8 is then set straight
    /// onto the pawn on g5 or the knight on e8 (a rook's captures, a queen's) or the pawn
    /// on h6 (a knight's): the board stalls.
    fn promoted_or_dropped_on_g8() -> (OccupancyFeed, crate::infer::Alert, u64) {
        let mut feed = feed_with("4n3/8/7p/6p1/8/k7/8/4K3/PR w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        let mut board = Board::of(&feed);
        let alert = board.stall_after(
            &mut feed,
            &[
                ("g7", true),
                ("a3", false),
                ("a2", true),
                ("g7", false),
                ("g8", true),
                ("a2", false),
                ("a3", true),
                ("g8", false),
            ],
        );
        assert_eq!((alert.number, alert.side), (Some(3), Some(Color::White)));
        (feed, alert, board.t)
    }

    /// The fill of the choice labelled `label` of `alert`, entered at `t`.
    fn click(
        feed: &mut OccupancyFeed,
        alert: &crate::infer::Alert,
        label: &str,
        t: u64,
    ) -> Vec<Handed> {
        let choice = alert
            .choices
            .iter()
            .find(|c| c.label == label)
            .unwrap_or_else(|| panic!("{label} among {:?}", alert.choices));
        let (b, moves, first) = fill_of(choice);
        feed.fill(b, &moves, first, t)
            .unwrap_or_else(|e| panic!("{e}"))
            .0
    }

    #[test]
    fn a_drop_of_a_kind_the_records_hand_lacks_is_one_click_fitting_its_placeholders() {
        // Board B: White drops a knight or a rook on a6 (the record's placeholder the
        // knight). Board A: White, his hand empty, drops on c7 and Black answers b7-b6 at
        // once: no drop explains it. Black on B then takes on a6, giving White on A the
        // piece: a rook, the board shows (a knight on c7 would check, and b6 not answer
        // it). The stall is said while the capture is not final yet.
        let mut feed = feed_with("4k3/1p6/8/8/8/8/8/4K3 w - - | 4k3/1p6/8/8/8/8/8/4K3/NR w - -");
        let (mut a, mut b) = (Board::of(&feed), Board::of_board(&feed, BoardId::B));
        b.set(&mut feed, "a6", true);
        a.t = 4_500;
        for (s, on) in [("c7", true), ("b7", false), ("b6", true)] {
            a.set(&mut feed, s, on);
        }
        let mut said = Vec::new();
        for t in (61..=105).map(|i| i * 100) {
            said.extend(feed.tick(t).1);
        }
        b.t = 10_500;
        for (s, on) in [("a6", false), ("b7", false), ("a6", true)] {
            said.extend(b.set(&mut feed, s, on).1);
        }
        for t in (121..=200).map(|i| i * 100) {
            said.extend(feed.tick(t).1);
        }
        let alert = stalls(&said)
            .into_iter()
            .find(|a| a.board == Some(BoardId::A))
            .unwrap_or_else(|| panic!("a stall of A: {said:?}"));
        assert_eq!(alert.side, Some(Color::White), "{}", alert.detail);
        // Each kind is offered (the board showed the drop alone a moment).
        let handed = click(&mut feed, &alert, "1. R@c7", 30_000);
        // The record fits its placeholder to the rook dropped: B's drop a rook (its kind
        // still open), A's a rook, exactly; Black's reply is read from the board after it.
        let drops: Vec<(BoardId, Role, usize)> = feed
            .handed
            .iter()
            .filter_map(|h| match h.mv {
                Move::Drop { piece, .. } => Some((h.board, piece.role, h.kinds.len())),
                _ => None,
            })
            .collect();
        assert_eq!(
            drops,
            [(BoardId::B, Role::Rook, 2), (BoardId::A, Role::Rook, 0)],
            "{handed:?}"
        );
        let shown = feed.shown.board(BoardId::A);
        assert_eq!(
            shown.board().piece_at(sq("b6")).map(|p| p.color),
            Some(Color::Black)
        );
    }

    #[test]
    fn a_piece_that_only_a_promotion_makes_is_one_click_settling_the_drop_a_pawn() {
        // The piece on g8 takes on h6: a knight, which only the pawn, promoting, could
        // have become (the drop's own kinds are a pawn and a rook). It is offered, and the
        // click settles the drop a pawn and the promotion a knight.
        let (mut feed, alert, t) = promoted_or_dropped_on_g8();
        let handed = click(&mut feed, &alert, "3. Nxh6 (g8 a knight)", t + 20_000);
        assert!(
            handed.iter().any(|h| matches!(
                h,
                Handed::Settled { ply: 0, mv: Move::Drop { piece, .. }, open: false, .. }
                    if piece.role == Role::Pawn
            )),
            "{handed:?}"
        );
        assert!(
            handed.iter().any(|h| matches!(
                h,
                Handed::Settled {
                    ply: 2,
                    mv: Move::Normal {
                        promotion: Some(Role::Knight),
                        ..
                    },
                    open: false,
                    ..
                }
            )),
            "{handed:?}"
        );
        let shown = feed.shown.board(BoardId::A).board();
        assert_eq!(
            shown.piece_at(sq("h6")).map(|p| (p.color, p.role)),
            Some((Color::White, Role::Knight))
        );
        assert!(
            feed.handed.iter().all(|h| h.kinds.is_empty()),
            "all settled"
        );
    }

    #[test]
    fn a_piece_dropped_as_its_kind_or_promoted_to_it_is_settled_now_and_its_drop_left_open() {
        // The arbiter sees a rook take on g5: it was dropped a rook, or a pawn that became
        // one on g8; he cannot tell which, nor can the daemon. The click settles what the
        // piece is, and the drop stays flagged (a rook or a pawn), never settled a rook.
        let (mut feed, alert, t) = promoted_or_dropped_on_g8();
        let handed = click(&mut feed, &alert, "3. Rxg5 (g8 a rook)", t + 20_000);
        assert!(
            !handed.iter().any(|h| matches!(
                h,
                Handed::Settled {
                    ply: 0,
                    open: false,
                    ..
                }
            )),
            "the drop settled: {handed:?}"
        );
        let drop = &feed.handed[0];
        assert!(drop.mv.is_drop(), "{drop:?}");
        let mut kinds = drop.kinds.clone();
        kinds.sort();
        assert_eq!(kinds, [Role::Pawn, Role::Rook], "{drop:?}");
        let shown = feed.shown.board(BoardId::A).board();
        assert_eq!(
            shown.piece_at(sq("g5")).map(|p| (p.color, p.role)),
            Some((Color::White, Role::Rook))
        );
    }

    #[test]
    fn a_move_an_opponents_placeholder_rules_out_is_one_click_stating_its_kind() {
        // Black promotes on f1 (recorded as the default queen, which "checks" the king on
        // d1); White's pawn is then set straight onto the bishop on g4, legal only if the
        // new piece is a bishop or a knight.
        let mut feed = feed_with("7k/8/8/8/6b1/5P2/5p2/3K4 b - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        let mut board = Board::of(&feed);
        let alert = board.stall_after(&mut feed, &[("f2", false), ("f1", true), ("f3", false)]);
        // A side's moves are numbered by how many it made since the start: White's first
        // is 1, though Black moved first here.
        assert_eq!((alert.number, alert.side), (Some(1), Some(Color::White)));
        let mut labels: Vec<&str> = alert.choices.iter().map(|c| c.label.as_str()).collect();
        labels.sort_unstable();
        assert_eq!(
            labels,
            ["1. fxg4 (f1 a bishop)", "1. fxg4 (f1 a knight)"],
            "{}",
            alert.detail
        );
        let choice = &alert
            .choices
            .iter()
            .find(|c| c.label.contains("knight"))
            .expect("knight");
        let (b, moves, first) = fill_of(choice);
        assert_eq!(moves, &["(f1=N)".to_owned(), "fxg4".to_owned()]);
        // A statement the piece cannot be is refused, and settles nothing.
        let wrong = vec!["(f1=P)".to_owned(), "fxg4".to_owned()];
        let refused = feed
            .fill(b, &wrong, first, board.t + 85_000)
            .expect_err("not a pawn");
        assert!(refused.0.contains("f1"), "{refused}");
        assert_eq!(feed.inf.open_kinds(BoardId::A).len(), 1);
        // The click settles the knight (the promotion corrected), then enters the capture.
        feed.fill(b, &moves, first, board.t + 90_000)
            .unwrap_or_else(|e| panic!("{e}"));
        let shown = feed.shown.board(BoardId::A).board();
        assert_eq!(
            shown.piece_at(sq("f1")).map(|p| (p.color, p.role)),
            Some((Color::Black, Role::Knight))
        );
        assert_eq!(
            shown.piece_at(sq("g4")).map(|p| (p.color, p.role)),
            Some((Color::White, Role::Pawn))
        );
        assert!(feed.inf.open_kinds(BoardId::A).is_empty());
    }
}
