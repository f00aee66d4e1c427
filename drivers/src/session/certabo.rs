//! The Certabo / Sentio side of a session: the board talks unasked, the host only lights LEDs.
//!
//! Readings are decoded ([`FrameDecoder`]), turned into pieces by the table's calibration
//! (Certabo) or into occupancy (Sentio), filtered ([`SquareFilter`]: a square changes only
//! after consistent readings) and reported: `link` up and a snapshot at the first reading of a
//! connection, then `square` changes (Certabo) or `occupancy` snapshots (Sentio).
//!
//! A Certabo board whose start position carries tags the calibration does not know learns
//! them ([`Calibrator`]) and adds them to the table's [`SharedCalibration`], which the other
//! board of the table shares: a piece captured here and dropped there is known there too.
//! Until the board's own set is known nothing is reported. An unknown tag that stays on a
//! square is reported once ([`StrayTags`]) as an `unknown_tag` event naming the square, and the
//! square still reads empty.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::board_state::{BoardTracker, Orientation};
use super::run::Protocol;
use super::{Control, DriverKind, SessionConfig};
use crate::certabo::calibration::StrayTags;
use crate::certabo::{
    Calibration, Calibrator, Expect, FrameDecoder, LedAck, Message, SquareFilter, TagReading, led,
    square_to_index,
};
use crate::error::SessionError;
use crate::sentio;
use crate::trace::{Occupancy, Placement, SensorPiece, Square, TraceEvent};

/// Shortest time between two LED commands (the peers' pacing for one-colour boards).
const LED_GAP: Duration = Duration::from_millis(600);
/// How long an LED command waits for an `L`/`D` before the RGB form is tried.
const RGB_TRY_AFTER: Duration = Duration::from_millis(400);

/// The tag calibration of a table, shared by its boards' sessions and the daemon (which saves
/// it when it changes: [`SharedCalibration::subscribe`]).
#[derive(Debug, Clone)]
pub struct SharedCalibration(Arc<watch::Sender<Calibration>>);

impl Default for SharedCalibration {
    fn default() -> Self {
        SharedCalibration::new(Calibration::new())
    }
}

impl SharedCalibration {
    /// Starts from `cal` (a saved table calibration, or empty).
    #[must_use]
    pub fn new(cal: Calibration) -> Self {
        SharedCalibration(Arc::new(watch::Sender::new(cal)))
    }

    /// The calibration now.
    #[must_use]
    pub fn get(&self) -> Calibration {
        self.0.borrow().clone()
    }

    /// Watches changes (a board learnt its set).
    #[must_use]
    pub fn subscribe(&self) -> watch::Receiver<Calibration> {
        self.0.subscribe()
    }

    /// Adds a learnt set.
    ///
    /// The merge happens under the table's lock: both boards of a table learn their sets at
    /// the same moment (both start positions are set up together), and a read-merge-write
    /// from two sessions would keep only the set written last. The other board would then
    /// read its own pieces as empty squares.
    ///
    /// # Errors
    /// A tag known as another piece: nothing is added.
    pub fn merge(&self, learnt: &Calibration) -> Result<(), crate::certabo::CalibrationError> {
        let mut outcome = Ok(());
        self.0.send_if_modified(|table| match table.merge(learnt) {
            Ok(()) => true,
            Err(e) => {
                outcome = Err(e);
                false
            }
        });
        outcome
    }
}

/// A Certabo square changes after 2 readings in a row: a noise id on an empty square or a
/// misread tag lasts one reading.
pub const CERTABO_AGREE: u32 = 2;

/// A Sentio square changes at the first reading that shows it: an occupancy sensor reads no
/// noise ids, and the square of a piece captured by replacement (the victim lifted, the
/// capturer put down at once) may read empty in one reading only: that reading is what tells
/// the inference which piece was taken.
pub const SENTIO_AGREE: u32 = 1;

