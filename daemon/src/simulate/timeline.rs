//! Timing: think times from the clocks, each move's readings placed before its press,
//! premoves, faults, link gaps, periodic clock readings; then everything in time order.

use crate::infer::SensorEvent;
use crate::rules::{Board, BoardId, ByBoard, ByColor, Color, Piece, Role, Seat, Square};

use super::physical::{self, Step};
use super::rng::Rng;
use super::{Profile, SimGame};

#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    Square(Square, Option<Piece>),
    Clock(ByColor<f64>, Option<Color>),
    Link(bool),
    Snapshot,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Ev {
    pub(super) t: u64,
    seq: u64,
    pub(super) board: BoardId,
    pub(super) kind: Kind,
    /// A press (for periodic readings).
    pub(super) press: bool,
}

pub(super) struct Out {
    start: ByBoard<Board>,
    pub(super) evs: Vec<Ev>,
    seq: u64,
    /// Link gaps: the board's events inside are not reported.
    pub(super) hidden: Vec<(BoardId, u64, u64)>,
    /// The gaps of [`Out::hidden`] of a DGT board that stayed powered: its field changes
    /// and presses inside are replayed at link-up, from its EEPROM log.
    pub(super) logged: Vec<(BoardId, u64, u64)>,
}

/// A press of the game, for placing outages: its event, its board, what its capture
/// handed to the partner, what it dropped.
#[derive(Debug, Clone, Copy)]
pub(super) struct PressInfo {
    pub(super) ev: usize,
    pub(super) board: BoardId,
    pub(super) handoff: Option<(Seat, Role)>,
    pub(super) dropped: Option<Piece>,
}

impl Out {
    pub(super) fn push(&mut self, t: u64, board: BoardId, kind: Kind, press: bool) -> usize {
        self.seq += 1;
        self.evs.push(Ev {
            t,
            seq: self.seq,
            board,
            kind,
            press,
        });
        self.evs.len() - 1
    }

    fn steps(&mut self, mut t: u64, board: BoardId, steps: &[Step]) -> u64 {
        for s in steps {
            t += s.delay;
            self.push(t, board, Kind::Square(s.sq, s.piece), false);
        }
        t
    }
}

fn duration(steps: &[Step]) -> u64 {
    steps.iter().map(|s| s.delay).sum()
}

