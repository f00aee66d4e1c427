//! A BPGN game played through [`BughouseGame`]: both boards, captures handed to the
//! partner, in file order.
//!
//! Each SAN is resolved on its board as a move of the token's colour
//! ([`San::to_move_for`](crate::rules::notation::San::to_move_for)), so a completed illegal
//! move resolves to what was physically played and is classified. The replay stops at the
//! first illegal move (after playing it, so its position is known) or at a SAN that names
//! no move at all.
//!
//! The 2010 exports repeat the last move at a time forfeit (`23b. N@f4+{50.870} 23b.
//! N@f4+{50.870}`, adjacent or not). Only that export artifact is skipped (and noted): the
//! game's final token, the same token and SAN as the mover's last move on that board, in a
//! game that ended on time. Any other move whose token was already played with the same SAN
//! stops the replay as `repeated-move`.
//!
//! A Koedem grab (`e8=Qd1`) takes the piece off the other board as it promotes; a grab the
//! rules forbid (a king, the wrong colour, an empty square, a ruleset without grabs) stops
//! the replay as an illegal move (`bad-promotion`) without being played.

use std::collections::HashSet;
use std::fmt;

use crate::rules::notation::bfen::{ParseBfenError, write_bfen};
use crate::rules::notation::{San, SanError};
use crate::rules::{
    BoardId, BughouseGame, ByBoard, ByColor, Color, IllegalReason, Legality, Move, MoveOutcome,
    Ruleset,
};

use super::{BpgnGame, MoveToken};

/// A move that was played.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayedMove {
    /// Its index in [`BpgnGame::moves`].
    pub index: usize,
    /// `12A.` and so on.
    pub token: MoveToken,
    /// The SAN as written.
    pub san_text: String,
    /// The move it resolved to.
    pub mv: Move,
    /// The SAN the writer would give it on the position before (`+`/`#` and
    /// disambiguation computed, not copied): a cross-check of the text.
    pub canonical_san: String,
    /// What playing it did (legality, capture, handoff, end).
    pub outcome: MoveOutcome,
    /// The BFEN after it, with the latest clock times known (see [`replay`]).
    pub bfen: String,
}

/// A move left out as an export artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedMove {
    /// Its index in [`BpgnGame::moves`].
    pub index: usize,
    /// Its token.
    pub token: MoveToken,
    /// Its SAN as written.
    pub san_text: String,
    /// Why it was skipped.
    pub note: String,
}

/// Why a replay stopped before the end of the moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayStop {
    /// The move was played but breaks a rule.
    Illegal {
        /// Its index in [`BpgnGame::moves`].
        index: usize,
        /// Its token.
        token: MoveToken,
        /// Its SAN as written.
        san_text: String,
        /// The rule it breaks.
        reason: IllegalReason,
    },
    /// The move's token was already played with the same SAN (and it is not the export
    /// artifact of a time forfeit; see the module docs).
    Repeated {
        /// Its index in [`BpgnGame::moves`].
        index: usize,
        /// Its token.
        token: MoveToken,
        /// Its SAN as written.
        san_text: String,
    },
    /// The SAN names no move the pieces could make, or several.
    Unresolved {
        /// Its index in [`BpgnGame::moves`].
        index: usize,
        /// Its token.
        token: MoveToken,
        /// Its SAN as written.
        san_text: String,
        /// Illegal (nothing fits) or ambiguous.
        error: SanError,
    },
}

impl ReplayStop {
    /// The token of the move where it stopped.
    #[must_use]
    pub const fn token(&self) -> MoveToken {
        match self {
            ReplayStop::Illegal { token, .. }
            | ReplayStop::Repeated { token, .. }
            | ReplayStop::Unresolved { token, .. } => *token,
        }
    }

    /// The SAN as written of that move.
    #[must_use]
    pub fn san_text(&self) -> &str {
        match self {
            ReplayStop::Illegal { san_text, .. }
            | ReplayStop::Repeated { san_text, .. }
            | ReplayStop::Unresolved { san_text, .. } => san_text,
        }
    }

    /// The reason code: an [`IllegalReason::code`]; `bad-piece-movement` when no piece
    /// could make the move; `ambiguous-san` when several could; `repeated-move` for a token
    /// played twice.
    #[must_use]
    pub const fn reason_code(&self) -> &'static str {
        match self {
            ReplayStop::Illegal { reason, .. } => reason.code(),
            ReplayStop::Repeated { .. } => "repeated-move",
            ReplayStop::Unresolved {
                error: SanError::Illegal,
                ..
            } => IllegalReason::BadPieceMovement.code(),
            ReplayStop::Unresolved {
                error: SanError::Ambiguous,
                ..
            } => "ambiguous-san",
        }
    }
}

impl fmt::Display for ReplayStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.token(),
            self.san_text(),
            self.reason_code()
        )
    }
}

/// A game's setup cannot be played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    /// The `FEN` tag is not a BFEN.
    Setup(ParseBfenError),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Setup(e) => write!(f, "the FEN tag: {e}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// What replaying a game gave.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The moves played, in file order (the illegal one that stopped it included).
    pub moves: Vec<ReplayedMove>,
    /// The repeated moves left out.
    pub skipped: Vec<SkippedMove>,
    /// Where and why it stopped early, if it did.
    pub stop: Option<ReplayStop>,
    /// Both boards as they stand after the last move played.
    pub game: BughouseGame,
    /// The BFEN of the start (with times when known).
    pub start_bfen: String,
}

