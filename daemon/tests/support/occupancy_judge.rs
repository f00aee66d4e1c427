//! Judging what the occupancy-only inference decided against the game played, shared by
//! the round trips (`#[path]`-included): a move counts as right when it is exact, or
//! flagged with the truth among its choices; a board that stops is short, not wrong;
//! anything else is wrong. A kind settled by a later move corrects the move it settles (as
//! the daemon publishes a correction).

use bugbridge::infer::occupancy::{KindNote, OccupancyInference, OccupancyMove};
use bugbridge::rules::{Bitboard, BoardId, ByBoard, Move};

#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) boards: usize,
    pub(crate) exact_boards: usize,
    pub(crate) moves: usize,
    pub(crate) exact: usize,
    pub(crate) flagged_promotions: usize,
    pub(crate) open_pieces: usize,
    pub(crate) settled: usize,
    pub(crate) drops: usize,
    pub(crate) undetermined_drops: usize,
    pub(crate) short: usize,
    pub(crate) wrong: Vec<String>,
    /// Moves an arbiter entered (see `occupancy_arbiter.rs`), entries the inference
    /// refused, and games where he entered any.
    pub(crate) entered: usize,
    pub(crate) refused_entries: usize,
    pub(crate) games_entered: usize,
}

impl Tally {
    pub(crate) fn line(&self, what: &str) -> String {
        format!(
            "{what}: {} boards, {} complete ({:.1} %), {} short; {} moves: {} exact ({} of them kinds settled later by a correction), {} promotions flagged, {} moves of a piece of open kind, {} wrong; {} drops, {} ({:.1} %) need the arbiter",
            self.boards,
            self.exact_boards,
            100.0 * self.exact_boards as f64 / self.boards.max(1) as f64,
            self.short,
            self.moves,
            self.exact,
            self.settled,
            self.flagged_promotions,
            self.open_pieces,
            self.wrong.len(),
            self.drops,
            self.undetermined_drops,
            100.0 * self.undetermined_drops as f64 / self.drops.max(1) as f64
        ) + &if self.games_entered > 0 || self.refused_entries > 0 {
            format!(
                "; the arbiter entered {} moves in {} games ({} entries refused)",
                self.entered, self.games_entered, self.refused_entries
            )
        } else {
            String::new()
        }
    }
}

/// One snapshot (`t`, `board`, `occ`) (`shown`: what each board showed last, updated),
/// read as the daemon reads it: its clock ticks between snapshots, so a board resting on
/// its move made it final before ([`OccupancyInference::commit_at_rest`]); then the
/// snapshot is fed. The moves decided go to `decided`. With `debug`, the squares emptied
/// and filled are printed, the moves, then the board's hands, what it stalls or waits on,
/// and its position.
pub(crate) fn read_snapshot(
    inf: &mut OccupancyInference,
    shown: &mut ByBoard<u64>,
    (t, board, occ): (u64, BoardId, u64),
    decided: &mut Vec<OccupancyMove>,
    debug: bool,
) {
    if debug {
        let squares = |bits: u64| -> Vec<String> {
            Bitboard(bits).into_iter().map(|s| s.to_string()).collect()
        };
        let (gone, new) = (shown[board] & !occ, occ & !shown[board]);
        println!("{t} {board} -{:?} +{:?}", squares(gone), squares(new));
    }
    shown[board] = occ;
    let rested = inf.commit_at_rest(t.saturating_sub(1));
    let fed = inf.feed(board, t, occ);
    if debug {
        for (m, how) in rested
            .iter()
            .map(|m| (m, " (rested)"))
            .chain(fed.iter().map(|m| (m, "")))
        {
            println!("    => {} {:?} {:?}{how} t={}", m.board, m.mv, m.note, m.t);
        }
        let p = inf.game().board(board).pockets();
        println!(
            "    .. {board} hands w{:?} b{:?} stalled {:?} waiting {:?} {}",
            p.white,
            p.black,
            inf.stalled(board),
            inf.waiting(board),
            bugbridge::rules::notation::bfen::write_board_fen(inf.game().board(board), None)
        );
    }
    decided.extend(rested);
    decided.extend(fed);
}

