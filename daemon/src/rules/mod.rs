//! The bughouse rules core.
//!
//! It must represent what happened physically, not only what is legal: a position after a
//! completed illegal move (the side not to move in check, a pawn dropped on the back rank, a
//! piece dropped that was not in hand, more than 16 pieces of a colour) and Koedem boards
//! without a king. So every move can be *classified* (legal, or illegal with a reason) and
//! *played* either way; nothing here ever refuses what a player physically did.
//!
//! Pure: no tokio, no I/O, no clocks read inside (time is passed in where it matters).
//!
//! # Layout
//!
//! - vocabulary: [`Square`], [`File`], [`Rank`], [`Color`], [`Role`], [`Piece`],
//!   [`Bitboard`], [`Move`], [`BoardId`], [`ByColor`], [`ByBoard`];
//! - [`Board`] (placement), [`Pocket`] (holdings), [`Position`] (one board: generation,
//!   [`Position::classify`], [`Position::play`]);
//! - [`BughouseGame`]: two boards, handoffs to the partner, outcomes;
//! - [`Ruleset`]: the rule documents' differences as data;
//! - [`notation`]: SAN with drops, BFEN, BPGN.

mod attacks;
mod bitboard;
mod board;
mod bughouse;
mod castling;
mod color;
mod koedem;
mod legality;
mod moves;
pub mod notation;
mod pocket;
mod position;
mod ruleset;
mod square;

pub use attacks::{
    aligned, attacks, between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks,
    queen_attacks, ray, rook_attacks,
};
pub use bitboard::Bitboard;
pub use board::{Board, ParsePlacementError};
pub use bughouse::{
    BoardId, BughouseGame, ByBoard, DEFAULT_SIMULTANEOUS_WINDOW_MS, EndReason, GameEnd,
    MatchResult, MaterialMismatch, MoveOutcome, Seat, Team,
};
pub use color::{ByColor, Color, Piece, Role};
pub use legality::{IllegalReason, Legality};
pub use moves::{Move, MoveList, castle_king_target, castle_rook_target};
pub use pocket::{Pocket, Pockets, holdings_string, parse_holdings};
pub use position::{Captured, Played, Position, PositionKey, Problems};
pub use ruleset::{RoleSet, Ruleset, RulesetName, UnknownRuleset};
pub use square::{File, ParseSquareError, Rank, Square};
