//! A simulated game as the snapshots a table of occupancy-only boards (Sentio) sends.

use bugbridge::infer::SensorEvent;
use bugbridge::rules::{BoardId, ByBoard};
use bugbridge::simulate::{Profile, SimGame, simulate};

/// Each board's occupied squares after every change, for `game` simulated with `profile`
/// and `seed`: `(t, board, occupied)` in time order (a reading that changes nothing is left
/// out, as a board sends none).
pub(crate) fn occupancy_snapshots(
    game: &SimGame,
    profile: Profile,
    seed: u64,
) -> Vec<(u64, BoardId, u64)> {
    occupancy_of(game, simulate(game, profile, seed))
}

/// Each board's occupied squares after every change of `trace` (a simulation of `game`),
/// as [`occupancy_snapshots`].
pub(crate) fn occupancy_of(
    game: &SimGame,
    trace: Vec<(u64, SensorEvent)>,
) -> Vec<(u64, BoardId, u64)> {
    let mut occ: ByBoard<u64> = ByBoard::new_with(|b| game.start.board(b).board().occupied().0);
    let mut out = Vec::new();
    for (t, ev) in trace {
        let (board, now) = match ev {
            SensorEvent::Snapshot { board, placement } => (board, placement.occupied().0),
            SensorEvent::Square { board, sq, piece } => {
                let bit = 1u64 << sq.index();
                let now = if piece.is_some() {
                    occ[board] | bit
                } else {
                    occ[board] & !bit
                };
                (board, now)
            }
            _ => continue,
        };
        if now != occ[board] {
            occ[board] = now;
            out.push((t, board, now));
        }
    }
    out
}