/// Whether `got` is `want`, exactly or as a flagged choice that includes it.
pub(crate) fn judge(got: &OccupancyMove, want: &Move, tally: &mut Tally) -> bool {
    match (&got.note, got.mv, *want) {
        (KindNote::Exact, mv, want) => {
            let same = same_move(&mv, &want);
            tally.exact += usize::from(same);
            same
        }
        (
            KindNote::PromotionAssumed { choices },
            Move::Normal {
                from, to, capture, ..
            },
            Move::Normal {
                from: f2,
                to: t2,
                capture: c2,
                promotion: Some(p),
                ..
            },
        ) => {
            // The captured kind may differ when the victim's kind was open.
            let _ = (capture, c2);
            let ok = (from, to) == (f2, t2) && choices.contains(&p);
            tally.flagged_promotions += usize::from(ok);
            ok
        }
        (KindNote::PieceOpen { .. }, mv, want) => {
            let squares = |m: &Move| {
                (
                    m.from(),
                    match *m {
                        Move::Normal { to, .. }
                        | Move::EnPassant { to, .. }
                        | Move::Drop { to, .. } => to,
                        Move::Castle { rook, .. } => rook,
                    },
                )
            };
            let ok = squares(&mv) == squares(&want);
            tally.open_pieces += usize::from(ok);
            ok
        }
        (
            KindNote::DropUndetermined { choices },
            Move::Drop { piece, to },
            Move::Drop {
                piece: p2, to: t2, ..
            },
        ) => {
            let ok = (piece.color, to) == (p2.color, t2) && choices.contains(&p2.role);
            tally.undetermined_drops += usize::from(ok);
            ok
        }
        _ => false,
    }
}

/// The same move: squares, drop piece and promotion (roles and capture fields as the rules
/// fill them may differ between a generated move and a matched one).
pub(crate) fn same_move(a: &Move, b: &Move) -> bool {
    let key = |m: &Move| match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (Some(from), to, promotion, None),
        Move::EnPassant { from, to } => (Some(from), to, None, None),
        Move::Castle { king, rook } => (Some(king), rook, None, None),
        Move::Drop { piece, to } => (None, to, None, Some(piece)),
    };
    key(a) == key(b)
}

/// Kinds settled by later moves correct the moves decided (as the daemon publishes a
/// correction): the move takes its kind and is exact.
pub(crate) fn settle(
    inf: &mut OccupancyInference,
    decided: &mut [OccupancyMove],
    settled: &mut Vec<(BoardId, u64)>,
    debug: bool,
) {
    for r in inf.take_resolutions() {
        let Some(m) = decided
            .iter_mut()
            .rev()
            .find(|m| m.board == r.board && m.t == r.t)
        else {
            continue;
        };
        let mv = match m.mv {
            Move::Drop { piece, to } => Move::Drop {
                piece: bugbridge::rules::Piece {
                    color: piece.color,
                    role: r.role,
                },
                to,
            },
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion: Some(_),
            } => Move::Normal {
                role,
                from,
                capture,
                to,
                promotion: Some(r.role),
            },
            _ => continue,
        };
        if debug {
            println!("    settled {} {:?} -> {mv:?}", m.board, m.mv);
        }
        m.mv = mv;
        m.note = KindNote::Exact;
        settled.push((m.board, m.t));
    }
}

/// How one board's decided moves compare with its moves in the game.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BoardVerdict {
    /// Every move of the game, each right.
    Complete,
    /// Fewer moves than the game, each right (the board stopped).
    Short,
    /// A move that is not the game's (said in the tally).
    Wrong,
}