/// The trace two real boards with clocks would produce for `game` (see the module docs).
#[must_use]
pub fn simulate(game: &SimGame, profile: Profile, seed: u64) -> Vec<(u64, SensorEvent)> {
    let mut rng = Rng::new(seed);
    let noisy = profile != Profile::Clean;
    let faults = profile == Profile::Faults;
    let mut state = game.start.clone();
    let mut phys: ByBoard<Board> = ByBoard::new_with(|b| *state.board(b).board());
    let base = game.base_seconds;
    let mut clocks: ByBoard<ByColor<f64>> = ByBoard::new_with(|_| ByColor {
        white: base,
        black: base,
    });
    let mut out = Out {
        start: phys,
        evs: Vec::new(),
        seq: 0,
        hidden: Vec::new(),
        logged: Vec::new(),
    };
    for b in BoardId::ALL {
        out.push(0, b, Kind::Snapshot, false);
    }
    for b in BoardId::ALL {
        let turn = state.board(b).turn();
        out.push(0, b, Kind::Clock(clocks[b], Some(turn)), true);
    }
    let mut board_free: ByBoard<u64> = ByBoard::default();
    let mut prev_global = 0u64;
    let mut last_press: Option<(usize, BoardId)> = None;
    // The last press cannot arrive late: it fell in a link gap, was duplicated, or came
    // before its piece was put down.
    let mut last_press_fixed = false;
    let mut last_handoff: Option<(Seat, Role, bool)> = None;
    let n = game.moves.len();
    let mut premoved = vec![false; n];
    let mut presses: Vec<PressInfo> = Vec::with_capacity(n);

    for i in 0..n {
        let sm = game.moves[i];
        let b = sm.board;
        let mv = sm.mv;
        let pos = state.board(b).clone();
        let c = pos.mover(&mv);
        let elapsed = (clocks[b][c] - sm.clock).max(0.0);
        let think = ((elapsed * 1000.0) as u64).clamp(400, 60_000) + rng.range(0, 300);
        let mut press_t = (board_free[b] + think).max(prev_global + rng.range(60, 400));

        // Case 30: the drop's press reaches us before the supplying capture's press.
        let race = noisy
            && i > 0
            && mv.is_drop()
            && last_press.is_some_and(|(_, ob)| ob != b)
            && !last_press_fixed
            && last_handoff.is_some_and(|(seat, role, had)| {
                seat == Seat::new(b, c) && Some(role) == drop_role(&mv) && !had
            })
            && rng.chance(0.5);
        let link = faults && !race && rng.chance(0.015);
        let link_across_press = link && rng.chance(0.5);

        let mut late: Option<Step> = None;
        let mut actions_start = board_free[b] + 100;
        let mut actions_end = actions_start;
        let mut first_step = actions_start;
        if !premoved[i] {
            // A grabbed piece is put on the promotion square for real.
            let show_pawn = sm.grab.is_none()
                && mv.promotion() == Some(Role::Queen)
                && noisy
                && rng.chance(0.4);
            let mut steps = physical::script(&pos, &phys[b], &mv, show_pawn, profile, &mut rng);
            physical::apply(&mut phys[b], &steps);
            let dur = duration(&steps);
            // Think noise before the hand moves.
            let mut t = board_free[b] + rng.range(100, 300);
            let room = press_t.saturating_sub(dur + 600);
            if noisy && t + 2000 < room {
                t = think_noise(&mut out, &mut rng, b, t, faults);
            }
            if faults && !link && !steps.is_empty() && steps.len() > 1 && rng.chance(0.03) {
                late = steps.pop();
            }
            let start = t.max(press_t.saturating_sub(dur + rng.range(100, 400)));
            actions_start = start;
            first_step = start + steps.first().map_or(0, |s| s.delay);
            let end = out.steps(start, b, &steps);
            actions_end = end;
            if end + 50 > press_t {
                press_t = end + rng.range(50, 300);
            }
        }

        // Premove: the opponent's next move is already made when the press comes.
        let next_same = (i + 1..n).find(|&j| game.moves[j].board == b);
        if noisy
            && !link
            && late.is_none()
            && let Some(j) = next_same
            && !game.moves[j].mv.is_drop()
            && game.moves[j].grab.is_none()
            // A piece grabbed from this board in between is not there yet.
            && game.moves[i + 1..j].iter().all(|m| m.grab.is_none())
            && rng.chance(0.15)
        {
            {
                let mut after = state.clone();
                after.play(b, &mv, press_t);
                let pos2 = after.board(b).clone();
                let mv2 = game.moves[j].mv;
                let show_pawn = mv2.promotion() == Some(Role::Queen) && rng.chance(0.4);
                let steps = physical::script(&pos2, &phys[b], &mv2, show_pawn, profile, &mut rng);
                physical::apply(&mut phys[b], &steps);
                let end = out.steps(actions_end + rng.range(50, 250), b, &steps);
                premoved[j] = true;
                if end + 30 > press_t {
                    press_t = end + rng.range(30, 200);
                }
            }
        }

        clocks[b][c] = sm.clock;
        let readings = clocks[b];
        let running = Some(c.other());
        let press_idx = out.push(press_t, b, Kind::Clock(readings, running), true);
        let mut free = press_t;
        if let Some(s) = late {
            let put_t = press_t + rng.range(100, 500);
            out.push(put_t, b, Kind::Square(s.sq, s.piece), false);
            free = put_t + 50;
        }
        let duplicated = faults && rng.chance(0.02);
        if duplicated {
            out.push(press_t + 80, b, Kind::Clock(readings, running), false);
            free = free.max(press_t + 80);
        }
        if link {
            let down = actions_start.saturating_sub(60).max(board_free[b] + 1);
            let up = if link_across_press {
                press_t + rng.range(150, 600)
            } else {
                actions_end + 40
            };
            out.push(down, b, Kind::Link(false), false);
            out.push(up, b, Kind::Link(true), false);
            out.hidden.push((b, down + 1, up));
            out.push(up + 20, b, Kind::Snapshot, false);
            let (r, run) = if link_across_press {
                (readings, running)
            } else {
                // The mover still thinks: his clock runs.
                (readings, Some(c))
            };
            out.push(up + 30, b, Kind::Clock(r, run), false);
            if link_across_press {
                free = free.max(up + 50);
                // Nothing else is pressed while this board is away: the order of the
                // presses would be unknowable.
                prev_global = prev_global.max(up + 40);
            } else if press_t <= up + 100 {
                press_t = up + rng.range(100, 300);
                out.evs[press_idx].t = press_t;
                free = free.max(press_t);
            }
        }
        if race && let Some((k, ob)) = last_press {
            let moved = press_t + rng.range(20, 150);
            out.evs[k].t = moved;
            board_free[ob] = board_free[ob].max(moved);
            free = free.max(press_t);
            prev_global = prev_global.max(moved);
        }
        if let Some(grab) = sm.grab {
            // Koedem: the grabbed piece leaves the other board, which plays on.
            let other = b.other();
            let t = super::koedem::grab_time(
                profile,
                &mut rng,
                first_step,
                actions_end,
                press_t,
                board_free[other],
            );
            out.push(t, other, Kind::Square(grab, None), false);
            phys[other].set_square(grab, None);
            let next_there = game.moves[i + 1..].iter().find(|m| m.board == other);
            if next_there.is_some_and(|m| m.mv.to() == grab || m.mv.from() == Some(grab)) {
                board_free[other] = board_free[other].max(t);
            }
        }
        board_free[b] = free;
        prev_global = prev_global.max(press_t);
        last_press = Some((press_idx, b));
        last_press_fixed = link_across_press || duplicated || late.is_some();
        let grabbed = sm
            .grab
            .and_then(|g| state.play_grab_promotion(b, &mv, g, press_t).ok());
        let outcome = match grabbed {
            Some(outcome) => outcome,
            None => state.play_classified(b, &mv, state.classify(b, &mv), press_t),
        };
        presses.push(PressInfo {
            ev: press_idx,
            board: b,
            handoff: outcome.handoff,
            dropped: match mv {
                crate::rules::Move::Drop { piece, .. } => Some(piece),
                _ => None,
            },
        });
        last_handoff = outcome.handoff.map(|(seat, role)| {
            let had = state.board(seat.board).pockets()[seat.color].count(role) > 1;
            (seat, role, had)
        });
    }
    if noisy {
        periodic_readings(&mut out);
    }
    if profile == Profile::Outages {
        super::outage::add_outages(&mut out, &presses, &mut rng);
    }
    finish(out, game)
}

