//! When the plies of a gap were pressed, from the clocks.
//!
//! A side's clock runs only between the other side's press and its own, so what each clock
//! lost across the gap is the sum of that side's thinking periods in it: the last reading
//! before the gap and the reading that ends it bound everything. A side whose clock is
//! stopped at the end made its last press with exactly the time it shows; a side with one
//! period in the gap pressed exactly when that period's length says (which makes one- and
//! two-ply gaps exact, or all but the running side's unknown split). Where a side had more
//! periods, its time is shared out evenly between them to place the presses in time (they
//! stay inside the gap and in the order of the plies), and the reading is marked as
//! estimated: it is the side's reading at the end of the gap, the one bound the clocks
//! give that is never above the real reading (how the time was split between the periods
//! is not known, and an even share may show more time than the player had left at that
//! move).

use crate::rules::{ByColor, Color};

/// The clock at one end of a gap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockMark {
    /// When (trace ms).
    pub t: u64,
    /// White's and Black's remaining seconds, if the board has a clock.
    pub readings: Option<ByColor<f64>>,
}

/// The reconstructed press of one ply.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PressTime {
    /// When (trace ms).
    pub t: u64,
    /// The mover's remaining seconds at the press.
    pub clock: Option<f64>,
    /// Whether the clocks determine the reading exactly.
    pub exact: bool,
}

/// The presses of plies by `movers` (in order) between `before` and `after`, where
/// `running` is the side whose clock runs at `after` (none when stopped or unknown).
#[must_use]
pub fn press_times(
    movers: &[Color],
    before: ClockMark,
    after: ClockMark,
    running: Option<Color>,
) -> Vec<PressTime> {
    let t0 = before.t;
    let t1 = after.t.max(t0);
    let (Some(r0), Some(r1)) = (before.readings, after.readings) else {
        return spread(movers.len(), t0, t1);
    };
    // Each side's thinking periods inside the gap: one per press, plus the one still
    // running at the end.
    let periods = ByColor::new_with(|c| {
        movers.iter().filter(|&&m| m == c).count() + usize::from(running == Some(c))
    });
    let lost = ByColor::new_with(|c| (r0[c] - r1[c]).max(0.0));
    let last_press = ByColor::new_with(|c| movers.iter().rposition(|&m| m == c));
    let mut used = ByColor {
        white: 0.0,
        black: 0.0,
    };
    let mut t = t0 as f64;
    let mut out = Vec::with_capacity(movers.len());
    for (i, &c) in movers.iter().enumerate() {
        let share = lost[c] / periods[c].max(1) as f64;
        used[c] += share;
        t += share * 1000.0;
        let exact = periods[c] == 1 || (last_press[c] == Some(i) && running != Some(c));
        // Exact at the side's last press with its clock stopped since; otherwise the
        // bound (see the module docs).
        let clock = r1[c];
        let at = (t.round().max(0.0) as u64).clamp(t0, t1);
        out.push(PressTime {
            t: at,
            clock: Some(clock),
            exact,
        });
    }
    monotone(&mut out);
    out
}

/// Whether the clocks allow plies by `movers` (in order), the first `pressed` of them
/// pressed inside the gap, between `before` (with `running` the side whose clock ran
/// then) and `after`: a clock that lost time must have run, and a side's clock runs only
/// from the start of the gap (if it ran then) or from the opponent's press. Readings of
/// whole seconds only ever show less when the clock ran; without readings anything goes.
#[must_use]
pub fn clocks_allow(
    movers: &[Color],
    pressed: usize,
    before: ClockMark,
    running: Option<Color>,
    after: ClockMark,
) -> bool {
    let (Some(r0), Some(r1)) = (before.readings, after.readings) else {
        return true;
    };
    let Some(first) = running else {
        return true;
    };
    let mut ran = ByColor {
        white: false,
        black: false,
    };
    ran[first] = true;
    for &m in movers.iter().take(pressed) {
        ran[m.other()] = true;
    }
    Color::ALL
        .into_iter()
        .all(|c| ran[c] || r0[c] - r1[c] < CLOCK_SLACK_S)
}

/// What a stopped clock may seem to lose between two readings (s): a reading taken as
/// the clock stops may round the other way than the next.
const CLOCK_SLACK_S: f64 = 0.99;

/// Without clocks: evenly between the ends, no readings.
fn spread(n: usize, t0: u64, t1: u64) -> Vec<PressTime> {
    let span = t1 - t0;
    (0..n)
        .map(|i| PressTime {
            t: t0 + span * (i as u64 + 1) / (n as u64 + 1),
            clock: None,
            exact: false,
        })
        .collect()
}

