//! The emulated Certabo and Sentio boards: readings unasked, as the real boards send them.
//!
//! A reading goes out every [`CertaboEmulation::period`], cut into 64-byte pieces written
//! one after the other (the CP210x's USB packets), so the host meets split reads. A Certabo
//! square carries the tag of the piece standing there: each board has its own set
//! ([`TagSet::for_board`]: board A set 0, board B set 1), and a piece of a kind the board
//! already shows (a dropped piece from the partner's board, a promoted queen) takes a free
//! tag of the partner's set. Empty squares carry random noise ids (or `0 0 0 0 0`) and
//! occupied squares now and then a misread id, as in the peers' recordings. A Sentio board
//! sends occupancy bytes. LED commands are acknowledged with `L` (or `D` for an RGB board).
//!
//! The host sends nothing to start a real board; an emulated board starts playing its trace
//! at the host's first LED command (the session switches the LEDs off when it connects), so
//! that nothing is played before a host listens.

use std::time::{Duration, Instant};

use bytes::BytesMut;

use super::device::{Device, DeviceStatus};
use super::state::{Change, Physical};
use crate::certabo::led::{self, LedCommand};
use crate::certabo::{Message, TagId, TagReading, square_to_index};
use crate::sentio;
use crate::trace::{BoardId, Occupancy, Placement, SensorPiece, Square};

/// How an emulated Certabo/Sentio board behaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CertaboEmulation {
    /// Time between two readings.
    pub period: Duration,
    /// Chance that an empty square carries a noise id in a reading (0 … 1).
    pub noise: f64,
    /// Chance that an occupied square reads a corrupted id in a reading (0 … 1).
    pub misread: f64,
    /// The board has RGB LEDs (answers `D`), like the TabuTronic Spectrum.
    pub rgb: bool,
    /// Seed of the noise.
    pub seed: u64,
}

impl Default for CertaboEmulation {
    /// A reading every 100 ms, noise on 30 % of the empty squares, 1 % misreads, one-colour
    /// LEDs.
    fn default() -> Self {
        CertaboEmulation {
            period: Duration::from_millis(100),
            noise: 0.3,
            misread: 0.01,
            rgb: false,
            seed: 0x5eed,
        }
    }
}

/// The tags of one emulated piece set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagSet {
    /// Piece and tag, in start-position order (a1 … h8 of the start squares).
    pub tags: Vec<(SensorPiece, TagId)>,
    /// The set's extra queens, white then black: put on d3 and d6 of a start position
    /// being calibrated (as the vendor's and picochess's calibrations allow), never used
    /// in play.
    pub extra_queens: Vec<(SensorPiece, TagId)>,
}

impl TagSet {
    /// Set `n`: tags `(20 + n) 0 (n) (square index) (letter)`, one per start-position piece;
    /// its extra queens `(20 + n) 0 (n) (64 + square index) (letter)` for d3 and d6.
    #[must_use]
    pub fn numbered(n: u8) -> TagSet {
        let start = Placement::start();
        let tags = Square::all()
            .filter_map(|sq| {
                start
                    .get(sq)
                    .map(|p| (p, TagId([20 + n, 0, n, sq.index(), p.ascii()])))
            })
            .collect();
        let extra_queens = extra_queen_squares()
            .into_iter()
            .map(|(sq, p)| (p, TagId([20 + n, 0, n, 64 + sq.index(), p.ascii()])))
            .collect();
        TagSet { tags, extra_queens }
    }

    /// The set a board of the table plays with: A set 0, B set 1.
    #[must_use]
    pub fn for_board(board: BoardId) -> TagSet {
        TagSet::numbered(match board {
            BoardId::A => 0,
            BoardId::B => 1,
        })
    }

    /// The set's tag on each square of the start position (wire order).
    #[must_use]
    pub fn start_reading(&self) -> TagReading {
        let start = Placement::start();
        let mut ids = [TagId::NONE; 64];
        let mut used = Vec::new();
        for sq in Square::all() {
            if let Some(p) = start.get(sq)
                && let Some(&(_, id)) = self
                    .tags
                    .iter()
                    .find(|(q, id)| *q == p && !used.contains(id))
            {
                used.push(id);
                ids[square_to_index(sq)] = id;
            }
        }
        TagReading(ids)
    }
}

/// The squares of the extra queens a calibration may learn, with their queens.
fn extra_queen_squares() -> Vec<(Square, SensorPiece)> {
    use crate::certabo::calibration::{EXTRA_BLACK_QUEEN, EXTRA_WHITE_QUEEN};
    [(EXTRA_WHITE_QUEEN, b'Q'), (EXTRA_BLACK_QUEEN, b'q')]
        .into_iter()
        .filter_map(|(name, letter)| {
            Some((Square::from_name(name)?, SensorPiece::from_ascii(letter)?))
        })
        .collect()
}

/// A small deterministic generator (xorshift64*): noise needs no cryptography.
#[derive(Debug, Clone)]
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p && p > 0.0
    }

    fn byte(&mut self) -> u8 {
        (self.next() >> 56) as u8
    }
}