fn drop_role(m: &crate::rules::Move) -> Option<Role> {
    match *m {
        crate::rules::Move::Drop { piece, .. } => Some(piece.role),
        _ => None,
    }
}

/// A j'adoube, a flicker, and with faults a knocked piece or a misread, during the think.
/// Each puts back what it takes, so the board is as before when the hand moves.
fn think_noise(out: &mut Out, rng: &mut Rng, b: BoardId, mut t: u64, faults: bool) -> u64 {
    let board_now = current_board(out, b);
    if rng.chance(0.05)
        && let Some(sq) = physical::any_occupied(&board_now, rng)
    {
        // J'adoube.
        let p = board_now.piece_at(sq);
        t += rng.range(200, 900);
        out.push(t, b, Kind::Square(sq, None), false);
        t += rng.range(300, 900);
        out.push(t, b, Kind::Square(sq, p), false);
    }
    if rng.chance(0.05)
        && let Some(sq) = physical::any_occupied(&board_now, rng)
    {
        // One-scan flicker.
        let p = board_now.piece_at(sq);
        t += rng.range(100, 500);
        out.push(t, b, Kind::Square(sq, None), false);
        t += rng.range(20, 60);
        out.push(t, b, Kind::Square(sq, p), false);
    }
    if faults
        && rng.chance(0.03)
        && let Some(sq) = physical::any_occupied(&board_now, rng)
    {
        // Knocked onto a neighbouring empty square, then put back.
        let p = board_now.piece_at(sq);
        let near = crate::rules::king_attacks(sq) - board_now.occupied();
        if let Some(nb) = near.first() {
            t += rng.range(100, 400);
            out.push(t, b, Kind::Square(sq, None), false);
            t += rng.range(40, 120);
            out.push(t, b, Kind::Square(nb, p), false);
            t += rng.range(200, 600);
            out.push(t, b, Kind::Square(nb, None), false);
            t += rng.range(200, 700);
            out.push(t, b, Kind::Square(sq, p), false);
        }
    }
    if faults
        && rng.chance(0.03)
        && let Some(sq) = physical::any_occupied(&board_now, rng)
        && let Some(p) = board_now.piece_at(sq)
    {
        // One scan reads another role.
        let wrong = match p.role {
            Role::Bishop => Role::Knight,
            Role::Knight => Role::Bishop,
            Role::Queen => Role::King,
            Role::King | Role::Rook => Role::Queen,
            Role::Pawn => Role::Bishop,
        };
        t += rng.range(100, 500);
        out.push(t, b, Kind::Square(sq, Some(wrong.of(p.color))), false);
        t += rng.range(30, 80);
        out.push(t, b, Kind::Square(sq, Some(p)), false);
    }
    t
}

