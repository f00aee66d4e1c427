//! Which RFID tag is which piece: learnt from readings of the start position.
//!
//! Every piece of a Certabo set carries its own tag, so the board reports tags, not pieces.
//! [`Calibrator`] learns a set from readings of the start position, the way the peers do:
//! from the 7th reading on, each of the 32 start squares must *settle* on one id seen in more
//! than half of the readings so far (the all-zero id does not count there), and so must d6
//! and d3, where an extra black and white queen may stand (there the all-zero id counts and
//! means "no extra queen"). After 15 readings without success only the last 10 are kept, so
//! a disturbed start can still settle.
//!
//! For bughouse a captured piece crosses to the partner's board, so **both boards must know
//! both sets**: [`Calibration::merge`] unites the sets learnt on each board (one table file,
//! see [`Calibration::to_json`]). A tag known as two different kinds is refused.
//!
//! An id the calibration does not know is *no piece*: empty squares read random noise. An
//! unknown id that stays on a square is more likely a piece nobody calibrated; [`StrayTags`]
//! says so once per square and id, and the square still reads empty: nothing is invented.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::frame::{TagId, TagReading};
use super::{index_to_square, square_to_index};
use crate::trace::{Placement, SensorPiece, Square};

/// Readings needed before a calibration can settle.
pub const MIN_READINGS: usize = 7;
/// Readings after which the oldest are forgotten.
pub const MAX_READINGS: usize = 15;
/// Readings kept when forgetting.
pub const KEPT_READINGS: usize = 10;
/// The square of an extra white queen during calibration.
pub const EXTRA_WHITE_QUEEN: &str = "d3";
/// The square of an extra black queen during calibration.
pub const EXTRA_BLACK_QUEEN: &str = "d6";

/// Why a calibration cannot be made or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalibrationError {
    /// Not enough readings yet.
    #[error("{have} readings of the start position so far, {MIN_READINGS} needed")]
    TooFewReadings {
        /// Readings so far.
        have: usize,
    },
    /// Squares that read no single tag in most readings.
    #[error("no tag read in most readings on {}: is the start position set up, each piece centred?", names(.0))]
    Unsettled(Vec<Square>),
    /// The same tag learnt as two kinds of piece.
    #[error("tag {tag} is known as {known} and was now read as {new}")]
    Conflict {
        /// The tag.
        tag: TagId,
        /// The kind it had.
        known: SensorPiece,
        /// The kind it was read as.
        new: SensorPiece,
    },
    /// A calibration file that cannot be read.
    #[error("calibration file: {0}")]
    File(String),
}

fn names(squares: &[Square]) -> String {
    squares
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The piece that starts on `sq`, if any.
fn start_piece(sq: Square) -> Option<SensorPiece> {
    Placement::start().get(sq)
}

/// The piece a calibration learns on `sq`: the start position's, or an extra queen on
/// [`EXTRA_WHITE_QUEEN`] / [`EXTRA_BLACK_QUEEN`].
#[must_use]
pub fn expected(sq: Square) -> Option<SensorPiece> {
    start_piece(sq).or_else(|| {
        let name = sq.to_string();
        if name == EXTRA_WHITE_QUEEN {
            SensorPiece::from_ascii(b'Q')
        } else if name == EXTRA_BLACK_QUEEN {
            SensorPiece::from_ascii(b'q')
        } else {
            None
        }
    })
}

/// What readings of one board's start position show ([`Calibrator::survey`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Survey {
    /// Readings it is made from.
    pub readings: usize,
    /// The pieces recognised: square, the piece that stands there in the start position
    /// (or an extra queen), the tag read there in most readings.
    pub recognised: Vec<(Square, SensorPiece, TagId)>,
    /// Squares where no tag was read in most readings (wire order, a8 first): a start
    /// square whose piece is missing, misplaced or unreadable; an extra queen's square
    /// that is neither empty nor steady.
    pub unsettled: Vec<Square>,
    /// Tags read on more than one square, with those squares.
    pub duplicates: Vec<(TagId, Vec<Square>)>,
}

