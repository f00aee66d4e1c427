//! A board resting on a move withheld as a look-alike is said, with both readings to enter.
//!
//! A quiet move whose piece could have taken instead (set straight onto its victim, whose
//! square shows no change) reads the same as that capture followed by the opponent's drop
//! where the quiet move landed. The reading withholds it until the board's next move tells
//! (see [`super::super::OccupancyInference::commit_at_rest`]). A game's last move on a board
//! has no move after it: the board rests on it, and without a word the record would simply
//! stop short. A drop after it does not tell either (whose drop it is, the look-alike
//! leaves open). After [`STILL_WAIT_MS`] at rest the arbiter hears it once, with each
//! reading as a choice that enters it (`fill`): the quiet move (its piece of open kind as
//! each other kind that makes it, a pawn's kind stated first), or the capture and a drop of
//! each kind the opponent holds; the drops after it are read again from the board.

use crate::infer::{Alert, AlertChoice, AlertCode, Inference};
use crate::rules::notation::san_string;
use crate::rules::{BoardId, Move, Piece, Position, Role, Square};

use super::kind_statement::KindStatement;
use super::stall_choices::{
    as_other_kinds, fill_choice, kind_choice, moves_as_other_kinds, stated_choice,
};
use super::{OccupancyFeed, STILL_WAIT_MS};

impl OccupancyFeed {
    /// The alert, once per move withheld, of each board that has rested [`STILL_WAIT_MS`]
    /// on a move withheld as a look-alike (and the drops withheld after it, which do not
    /// tell), at `t`.
    pub(super) fn tell_withheld(&mut self, t: u64, alerts: &mut Vec<Inference>) {
        for b in BoardId::ALL {
            let Some((held, drops)) = self.inf.withheld[b].split_first() else {
                self.withheld_told[b] = None;
                continue;
            };
            if self.withheld_told[b] == Some(held.t) || t < self.changed[b] + STILL_WAIT_MS {
                continue;
            }
            self.withheld_told[b] = Some(held.t);
            let drops: Vec<Square> = drops.iter().map(|m| m.mv.to()).collect();
            alerts.push(Inference::Alert(self.withheld_alert(t, b, held.mv, &drops)));
        }
    }

    /// `quiet`, move `number` from `pos`, made by its piece of open kind as each other kind
    /// it may be that makes it (random 22: a bishop whose placeholder could not go f3-e2,
    /// offered only as the placeholder's illegal `f3e2`; random 163: a pawn dropped in
    /// doubt, its placeholder a knight, promoting on h8).
    fn quiet_as_other_kinds(
        &self,
        board: BoardId,
        pos: &Position,
        number: u32,
        quiet: &Move,
    ) -> Vec<AlertChoice> {
        let (Some(from), to) = (quiet.from(), quiet.to()) else {
            return Vec::new();
        };
        // The reading has played the withheld move: its piece stands where it landed.
        let kinds: Vec<Role> = self
            .inf
            .open_kinds(board)
            .into_iter()
            .filter(|(sq, _, _)| *sq == to || *sq == from)
            .flat_map(|(_, _, kinds)| kinds)
            .collect();
        let mut choices: Vec<AlertChoice> = moves_as_other_kinds(pos, from, &kinds)
            .into_iter()
            .filter(|(_, mv)| mv.to() == to && !mv.is_capture())
            .map(|(as_kind, mv)| kind_choice(board, &as_kind, number, &mv))
            .collect();
        // As a pawn (dropped in doubt, its placeholder another kind, pushed or promoting):
        // a pawn's move cannot name its piece by its square, so its fill states the kind
        // first (`(h7=P)`, see `kind_statement.rs`).
        for (as_pawn, role) in as_other_kinds(pos, from, &kinds) {
            if role != Role::Pawn {
                continue;
            }
            let stated = KindStatement { sq: from, role };
            choices.extend(
                as_pawn
                    .legal_moves()
                    .into_iter()
                    .filter(|mv| mv.from() == Some(from) && mv.to() == to && !mv.is_capture())
                    .map(|mv| stated_choice(board, &as_pawn, number, stated, &mv)),
            );
        }
        choices
    }

