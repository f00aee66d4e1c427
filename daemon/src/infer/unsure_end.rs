//! A mate found among pieces whose kinds an occupancy-only board left open.
//!
//! A Sentio board cannot tell a drop's kind when neither the hand nor the square decides
//! it: the record carries a placeholder until the arbiter or a later move of the piece
//! settles it. A mate found with placeholders standing on the board (a "bishop" giving
//! check that was a knight, a "pawn" that was a rook covering the king's flight, a
//! "queen" that leaves a piece of the set to drop in between) may be no mate at all:
//! ending the game on it would publish a result nobody played and stop reading both
//! boards while the players go on (random 484 of the clicks: `21. Bxc6#`, and the record
//! of board B went wrong after it, its moves no longer made final by stillness). The
//! hands do not matter: a bughouse mate already holds against a drop of any piece the
//! partner could still pass.
//!
//! So a mate is checked against every kind each piece of open kind on its board may be.
//! One that some assignment escapes does not end the game: the record goes on, and the
//! arbiter gets one `end-undetermined` alert offering the result in one click (a `result`
//! action). A mate every assignment keeps ends the game as on any board.
//!
//! A correction plays the record again from the start, and may make an earlier move mate
//! that did not as recorded: [`Inferrer::report_replayed_end`] says so, an end if nothing
//! was recorded after it, else (the players went on) an `end-undetermined` alert.

use crate::rules::{ByBoard, Color, EndReason, GameEnd, Move, Rank, Role, Square};

use super::OperatorAction;
use super::engine::Inferrer;
use super::output::{Alert, AlertChoice, AlertCode, Inference, RecordEntry};

/// How many assignments of the open kinds a mate is checked against: beyond, it is unsure.
const MAX_ASSIGNMENTS: usize = 1024;

/// The moves of a board that put down a piece of open kind (a drop or a promotion the
/// board could not tell), each counted from the board's first move (0), with every kind
/// its piece may be.
pub type OpenPlies = Vec<(usize, Vec<Role>)>;

/// The pieces of open kind standing on a board: each square with the kinds its piece may
/// be.
type OpenSquares = Vec<(Square, Vec<Role>)>;

impl Inferrer {
    /// Says which moves of each board put down a piece of open kind (an occupancy-only
    /// table, see the module docs), each with the kinds its piece may be. Told by move,
    /// not by square: the reading hands moves on before the record makes them final, so
    /// where such pieces stand as read may be a later position than the mate's (random
    /// 134 of the clicks: `22... exf1=Q#` ended the game, its piece of open kind already
    /// read gone on to a6, where it was "a bishop or a queen").
    pub fn set_open_kinds(&mut self, plies: ByBoard<OpenPlies>) {
        self.open_kinds = plies;
    }

    /// Where the pieces of open kind stand once `entry` is played after the record's
    /// moves of its board: each such piece followed from the move that put it down.
    fn open_standing(&self, entry: &RecordEntry) -> OpenSquares {
        let plies = &self.open_kinds[entry.board];
        if plies.is_empty() {
            return Vec::new();
        }
        let mut squares: [Option<usize>; 64] = [None; 64];
        let moves = self
            .record
            .iter()
            .filter(|e| e.board == entry.board)
            .chain(std::iter::once(entry));
        for (ply, e) in moves.enumerate() {
            match e.mv {
                Move::Normal { from, to, .. } | Move::EnPassant { from, to } => {
                    squares[to.index()] = squares[from.index()].take();
                }
                Move::Castle { king, rook } => {
                    squares[king.index()] = None;
                    squares[rook.index()] = None;
                }
                Move::Drop { to, .. } => squares[to.index()] = None,
            }
            if let Some(i) = plies.iter().position(|(p, _)| *p == ply) {
                squares[e.mv.to().index()] = Some(i);
            }
        }
        Square::ALL
            .into_iter()
            .filter_map(|sq| squares[sq.index()].map(|i| (sq, plies[i].1.clone())))
            .collect()
    }