/// Certabo / Sentio set-up.
#[derive(Debug, Clone)]
pub struct CertaboSettings {
    /// Readings in a row a square needs to change (1 = no filter); `None`, the default, is
    /// the board's own: [`CERTABO_AGREE`] or [`SENTIO_AGREE`].
    pub agree: Option<u32>,
    /// The table's calibration (Certabo).
    pub calibration: SharedCalibration,
    /// Learn the tags of a start position the calibration does not know.
    pub learn: bool,
}

impl Default for CertaboSettings {
    fn default() -> Self {
        CertaboSettings {
            agree: None,
            calibration: SharedCalibration::default(),
            learn: true,
        }
    }
}

#[derive(Debug)]
pub(crate) struct CertaboProtocol {
    cfg: SessionConfig,
    decoder: FrameDecoder,
    pieces: SquareFilter<Option<SensorPiece>>,
    occupied: SquareFilter<bool>,
    board: BoardTracker,
    calibrator: Calibrator,
    stray: StrayTags,
    synced: bool,
    last_occupancy: Option<Occupancy>,
    last_rx: Instant,
    leds: Leds,
}

#[derive(Debug, Default)]
struct Leds {
    kind: Option<LedAck>,
    wanted: Option<[u8; 8]>,
    sent: Option<(Instant, [u8; 8])>,
    rgb_due: Option<(Instant, [u8; 8])>,
}

impl Leds {
    fn pump(&mut self, now: Instant, out: &mut Vec<u8>) {
        if let Some((due, bits)) = self.rgb_due
            && now >= due
        {
            self.rgb_due = None;
            if self.kind.is_none() {
                out.extend(led::rgb(&bits, led::RGB_DEFAULT));
            }
        }
        let Some(bits) = self.wanted else { return };
        if self.sent.is_some_and(|(_, b)| b == bits) {
            self.wanted = None;
            return;
        }
        if self
            .sent
            .is_some_and(|(at, _)| now.duration_since(at) < LED_GAP)
        {
            return;
        }
        self.wanted = None;
        self.sent = Some((now, bits));
        match self.kind {
            Some(LedAck::Rgb) => out.extend(led::rgb(&bits, led::RGB_DEFAULT)),
            Some(LedAck::Classic) => out.extend(bits),
            None => {
                out.extend(bits);
                self.rgb_due = Some((now + RGB_TRY_AFTER, bits));
            }
        }
    }
}

fn to_array(p: &Placement) -> [Option<SensorPiece>; 64] {
    let mut a = [None; 64];
    for sq in Square::all() {
        a[usize::from(sq.index())] = p.get(sq);
    }
    a
}

fn from_array(a: &[Option<SensorPiece>; 64]) -> Placement {
    let mut p = Placement::empty();
    for sq in Square::all() {
        p.set(sq, a[usize::from(sq.index())]);
    }
    p
}

impl CertaboProtocol {
    pub(crate) fn new(cfg: SessionConfig) -> Self {
        let expect = match cfg.driver {
            DriverKind::Sentio => Expect::Ranks,
            _ => Expect::Tags,
        };
        let agree = cfg.certabo.agree.unwrap_or(match cfg.driver {
            DriverKind::Sentio => SENTIO_AGREE,
            _ => CERTABO_AGREE,
        });
        CertaboProtocol {
            decoder: FrameDecoder::new(expect),
            pieces: SquareFilter::new(agree),
            occupied: SquareFilter::new(agree),
            board: BoardTracker::new(cfg.board, cfg.orientation),
            calibrator: Calibrator::new(),
            stray: StrayTags::default(),
            synced: false,
            last_occupancy: None,
            last_rx: Instant::now(),
            leds: Leds::default(),
            cfg,
        }
    }

    fn link_up(&mut self, ev: &mut Vec<TraceEvent>) -> bool {
        let first = !self.synced;
        if first {
            self.synced = true;
            ev.push(TraceEvent::Link {
                board: self.cfg.board,
                up: true,
            });
        }
        first
    }

    /// The reading in the normal frame's wire order when the board is configured turned
    /// (a calibration needs the start position the right way round).
    fn upright(&self, r: &TagReading) -> TagReading {
        if self.cfg.orientation == Orientation::Rotated {
            let mut ids = r.0;
            ids.reverse();
            TagReading(ids)
        } else {
            r.clone()
        }
    }