    /// The alert of `quiet`, withheld on `board` with the drops on `drops` after it: its
    /// readings as choices (the drops after it are read again after the arbiter's entry:
    /// after a capture and the opponent's drop they are the other side's).
    fn withheld_alert(&self, t: u64, board: BoardId, quiet: Move, drops: &[Square]) -> Alert {
        let pos = self.shown.board(board);
        let side = pos.mover(&quiet);
        let number = self.number(self.handed.len(), board, side);
        // The reading may have settled the kind of the quiet move's piece by that move (a
        // piece of open kind going along a file: a queen), which the record's placeholder
        // cannot make (random 124: `Bb3b5`): it is offered as that kind, named by its square.
        // A kind the reading still holds open is no more than its placeholder: the move is
        // offered as each kind it may be (below).
        let settled = !self
            .inf
            .open_kinds(board)
            .iter()
            .any(|(sq, _, _)| Some(*sq) == quiet.from() || *sq == quiet.to());
        let (quiet_san, first) = match (quiet, quiet.from().and_then(|f| pos.board().piece_at(f))) {
            (Move::Normal { role, from, .. }, Some(piece)) if settled && piece.role != role => {
                let mut as_kind = pos.clone();
                as_kind.set_piece_at(from, Piece { role, ..piece });
                (
                    san_string(&as_kind, &quiet),
                    kind_choice(board, &as_kind, number, &quiet),
                )
            }
            _ => (
                san_string(pos, &quiet),
                fill_choice(board, pos, number, &[quiet]),
            ),
        };
        let mut choices = vec![first];
        choices.extend(self.quiet_as_other_kinds(board, pos, number, &quiet));
        let mut captures = Vec::new();
        for capture in pos
            .legal_moves()
            .into_iter()
            .filter(|m| m.from() == quiet.from() && m.is_capture())
        {
            captures.push(san_string(pos, &capture));
            let mut after = pos.clone();
            after.play(&capture);
            // Both legal in the record's position, which the arbiter's entry is checked
            // against.
            choices.extend(
                after
                    .legal_moves()
                    .into_iter()
                    .filter(|m| m.is_drop() && m.to() == quiet.to())
                    .map(|drop| fill_choice(board, pos, number, &[capture, drop])),
            );
        }
        let after = if drops.is_empty() {
            String::new()
        } else {
            let on: Vec<String> = drops.iter().map(ToString::to_string).collect();
            format!(" and the drop on {} after it", on.join(" and "))
        };
        let detail = format!(
            "board {board}: resting for {} s on {quiet_san}{after}, which the board shows as it would show {} set straight onto its victim and the opponent's drop on {}; the board's next move tells, or the arbiter enters one (fill)",
            STILL_WAIT_MS / 1000,
            captures.join(" or "),
            quiet.to()
        );
        let mut alert = Alert::about_board(t, board, AlertCode::OccupancyStalled, detail);
        alert.side = Some(side);
        alert.number = Some(number);
        alert.san = Some(quiet_san);
        alert.choices = choices;
        alert
    }
}

#[cfg(test)]
mod tests {
    use super::super::Handed;
    use super::super::test_support::{Board, feed_with, fill_of};
    use super::*;
    use crate::infer::{OperatorAction, SensorEvent};
    use crate::rules::Color;

    /// White's knight on f3 may take e5 (set straight onto it, no change there) and Black
    /// holds a pawn to drop: f3 emptying and g5 filling is Ng5, or Nxe5 and a pawn on g5.
    const KNIGHT_AND_PAWN: &str = "4k3/8/8/4p3/8/5N2/8/4K3/p w - - | 4k3/8/8/8/8/8/8/4K3 w - -";

    /// The squares each handed-on reading puts a piece on, in order.
    fn puts(handed: &[Handed]) -> Vec<String> {
        handed
            .iter()
            .filter_map(|h| match h {
                Handed::Event(
                    _,
                    SensorEvent::Square {
                        sq, piece: Some(_), ..
                    },
                ) => Some(sq.to_string()),
                _ => None,
            })
            .collect()
    }

    /// `choice`, a fill, clicked at `t`: what `feed` hands on.
    fn enter(feed: &mut OccupancyFeed, choice: &AlertChoice, t: u64) -> Vec<Handed> {
        let (board, moves, first) = fill_of(choice);
        let (handed, _) = feed
            .fill(board, &moves, first, t)
            .unwrap_or_else(|e| panic!("{}: {e}", choice.label));
        handed
    }

