//! Notation: SAN with drops, BFEN and BPGN.
//!
//! "Malformed", "illegal" and "ambiguous" are different errors: parsing text gives a
//! `Parse*Error` naming the place; resolving notation against a position gives an illegal or
//! ambiguous error naming the move.

pub mod bfen;
pub mod bpgn;
pub mod grab;
pub mod san;
pub mod sequence;
pub mod variant;

pub use bfen::{
    BoardFen, ParseBfenError, parse_bfen, parse_board_fen, write_bfen, write_board_fen,
};
pub use san::{CastlingSide, ParseSanError, San, SanError, SanKind, Suffix, san_string};
pub use sequence::{SequenceError, legal_sequence};