    /// Whether `end`, made by `entry` (played already), is a mate the kinds left open make
    /// unsure: some kind each piece of open kind on its board may be leaves a way out.
    pub(crate) fn end_unsure(&self, end: &GameEnd, entry: &RecordEntry) -> bool {
        let Some(board) = end.board else {
            return false;
        };
        if end.reason != EndReason::Checkmate || board != entry.board {
            return false;
        }
        let standing = self.open_standing(entry);
        if standing.is_empty() {
            return false;
        }
        let pos = self.game.board(board);
        let open: Vec<(Square, Color, Vec<Role>)> = standing
            .iter()
            .filter_map(|(sq, kinds)| {
                let piece = pos.board().piece_at(*sq)?;
                let back = matches!(sq.rank(), Rank::First | Rank::Eighth);
                let kinds = kinds
                    .iter()
                    .copied()
                    .filter(|&k| !(back && k == Role::Pawn))
                    .collect::<Vec<_>>();
                Some((*sq, piece.color, kinds))
            })
            .collect();
        let assignments = open
            .iter()
            .try_fold(1usize, |n, (_, _, kinds)| n.checked_mul(kinds.len().max(1)));
        let Some(assignments) = assignments.filter(|&n| n <= MAX_ASSIGNMENTS) else {
            return true;
        };
        (0..assignments).any(|mut a| {
            let mut trial = pos.clone();
            for (sq, color, kinds) in &open {
                if let Some(&role) = kinds.get(a % kinds.len().max(1)) {
                    trial.set_piece_at(*sq, role.of(*color));
                }
                a /= kinds.len().max(1);
            }
            !trial.is_checkmate()
        })
    }

    /// After the record was played again from the start (a kind, a promotion or a move
    /// corrected, a pending drop put after its supplier), said at `t`: a move of it may
    /// now end the game that did not when it was recorded. Nobody was told of that end,
    /// and an end stops both boards being read, so it is said here. If nothing was
    /// recorded after the move, the game ended there: an `end`. If the players went on
    /// (a later move of its board, or of the other board made after it), the mate the
    /// correction found is doubtful, as the moves say: the game is not ended, and the
    /// arbiter gets one `end-undetermined` alert offering that result.
    pub(crate) fn report_replayed_end(&mut self, t: u64, out: &mut Vec<Inference>) {
        if let Some(((board, number, side), end)) = self.unsure_end.take()
            && let Some(i) = self.find_entry(board, number, side)
        {
            // A mate the re-play found among pieces of open kind: unsure, the arbiter's.
            out.push(Inference::Alert(Self::unsure_end_alert(
                t,
                &self.record[i],
                &end,
            )));
        }
        if self.end_reported {
            return;
        }
        let (Some(end), Some(key)) = (self.game.end(), self.ended_by) else {
            return;
        };
        let Some(index) = self.find_entry(key.0, key.1, key.2) else {
            return;
        };
        let entry = self.record[index].clone();
        let mover = if entry.side == Color::White {
            "."
        } else {
            "..."
        };
        let played_on = self.record[index + 1..]
            .iter()
            .any(|e| e.board == entry.board || e.t > entry.t);
        if played_on {
            self.game.withdraw_end();
            if !self.unsure_mates.contains(&key) {
                self.unsure_mates.push(key);
            }
            let detail = format!(
                "board {}: {}{mover} {} mates once the record was corrected, but the players went on after it: the game goes on being read; the arbiter records the result if it ended",
                entry.board, entry.number, entry.san
            );
            out.push(Inference::Alert(Self::end_alert(t, &entry, &end, detail)));
            return;
        }
        self.end_reported = true;
        out.push(Inference::End {
            t,
            board: end.board,
            result: end.result,
            reason: Some(end.reason),
            detail: format!(
                "board {}: {} after {}{mover} {}, once the record was corrected",
                entry.board,
                end.reason.code(),
                entry.number,
                entry.san
            ),
        });
    }

    /// The `end-undetermined` alert of `end`, made by record entry `e`, said at `t`.
    pub(crate) fn unsure_end_alert(t: u64, e: &RecordEntry, end: &GameEnd) -> Alert {
        let detail = format!(
            "board {}: {}{} {} mates as recorded, but not as every piece whose kind the board could not tell may be: the game goes on being read; the arbiter records the result if it ended",
            e.board,
            e.number,
            if e.side == Color::White { "." } else { "..." },
            e.san
        );
        Self::end_alert(t, e, end, detail)
    }