impl Survey {
    /// The extra queens recognised (on [`EXTRA_WHITE_QUEEN`] / [`EXTRA_BLACK_QUEEN`]).
    #[must_use]
    pub fn extra_queens(&self) -> Vec<Square> {
        self.recognised
            .iter()
            .filter(|(sq, _, _)| start_piece(*sq).is_none())
            .map(|(sq, _, _)| *sq)
            .collect()
    }

    /// The calibration these readings teach.
    ///
    /// # Errors
    /// Too few readings, unsettled squares (all named), a tag read on two squares of
    /// different pieces.
    pub fn calibration(&self) -> Result<Calibration, CalibrationError> {
        if self.readings < MIN_READINGS {
            return Err(CalibrationError::TooFewReadings {
                have: self.readings,
            });
        }
        let mut cal = Calibration::new();
        for &(_, piece, id) in &self.recognised {
            cal.insert(id, piece)?;
        }
        if self.unsettled.is_empty() {
            Ok(cal)
        } else {
            Err(CalibrationError::Unsettled(self.unsettled.clone()))
        }
    }
}

/// A map from tag id to piece kind and colour.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Calibration {
    tags: BTreeMap<TagId, SensorPiece>,
}

impl Calibration {
    /// No tag known.
    #[must_use]
    pub fn new() -> Self {
        Calibration::default()
    }

    /// The piece a tag belongs to, `None` for an unknown id (noise, or uncalibrated).
    #[must_use]
    pub fn piece(&self, id: TagId) -> Option<SensorPiece> {
        self.tags.get(&id).copied()
    }

    /// Number of known tags.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    /// True when no tag is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// Every known tag with its piece, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (TagId, SensorPiece)> + '_ {
        self.tags.iter().map(|(&t, &p)| (t, p))
    }

    /// How many tags of each piece letter are known, e.g. `K1 Q2 R2 … p8`.
    #[must_use]
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for c in "KQRBNPkqrbnp".chars() {
            let n = self.tags.values().filter(|p| p.char() == c).count();
            if n > 0 {
                parts.push(format!("{c}{n}"));
            }
        }
        parts.join(" ")
    }

    /// Adds one tag (a piece added later, e.g. a second queen).
    ///
    /// # Errors
    /// [`CalibrationError::Conflict`] when the tag is known as another piece.
    pub fn insert(&mut self, tag: TagId, piece: SensorPiece) -> Result<(), CalibrationError> {
        match self.tags.get(&tag) {
            Some(&known) if known != piece => Err(CalibrationError::Conflict {
                tag,
                known,
                new: piece,
            }),
            _ => {
                self.tags.insert(tag, piece);
                Ok(())
            }
        }
    }

    /// Adds every tag of `other` (the other board's set).
    ///
    /// # Errors
    /// [`CalibrationError::Conflict`] on the first tag the two know as different pieces;
    /// nothing is changed then.
    pub fn merge(&mut self, other: &Calibration) -> Result<(), CalibrationError> {
        for (tag, piece) in other.iter() {
            if let Some(&known) = self.tags.get(&tag)
                && known != piece
            {
                return Err(CalibrationError::Conflict {
                    tag,
                    known,
                    new: piece,
                });
            }
        }
        self.tags.extend(other.iter());
        Ok(())
    }

    /// What a reading shows: known tags as their pieces, everything else empty (wire frame:
    /// the board's own orientation).
    #[must_use]
    pub fn placement(&self, reading: &TagReading) -> Placement {
        let mut p = Placement::empty();
        for (i, &id) in reading.0.iter().enumerate() {
            if let Some(sq) = index_to_square(i) {
                p.set(sq, self.piece(id));
            }
        }
        p
    }

    /// The calibration as JSON: `{"format": 1, "pieces": {"K": ["3 0 84 1 2", …], …}}`, one
    /// list of tag ids per piece letter (the table file of `docs/eboards.md`).
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut pieces: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (tag, piece) in self.iter() {
            pieces
                .entry(piece.char().to_string())
                .or_default()
                .push(tag.to_string());
        }
        let v = serde_json::json!({ "format": 1, "pieces": pieces });
        serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
    }

    /// Reads [`Calibration::to_json`]'s form.
    ///
    /// # Errors
    /// [`CalibrationError::File`] naming what is wrong; [`CalibrationError::Conflict`] for a
    /// tag listed under two pieces.
    pub fn from_json(text: &str) -> Result<Calibration, CalibrationError> {
        let bad = |m: String| CalibrationError::File(m);
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        if v.get("format").and_then(serde_json::Value::as_u64) != Some(1) {
            return Err(bad("\"format\" must be 1".into()));
        }
        let pieces = v
            .get("pieces")
            .and_then(serde_json::Value::as_object)
            .ok_or_else(|| bad("no \"pieces\" object".into()))?;
        let mut cal = Calibration::new();
        for (letter, ids) in pieces {
            let piece = letter
                .parse::<SensorPiece>()
                .map_err(|_| bad(format!("\"{letter}\" is not a piece letter")))?;
            let ids = ids
                .as_array()
                .ok_or_else(|| bad(format!("\"{letter}\" is not a list of tag ids")))?;
            for id in ids {
                let text = id.as_str().unwrap_or_default();
                let tag = TagId::parse(text).ok_or_else(|| {
                    bad(format!(
                        "\"{letter}\": {id} is not a tag id (five numbers 0-255)"
                    ))
                })?;
                cal.insert(tag, piece)?;
            }
        }
        Ok(cal)
    }
}

