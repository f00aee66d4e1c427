//! What the arbiter sees of a piece of open kind that does not move, said in a fill.
//!
//! A placeholder can make the board's true move illegal in the record although the piece
//! itself stays put: a knight promoted on f1 recorded as the default queen "checks" the
//! king on e1, so White's `fxg4` cannot be entered. The arbiter looks at f1 and sees a
//! knight. A fill may begin with such statements, `(f1=N)`: the piece of open kind on f1
//! is a knight. Each settles that kind (a `correction` of the drop or promotion that put
//! the piece down) before the moves after it are entered. The parentheses keep a
//! statement apart from every SAN move (`f1=N` alone is a pawn's promotion).

use crate::rules::{BoardId, Role, Square};

use super::super::super::output::Inference;
use super::super::ResumeRefused;
use super::{Handed, OccupancyFeed};

/// "The piece on `sq` is a `role`", as a fill states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::infer::occupancy) struct KindStatement {
    /// The square of the piece of open kind.
    pub sq: Square,
    /// Its kind.
    pub role: Role,
}

impl KindStatement {
    /// The statement as a fill's ply: `(f1=N)`.
    #[must_use]
    pub(in crate::infer::occupancy) fn to_ply(self) -> String {
        format!("({}={})", self.sq, self.role.upper_char())
    }

    /// `ply` as a statement, when it has a statement's parentheses.
    ///
    /// # Errors
    ///
    /// The reason, when it has them but no square and kind between.
    fn parse(ply: &str) -> Option<Result<KindStatement, String>> {
        let inner = ply.trim().strip_prefix('(')?;
        let parsed = inner
            .strip_suffix(')')
            .and_then(|inner| inner.split_once('='))
            .and_then(|(sq, role)| {
                let sq: Square = sq.parse().ok()?;
                let mut letters = role.chars();
                let role = Role::from_char(letters.next()?)?;
                (letters.next().is_none() && role != Role::King)
                    .then_some(KindStatement { sq, role })
            });
        Some(parsed.ok_or_else(|| {
            format!(
                "{ply:?} is not a kind statement such as (f1=N): a square, `=`, and P, N, B, R or Q"
            )
        }))
    }
}

/// The kind statements `plies` begins with, and the plies after them.
///
/// # Errors
///
/// [`ResumeRefused`] naming the statement that is not one.
pub(super) fn kind_statements(
    board: BoardId,
    plies: &[String],
) -> Result<(Vec<KindStatement>, &[String]), ResumeRefused> {
    let mut stated = Vec::new();
    for (i, ply) in plies.iter().enumerate() {
        match KindStatement::parse(ply) {
            None => return Ok((stated, &plies[i..])),
            Some(Ok(s)) => stated.push(s),
            Some(Err(e)) => return Err(ResumeRefused(format!("board {board}: moves[{i}] {e}"))),
        }
    }
    Ok((stated, &[]))
}

impl OccupancyFeed {
    /// Settles the kinds `stated` of `board`'s pieces of open kind at `t`, handing on the
    /// record's corrections. Every statement is checked before any is settled.
    ///
    /// # Errors
    ///
    /// [`ResumeRefused`] when a square holds no piece of open kind, or it may not be the
    /// kind stated.
    pub(super) fn settle_stated(
        &mut self,
        board: BoardId,
        stated: &[KindStatement],
        t: u64,
        events: &mut Vec<Handed>,
        alerts: &mut Vec<Inference>,
    ) -> Result<(), ResumeRefused> {
        let mut settle = Vec::with_capacity(stated.len());
        for s in stated {
            let open = self
                .open_kind_at(board, s.sq)
                .filter(|_| self.shown.board(board).board().piece_at(s.sq).is_some());
            let Some((at, kinds)) = open else {
                return Err(ResumeRefused(format!(
                    "board {board}: no piece of open kind on {}",
                    s.sq
                )));
            };
            if !kinds.contains(&s.role) {
                return Err(ResumeRefused(format!(
                    "board {board}: the piece on {} may be a {}, not a {}",
                    s.sq,
                    kinds
                        .iter()
                        .map(|r| r.to_string())
                        .collect::<Vec<_>>()
                        .join(" or "),
                    s.role
                )));
            }
            settle.push((at, s.role));
        }
        for (at, role) in settle {
            self.inf.settle_kind_now(board, at, role)?;
            self.hand_on_as_made(&[], t, events, alerts);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plies(list: &[&str]) -> Vec<String> {
        list.iter().map(|&p| p.to_owned()).collect()
    }

    #[test]
    fn statements_lead_a_fill_and_a_promotion_is_no_statement() {
        let list = plies(&["(f1=N)", "(c4=b)", "fxg4", "f1=N"]);
        let (stated, rest) = kind_statements(BoardId::A, &list).expect("statements");
        assert_eq!(
            stated,
            [
                KindStatement {
                    sq: "f1".parse().expect("f1"),
                    role: Role::Knight
                },
                KindStatement {
                    sq: "c4".parse().expect("c4"),
                    role: Role::Bishop
                }
            ]
        );
        assert_eq!(rest, ["fxg4", "f1=N"]);
        assert_eq!(stated[0].to_ply(), "(f1=N)");
        let promotion = plies(&["f1=N"]);
        let (none, all) = kind_statements(BoardId::A, &promotion).expect("a move");
        assert!(none.is_empty() && all == ["f1=N"]);
    }

    #[test]
    fn a_malformed_statement_is_refused_naming_it() {
        for bad in ["(f1=K)", "(f9=N)", "(f1N)", "(f1=NN)", "(f1=N"] {
            let refused =
                kind_statements(BoardId::B, &plies(&["(e2=Q)", bad, "e4"])).expect_err(bad);
            assert!(
                refused.0.contains("moves[1]") && refused.0.contains("kind statement"),
                "{refused}"
            );
        }
    }
}
