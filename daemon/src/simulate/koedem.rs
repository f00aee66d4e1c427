//! Koedem in the simulator: which piece a promotion grabs, and when the promoting player's
//! hand lifts it from the other board.
//!
//! The hand takes the piece from the other board before, while or (as the other board's
//! sensors report it) just after the promotion on its own board is pressed; the other
//! board plays on meanwhile, so its own player may have a piece in the air at that moment.

use crate::rules::{BoardId, BughouseGame, Move, Square};

use super::Profile;
use super::rng::Rng;

/// The grabbed piece's square for a promotion `m` on `board`, when the rules grab.
pub(crate) fn choose_grab(
    rng: &mut Rng,
    game: &BughouseGame,
    board: BoardId,
    m: &Move,
) -> Option<Square> {
    if !game.rules().promotion_by_grab {
        return None;
    }
    let sources = game.grab_sources(board, m);
    sources.into_iter().nth(rng.below(sources.count().max(1)))
}

/// When the grabbed piece leaves the other board: `first_step`/`last_step` are the times of
/// the promotion's first and last readings (pawn lifted, piece put), `press` its press,
/// `other_free` the last press of the other board (the piece stands there since). Clean:
/// between the pawn's lift and the piece's put. Otherwise also well before the lift or
/// just after the press.
pub(crate) fn grab_time(
    profile: Profile,
    rng: &mut Rng,
    first_step: u64,
    last_step: u64,
    press: u64,
    other_free: u64,
) -> u64 {
    let during = first_step + (last_step.saturating_sub(first_step)) / 2;
    let t = match profile {
        Profile::Clean => during,
        _ => match rng.below(3) {
            0 => during,
            1 => first_step.saturating_sub(rng.range(200, 1500)),
            _ => press + rng.range(40, 400),
        },
    };
    t.max(other_free + 10)
}