/// The board `b` as the events so far leave it (the noise must put back what it takes).
fn current_board(out: &Out, b: BoardId) -> Board {
    let mut evs: Vec<&Ev> = out.evs.iter().filter(|e| e.board == b).collect();
    evs.sort_by_key(|e| (e.t, e.seq));
    let mut board = out.start[b];
    for e in evs {
        if let Kind::Square(sq, p) = e.kind {
            board.set_square(sq, p);
        }
    }
    board
}

/// Every second while a clock runs, a reading of the same running side.
fn periodic_readings(out: &mut Out) {
    for b in BoardId::ALL {
        let mut presses: Vec<(u64, ByColor<f64>, Option<Color>)> = out
            .evs
            .iter()
            .filter(|e| e.board == b && e.press)
            .filter_map(|e| match e.kind {
                Kind::Clock(r, run) => Some((e.t, r, run)),
                _ => None,
            })
            .collect();
        presses.sort_by_key(|x| x.0);
        for w in presses.windows(2) {
            let (t0, r, run) = w[0];
            let t1 = w[1].0;
            let Some(side) = run else { continue };
            let mut k = 1u64;
            while t0 + 1000 * k + 150 < t1 {
                let mut reading = r;
                reading[side] = (r[side] - k as f64).max(0.5);
                out.push(t0 + 1000 * k, b, Kind::Clock(reading, run), false);
                k += 1;
            }
        }
    }
}

fn finish(out: Out, game: &SimGame) -> Vec<(u64, SensorEvent)> {
    let Out {
        mut evs,
        hidden,
        logged,
        ..
    } = out;
    evs.sort_by_key(|e| (e.t, e.seq));
    let mut phys: ByBoard<Board> = ByBoard::new_with(|b| *game.start.board(b).board());
    // A logged gap: the board as the link left it, and what its log kept since.
    let mut left: ByBoard<Board> = phys;
    let mut missed: ByBoard<Vec<SensorEvent>> = ByBoard::default();
    let mut result = Vec::with_capacity(evs.len());
    for e in evs {
        let window = hidden
            .iter()
            .find(|&&(hb, from, to)| hb == e.board && e.t >= from && e.t < to);
        let is_hidden = window.is_some() && !matches!(e.kind, Kind::Link(_) | Kind::Snapshot);
        if let Kind::Square(sq, p) = e.kind {
            phys[e.board].set_square(sq, p);
        }
        if is_hidden {
            if window.is_some_and(|w| logged.contains(w)) {
                // The log keeps field changes and presses, not the periodic readings.
                if matches!(e.kind, Kind::Square(..)) || e.press {
                    missed[e.board].push(report(&e, &phys));
                }
            }
            continue;
        }
        let board = e.board;
        match e.kind {
            Kind::Link(false) => left[board] = phys[board],
            Kind::Link(true) if logged.iter().any(|&(lb, _, to)| lb == board && to == e.t) => {
                // As a DGT session replays the log: the link, the board as it was left,
                // the missed field changes and presses, then (below) the dump.
                result.push((e.t, SensorEvent::Link { board, up: true }));
                result.push((
                    e.t,
                    SensorEvent::Snapshot {
                        board,
                        placement: left[board],
                    },
                ));
                result.extend(missed[board].drain(..).map(|ev| (e.t, ev)));
                continue;
            }
            _ => {}
        }
        result.push((e.t, report(&e, &phys)));
    }
    result
}

/// The sensor event of `e`, with the board as `phys` shows it.
fn report(e: &Ev, phys: &ByBoard<Board>) -> SensorEvent {
    let board = e.board;
    match e.kind {
        Kind::Square(sq, piece) => SensorEvent::Square { board, sq, piece },
        Kind::Clock(r, running) => SensorEvent::Clock {
            board,
            white: r.white,
            black: r.black,
            running,
        },
        Kind::Link(up) => SensorEvent::Link { board, up },
        Kind::Snapshot => SensorEvent::Snapshot {
            board,
            placement: phys[board],
        },
    }
}
