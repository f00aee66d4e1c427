//! The noise filter: a square changes only after consistent readings.
//!
//! Empty Certabo squares read random ids, occupied squares now and then read a corrupted id
//! (a piece that vanishes for one reading), and a piece slid across the board shows for a
//! moment on the squares it crosses. Like the peers (the vendor's majority over the last 3
//! readings, certabodriver's "1 + 2 readings agree"), a square's reported value changes only
//! once [`SquareFilter::agree`] readings in a row show the same new value. The first reading
//! is taken as it is. The cost is latency: a change is reported `agree - 1` readings after
//! the board first shows it (the `latency` benchmark and `docs/eboards.md` give figures).

/// Per-square debouncing over readings of 64 values (pieces, or occupancy).
#[derive(Debug, Clone)]
pub struct SquareFilter<T> {
    agree: u32,
    stable: Option<[T; 64]>,
    candidate: [(T, u32); 64],
}

impl<T: Copy + PartialEq + Default> SquareFilter<T> {
    /// A filter needing `agree` (at least 1) equal readings in a row for a change.
    #[must_use]
    pub fn new(agree: u32) -> Self {
        SquareFilter {
            agree: agree.max(1),
            stable: None,
            candidate: [(T::default(), 0); 64],
        }
    }

    /// Readings in a row a change needs.
    #[must_use]
    pub fn agree(&self) -> u32 {
        self.agree
    }

    /// Forgets everything (a new connection: the next reading is taken as it is).
    pub fn reset(&mut self) {
        self.stable = None;
        self.candidate = [(T::default(), 0); 64];
    }

    /// Takes a reading; returns the filtered state.
    pub fn update(&mut self, reading: &[T; 64]) -> [T; 64] {
        let Some(stable) = self.stable.as_mut() else {
            self.stable = Some(*reading);
            return *reading;
        };
        for i in 0..64 {
            let v = reading[i];
            let cand = &mut self.candidate[i];
            if v == stable[i] {
                *cand = (v, 0);
                continue;
            }
            *cand = if cand.1 > 0 && cand.0 == v {
                (v, cand.1 + 1)
            } else {
                (v, 1)
            };
            if cand.1 >= self.agree {
                stable[i] = v;
                *cand = (v, 0);
            }
        }
        *stable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_needs_consistent_readings() {
        let mut f = SquareFilter::<u8>::new(2);
        let a = [0u8; 64];
        let mut b = a;
        b[5] = 7;
        let mut c = a;
        c[5] = 9;
        assert_eq!(f.update(&a), a);
        assert_eq!(f.update(&b), a, "one reading is not enough");
        assert_eq!(f.update(&c), a, "a different value starts over");
        assert_eq!(f.update(&c), c);
        assert_eq!(f.update(&a), c, "flicker back is filtered too");
        assert_eq!(f.update(&c), c);
        let mut g = SquareFilter::<u8>::new(1);
        g.update(&a);
        assert_eq!(g.update(&b), b, "agree = 1 is no filter");
    }
}