    /// An `end-undetermined` alert of `end`, made by record entry `e`, offering its result.
    fn end_alert(t: u64, e: &RecordEntry, end: &GameEnd, detail: String) -> Alert {
        Alert {
            t,
            board: Some(e.board),
            code: AlertCode::EndUndetermined,
            reason: None,
            number: Some(e.number),
            side: Some(e.side),
            san: Some(e.san.clone()),
            detail,
            choices: vec![AlertChoice {
                label: format!("{} {}", end.result.as_str(), end.reason.code()),
                action: OperatorAction::Result {
                    result: end.result,
                    reason: Some(end.reason),
                    correct: false,
                },
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::InferConfig;
    use crate::rules::notation::parse_bfen;
    use crate::rules::{BoardId, BughouseGame, MatchResult, RulesetName, Team};

    /// Black on A, smothered once White drops the knight he holds on f7.
    fn smothered() -> Inferrer {
        let rules = RulesetName::Fide.ruleset();
        let bfen =
            "6rk/6pp/8/8/8/8/8/K7/N w - - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let boards = parse_bfen(bfen, rules).expect("bfen");
        let game = BughouseGame::from_positions(boards.a.position, boards.b.position, rules);
        Inferrer::new(InferConfig::default(), Some(game))
    }

    /// `1. N@f7#`, White's first move on A.
    fn knight_drop() -> RecordEntry {
        RecordEntry {
            board: BoardId::A,
            side: Color::White,
            number: 1,
            mv: Move::Drop {
                piece: Role::Knight.of(Color::White),
                to: "f7".parse().expect("square"),
            },
            san: "N@f7#".to_owned(),
            clock: None,
            t: 0,
            legality: crate::rules::Legality::Legal,
            flags: Default::default(),
            handoff: None,
        }
    }

    /// The first move of board A put down a piece of open kind, `kinds`.
    fn first_open(kinds: &[Role]) -> ByBoard<OpenPlies> {
        let mut plies = ByBoard::<OpenPlies>::default();
        plies[BoardId::A] = vec![(0, kinds.to_vec())];
        plies
    }

    #[test]
    fn a_mate_found_unsure_stays_unended_when_the_game_is_played_again() {
        // White's drop of open kind (a knight or a bishop) on f7: `N@f7#` as recorded,
        // unsure.
        let mut inf = smothered();
        let start = inf.game.clone();
        let entry = knight_drop();
        inf.set_open_kinds(first_open(&[Role::Knight, Role::Bishop]));
        assert_eq!(inf.apply(&entry).0, None);
        assert!(inf.game.end().is_none());
        // Played again later (a correction elsewhere), once the kinds told are a later
        // position's: still no end, which nobody would be told of.
        inf.set_open_kinds(ByBoard::default());
        inf.game = start;
        assert_eq!(inf.apply(&entry).0, None);
        assert!(inf.game.end().is_none());
    }

    /// White's knight on e5 in front of Black's king on h8, the record's moves played in.
    fn recorded(moves: &[(Color, u32, &str, &str, &str)]) -> Inferrer {
        let rules = RulesetName::Fide.ruleset();
        let bfen =
            "6rk/6pp/8/4N3/8/8/8/K7 w - - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let boards = parse_bfen(bfen, rules).expect("bfen");
        let start = BughouseGame::from_positions(boards.a.position, boards.b.position, rules);
        let mut inf = Inferrer::new(InferConfig::default(), Some(start));
        for (i, &(side, number, from, to, san)) in moves.iter().enumerate() {
            let from: Square = from.parse().expect("square");
            let role = inf
                .game
                .board(BoardId::A)
                .board()
                .role_at(from)
                .expect("piece");
            let entry = RecordEntry {
                board: BoardId::A,
                side,
                number,
                mv: crate::rules::Move::Normal {
                    role,
                    from,
                    capture: None,
                    to: to.parse().expect("square"),
                    promotion: None,
                },
                san: san.to_owned(),
                clock: None,
                t: 1_000 * (i as u64 + 1),
                legality: crate::rules::Legality::Legal,
                flags: Default::default(),
                handoff: None,
            };
            assert_eq!(inf.apply(&entry).0, None, "{san} ends nothing as recorded");
            inf.record.push(entry);
        }
        inf
    }

    #[test]
    fn an_end_a_correction_finds_is_reported() {
        // `1. Nd7` recorded, corrected to `1. Nf7#`: the game ended there, and an end
        // nobody is told of would stop both boards being read.
        let mut inf = recorded(&[(Color::White, 1, "e5", "d7", "Nd7")]);
        let mut out = Vec::new();
        inf.operator_replace(9_000, BoardId::A, 1, Color::White, "Nf7", &mut out);
        let ends: Vec<_> = out
            .iter()
            .filter_map(|i| match i {
                Inference::End { result, .. } => Some(*result),
                _ => None,
            })
            .collect();
        assert_eq!(ends, vec![MatchResult::Won(Team::WhiteA)], "{out:?}");
        assert!(inf.end_reported);
        assert!(inf.game.end().is_some());
    }

    #[test]
    fn an_end_a_correction_finds_the_players_went_on_after_is_the_arbiters() {
        // `1. Nd7 h6` recorded, the first corrected to `1. Nf7#`: Black moved after the
        // mate, so the correction's mate is doubtful: no end, one alert offering it.
        let mut inf = recorded(&[
            (Color::White, 1, "e5", "d7", "Nd7"),
            (Color::Black, 1, "h7", "h6", "h6"),
        ]);
        let mut out = Vec::new();
        inf.operator_replace(9_000, BoardId::A, 1, Color::White, "Nf7", &mut out);
        assert!(
            !out.iter().any(|i| matches!(i, Inference::End { .. })),
            "{out:?}"
        );
        let alerts: Vec<&Alert> = out
            .iter()
            .filter_map(|i| match i {
                Inference::Alert(a) => Some(a),
                _ => None,
            })
            .collect();
        assert_eq!(alerts.len(), 1, "{out:?}");
        assert_eq!(alerts[0].code, AlertCode::EndUndetermined);
        assert_eq!(alerts[0].choices.len(), 1);
        assert!(!inf.end_reported);
        assert!(inf.game.end().is_none());
        // Played again (another correction), it stays unended and is not alerted twice.
        let mut again = Vec::new();
        inf.operator_replace(9_500, BoardId::A, 1, Color::Black, "h5", &mut again);
        assert!(inf.game.end().is_none());
        assert!(
            !again
                .iter()
                .any(|i| matches!(i, Inference::End { .. } | Inference::Alert(_))),
            "{again:?}"
        );
    }

    #[test]
    fn a_mate_some_kind_of_its_open_pieces_escapes_is_unsure() {
        let end_with = |plies: ByBoard<OpenPlies>| {
            let mut inf = smothered();
            inf.set_open_kinds(plies);
            inf.apply(&knight_drop()).0
        };
        // Nothing open: the record's kinds are the board's.
        assert!(end_with(ByBoard::default()).is_some());
        // A knight only: mate.
        assert!(end_with(first_open(&[Role::Knight])).is_some());
        // A knight or a bishop: as a bishop it gives no check.
        assert_eq!(end_with(first_open(&[Role::Knight, Role::Bishop])), None);
        // Open kinds on the other board do not matter.
        let mut other = ByBoard::<OpenPlies>::default();
        other[BoardId::B] = vec![(0, vec![Role::Pawn, Role::Queen])];
        assert!(end_with(other).is_some());
    }

    #[test]
    fn the_pieces_of_open_kind_are_followed_from_the_moves_that_put_them_down() {
        // `1. N@e5 a6 2. Nf7#`, the knight dropped in doubt (a knight or a bishop): the
        // piece on f7 is the one of open kind, told only as board A's first move.
        let rules = RulesetName::Fide.ruleset();
        let bfen =
            "6rk/p5pp/8/8/8/8/8/K7/N w - - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let boards = parse_bfen(bfen, rules).expect("bfen");
        let start = BughouseGame::from_positions(boards.a.position, boards.b.position, rules);
        let sq = |s: &str| -> Square { s.parse().expect("square") };
        let entry = |side, number, mv, san: &str| RecordEntry {
            board: BoardId::A,
            side,
            number,
            mv,
            san: san.to_owned(),
            clock: None,
            t: 0,
            legality: crate::rules::Legality::Legal,
            flags: Default::default(),
            handoff: None,
        };
        let step = |role, from, to| Move::Normal {
            role,
            from: sq(from),
            capture: None,
            to: sq(to),
            promotion: None,
        };
        let moves = [
            entry(
                Color::White,
                1,
                Move::Drop {
                    piece: Role::Knight.of(Color::White),
                    to: sq("e5"),
                },
                "N@e5",
            ),
            entry(Color::Black, 1, step(Role::Pawn, "a7", "a6"), "a6"),
        ];
        let mate = entry(Color::White, 2, step(Role::Knight, "e5", "f7"), "Nf7#");
        let end_with = |kinds: &[Role]| {
            let mut inf = Inferrer::new(InferConfig::default(), Some(start.clone()));
            inf.set_open_kinds(first_open(kinds));
            for e in &moves {
                assert_eq!(inf.apply(e).0, None);
                inf.record.push(e.clone());
            }
            inf.apply(&mate).0
        };
        assert_eq!(end_with(&[Role::Knight, Role::Bishop]), None);
        assert!(end_with(&[Role::Knight]).is_some());
    }
}
