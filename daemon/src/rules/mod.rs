//! The bughouse rules core.
//!
//! It must represent what happened physically, not only what is legal: a position after a
//! completed illegal move (the side not to move in check, a pawn dropped on the back rank, a
//! piece dropped that was not in hand, more than 16 pieces of a colour) and Koedem boards
//! without a king. So every move can be *classified* (legal, or illegal with a reason) and
//! *played* either way; nothing here ever refuses what a player physically did.
//!
//! Pure: no tokio, no I/O, no clocks read inside (time is passed in where it matters).

pub mod notation;