    #[test]
    fn a_board_resting_on_a_withheld_look_alike_is_said_once_with_both_readings_to_enter() {
        let mut feed = feed_with(KNIGHT_AND_PAWN);
        let mut board = Board::of(&feed);
        let (handed, _) = board.play(&mut feed, &[("f3", false), ("g5", true)]);
        assert!(puts(&handed).is_empty(), "withheld: {handed:?}");
        let rested = board.t + STILL_WAIT_MS;
        let (_, early) = feed.tick(rested - 100);
        assert!(early.is_empty(), "{early:?}");
        let (_, said) = feed.tick(rested);
        let [Inference::Alert(alert)] = said.as_slice() else {
            panic!("one alert: {said:?}");
        };
        assert_eq!(alert.code, AlertCode::OccupancyStalled);
        assert_eq!(
            (alert.number, alert.side, alert.san.as_deref()),
            (Some(1), Some(Color::White), Some("Ng5"))
        );
        let labels: Vec<&str> = alert.choices.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["1. Ng5", "1. Nxe5 1... P@g5"]);
        assert!(alert.detail.contains("Nxe5"), "{}", alert.detail);
        // Said once, however long the board rests.
        assert!(feed.tick(rested + 10_000).1.is_empty());
        // Each choice enters its reading.
        for (choice, landed) in alert.choices.iter().zip([vec!["g5"], vec!["e5", "g5"]]) {
            let mut entered = feed.clone();
            assert!(
                matches!(
                    &choice.action,
                    OperatorAction::Fill {
                        first: Some((1, Color::White)),
                        ..
                    }
                ),
                "{}",
                choice.label
            );
            let handed = enter(&mut entered, choice, rested + 20_000);
            assert_eq!(puts(&handed), landed, "{}", choice.label);
        }
    }

    #[test]
    fn a_drop_after_a_withheld_look_alike_is_said_with_it_and_read_again_after_the_entry() {
        // Both sides hold a pawn: Ng5 and Black's drop on a6, or Nxe5 set straight,
        // Black's pawn on g5 and White's on a6. The board shows the same either way.
        let mut feed = feed_with("4k3/8/8/4p3/8/5N2/8/4K3/Pp w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        let mut board = Board::of(&feed);
        let (handed, _) = board.play(&mut feed, &[("f3", false), ("g5", true), ("a6", true)]);
        assert!(puts(&handed).is_empty(), "withheld: {handed:?}");
        let rested = board.t + STILL_WAIT_MS;
        let (_, said) = feed.tick(rested);
        let [Inference::Alert(alert)] = said.as_slice() else {
            panic!("one alert: {said:?}");
        };
        assert!(
            alert.detail.contains("Ng5 and the drop on a6 after it"),
            "{}",
            alert.detail
        );
        let labels: Vec<&str> = alert.choices.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["1. Ng5", "1. Nxe5 1... P@g5"]);
        // The capture's reading entered, the drop on a6 is read again as White's.
        let handed = enter(&mut feed, &alert.choices[1], rested + 20_000);
        assert_eq!(puts(&handed), ["e5", "g5", "a6"]);
    }

    #[test]
    fn a_withheld_look_alike_of_a_piece_of_open_kind_offers_its_other_kinds_move() {
        // White holds a queen and a bishop and drops on f3 (recorded as a bishop); after
        // Black's reply the piece goes to e2: a bishop's or a queen's move, or Bxc6 set
        // straight and Black's pawn dropped on e2.
        let mut feed = feed_with("4k3/8/2n5/8/8/8/8/4K3/QBp w - - | 4k3/8/8/8/8/8/8/4K3 w - -");
        let mut board = Board::of(&feed);
        board.play(
            &mut feed,
            &[
                ("f3", true),
                ("e8", false),
                ("d8", true),
                ("f3", false),
                ("e2", true),
            ],
        );
        let rested = board.t + STILL_WAIT_MS;
        let (_, said) = feed.tick(rested);
        let [Inference::Alert(alert)] = said.as_slice() else {
            panic!("one alert: {said:?}");
        };
        let labels: Vec<&str> = alert.choices.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            ["2. Be2", "2. Qe2 (f3 a queen)", "2. Bxc6 2... P@e2"],
            "{}",
            alert.detail
        );
        // The queen's move entered settles the drop a queen.
        let handed = enter(&mut feed, &alert.choices[1], rested + 20_000);
        // The queen on f3 handed on again as settled, then its move.
        assert_eq!(puts(&handed), ["f3", "e2"]);
        assert!(
            handed
                .iter()
                .any(|h| matches!(h, Handed::Settled { mv: Move::Drop { piece, .. }, .. } if piece.role == Role::Queen)),
            "{handed:?}"
        );
    }
}