    /// Learns this board's set when its start squares carry tags nobody knows. `None`
    /// while it is still learning: the board is not read with the other board's set alone
    /// (its own pieces would all read as empty squares).
    fn learn(&mut self, cal: &Calibration, r: &TagReading) -> Option<Calibration> {
        let r = self.upright(r);
        let start = Placement::start();
        let unknown = Square::all()
            .filter(|&sq| start.get(sq).is_some())
            .filter(|&sq| {
                let id = r.0[square_to_index(sq)];
                !id.is_none() && cal.piece(id).is_none()
            })
            .count();
        if unknown < 16 {
            self.calibrator = Calibrator::new();
            return Some(cal.clone());
        }
        match self.calibrator.add(&r) {
            Ok(learnt) => {
                self.calibrator = Calibrator::new();
                match self.cfg.certabo.calibration.merge(&learnt) {
                    Ok(()) => {
                        tracing::info!(
                            board = %self.cfg.board,
                            "board {}: learnt {} tags from its start position ({}); the table knows {} tags",
                            self.cfg.board,
                            learnt.len(),
                            learnt.summary(),
                            self.cfg.certabo.calibration.get().len()
                        );
                    }
                    Err(e) => {
                        tracing::warn!(board = %self.cfg.board, "board {}: calibration refused: {e}", self.cfg.board);
                    }
                }
                Some(self.cfg.certabo.calibration.get())
            }
            Err(e) => {
                tracing::debug!(board = %self.cfg.board, "calibrating: {e}");
                None
            }
        }
    }

    fn on_tags(&mut self, r: &TagReading, ev: &mut Vec<TraceEvent>) {
        let mut cal = self.cfg.certabo.calibration.get();
        if self.cfg.certabo.learn {
            let Some(learnt) = self.learn(&cal, r) else {
                return;
            };
            cal = learnt;
        }
        if cal.is_empty() {
            return;
        }
        let strays = self.stray.watch(&cal, r);
        let raw = to_array(&cal.placement(r));
        let filtered = from_array(&self.pieces.update(&raw));
        let first = self.link_up(ev);
        self.board.full_in_order(filtered, first, true, ev);
        for (sq, tag) in strays {
            let sq = self.board.flip(sq);
            tracing::warn!(
                board = %self.cfg.board,
                square = %sq,
                "board {}: {sq} holds tag {tag}, which no calibration knows; the square reads empty (calibrate the piece: see docs/eboards.md)",
                self.cfg.board
            );
            ev.push(TraceEvent::UnknownTag {
                board: self.cfg.board,
                sq,
                tag: tag.to_string(),
            });
        }
    }

    fn on_ranks(&mut self, occ: Occupancy, ev: &mut Vec<TraceEvent>) {
        let mut raw = [false; 64];
        for sq in Square::all() {
            raw[usize::from(sq.index())] = occ.get(sq);
        }
        let f = self.occupied.update(&raw);
        let mut now = Occupancy::EMPTY;
        for sq in Square::all() {
            now.set(sq, f[usize::from(sq.index())]);
        }
        if self.cfg.orientation == Orientation::Rotated {
            now = now.rotated();
        }
        let first = self.link_up(ev);
        if first || self.last_occupancy != Some(now) {
            self.last_occupancy = Some(now);
            ev.push(TraceEvent::Occupancy {
                board: self.cfg.board,
                occupied: now,
            });
        }
    }
}

impl Protocol for CertaboProtocol {
    fn start(&mut self, now: Instant, out: &mut Vec<u8>) {
        let expect = self.decoder.expect();
        self.decoder = FrameDecoder::new(expect);
        self.pieces.reset();
        self.occupied.reset();
        self.synced = false;
        self.last_occupancy = None;
        self.last_rx = now;
        // LEDs off: what the vendor's software does at start-up (and what tells an emulated
        // board that a host listens).
        out.extend([0u8; 8]);
        self.leds.sent = Some((now, [0; 8]));
    }