/// Presses keep the order of the plies even when rounding or clamping ties them.
fn monotone(out: &mut [PressTime]) {
    for i in 1..out.len() {
        if out[i].t < out[i - 1].t {
            out[i].t = out[i - 1].t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(t: u64, white: f64, black: f64) -> ClockMark {
        ClockMark {
            t,
            readings: Some(ByColor { white, black }),
        }
    }

    #[test]
    fn a_one_ply_gap_is_timed_exactly() {
        // White's clock ran from the last reading (t=10 s, 170 s left) to his press; at
        // link-up White shows 166 s and Black's clock runs.
        let p = press_times(
            &[Color::White],
            mark(10_000, 170.0, 175.0),
            mark(16_000, 166.0, 173.0),
            Some(Color::Black),
        );
        assert_eq!(
            p,
            [PressTime {
                t: 14_000,
                clock: Some(166.0),
                exact: true
            }]
        );
    }

    #[test]
    fn a_two_ply_gap_is_timed_exactly() {
        // White pressed after 3 s, Black after 2 s more; then White thinks 1 s until
        // link-up. White's share is split between his two periods.
        let p = press_times(
            &[Color::White, Color::Black],
            mark(10_000, 170.0, 175.0),
            mark(16_000, 166.0, 173.0),
            Some(Color::White),
        );
        assert_eq!(p[1].clock, Some(173.0));
        assert!(p[1].exact);
        // Black's clock ran exactly between the two presses: 2 s.
        assert_eq!(p[1].t - p[0].t, 2000);
        // A two-ply gap closed by a press (the board bridged at the second press, which
        // is seen): both readings exact, both times exact.
        let p = press_times(
            &[Color::White, Color::Black],
            mark(10_000, 170.0, 175.0),
            mark(15_000, 167.0, 173.0),
            None,
        );
        assert_eq!(
            p,
            [
                PressTime {
                    t: 13_000,
                    clock: Some(167.0),
                    exact: true
                },
                PressTime {
                    t: 15_000,
                    clock: Some(173.0),
                    exact: true
                }
            ]
        );
    }

    #[test]
    fn longer_gaps_stay_inside_the_gap_in_order() {
        let movers = [Color::White, Color::Black, Color::White, Color::Black];
        let p = press_times(
            &movers,
            mark(0, 100.0, 100.0),
            mark(8_000, 96.0, 96.0),
            Some(Color::White),
        );
        assert!(p.windows(2).all(|w| w[0].t <= w[1].t));
        assert!(p.iter().all(|x| x.t <= 8_000));
        assert_eq!(p[3].clock, Some(96.0));
        assert!(p[3].exact && !p[0].exact);
    }

    #[test]
    fn an_estimated_reading_is_never_above_the_real_one() {
        // Black thought 2.2 s for his first ply and 0.1 s for his second (14.6 -> 12.4
        // -> 12.3), then his clock ran 0.3 s until link-up: an even share would show
        // 13.1 s at the second ply, more than he had left after the first.
        let movers = [Color::Black, Color::White, Color::Black, Color::White];
        let p = press_times(
            &movers,
            mark(0, 12.2, 14.6),
            mark(5_000, 10.6, 12.0),
            Some(Color::Black),
        );
        assert!(!p[2].exact);
        assert_eq!(p[0].clock, Some(12.0));
        assert_eq!(p[2].clock, Some(12.0));
        assert!(p[2].clock.is_some_and(|c| c <= 12.4));
    }

    #[test]
    fn a_clock_that_lost_time_must_have_run() {
        // White's clock ran when the link went; Black's lost 2 s in the gap: White
        // pressed in it. A move pressed only at the end (none in the gap) cannot be.
        let before = mark(0, 145.0, 143.0);
        let after = mark(5_000, 144.0, 141.0);
        let w = Some(Color::White);
        assert!(!clocks_allow(&[Color::White], 0, before, w, after));
        assert!(!clocks_allow(
            &[Color::White, Color::Black],
            0,
            before,
            w,
            after
        ));
        assert!(clocks_allow(
            &[Color::White, Color::Black, Color::White],
            2,
            before,
            w,
            after
        ));
        // A clock that did not lose a whole second may or may not have run.
        assert!(clocks_allow(&[], 0, before, w, mark(5_000, 140.0, 143.0)));
    }

    #[test]
    fn without_clocks_the_plies_are_spread_over_the_gap() {
        let none = |t| ClockMark { t, readings: None };
        let p = press_times(&[Color::White, Color::Black], none(0), none(3000), None);
        assert_eq!(p.iter().map(|x| x.t).collect::<Vec<_>>(), [1000, 2000]);
        assert!(p.iter().all(|x| x.clock.is_none() && !x.exact));
    }
}
