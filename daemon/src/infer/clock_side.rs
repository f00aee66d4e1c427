//! White's side of the clock, as the driver learnt it from play.
//!
//! A `clock_side` event means "from here on, clock lines are labelled with White on
//! `white_side`". When that differs from the labelling in force, what the inference
//! remembers of the board's clock was labelled the other way: the running colour, the last
//! readings and a press still waiting for its move are turned round, so that the next
//! reading (labelled the new way) shows exactly the presses that were made: no phantom
//! press from the relabelling, none lost. Play overruling an explicit `left`/`right` in the
//! configuration is said once per board (`clock-side`); under `auto` it is what was asked.

use crate::rules::{BoardId, ByColor};

use super::Inferrer;
use super::event::ClockSideName;
use super::output::{Alert, AlertCode, Inference};

impl Inferrer {
    /// The driver decided White's side of `board`'s clock.
    pub(crate) fn on_clock_side(
        &mut self,
        t: u64,
        board: BoardId,
        white_side: ClockSideName,
        configured: Option<ClockSideName>,
        evidence: &str,
        out: &mut Vec<Inference>,
    ) {
        let track = &mut self.tracks[board];
        let before = track.white_side.replace(white_side);
        if before.is_some_and(|b| b != white_side) {
            let turned = |r: ByColor<f64>| ByColor {
                white: r.black,
                black: r.white,
            };
            track.running = track.running.map(|c| !c);
            track.readings = track.readings.map(turned);
            if let Some(p) = &mut track.pending {
                p.by = !p.by;
                p.readings = p.readings.map(turned);
            }
        }
        let Some(configured) = configured else {
            return;
        };
        if configured == white_side || track.clock_side_alerted {
            return;
        }
        track.clock_side_alerted = true;
        out.push(Inference::Alert(Alert::about_board(
            t,
            board,
            AlertCode::ClockSide,
            format!(
                "board {board}: White's time is on the clock's {} side, not the {} side \
                 configured ({evidence}); the clocks are read that way",
                white_side.as_str(),
                configured.as_str()
            ),
        )));
    }
}

#[cfg(test)]
mod tests {
    use crate::infer::{AlertCode, ClockSideName, InferConfig, Inference, Inferrer, SensorEvent};
    use crate::rules::{Board, BoardId, Color, Piece, Square};

    fn side(white_side: ClockSideName, configured: Option<ClockSideName>) -> SensorEvent {
        SensorEvent::ClockSide {
            board: BoardId::A,
            white_side,
            configured,
            evidence: "White put down on e4 while the right side's time ran".into(),
        }
    }

    fn clock(white: f64, black: f64, running: Option<Color>) -> SensorEvent {
        SensorEvent::Clock {
            board: BoardId::A,
            white,
            black,
            running,
        }
    }

    fn square(name: &str, piece: Option<char>) -> SensorEvent {
        SensorEvent::Square {
            board: BoardId::A,
            sq: name.parse::<Square>().expect("square"),
            piece: piece.and_then(Piece::from_char),
        }
    }

    fn run(events: &[SensorEvent]) -> Vec<Inference> {
        let mut inf = Inferrer::new(InferConfig::default(), None);
        let mut out = Vec::new();
        for (i, ev) in events.iter().enumerate() {
            out.extend(inf.observe(i as u64 * 100, ev));
        }
        out.extend(inf.tick(100_000));
        out
    }

    fn moves(out: &[Inference]) -> Vec<String> {
        out.iter()
            .filter_map(|d| match d {
                Inference::Move { entry, .. } => Some(entry.san.clone()),
                _ => None,
            })
            .collect()
    }

    fn alerts(out: &[Inference]) -> Vec<AlertCode> {
        out.iter()
            .filter_map(|d| match d {
                Inference::Alert(a) => Some(a.code),
                _ => None,
            })
            .collect()
    }

    /// The start of the swapped recording with `white_side = "left"` configured: White sits
    /// right, so the lines before the decision call the running side Black.
    #[test]
    fn a_relabelled_clock_neither_loses_the_press_nor_invents_one() {
        let (l, r) = (ClockSideName::Left, ClockSideName::Right);
        let out = run(&[
            SensorEvent::Snapshot {
                board: BoardId::A,
                placement: Board::start(),
            },
            side(l, Some(l)),
            clock(180.0, 180.0, Some(Color::Black)),
            clock(180.0, 179.0, Some(Color::Black)),
            square("e2", None),
            square("e4", Some('P')),
            // The press: White's (right) time stops; under the new labelling Black runs.
            side(r, Some(l)),
            clock(178.0, 180.0, Some(Color::Black)),
            square("e7", None),
            square("e5", Some('p')),
            clock(178.0, 177.0, Some(Color::White)),
            // The learner says it again at a later game's first press: no change.
            side(r, Some(l)),
        ]);
        assert_eq!(moves(&out), ["e4", "e5"], "{out:?}");
        assert_eq!(alerts(&out), [AlertCode::ClockSide], "{out:?}");
    }

    #[test]
    fn under_auto_a_change_is_followed_without_an_alert() {
        let (l, r) = (ClockSideName::Left, ClockSideName::Right);
        let out = run(&[
            SensorEvent::Snapshot {
                board: BoardId::A,
                placement: Board::start(),
            },
            side(l, None),
            clock(180.0, 180.0, None),
            side(r, None),
            clock(180.0, 180.0, Some(Color::White)),
            square("d2", None),
            square("d4", Some('P')),
            clock(178.0, 180.0, Some(Color::Black)),
        ]);
        assert_eq!(moves(&out), ["d4"], "{out:?}");
        assert!(alerts(&out).is_empty(), "{out:?}");
    }
}