/// Judges one board: `got` against `want` in order, `expected` the moves the board should
/// have decided by now (all of `want` for a whole game); wrong moves go to the tally,
/// labelled with `label`.
pub(crate) fn judge_board(
    tally: &mut Tally,
    got: &[&OccupancyMove],
    want: &[&Move],
    expected: usize,
    settled: &[(BoardId, u64)],
    label: &str,
) -> BoardVerdict {
    tally.boards += 1;
    tally.drops += want[..expected.min(want.len())]
        .iter()
        .filter(|m| matches!(m, Move::Drop { .. }))
        .count();
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        tally.moves += 1;
        let exact_before = tally.exact;
        let right = judge(g, w, tally);
        if right && tally.exact > exact_before && settled.contains(&(g.board, g.t)) {
            tally.settled += 1;
        }
        if !right {
            tally.wrong.push(format!(
                "{label} ply {i}: got {:?} ({:?}), want {w:?}",
                g.mv, g.note
            ));
            return BoardVerdict::Wrong;
        }
    }
    if got.len() > want.len() {
        tally
            .wrong
            .push(format!("{label}: extra move {:?}", got[want.len()].mv));
        return BoardVerdict::Wrong;
    }
    if got.len() < expected {
        tally.short += 1;
        return BoardVerdict::Short;
    }
    tally.exact_boards += 1;
    BoardVerdict::Complete
}

/// The occupancy trace a Sentio table journals: each board's occupied squares at the start
/// (`start`), then every snapshot `(t, board, occupied)`, as `occupancy` lines.
pub(crate) fn occupancy_trace(
    start: ByBoard<u64>,
    snapshots: impl IntoIterator<Item = (u64, BoardId, u64)>,
) -> String {
    use bugbridge_drivers::trace::{Occupancy, TraceEvent, TraceLine, line_to_string};
    let first = BoardId::ALL.map(|b| (0, b, start[b]));
    let mut text = String::new();
    for (t, board, occ) in first.into_iter().chain(snapshots) {
        let line = TraceLine {
            t,
            event: TraceEvent::Occupancy {
                board: bugbridge::sensor::wire_board_id(board),
                occupied: Occupancy(occ),
            },
        };
        text.push_str(&line_to_string(&line));
        text.push('\n');
    }
    text
}

/// A board's record (`got`) against the game's moves (`want`): the first move on other
/// squares goes to `wrong`, labelled; returns how many moves on the game's squares carry
/// another kind (each must be flagged by an alert).
pub(crate) fn record_against(
    got: &[&Move],
    want: &[&Move],
    label: &str,
    wrong: &mut Vec<String>,
) -> usize {
    let mut kinds_differ = 0;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g.from(), g.to()) != (w.from(), w.to()) {
            wrong.push(format!("{label} ply {i}: {g:?} for {w:?}"));
            break;
        }
        kinds_differ += usize::from(!same_move(g, w));
    }
    kinds_differ
}

/// Board `b`'s moves in a replay's `record` and in the `game` played, in order.
#[allow(dead_code)] // the round trips that read no replay (outside traces) do not use it
pub(crate) fn board_moves<'a>(
    record: &'a [bugbridge::infer::RecordEntry],
    game: &'a bugbridge::simulate::SimGame,
    b: BoardId,
) -> (Vec<&'a Move>, Vec<&'a Move>) {
    let got = record
        .iter()
        .filter(|e| e.board == b)
        .map(|e| &e.mv)
        .collect();
    let want = game
        .moves
        .iter()
        .filter(|m| m.board == b)
        .map(|m| &m.mv)
        .collect();
    (got, want)
}

/// Whether `m` is `want` by its squares, and its kind where the squares do not tell it (a
/// drop's piece, a promotion's): a move of the record's position, whose placeholders may
/// name other kinds for the pieces it moves or takes.
pub(crate) fn same_squares(m: &Move, want: &Move) -> bool {
    match (m, want) {
        (Move::Drop { piece: a, to: ta }, Move::Drop { piece: b, to: tb }) => a == b && ta == tb,
        _ => m.from() == want.from() && m.to() == want.to() && m.promotion() == want.promotion(),
    }
}