impl Replay {
    /// Whether every move was legal.
    #[must_use]
    pub const fn is_legal(&self) -> bool {
        self.stop.is_none()
    }
}

/// Latest known clock times; missing ones fall back to the base time.
struct Clocks {
    known: ByBoard<ByColor<Option<f64>>>,
    base: Option<f64>,
}

impl Clocks {
    fn times(&self) -> ByBoard<Option<ByColor<f64>>> {
        ByBoard::new_with(|b| {
            let k = self.known[b];
            match (k.white.or(self.base), k.black.or(self.base)) {
                (Some(white), Some(black)) => Some(ByColor { white, black }),
                _ => None,
            }
        })
    }
}

fn bfen_of(game: &BughouseGame, clocks: &Clocks) -> String {
    write_bfen(
        ByBoard {
            a: game.board(BoardId::A),
            b: game.board(BoardId::B),
        },
        clocks.times(),
    )
}

/// Whether the move at `index`, already played, is the 2010 exports' artifact: the game's
/// final token, repeating the mover's last move on that board, in a game lost on time.
fn is_forfeit_artifact(game: &BpgnGame, index: usize, played: &[ReplayedMove]) -> bool {
    let m = &game.moves[index];
    let on_time = game
        .end_comment
        .as_deref()
        .is_some_and(|c| c.contains("forfeits on time"));
    let last_of_mover = played
        .iter()
        .rev()
        .find(|p| p.token.board == m.token.board && p.token.color == m.token.color);
    on_time
        && index + 1 == game.moves.len()
        && last_of_mover.is_some_and(|p| p.token == m.token && p.san_text == m.san_text)
}

/// Plays `game` under `rules` (see the module docs). The BFEN after each move carries the
/// latest clock comment of each side on each board; a side without one yet gets the
/// `Setup` BFEN's time, else the `TimeControl` base, else the board's times are left out.
///
/// # Errors
///
/// [`ReplayError::Setup`] when the `FEN` tag is not a BFEN.
pub fn replay(game: &BpgnGame, rules: Ruleset) -> Result<Replay, ReplayError> {
    let start = game.start_positions(rules).map_err(ReplayError::Setup)?;
    let mut clocks = Clocks {
        known: ByBoard::new_with(|b| start[b].times.map_or(ByColor::default(), |t| t.map(Some))),
        base: game.base_time(),
    };
    let mut board_game =
        BughouseGame::from_positions(start.a.position.clone(), start.b.position.clone(), rules);
    let start_bfen = bfen_of(&board_game, &clocks);
    let mut moves = Vec::new();
    let mut skipped = Vec::new();
    let mut stop = None;
    let mut played: HashSet<(MoveToken, &str)> = HashSet::new();
    for (index, m) in game.moves.iter().enumerate() {
        let token = m.token;
        if played.contains(&(token, m.san_text.as_str())) {
            if !is_forfeit_artifact(game, index, &moves) {
                stop = Some(ReplayStop::Repeated {
                    index,
                    token,
                    san_text: m.san_text.clone(),
                });
                break;
            }
            skipped.push(SkippedMove {
                index,
                token,
                san_text: m.san_text.clone(),
                note: format!(
                    "{token} {} repeats a move already played: an export artifact, skipped",
                    m.san_text
                ),
            });
            continue;
        }
        let position = board_game.board(token.board);
        let mv = match m.san.to_move_for(position, token.color) {
            Ok(mv) => mv,
            Err(error) => {
                stop = Some(ReplayStop::Unresolved {
                    index,
                    token,
                    san_text: m.san_text.clone(),
                    error,
                });
                break;
            }
        };
        let canonical_san = San::from_move(position, &mv)
            .with_grab(m.san.grab)
            .to_string();
        let outcome = match m.san.grab {
            None => board_game.play(token.board, &mv, 0),
            Some(grab) => match board_game.play_grab_promotion(token.board, &mv, grab, 0) {
                Ok(outcome) => outcome,
                Err(reason) => {
                    stop = Some(ReplayStop::Illegal {
                        index,
                        token,
                        san_text: m.san_text.clone(),
                        reason,
                    });
                    break;
                }
            },
        };
        if let Some(t) = m.clock {
            let side = &mut clocks.known[token.board];
            match token.color {
                Color::White => side.white = Some(t),
                Color::Black => side.black = Some(t),
            }
        }
        played.insert((token, m.san_text.as_str()));
        moves.push(ReplayedMove {
            index,
            token,
            san_text: m.san_text.clone(),
            mv,
            canonical_san,
            outcome,
            bfen: bfen_of(&board_game, &clocks),
        });
        if let Legality::Illegal(reason) = outcome.legality {
            stop = Some(ReplayStop::Illegal {
                index,
                token,
                san_text: m.san_text.clone(),
                reason,
            });
            break;
        }
    }
    Ok(Replay {
        moves,
        skipped,
        stop,
        game: board_game,
        start_bfen,
    })
}
