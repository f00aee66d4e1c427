//! Link outages of [`Profile::Outages`](super::Profile::Outages): a board's device drops off
//! for 1.5–6 s (a cable knocked out, a hub reset, a Bluetooth board's link) while both
//! boards play on, at least once a game. Nothing the silent board does in the window is
//! reported; at its end come `link up`, a snapshot and a clock reading, as a reconnecting
//! driver sends them.
//!
//! Where the game has one, the first outage is placed over a capture whose piece the
//! other board drops soon after (the drop then arrives while its supplier is silent);
//! the others start 0.2–1.5 s before one of the board's presses (a move often on the
//! board unpressed when the link goes; a quarter of them in the opening), and end
//! wherever they end (a hand in the air at link-up leaves its piece out of the snapshot). Outages never overlap and leave both boards' first presses
//! and last events alone.
//!
//! Two kinds, half each: the board lost its power with the link (nothing of the window is
//! ever reported: the inference bridges the gap by search), or it stayed powered, as a
//! DGT board with its own supply or on Bluetooth, and kept its EEPROM log. The trace of
//! the second kind is what a DGT session reports when it replays that log, in the
//! trace's own lines (`docs/eboards.md`, "The DGT board's event log"): at link-up, `link`
//! up, a `board` snapshot of the board as the link left it, the window's `square` changes
//! and clock presses in order (the log keeps no periodic readings), all at the link-up
//! time, then the dump's `board` snapshot and a `clock` reading as for the first kind.

use crate::rules::{BoardId, ByColor, Color};

use super::rng::Rng;
use super::timeline::{Kind, Out, PressInfo};

/// Shortest and longest outage (ms).
const SHORTEST: u64 = 1500;
const LONGEST: u64 = 6000;

/// Adds one or two outages to the events (see the module docs).
pub(super) fn add_outages(out: &mut Out, presses: &[PressInfo], rng: &mut Rng) {
    let Some(last_t) = out.evs.iter().map(|e| e.t).max() else {
        return;
    };
    let mut windows: Vec<(BoardId, u64, u64)> = Vec::new();
    if let Some(w) = over_a_supplying_capture(out, presses, rng) {
        windows.push(w);
    }
    let wanted = 1 + usize::from(rng.chance(0.3));
    let mut tries = 0;
    while windows.len() < wanted && tries < 50 {
        tries += 1;
        let board = if rng.chance(0.5) {
            BoardId::A
        } else {
            BoardId::B
        };
        let len = rng.range(SHORTEST, LONGEST + 1);
        if last_t < len + 4000 {
            break;
        }
        let start = before_a_press(out, presses, board, rng)
            .filter(|&s| s + len + 1000 < last_t)
            .unwrap_or_else(|| rng.range(1500, last_t - len - 1000));
        let w = (board, start, start + len);
        if windows.iter().all(|&o| apart(o, w)) {
            windows.push(w);
        }
    }
    // Drawn after every window is placed, so that the windows of a seed stay the same.
    let powered: Vec<bool> = windows.iter().map(|_| rng.chance(0.5)).collect();
    for ((board, down, up), powered) in windows.into_iter().zip(powered) {
        out.push(down, board, Kind::Link(false), false);
        out.hidden.push((board, down + 1, up));
        if powered {
            out.logged.push((board, down + 1, up));
        }
        out.push(up, board, Kind::Link(true), false);
        out.push(up + 20, board, Kind::Snapshot, false);
        let (readings, running) = clock_at(out, board, up + 30);
        out.push(up + 30, board, Kind::Clock(readings, running), false);
    }
}

/// A start 0.2–1.5 s before one of the board's presses (not its first), so that a move is
/// often on the board, lifted and put down, with its press still to come when the link
/// goes; a quarter of the time among the board's first presses (a gap in the opening,
/// where plies come fast). `None` when the board has too few presses.
fn before_a_press(out: &Out, presses: &[PressInfo], board: BoardId, rng: &mut Rng) -> Option<u64> {
    let own: Vec<u64> = presses
        .iter()
        .filter(|p| p.board == board)
        .map(|p| out.evs[p.ev].t)
        .skip(1)
        .collect();
    if own.is_empty() {
        return None;
    }
    let pick = if rng.chance(0.25) {
        rng.below(own.len().min(6))
    } else {
        rng.below(own.len())
    };
    let start = own[pick].saturating_sub(rng.range(200, 1501));
    (start >= 1500).then_some(start)
}

/// Two outages at least 3 s apart.
fn apart(a: (BoardId, u64, u64), b: (BoardId, u64, u64)) -> bool {
    a.2 + 3000 < b.1 || b.2 + 3000 < a.1
}

/// A window over a capture whose piece the partner drops within the next few seconds.
fn over_a_supplying_capture(
    out: &Out,
    presses: &[PressInfo],
    rng: &mut Rng,
) -> Option<(BoardId, u64, u64)> {
    if !rng.chance(0.6) {
        return None;
    }
    let t = |p: &PressInfo| out.evs[p.ev].t;
    let pairs: Vec<(usize, usize)> = presses
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let (seat, role) = p.handoff?;
            let j = presses[i + 1..].iter().position(|q| {
                q.board == seat.board
                    && q.dropped
                        .is_some_and(|d| d.color == seat.color && d.role == role)
            })? + i
                + 1;
            (t(&presses[j]) > t(p) && t(&presses[j]) - t(p) < LONGEST - 600 && t(p) > 2500)
                .then_some((i, j))
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let (i, j) = pairs[rng.below(pairs.len())];
    let (tc, td) = (t(&presses[i]), t(&presses[j]));
    let len = rng.range((td - tc + 600).max(SHORTEST), LONGEST + 1);
    // The capture's press and the drop's both fall inside the window.
    let lead = rng.range(200, len - (td - tc) - 200 + 1);
    let start = tc.saturating_sub(lead).max(1500);
    Some((presses[i].board, start, start + len))
}

/// What `board`'s clock shows at `t`: the last press's readings, the running side's time
/// counted down in whole seconds, as the periodic readings do.
fn clock_at(out: &Out, board: BoardId, t: u64) -> (ByColor<f64>, Option<Color>) {
    let last = out
        .evs
        .iter()
        .filter(|e| e.board == board && e.press && e.t <= t)
        .max_by_key(|e| e.t);
    match last.map(|e| (e.t, e.kind)) {
        Some((at, Kind::Clock(mut r, running))) => {
            if let Some(side) = running {
                let k = ((t - at) / 1000) as f64;
                if k >= 1.0 {
                    r[side] = (r[side] - k).max(0.5);
                }
            }
            (r, running)
        }
        _ => (
            ByColor {
                white: 0.0,
                black: 0.0,
            },
            None,
        ),
    }
}