/// Learns one set from readings of the start position (plus optional extra queens on
/// [`EXTRA_WHITE_QUEEN`] and [`EXTRA_BLACK_QUEEN`]).
#[derive(Debug, Clone, Default)]
pub struct Calibrator {
    readings: VecDeque<TagReading>,
    done: Option<Calibration>,
}

impl Calibrator {
    /// An empty calibrator.
    #[must_use]
    pub fn new() -> Self {
        Calibrator::default()
    }

    /// Readings kept now.
    #[must_use]
    pub fn readings(&self) -> usize {
        self.readings.len()
    }

    /// Adds a reading; returns the calibration once it settles. From then on the calibration
    /// is kept and further readings are ignored (as the peers stop calibrating).
    ///
    /// # Errors
    /// Why it has not settled yet.
    pub fn add(&mut self, reading: &TagReading) -> Result<Calibration, CalibrationError> {
        if let Some(done) = &self.done {
            return Ok(done.clone());
        }
        if self.readings.len() >= MAX_READINGS {
            while self.readings.len() >= KEPT_READINGS {
                self.readings.pop_front();
            }
        }
        self.readings.push_back(reading.clone());
        let result = self.result();
        if let Ok(cal) = &result {
            self.done = Some(cal.clone());
        }
        result
    }

    /// The calibration from the readings so far.
    ///
    /// # Errors
    /// Too few readings, unsettled squares (all named), or a tag settled on two squares of
    /// different pieces.
    pub fn result(&self) -> Result<Calibration, CalibrationError> {
        self.survey().calibration()
    }