#[derive(Debug)]
pub(crate) struct CertaboDevice {
    sentio: bool,
    rotated: bool,
    emu: CertaboEmulation,
    own: TagSet,
    partner: TagSet,
    /// The tag on each square (normal frame), following the pieces as they move.
    on: [Option<TagId>; 64],
    noise: Noise,
    synced: bool,
    next_reading: Option<Instant>,
    pending: Vec<u8>,
    host: Vec<u8>,
    status: DeviceStatus,
}

impl CertaboDevice {
    pub(crate) fn new(sentio: bool, board: BoardId, rotated: bool, emu: CertaboEmulation) -> Self {
        let partner = match board {
            BoardId::A => BoardId::B,
            BoardId::B => BoardId::A,
        };
        CertaboDevice {
            sentio,
            rotated,
            own: TagSet::for_board(board),
            partner: TagSet::for_board(partner),
            on: [None; 64],
            noise: Noise(emu.seed | 1),
            emu,
            synced: false,
            next_reading: None,
            pending: Vec::new(),
            host: Vec::new(),
            status: DeviceStatus::default(),
        }
    }

    /// Gives a tag to every occupied square that has none of the right kind.
    fn assign(&mut self, p: &Placement) {
        for sq in Square::all() {
            let i = usize::from(sq.index());
            match p.get(sq) {
                None => self.on[i] = None,
                Some(piece) => {
                    let fits = self.on[i].is_some_and(|t| self.kind(t) == Some(piece));
                    if !fits {
                        self.on[i] = Some(self.free_tag(piece));
                    }
                }
            }
        }
    }

    fn kind(&self, t: TagId) -> Option<SensorPiece> {
        self.own
            .tags
            .iter()
            .chain(&self.partner.tags)
            .chain(&self.own.extra_queens)
            .find(|(_, id)| *id == t)
            .map(|(p, _)| *p)
    }

    fn free_tag(&self, piece: SensorPiece) -> TagId {
        let mut candidates = self
            .own
            .tags
            .iter()
            .chain(&self.partner.tags)
            .filter(|(p, _)| *p == piece)
            .map(|(_, t)| *t);
        let first = candidates.clone().next().unwrap_or(TagId::NONE);
        candidates
            .find(|t| !self.on.contains(&Some(*t)))
            .unwrap_or(first)
    }

    /// Moves tags with the pieces of a change (a lifted piece's tag goes to the next square
    /// its kind appears on).
    fn follow(&mut self, changes: &[(Square, Option<SensorPiece>)], p: &Placement) {
        for &(sq, piece) in changes {
            if piece.is_none() {
                self.on[usize::from(sq.index())] = None;
            }
        }
        self.assign(p);
    }

    fn reading(&mut self, p: &Placement) -> Vec<u8> {
        if self.sentio {
            let mut occ = Occupancy::of(p);
            if self.rotated {
                occ = occ.rotated();
            }
            return Message::Ranks(sentio::rank_bits(occ)).to_bytes();
        }
        let mut ids = [TagId::NONE; 64];
        for sq in Square::all() {
            let wire_sq = if self.rotated { sq.rotated() } else { sq };
            let id = match self.on[usize::from(sq.index())] {
                Some(mut t) => {
                    if self.noise.chance(self.emu.misread) {
                        t.0[4] = t.0[4].wrapping_add(1 + self.noise.byte() % 250);
                    }
                    t
                }
                None if self.noise.chance(self.emu.noise) => {
                    // Random ids with a first byte no set uses.
                    let mut t = [0u8; 5];
                    for b in &mut t {
                        *b = self.noise.byte();
                    }
                    t[0] = 64 + t[0] % 192;
                    TagId(t)
                }
                None => TagId::NONE,
            };
            ids[square_to_index(wire_sq)] = id;
        }
        Message::Tags(Box::new(TagReading(ids))).to_bytes()
    }
}

impl Device for CertaboDevice {
    fn on_bytes(&mut self, bytes: &[u8], _p: &mut Physical, _now: Instant, out: &mut BytesMut) {
        self.host.extend_from_slice(bytes);
        let (cmds, used) = led::parse_commands(&self.host);
        self.host.drain(..used);
        if self.host.len() > 4096 {
            self.status.dropped_bytes += self.host.len() as u64;
            self.host.clear();
        }
        for cmd in cmds {
            self.status.commands += 1;
            self.synced = true;
            let (squares, ack): (Vec<Square>, &[u8]) = match cmd {
                LedCommand::Classic(bits) => (led::classic_squares(&bits), b"L\r\n"),
                LedCommand::Rgb(squares) => (squares, b"D\r\n"),
            };
            let rgb_frame = ack == b"D\r\n";
            if rgb_frame != self.emu.rgb {
                // Not this board's kind of LED command: ignored, as no source says otherwise.
                continue;
            }
            let mut lit: Vec<Square> = squares
                .into_iter()
                .map(|s| if self.rotated { s.rotated() } else { s })
                .collect();
            lit.sort();
            self.status.leds = lit;
            out.extend_from_slice(ack);
        }
    }

