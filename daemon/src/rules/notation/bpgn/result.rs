//! Which board ended the game, and the match result it gives.
//!
//! The BPGN standard states the result for WhiteA's team, and every writer but FICS follows
//! it (bughouse.pro, pychess, the chess.com viewer, bugbridge). FICS exports (all eras in
//! `tests/data/bpgn/SOURCES.md`) write the result of the board where the game ended, from
//! that board's White: a `0-1` of a game that ended on board B is a win of WhiteA's team.
//! A file is read as a FICS export only on explicit markers ([`BpgnGame::is_fics_export`]).
//!
//! An end comment naming a player decides first, under both conventions: the loser at its
//! start (`{YScorpion checkmated}`, FICS) or the winner (`{X won by checkmate}`, `{X won with
//! their bughouse partner}`, the chess.com viewer). Otherwise a FICS export's board is the
//! last mate's (`#`) or the last move's. bugbridge's own files (`[Recorder "bugbridge …"]`)
//! are read as written.

use crate::rules::{BoardId, Color, MatchResult, Seat, notation::Suffix};

use super::{Annotation, BpgnGame};

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

    /// The result as written: a decisive terminator, else a decisive `Result` tag (a
    /// decisive tag wins over a `*` terminator: the chess.com viewer ends every game `*`
    /// after its end comment), else the terminator, else the tag, else unfinished.
    #[must_use]
    pub fn raw_result(&self) -> MatchResult {
        let tag = self.tag("Result").and_then(MatchResult::from_str_opt);
        match (self.result, tag) {
            (Some(r @ (MatchResult::Won(_) | MatchResult::Draw)), _) => r,
            (_, Some(t @ (MatchResult::Won(_) | MatchResult::Draw))) => t,
            (Some(r), _) => r,
            (None, Some(t)) => t,
            (None, None) => MatchResult::Unfinished,
        }
    }

    /// Whether the file is a FICS export (whose result is that of the board where the game
    /// ended): only on explicit markers, a `Site` or `Event` naming FICS or freechess, a
    /// `BughouseDBGameNo` tag, a comment naming bughousedb, or an end comment in FICS's
    /// phrasing (`X checkmated`, `X forfeits on time`, `X resigns`, ...). Files without
    /// them follow the standard: the result is WhiteA's team's.
    #[must_use]
    pub fn is_fics_export(&self) -> bool {
        let names_fics = |v: &str| {
            let v = v.to_ascii_lowercase();
            v.contains("fics") || v.contains("freechess")
        };
        let tags = self.tags.iter().any(|(n, v)| {
            n.eq_ignore_ascii_case("BughouseDBGameNo")
                || ((n.eq_ignore_ascii_case("Site") || n.eq_ignore_ascii_case("Event"))
                    && names_fics(v))
        });
        let comments = self
            .preamble
            .iter()
            .chain(self.moves.iter().flat_map(|m| m.annotations.iter()))
            .any(|a| matches!(a, Annotation::Comment(c) if c.to_ascii_lowercase().contains("bughousedb")));
        tags || comments || self.fics_end_phrasing()
    }

    /// An end comment in FICS's words: a player, then `checkmated`, `resigns`,
    /// `forfeits on time`, `forfeits by disconnection`, `ran out of time`...
    fn fics_end_phrasing(&self) -> bool {
        const PHRASES: [&str; 6] = [
            " checkmated",
            " resigns",
            " forfeits on time",
            " forfeits by disconnection",
            " ran out of time",
            " lost connection",
        ];
        self.end_comment
            .as_deref()
            .is_some_and(|end| PHRASES.iter().any(|p| end.contains(p)))
    }

    /// The player the end comment names as the winner: `X won by checkmate`, `X won on
    /// time`, `X won with their bughouse partner` (the chess.com viewer's words).
    #[must_use]
    pub fn named_winner(&self) -> Option<Seat> {
        self.named_winner_in(self.end_comment.as_deref()?)
    }

    /// The result rule [`team_result`](Self::team_result) applies to this file.
    #[must_use]
    pub fn result_rule(&self) -> ResultRule {
        if self.states_team_result() {
            return ResultRule::Recorder;
        }
        if !matches!(self.raw_result(), MatchResult::Won(_)) {
            return ResultRule::AsWritten;
        }
        if let Some(seat) = self.named_winner() {
            return ResultRule::NamedWinner(seat);
        }
        if let Some(seat) = self.named_loser() {
            return ResultRule::NamedLoser(seat);
        }
        if self.is_fics_export() {
            return ResultRule::FicsBoard(self.ended_board().unwrap_or(BoardId::A));
        }
        ResultRule::Standard
    }

    /// The player named at the start of the end comment (`TheLagger forfeits on time`),
    /// the longest matching name winning when one name starts another.
    #[must_use]
    pub fn named_loser(&self) -> Option<Seat> {
        let end = self.end_comment.as_deref()?;
        self.named_player(end)
            .filter(|_| self.named_winner_in(end).is_none())
    }

    fn named_winner_in(&self, end: &str) -> Option<Seat> {
        let seat = self.named_player(end)?;
        let name = self.tag(&seat.tag()).map_or("", str::trim);
        let rest = end.strip_prefix(name)?.trim_start();
        (rest == "won" || rest.starts_with("won ") || rest.starts_with("wins")).then_some(seat)
    }

    /// The player whose name starts `end`, the longest matching name winning.
    fn named_player(&self, end: &str) -> Option<Seat> {
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
        match self.result_rule() {
            ResultRule::Recorder | ResultRule::AsWritten | ResultRule::Standard => {
                self.raw_result()
            }
            ResultRule::NamedWinner(seat) => MatchResult::Won(seat.team()),
            ResultRule::NamedLoser(seat) => MatchResult::Won(seat.team().other()),
            ResultRule::FicsBoard(board) => match self.raw_result() {
                MatchResult::Won(team) if board == BoardId::B => MatchResult::Won(team.other()),
                other => other,
            },
        }
    }
}

/// How a file's team result was read ([`BpgnGame::result_rule`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultRule {
    /// bugbridge's own file (`[Recorder "bugbridge …"]`): the team result as written.
    Recorder,
    /// No decisive result written: a draw or `*` as written.
    AsWritten,
    /// The end comment names the winner (`X won by checkmate`): that player's team won.
    NamedWinner(Seat),
    /// The end comment names the loser (`X checkmated`): that player's team lost.
    NamedLoser(Seat),
    /// A FICS export without a named player: the result of the board where the game ended
    /// (from that board's White), turned into the team result.
    FicsBoard(BoardId),
    /// The BPGN standard: the result is WhiteA's team's, whichever board ended.
    Standard,
}

impl std::fmt::Display for ResultRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResultRule::Recorder => write!(f, "bugbridge's team result as written"),
            ResultRule::AsWritten => write!(f, "the result as written"),
            ResultRule::NamedWinner(seat) => {
                write!(f, "the end comment names the winner, {}", seat.tag())
            }
            ResultRule::NamedLoser(seat) => {
                write!(f, "the end comment names the loser, {}", seat.tag())
            }
            ResultRule::FicsBoard(board) => write!(
                f,
                "FICS export: the result of board {}, where the game ended",
                board.char()
            ),
            ResultRule::Standard => write!(
                f,
                "BPGN standard: the team result of WhiteA, whichever board ended"
            ),
        }
    }
}
