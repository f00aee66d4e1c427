//! Which board ended the game, and the match result it gives.
//!
//! FICS exports (all eras in `tests/data/bpgn/SOURCES.md`) write the result of the board where the
//! game ended, from that board's White, although the BPGN standard says "in terms of the
//! White player on board A". So a `0-1` of a game that ended on board B is a win of
//! WhiteA's team. The board is found from the loser's name at the start of the end comment
//! (`{YScorpion checkmated}`) matched to the player tags; failing that, from the last mate
//! (`#`) or the last move. A named loser also gives the winning team directly.
//!
//! bugbridge's own files follow the standard and say so with a `[Recorder "bugbridge …"]`
//! tag: their result is read as written, whichever board ended the game.

use crate::rules::{BoardId, Color, MatchResult, Seat, notation::Suffix};

use super::BpgnGame;

/// The tag bugbridge writes into its own files (`[Recorder "bugbridge 0.1.0"]`): their
/// result is the team result (White on board A's team), never a board's.
pub const RECORDER_TAG: &str = "Recorder";

/// The start of the [`RECORDER_TAG`] value of bugbridge's files.
pub const RECORDER: &str = "bugbridge";

/// The [`RECORDER_TAG`] value this version writes.
#[must_use]
pub fn recorder_value() -> String {
    format!("{RECORDER} {}", env!("CARGO_PKG_VERSION"))
}

impl BpgnGame {
    /// Whether the file says its result is the team result, as the standard writes it:
    /// bugbridge's own recordings ([`RECORDER_TAG`]). FICS exports do not say so and write
    /// the result of the board where the game ended.
    #[must_use]
    pub fn states_team_result(&self) -> bool {
        self.tag(RECORDER_TAG)
            .is_some_and(|v| v.split_whitespace().next() == Some(RECORDER))
    }

    /// The result as written: the terminator, else the `Result` tag, else unfinished.
    #[must_use]
    pub fn raw_result(&self) -> MatchResult {
        self.result
            .or_else(|| self.tag("Result").and_then(MatchResult::from_str_opt))
            .unwrap_or(MatchResult::Unfinished)
    }

    /// The player named at the start of the end comment (`TheLagger forfeits on time`),
    /// the longest matching name winning when one name starts another.
    #[must_use]
    pub fn named_loser(&self) -> Option<Seat> {
        let end = self.end_comment.as_deref()?;
        let mut best: Option<(usize, Seat)> = None;
        for board in BoardId::ALL {
            for color in Color::ALL {
                let seat = Seat::new(board, color);
                let Some(name) = self.tag(&seat.tag()).map(str::trim) else {
                    continue;
                };
                let follows = end.strip_prefix(name).map(|rest| {
                    rest.is_empty() || rest.starts_with(|c: char| c.is_whitespace() || c == '\'')
                });
                if !name.is_empty()
                    && follows == Some(true)
                    && best.is_none_or(|(len, _)| name.len() > len)
                {
                    best = Some((name.len(), seat));
                }
            }
        }
        best.map(|(_, seat)| seat)
    }

    /// The board where the game ended: the named loser's, else the last mate's, else the
    /// last move's; `None` for a game without moves nor a named loser.
    #[must_use]
    pub fn ended_board(&self) -> Option<BoardId> {
        if let Some(seat) = self.named_loser() {
            return Some(seat.board);
        }
        self.moves
            .iter()
            .rev()
            .find(|m| m.san.suffix == Some(Suffix::Mate))
            .or(self.moves.last())
            .map(|m| m.token.board)
    }

    /// The match result (`1-0`: WhiteA's team won). For a decided game: the named loser's
    /// team lost; without a named loser, the written result turned around when the game
    /// ended on board B (see the module docs). Draws and unfinished games stay as written.
    ///
    /// The loser's name decides first because it reads the same under both conventions:
    /// the 1996 standard sample (`{death checkmated} 0-1`, death Black on B, last move on
    /// board A) follows the standard's team convention, the FICS exports the board one.
    ///
    /// A file written by bugbridge (its [`RECORDER_TAG`]) states the team result already,
    /// as the BPGN standard asks: it is taken as written.
    #[must_use]
    pub fn team_result(&self) -> MatchResult {
        if self.states_team_result() {
            return self.raw_result();
        }
        match self.raw_result() {
            MatchResult::Won(team) => match self.named_loser() {
                Some(loser) => MatchResult::Won(loser.team().other()),
                None if self.ended_board() == Some(BoardId::B) => MatchResult::Won(team.other()),
                None => MatchResult::Won(team),
            },
            other => other,
        }
    }
}