    fn render(&mut self, change: &Change, p: &Physical, _now: Instant, _out: &mut BytesMut) {
        if let Change::Squares(changes) = change {
            self.follow(changes, &p.placement);
        }
    }

    fn record(&mut self, change: &Change, p: &Physical, _now: Instant) {
        if let Change::Squares(changes) = change {
            self.follow(changes, &p.placement);
        }
    }

    fn power_up(&mut self, p: &Physical) {
        self.on = [None; 64];
        // The set-up position: each piece its own set's tag where the start has it.
        let start = self.own.start_reading();
        for sq in Square::all() {
            let id = start.0[square_to_index(sq)];
            if !id.is_none() && p.placement.get(sq) == self.kind(id) {
                self.on[usize::from(sq.index())] = Some(id);
            }
        }
        // A start position with extra queens on d3/d6 (being calibrated): the set's own
        // extra queens stand there.
        let mut rest = p.placement;
        for (sq, _) in extra_queen_squares() {
            rest.set(sq, None);
        }
        if rest == Placement::start() {
            for ((sq, queen), &(_, tag)) in extra_queen_squares()
                .into_iter()
                .zip(&self.own.extra_queens)
            {
                if p.placement.get(sq) == Some(queen) {
                    self.on[usize::from(sq.index())] = Some(tag);
                }
            }
        }
        self.assign(&p.placement);
    }

    fn tick(&mut self, p: &Physical, now: Instant, out: &mut BytesMut) {
        if !self.pending.is_empty() {
            let n = self.pending.len().min(64);
            out.extend(self.pending.drain(..n));
            return;
        }
        if self.next_reading.is_some_and(|t| now < t) {
            return;
        }
        self.next_reading = Some(now + self.emu.period);
        self.assign(&p.placement);
        self.pending = self.reading(&p.placement);
        let n = self.pending.len().min(64);
        out.extend(self.pending.drain(..n));
    }

    fn synced(&self) -> bool {
        self.synced
    }

    fn unplugged(&mut self) {
        self.synced = false;
        self.pending.clear();
        self.host.clear();
        self.next_reading = None;
    }

    fn status(&self) -> DeviceStatus {
        self.status.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certabo::{Calibrator, FrameDecoder};

    #[test]
    fn the_sets_calibrate_and_decode_each_other() {
        let a = TagSet::for_board(BoardId::A);
        let b = TagSet::for_board(BoardId::B);
        let mut ca = Calibrator::new();
        let mut cb = Calibrator::new();
        let mut cal = crate::certabo::Calibration::new();
        for _ in 0..7 {
            let _ = ca.add(&a.start_reading());
            let _ = cb.add(&b.start_reading());
        }
        cal.merge(&ca.result().expect("set A")).expect("merge");
        cal.merge(&cb.result().expect("set B")).expect("merge");
        assert_eq!(cal.len(), 64);
        assert_eq!(cal.placement(&b.start_reading()), Placement::start());
    }

    #[test]
    fn extra_queens_of_a_start_position_carry_the_sets_own_extra_tags() {
        let mut set_up = Placement::start();
        for (sq, queen) in extra_queen_squares() {
            set_up.set(sq, Some(queen));
        }
        let emu = CertaboEmulation {
            noise: 0.0,
            misread: 0.0,
            ..CertaboEmulation::default()
        };
        let mut dev = CertaboDevice::new(false, BoardId::B, false, emu);
        dev.power_up(&Physical::new(set_up, None));
        let own = TagSet::for_board(BoardId::B);
        for ((sq, _), (_, tag)) in extra_queen_squares().into_iter().zip(&own.extra_queens) {
            assert_eq!(dev.on[usize::from(sq.index())], Some(*tag), "{sq}");
        }
    }

    #[test]
    fn readings_carry_tags_noise_and_come_in_pieces() {
        let emu = CertaboEmulation {
            noise: 0.5,
            ..CertaboEmulation::default()
        };
        let mut dev = CertaboDevice::new(false, BoardId::B, false, emu);
        let mut phys = Physical::new(Placement::start(), None);
        dev.power_up(&phys);
        let now = Instant::now();
        let mut out = BytesMut::new();
        dev.on_bytes(&[0; 8], &mut phys, now, &mut out);
        assert_eq!(&out[..], b"L\r\n");
        assert!(dev.synced());
        let mut pieces = Vec::new();
        loop {
            let mut out = BytesMut::new();
            dev.tick(&phys, now, &mut out);
            if out.is_empty() {
                break;
            }
            assert!(out.len() <= 64);
            pieces.push(out.to_vec());
        }
        assert!(pieces.len() > 5, "a reading comes in 64-byte pieces");
        let msgs = FrameDecoder::default().decode(&pieces.concat());
        let [Message::Tags(r)] = &msgs[..] else {
            panic!("one reading: {msgs:?}")
        };
        let empty_with_noise = (16..48).filter(|&i| !r.0[i].is_none()).count();
        assert!(
            empty_with_noise > 4,
            "noise on empty squares: {empty_with_noise}"
        );
        assert_eq!(r.0[0], TagSet::for_board(BoardId::B).start_reading().0[0]);
    }
}