    /// What the readings so far show on each square of the start position (and on the
    /// extra queens' squares): the tags recognised, the squares where no tag settled, the
    /// tags read on more than one square. What `bugbridge calibrate` reports.
    #[must_use]
    pub fn survey(&self) -> Survey {
        let mut survey = Survey {
            readings: self.readings.len(),
            ..Survey::default()
        };
        for sq in Square::all() {
            let Some(piece) = expected(sq) else {
                continue;
            };
            let zero_counts = start_piece(sq).is_none();
            match self.settled(square_to_index(sq), zero_counts) {
                Some(id) if id.is_none() => {}
                Some(id) => survey.recognised.push((sq, piece, id)),
                None => survey.unsettled.push(sq),
            }
        }
        survey.unsettled.sort_by_key(|&sq| square_to_index(sq));
        let mut by_tag: BTreeMap<TagId, Vec<Square>> = BTreeMap::new();
        for &(sq, _, id) in &survey.recognised {
            by_tag.entry(id).or_default().push(sq);
        }
        survey.duplicates = by_tag
            .into_iter()
            .filter(|(_, squares)| squares.len() > 1)
            .collect();
        survey
    }

    /// The id seen on wire position `i` in more than half of the readings.
    fn settled(&self, i: usize, zero_counts: bool) -> Option<TagId> {
        let mut counts: HashMap<TagId, usize> = HashMap::new();
        for r in &self.readings {
            let id = r.0[i];
            if zero_counts || !id.is_none() {
                *counts.entry(id).or_default() += 1;
            }
        }
        let half = self.readings.len() / 2;
        counts
            .into_iter()
            .find(|&(_, c)| c > half)
            .map(|(id, _)| id)
    }
}

/// Unknown tags that stay: after [`StrayTags::REPEATS`] readings in a row with the same
/// unknown id on a square, that square probably holds a piece nobody calibrated. Noise never
/// repeats an id from one reading to the next.
#[derive(Debug, Clone)]
pub struct StrayTags {
    last: [(TagId, u32); 64],
    told: Vec<(Square, TagId)>,
}

impl Default for StrayTags {
    fn default() -> Self {
        StrayTags {
            last: [(TagId::NONE, 0); 64],
            told: Vec::new(),
        }
    }
}

impl StrayTags {
    /// Consecutive readings of one unknown id that make it a stray piece.
    pub const REPEATS: u32 = 3;

