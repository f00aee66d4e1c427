//! The simulator: a bughouse game → the sensor trace that two real e-boards with clocks
//! would produce. Pure and seeded: the same game, profile and seed give the same trace.
//!
//! Input: the starting positions and the moves in their interleaved order, each with the
//! mover's remaining seconds at his press ([`SimGame`]). Output: `(t ms, SensorEvent)` in
//! time order, starting with a snapshot of each board and the clocks' start. Each press
//! shows the mover's time exactly as given (so `replay` recovers the times to the second);
//! the think time before it is derived from the clock difference, and the presses of both
//! boards keep the order of the game.
//!
//! # Profiles and rates (per move unless said otherwise)
//!
//! - [`Profile::Clean`]: lift, put, press; captures capturer first.
//! - [`Profile::Noisy`], everything a careful club player does:
//!   captures in four orders, a quarter each: capturer first (case 2), victim first and
//!   held 0.3–2.5 s (case 3), direct replacement, placed over the victim then the victim
//!   pulled (case 4); slides read on the crossed squares 20% of quiet moves, 30% of them
//!   slow with a ~1 s stop (case 1); hesitation (lift, put back, lift) 10% (case 16);
//!   j'adoube of another piece during the think 5% (case 16); one-scan flicker 5% (case
//!   18); castling king first, rook first (case 7), both hands, king onto the rook square
//!   (case 8), a quarter each; e.p. victim last or first, half each (cases 9, 10);
//!   promotions to a queen shown with the pawn left standing 40% (case 12; under-
//!   promotions always show the piece, cases 11, 15); premoves: the opponent's next move
//!   made before the press 15% of moves that are followed by a non-drop reply on the same
//!   board (cases 22, 23, 24 when it recaptures); a drop pressed up to 150 ms before the
//!   partner's supplying capture press arrives 50% of eligible drops (case 30); periodic
//!   clock readings every second while a clock runs; a dropped piece read, lost and read
//!   again as it is set down 10% of drops.
//! - [`Profile::Faults`], noisy plus hardware and handling faults: a knocked piece
//!   (lifted, read on a neighbouring square, put back) 3% (case 17); a one-scan misread of
//!   a piece as another role 3% (case 19); link drops 1.5%, half within the think (snapshot
//!   before the press), half across the press (the press is known from the first clock
//!   reading after the resync); a duplicated clock message 2% (case 36, "pressed twice");
//!   the press before the last piece is put down 3% (case 36, "piece still in hand").
//! - [`Profile::Outages`], noisy plus one or two link outages a game of 1.5–6 s each,
//!   the first over a capture whose piece the other board drops meanwhile when the game
//!   has one; half of them of a DGT board that stayed powered, whose EEPROM log is
//!   replayed at link-up, half after a power loss, which leaves the gap to the search
//!   (see `outage`).
//!
//! Koedem: a captured king is handed over and dropped like any piece; a grab promotion
//! lifts the grabbed piece from the other board while that board plays on (`koedem`).

mod koedem;
mod outage;
mod physical;
mod random_game;
mod rng;
mod timeline;

pub use random_game::random_game;
pub use rng::Rng;
pub use timeline::simulate;

use std::fmt;
use std::str::FromStr;

use crate::rules::{BoardId, BughouseGame, Move, Square};

/// How much physical noise the trace carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Minimal events: lift, put, press.
    Clean,
    /// The variations of real handling (see the module docs for the rates).
    Noisy,
    /// Noisy plus faults of hardware and hands.
    Faults,
    /// Noisy plus link outages of 1.5–6 s, at least one a game (see `outage`).
    Outages,
}

impl Profile {
    /// All profiles.
    pub const ALL: [Profile; 4] = [
        Profile::Clean,
        Profile::Noisy,
        Profile::Faults,
        Profile::Outages,
    ];

    /// `clean`, `noisy`, `faults` or `outages`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Profile::Clean => "clean",
            Profile::Noisy => "noisy",
            Profile::Faults => "faults",
            Profile::Outages => "outages",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A profile name that is not `clean`, `noisy`, `faults` or `outages`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProfile(pub String);

impl fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown noise profile {:?}: expected clean, noisy, faults or outages",
            self.0
        )
    }
}

impl std::error::Error for UnknownProfile {}

impl FromStr for Profile {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Profile, UnknownProfile> {
        Profile::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| UnknownProfile(s.to_owned()))
    }
}

/// The same trace as boards without a clock would report it: every clock reading of the
/// boards in `clockless` is left out (the players still play at the pace the clocks
/// gave, so the board events keep their times).
#[must_use]
pub fn without_clocks(
    trace: Vec<(u64, crate::infer::SensorEvent)>,
    clockless: crate::rules::ByBoard<bool>,
) -> Vec<(u64, crate::infer::SensorEvent)> {
    trace
        .into_iter()
        .filter(|(_, ev)| match ev {
            crate::infer::SensorEvent::Clock { board, .. } => !clockless[*board],
            _ => true,
        })
        .collect()
}

/// Which boards of a simulated table have no clock (`simulate --no-clock A|B|AB`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NoClock(pub crate::rules::ByBoard<bool>);

impl FromStr for NoClock {
    type Err = String;
    fn from_str(s: &str) -> Result<NoClock, String> {
        let (a, b) = match s.to_ascii_uppercase().as_str() {
            "A" => (true, false),
            "B" => (false, true),
            "AB" | "BA" => (true, true),
            _ => return Err(format!("{s:?}: expected A, B or AB")),
        };
        Ok(NoClock(crate::rules::ByBoard { a, b }))
    }
}

/// One move of the game to simulate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimMove {
    /// The board.
    pub board: BoardId,
    /// The move (legal or not: it is played as it stands).
    pub mv: Move,
    /// The mover's remaining seconds at his press.
    pub clock: f64,
    /// Koedem grab promotion: where the grabbed piece stood on the other board.
    pub grab: Option<Square>,
}

/// A game to simulate.
#[derive(Debug, Clone)]
pub struct SimGame {
    /// The starting positions.
    pub start: BughouseGame,
    /// The moves in the order they were completed (both boards interleaved).
    pub moves: Vec<SimMove>,
    /// Both clocks' starting time in seconds.
    pub base_seconds: f64,
}