    fn feed(&mut self, bytes: &[u8], now: Instant, ev: &mut Vec<TraceEvent>, _out: &mut Vec<u8>) {
        for m in self.decoder.decode(bytes) {
            match m {
                Message::Tags(r) if self.cfg.driver == DriverKind::Certabo => {
                    self.last_rx = now;
                    self.on_tags(&r, ev);
                }
                Message::Ranks(r) if self.cfg.driver == DriverKind::Sentio => {
                    self.last_rx = now;
                    self.on_ranks(sentio::occupancy(r), ev);
                }
                Message::Tags(_) | Message::Ranks(_) => {
                    tracing::warn!(board = %self.cfg.board, "board {}: a {} board sends the other kind of reading: check the driver", self.cfg.board, self.cfg.driver.name());
                }
                Message::Ack(kind) => {
                    if self.leds.kind != Some(kind) {
                        tracing::info!(board = %self.cfg.board, rgb = kind == LedAck::Rgb, "LED kind");
                    }
                    self.leds.kind = Some(kind);
                }
            }
        }
    }

    fn tick(
        &mut self,
        now: Instant,
        _ev: &mut Vec<TraceEvent>,
        out: &mut Vec<u8>,
    ) -> Result<(), SessionError> {
        if now.duration_since(self.last_rx) > self.cfg.probe_after + self.cfg.reply_timeout {
            return Err(SessionError::Timeout("board sent no reading"));
        }
        self.leds.pump(now, out);
        Ok(())
    }

    fn control(&mut self, c: Control, now: Instant, out: &mut Vec<u8>) {
        let squares: Vec<Square> = match c {
            Control::ShowMove(Some((from, to))) => vec![from, to],
            Control::ShowMove(None) => Vec::new(),
            Control::ShowSquares(sqs) => sqs,
            Control::Clock(_) => return,
        };
        if !self.cfg.leds {
            return;
        }
        let own: Vec<Square> = squares.iter().map(|&s| self.board.flip(s)).collect();
        self.leds.wanted = Some(led::classic(&own));
        self.leds.pump(now, out);
    }

    fn dropped_bytes(&self) -> u64 {
        self.decoder.stats().dropped_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certabo::TagId;

    /// A set of 32 tags, distinct for each `set`.
    fn set(set: u8) -> Calibration {
        let mut cal = Calibration::new();
        for i in 0..32u8 {
            let piece = SensorPiece::from_ascii(b"KQRBNPkqrbnp"[usize::from(i % 12)])
                .expect("a piece letter");
            cal.insert(TagId([set, i, 1, 2, 3]), piece)
                .expect("new tag");
        }
        cal
    }

    #[test]
    fn sets_learnt_at_the_same_moment_are_all_kept() {
        for _ in 0..50 {
            let table = SharedCalibration::default();
            let barrier = Arc::new(std::sync::Barrier::new(4));
            let learners: Vec<_> = (1..=4u8)
                .map(|n| {
                    let (table, barrier) = (table.clone(), Arc::clone(&barrier));
                    std::thread::spawn(move || {
                        let learnt = set(n);
                        barrier.wait();
                        table.merge(&learnt)
                    })
                })
                .collect();
            for l in learners {
                l.join().expect("learner").expect("no conflict");
            }
            assert_eq!(
                table.get().len(),
                4 * 32,
                "every board's set is in the table"
            );
        }
    }

    #[test]
    fn a_conflicting_set_changes_nothing() {
        let table = SharedCalibration::new(set(1));
        let mut other = set(2);
        let clash = table.get().iter().next().expect("a tag");
        let wrong = if clash.1 == SensorPiece::from_ascii(b'K').expect("K") {
            b'Q'
        } else {
            b'K'
        };
        other
            .insert(clash.0, SensorPiece::from_ascii(wrong).expect("piece"))
            .expect("new in other");
        let seen = table.subscribe();
        assert!(table.merge(&other).is_err());
        assert_eq!(table.get().len(), 32);
        assert!(!seen.has_changed().expect("open"), "no change is announced");
    }
}