    /// Watches a reading; returns the squares (board's own frame) whose stray tag is new,
    /// each once.
    pub fn watch(&mut self, cal: &Calibration, reading: &TagReading) -> Vec<(Square, TagId)> {
        let mut new = Vec::new();
        for (i, &id) in reading.0.iter().enumerate() {
            let slot = &mut self.last[i];
            if id.is_none() || cal.piece(id).is_some() {
                *slot = (TagId::NONE, 0);
                continue;
            }
            *slot = if slot.0 == id {
                (id, slot.1 + 1)
            } else {
                (id, 1)
            };
            if slot.1 == Self::REPEATS
                && let Some(sq) = index_to_square(i)
                && !self.told.contains(&(sq, id))
            {
                self.told.push((sq, id));
                new.push((sq, id));
            }
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A start-position reading of set `n` (ids `n 0 0 i 1` on wire position `i`), with
    /// extra queens on d3/d6 when asked.
    fn start(n: u8, queens: bool) -> TagReading {
        let mut ids = [TagId::NONE; 64];
        for sq in Square::all() {
            let i = square_to_index(sq);
            let extra = queens
                && [EXTRA_WHITE_QUEEN, EXTRA_BLACK_QUEEN]
                    .iter()
                    .any(|name| Square::from_name(name) == Some(sq));
            if start_piece(sq).is_some() || extra {
                ids[i] = TagId([n, 0, 0, i as u8, 1]);
            }
        }
        TagReading(ids)
    }

    fn piece(c: u8) -> SensorPiece {
        SensorPiece::from_ascii(c).expect("piece")
    }

    #[test]
    fn extra_queens_on_d3_and_d6_are_learnt_and_empty_ones_are_not_pieces() {
        let mut c = Calibrator::new();
        for _ in 0..6 {
            assert!(c.add(&start(1, true)).is_err(), "not before 7 readings");
        }
        let cal = c.add(&start(1, true)).expect("calibrated");
        assert_eq!(cal.len(), 34);
        assert_eq!(cal.summary(), "K1 Q2 R2 B2 N2 P8 k1 q2 r2 b2 n2 p8");
        let d3 = square_to_index(Square::from_name("d3").expect("d3"));
        assert_eq!(cal.piece(TagId([1, 0, 0, d3 as u8, 1])), Some(piece(b'Q')));
        let mut c = Calibrator::new();
        for _ in 0..7 {
            let _ = c.add(&start(1, false));
        }
        assert_eq!(c.result().expect("calibrated").len(), 32);
    }

    #[test]
    fn the_survey_names_missing_pieces_extra_queens_and_duplicate_tags() {
        let h2 = Square::from_name("h2").expect("h2");
        let (a2, b2) = (
            Square::from_name("a2").expect("a2"),
            Square::from_name("b2").expect("b2"),
        );
        let mut r = start(1, true);
        r.0[square_to_index(h2)] = TagId::NONE;
        let dup = r.0[square_to_index(a2)];
        r.0[square_to_index(b2)] = dup;
        let mut c = Calibrator::new();
        for _ in 0..7 {
            let _ = c.add(&r);
        }
        let s = c.survey();
        assert_eq!(s.readings, 7);
        assert_eq!(s.unsettled, vec![h2]);
        assert_eq!(s.recognised.len(), 33);
        assert_eq!(
            s.extra_queens(),
            ["d3", "d6"].map(|n| Square::from_name(n).expect("square"))
        );
        assert_eq!(s.duplicates, vec![(dup, vec![a2, b2])]);
        assert_eq!(s.calibration(), Err(CalibrationError::Unsettled(vec![h2])));
        assert_eq!(expected(h2), Some(piece(b'P')));
    }

    #[test]
    fn both_sets_unite_and_a_tag_known_as_two_kinds_is_refused() {
        let learn = |n| {
            let mut c = Calibrator::new();
            for _ in 0..7 {
                let _ = c.add(&start(n, false));
            }
            c.result().expect("calibrated")
        };
        let mut table = learn(1);
        table.merge(&learn(2)).expect("disjoint sets");
        assert_eq!(table.len(), 64);
        let mut other = Calibration::new();
        let (tag, known) = table.iter().next().expect("a tag");
        let new = if known == piece(b'K') {
            piece(b'Q')
        } else {
            piece(b'K')
        };
        other.insert(tag, new).expect("insert");
        assert_eq!(
            table.merge(&other),
            Err(CalibrationError::Conflict { tag, known, new })
        );
        assert_eq!(table.len(), 64, "nothing changed");
        assert!(
            table
                .merge(&other)
                .expect_err("conflict")
                .to_string()
                .contains("is known as")
        );
    }

    #[test]
    fn an_unknown_tag_that_stays_is_told_once_naming_the_square() {
        let mut c = Calibrator::new();
        for _ in 0..7 {
            let _ = c.add(&start(1, false));
        }
        let cal = c.result().expect("calibrated");
        let mut stray = StrayTags::default();
        let e4 = Square::from_name("e4").expect("e4");
        let mut r = start(1, false);
        r.0[square_to_index(e4)] = TagId([99, 1, 2, 3, 4]);
        assert!(stray.watch(&cal, &r).is_empty());
        assert!(stray.watch(&cal, &r).is_empty());
        assert_eq!(stray.watch(&cal, &r), vec![(e4, TagId([99, 1, 2, 3, 4]))]);
        assert!(stray.watch(&cal, &r).is_empty(), "once");
        // It reads empty: no piece is invented.
        assert_eq!(cal.placement(&r).get(e4), None);
        // Noise that changes every reading is never told.
        let mut noisy = StrayTags::default();
        for k in 0..10u8 {
            let mut r = start(1, false);
            r.0[square_to_index(e4)] = TagId([99, k, 2, 3, 4]);
            assert!(noisy.watch(&cal, &r).is_empty());
        }
    }
}
