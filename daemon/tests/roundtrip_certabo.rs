//! Two Certabo boards at a bughouse table, at codec level: simulate a game → the pieces each
//! board holds every 100 ms → the RFID tag on each square (each board's own set, a piece
//! that crossed from the partner's board with its tag, noise ids on 30 % of the empty
//! squares, 1 % misread tags) → the reading's bytes → the frame decoder → the table's
//! calibration learnt from both start positions → the noise filter (2 readings) → the
//! square changes the session reports → the clockless inference. Each board's record must be
//! its game; no alert may be raised in a legal game; every drop of a piece that crossed from
//! the other board must be recorded. A game that ends by a mate ends there: the moves the
//! simulated players of the other board put down after it (their clocks, which the boards
//! do not relay, may have been pressed before) are not part of the game, and the record may
//! stop before them.
//!
//! `cargo test` runs a sample (12 random games per profile and every legal real game of the
//! corpus); `BUGBRIDGE_FULL=N cargo test --release -p bugbridge --test roundtrip_certabo --
//! --nocapture` (N ≥ 300) runs N random games per profile and prints the figures.
//! `CERTABO_DEBUG="random 9 clean"` prints that game's simulated and reported events.

#[path = "support/corpus.rs"]
mod corpus;
use corpus::real_games;

use bugbridge::infer::{InferConfig, Inference, Inferrer, SensorEvent};
use bugbridge::rules::{Board, BoardId, ByBoard, Move, Piece, Ruleset, Square};
use bugbridge::sensor;
use bugbridge::simulate::{Profile, SimGame, random_game, simulate, without_clocks};
use bugbridge_drivers::certabo::{
    Calibration, Calibrator, Expect, FrameDecoder, Message, SquareFilter, TagId, TagReading,
    square_to_index,
};
use bugbridge_drivers::emulate::TagSet;
use bugbridge_drivers::trace::{self, SensorPiece};

const PERIOD_MS: u64 = 100;

/// A small deterministic generator for the noise (xorshift64*).
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
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// Both sets' tags, then the spare pieces' (two more sets, calibrated too: the pieces
/// promotions and drops of promoted pieces put on a board once both sets' are in use).
fn all_tags() -> Vec<(SensorPiece, TagId)> {
    let mut v = TagSet::for_board(trace::BoardId::A).tags;
    v.extend(TagSet::for_board(trace::BoardId::B).tags);
    v.extend(TagSet::numbered(2).tags);
    v.extend(TagSet::numbered(3).tags);
    v
}

/// The table's calibration as the sessions learn it: each board's set from 7 readings of
/// its start position, and the spare sets the same way.
fn learnt() -> Calibration {
    let mut cal = Calibration::new();
    for set in [
        TagSet::for_board(trace::BoardId::A),
        TagSet::for_board(trace::BoardId::B),
        TagSet::numbered(2),
        TagSet::numbered(3),
    ] {
        let mut c = Calibrator::new();
        let reading = set.start_reading();
        let mut got = None;
        for _ in 0..7 {
            got = c.add(&reading).ok();
        }
        cal.merge(&got.expect("a start position is learnt"))
            .expect("two sets");
    }
    cal
}

/// The tags on the squares of both boards, following the pieces: a square whose piece
/// changed kind takes a free tag of that kind (a piece put down again, a dropped piece
/// from the partner's board, a promoted piece).
struct Tags {
    on: ByBoard<[Option<TagId>; 64]>,
    pool: Vec<(SensorPiece, TagId)>,
    /// Tags taken off each board, latest last: a piece lifted there is put down with its
    /// own tag, and a piece captured there is dropped on the partner's board with it.
    off: ByBoard<Vec<TagId>>,
    /// Drops whose piece carried a tag taken off the other board.
    crossed: usize,
}

impl Tags {
    fn kind(&self, t: TagId) -> Option<SensorPiece> {
        self.pool.iter().find(|(_, id)| *id == t).map(|(p, _)| *p)
    }

    fn update(&mut self, board: BoardId, pos: &Board) {
        for sq in Square::ALL {
            let i = sq.index();
            let want = pos
                .piece_at(sq)
                .and_then(|p| SensorPiece::from_char(p.char()));
            if let Some(t) = self.on[board][i]
                && self.kind(t) != want
            {
                self.on[board][i] = None;
                self.off[board].push(t);
            }
        }
        for sq in Square::ALL {
            let i = sq.index();
            let want = pos
                .piece_at(sq)
                .and_then(|p| SensorPiece::from_char(p.char()));
            match want {
                None => self.on[board][i] = None,
                Some(p) if self.on[board][i].and_then(|t| self.kind(t)) == Some(p) => {}
                Some(p) => {
                    let used =
                        |t: TagId| self.on.a.contains(&Some(t)) || self.on.b.contains(&Some(t));
                    // No spare of that kind left: the promoted pawn stays standing, as
                    // players do (the game, not the tag, says what it is).
                    let pawn = SensorPiece::from_char(if p.char().is_ascii_uppercase() {
                        'P'
                    } else {
                        'p'
                    });
                    let free = |kind: Option<SensorPiece>| {
                        self.pool
                            .iter()
                            .find(|(q, t)| Some(*q) == kind && !used(*t))
                            .map(|(_, t)| *t)
                    };
                    let other = board.other();
                    let from_off = |b: BoardId, tags: &Tags| {
                        tags.off[b]
                            .iter()
                            .rposition(|t| tags.kind(*t) == Some(p) && !used(*t))
                    };
                    if let Some(k) = from_off(board, self) {
                        self.on[board][i] = Some(self.off[board].remove(k));
                    } else if let Some(k) = from_off(other, self) {
                        self.crossed += 1;
                        self.on[board][i] = Some(self.off[other].remove(k));
                    } else {
                        self.on[board][i] = free(Some(p)).or_else(|| free(pawn));
                    }
                }
            }
        }
    }

    fn reading(&self, board: BoardId, noise: &mut Noise) -> TagReading {
        let mut ids = [TagId::NONE; 64];
        for sq in Square::ALL {
            let wire = trace::Square::new(sq.index() as u8).expect("square");
            let slot = &mut ids[square_to_index(wire)];
            match self.on[board][sq.index()] {
                Some(t) if noise.chance(0.01) => {
                    let mut bad = t.0;
                    bad[4] ^= 0x5a;
                    *slot = TagId(bad);
                }
                Some(t) => *slot = t,
                None if noise.chance(0.3) => {
                    let n = noise.next().to_le_bytes();
                    *slot = TagId([n[0], n[1], n[2], n[3], n[4]]);
                }
                None => {}
            }
        }
        TagReading(ids)
    }
}

/// One board's session at codec level: bytes in, square changes out.
struct Session {
    decoder: FrameDecoder,
    filter: SquareFilter<Option<SensorPiece>>,
    shown: Option<[Option<SensorPiece>; 64]>,
}

impl Session {
    fn new() -> Session {
        Session {
            decoder: FrameDecoder::new(Expect::Tags),
            filter: SquareFilter::new(2),
            shown: None,
        }
    }

    fn feed(&mut self, board: BoardId, cal: &Calibration, bytes: &[u8]) -> Vec<SensorEvent> {
        let mut out = Vec::new();
        for m in self.decoder.decode(bytes) {
            let Message::Tags(r) = m else { continue };
            let placement = cal.placement(&r);
            let mut raw = [None; 64];
            for sq in trace::Square::all() {
                raw[usize::from(sq.index())] = placement.get(sq);
            }
            let now = self.filter.update(&raw);
            let piece = |p: Option<SensorPiece>| p.and_then(sensor::piece);
            let sq = |i: usize| Square::from_index_masked(i as u32);
            match self.shown {
                None => {
                    let mut b = Board::empty();
                    for (i, p) in now.iter().enumerate() {
                        if let Some(p) = piece(*p) {
                            b.set_piece_at(sq(i), p);
                        }
                    }
                    out.push(SensorEvent::Snapshot {
                        board,
                        placement: b,
                    });
                }
                Some(before) => {
                    // Lifts first, then puts, as the session reports one reading's changes.
                    for lifts in [true, false] {
                        for i in 0..64 {
                            if before[i] != now[i] && now[i].is_none() == lifts {
                                out.push(SensorEvent::Square {
                                    board,
                                    sq: sq(i),
                                    piece: piece(now[i]),
                                });
                            }
                        }
                    }
                }
            }
            self.shown = Some(now);
        }
        out
    }
}

#[derive(Debug, Default)]
struct Tally {
    boards: usize,
    exact: usize,
    alerts: Vec<String>,
    crossing_drops: usize,
    /// Pieces put down with a tag taken off the other board.
    tags_crossed: usize,
    crossing_recognised: usize,
    /// Moves the simulated players put down after the game had ended (not expected).
    after_end: usize,
    not_exact: Vec<String>,
}

fn same_move(a: &Move, b: &Move) -> bool {
    let key = |m: &Move| match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (Some(from), to, promotion, None::<Piece>),
        Move::EnPassant { from, to } => (Some(from), to, None, None),
        Move::Castle { king, rook } => (Some(king), rook, None, None),
        Move::Drop { piece, to } => (None, to, None, Some(piece)),
    };
    key(a) == key(b)
}

fn run_one(
    game: &SimGame,
    profile: Profile,
    seed: u64,
    cal: &Calibration,
    tally: &mut Tally,
    name: &str,
) {
    let clocked = simulate(game, profile, seed);
    let after_end = made_after_the_end(game, &clocked);
    let trace = without_clocks(clocked, ByBoard { a: true, b: true });
    let config = InferConfig {
        clock: ByBoard { a: false, b: false },
        ..InferConfig::default()
    };
    let mut inf = Inferrer::new(config, Some(game.start.clone()));
    let debug = std::env::var("CERTABO_DEBUG").is_ok_and(|d| d == format!("{name} {profile}"));
    if debug {
        for (t, e) in &trace {
            println!("sim {t} {e:?}");
        }
    }
    let mut physical: ByBoard<Board> = ByBoard::new_with(|b| *game.start.board(b).board());
    let mut tags = Tags {
        on: ByBoard::new_with(|_| [None; 64]),
        pool: all_tags(),
        off: ByBoard::default(),
        crossed: 0,
    };
    // Each board starts with its own set.
    for b in BoardId::ALL {
        let own = TagSet::for_board(sensor::wire_board_id(b)).start_reading();
        for sq in Square::ALL {
            let wire = trace::Square::new(sq.index() as u8).expect("square");
            let id = own.0[square_to_index(wire)];
            tags.on[b][sq.index()] = (!id.is_none()).then_some(id);
        }
    }
    let mut sessions = ByBoard::new_with(|_| Session::new());
    let mut noise = Noise(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut out = Vec::new();
    let end = trace.last().map_or(0, |(t, _)| *t) + 3_000;
    let mut next = 0;
    let mut t = 0;
    while t <= end {
        while next < trace.len() && trace[next].0 <= t {
            match trace[next].1 {
                SensorEvent::Snapshot { board, placement } => physical[board] = placement,
                SensorEvent::Square { board, sq, piece } => match piece {
                    Some(p) => physical[board].set_piece_at(sq, p),
                    None => {
                        physical[board].remove_piece_at(sq);
                    }
                },
                _ => {}
            }
            next += 1;
        }
        for b in BoardId::ALL {
            tags.update(b, &physical[b]);
            let bytes = Message::Tags(Box::new(tags.reading(b, &mut noise))).to_bytes();
            for ev in sessions[b].feed(b, cal, &bytes) {
                if debug {
                    println!("{t} {ev:?}");
                }
                let n = out.len();
                inf.observe_into(t, &ev, &mut out);
                if debug {
                    for d in &out[n..] {
                        println!("   => {d:?}");
                    }
                }
            }
        }
        let n = out.len();
        out.extend(inf.tick(t));
        if debug {
            for d in &out[n..] {
                println!("{t} tick => {d:?}");
            }
        }
        t += PERIOD_MS;
    }
    let n = out.len();
    out.extend(inf.tick(end + 60_000));
    if debug {
        for d in &out[n..] {
            println!("end tick => {d:?}");
        }
    }
    tally.tags_crossed += tags.crossed;
    for i in &out {
        if let Inference::Alert(a) = i {
            tally.alerts.push(format!(
                "{name} seed {seed} ({profile}): {} {}",
                a.code, a.detail
            ));
        }
    }
    let record = inf.record();
    let ended = out.iter().any(|i| matches!(i, Inference::End { .. }));
    for b in BoardId::ALL {
        tally.boards += 1;
        let got: Vec<&Move> = record
            .iter()
            .filter(|e| e.board == b)
            .map(|e| &e.mv)
            .collect();
        let all: Vec<&Move> = game
            .moves
            .iter()
            .filter(|m| m.board == b)
            .map(|m| &m.mv)
            .collect();
        // Moves put down after the game ended on the other board (the simulated players
        // went on) are not part of the game: the record may stop before them.
        let late = if ended { after_end[b] } else { 0 };
        tally.after_end += late;
        let want = &all[..all.len() - late.min(all.len())];
        let prefix = got.len() <= all.len() && got.iter().zip(&all).all(|(g, w)| same_move(g, w));
        let exact = prefix && got.len() >= want.len();
        tally.exact += usize::from(exact);
        if !exact {
            let at = got.iter().zip(want).position(|(g, w)| !same_move(g, w));
            tally.not_exact.push(format!(
                "{name} seed {seed} ({profile}) board {b}: {} of {} moves, first difference at {at:?}",
                got.len(),
                want.len()
            ));
        }
        // A drop on this board is of a piece captured on the other: it crossed with its tag.
        for (i, w) in want.iter().enumerate() {
            if matches!(w, Move::Drop { .. }) {
                tally.crossing_drops += 1;
                tally.crossing_recognised +=
                    usize::from(got.get(i).is_some_and(|g| same_move(g, w)));
            }
        }
    }
}

/// How many of each board's last moves the simulated players put down after the game's
/// last move was put down: when that move ends the game (a mate), they came after the end.
/// A move's time is its last square change before its clock press (boards without a clock
/// show nothing else: a move pressed before the mate but put down after it is after the end
/// for them).
fn made_after_the_end(game: &SimGame, clocked: &[(u64, SensorEvent)]) -> ByBoard<usize> {
    let mut puts: ByBoard<Vec<u64>> = ByBoard::default();
    let mut last_square: ByBoard<u64> = ByBoard::default();
    let mut running: ByBoard<Option<bugbridge::rules::Color>> = ByBoard::default();
    for (t, e) in clocked {
        match *e {
            SensorEvent::Square { board, .. } => last_square[board] = *t,
            SensorEvent::Clock {
                board, running: r, ..
            } => {
                if running[board].is_some() && r.is_some() && running[board] != r {
                    puts[board].push(last_square[board]);
                }
                running[board] = r;
            }
            _ => {}
        }
    }
    let Some(last) = game.moves.last() else {
        return ByBoard::default();
    };
    let k = game.moves.iter().filter(|m| m.board == last.board).count();
    let Some(&end) = puts[last.board].get(k - 1) else {
        return ByBoard::default();
    };
    ByBoard::new_with(|b| puts[b].iter().filter(|&&t| t > end).count())
}

fn full() -> Option<u64> {
    let n = std::env::var("BUGBRIDGE_FULL").ok()?.parse::<u64>().ok()?;
    (n > 0).then_some(n.max(300))
}

fn check(tally: &Tally, what: &str) {
    let share = tally.exact as f64 / tally.boards.max(1) as f64;
    println!(
        "{what}: {} boards, {} exact ({:.1} %), {} alerts, {} of {} drops recognised ({} pieces put down with the other board's tag; {} moves made after the game had ended left out)",
        tally.boards,
        tally.exact,
        100.0 * share,
        tally.alerts.len(),
        tally.crossing_recognised,
        tally.crossing_drops,
        tally.tags_crossed,
        tally.after_end
    );
    for n in tally.not_exact.iter().take(10) {
        println!("  not exact: {n}");
    }
    for a in tally.alerts.iter().take(10) {
        println!("  alert: {a}");
    }
    assert!(share >= 0.99, "{what}: {:.1} % exact", 100.0 * share);
    assert!(tally.alerts.is_empty(), "{what}: {:#?}", tally.alerts);
    assert!(tally.crossing_drops > 0 && tally.tags_crossed > 0);
    assert_eq!(tally.crossing_recognised, tally.crossing_drops, "{what}");
}

fn random_games(profile: Profile) {
    let cal = learnt();
    let mut tally = Tally::default();
    for seed in 0..full().unwrap_or(12) {
        let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        run_one(
            &g,
            profile,
            9000 + seed,
            &cal,
            &mut tally,
            &format!("random {seed}"),
        );
    }
    check(&tally, &format!("certabo, random, {profile}"));
}

#[test]
fn certabo_random_games_clean() {
    random_games(Profile::Clean);
}

#[test]
fn certabo_random_games_noisy() {
    random_games(Profile::Noisy);
}

#[test]
fn certabo_real_games() {
    let cal = learnt();
    for profile in [Profile::Clean, Profile::Noisy] {
        let mut tally = Tally::default();
        for (name, game) in &real_games() {
            run_one(game, profile, 1, &cal, &mut tally, name);
        }
        check(&tally, &format!("certabo, real, {profile}"));
    }
}
