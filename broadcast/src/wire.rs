//! The published schema: every JSON document that leaves the process.
//!
//! This module is the contract with MQTT subscribers, the viewer page and scripts using the
//! HTTP API. `tests/wire.rs` pins it with golden JSON fixtures, so changing a field name or
//! its meaning must change a fixture too.
//!
//! The types carry data only; the daemon computes every value (this crate knows no chess
//! rules). Optional fields are left out of the JSON when they are `None`.
//!
//! Versioning: [`SCHEMA_VERSION`] is published in the `state` document (`"v"`) and bumped on
//! any incompatible change.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Version of the published schema, sent as `"v"` in every [`MatchState`].
pub const SCHEMA_VERSION: u32 = 1;

/// One of the two boards of a bughouse match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Board {
    /// Board A (its White is on the team of the `1-0` result).
    A,
    /// Board B.
    B,
}

impl Board {
    /// The board's letter, `"A"` or `"B"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Board::A => "A",
            Board::B => "B",
        }
    }
}

/// A side of one board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

/// Per-board data, serialised as `{"A": .., "B": ..}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(non_snake_case)] // the JSON keys are the board letters
pub struct ByBoard<T> {
    /// Board A.
    pub A: T,
    /// Board B.
    pub B: T,
}

impl<T> ByBoard<T> {
    /// The value for `board`.
    #[must_use]
    pub fn get(&self, board: Board) -> &T {
        match board {
            Board::A => &self.A,
            Board::B => &self.B,
        }
    }

    /// The value for `board`, mutably.
    pub fn get_mut(&mut self, board: Board) -> &mut T {
        match board {
            Board::A => &mut self.A,
            Board::B => &mut self.B,
        }
    }
}

/// What an [`Event`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// A move or drop was recorded (also when it was illegal: it is played as it stands).
    Move,
    /// An arbiter alert: `code` says which (`illegal-move`, `flag-fall`, ...).
    Alert,
    /// A game (and so the match) ended: `result`, `reason`.
    End,
    /// A recorded move was replaced by the arbiter: the event names the move (`board`,
    /// `side`, `number`) and carries the new `san`; the `state` that follows is the truth.
    Correction,
    /// An operator action was journaled and applied: `action` is its id, `code` its kind
    /// (`promotion`, `result`, `replace`), so the console that sent it can show it applied.
    Action,
}

/// One published event: a line of `bugbridge replay --events` plus `seq`.
///
/// On the `events` topic and the viewer stream `seq` counts events, gap-free from 1. On the
/// `alerts` topic and the arbiter stream `seq` counts alerts, gap-free from 1 (alerts have
/// their own sequence so that the public one shows no holes when alerts are private).
/// The hub assigns `seq`: whatever the daemon puts there is overwritten.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Position in its stream, gap-free from 1 (assigned by the hub).
    #[serde(default)]
    pub seq: u64,
    /// Time in ms at which the event was decided (trace time; match time when live).
    pub t: u64,
    /// What happened.
    pub kind: EventKind,
    /// The board concerned, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<Board>,
    /// The side that moved (or is concerned by the alert).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// Move number of the BPGN token (`12` for `12A.`/`12a.`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    /// The move as SAN (`e4`, `N@f3`, `exd8=Q+`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub san: Option<String>,
    /// The mover's remaining time in seconds after the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<f64>,
    /// The BFEN after the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bfen: Option<String>,
    /// Alert code (`illegal-move`, `unrecognized-position`, `flag-fall`, `link-lost`,
    /// `material-mismatch`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Why: the rule an illegal move breaks, or how a game ended (`checkmate`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Result of an `end` event: `1-0`, `0-1`, `1/2-1/2` (team result, BPGN convention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Human-readable detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// How a move was recognised, when not plainly: `reconstructed` (worked out after a
    /// lost connection), `ambiguous`, `time-estimated`, `pending-on-gap`,
    /// `pending-on-unread`, `grab-pending`, `promotion-not-shown`, `no-clock`, `late-put`,
    /// `premature`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// The id of the operator action an `action` event confirms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The piece a move took, as a FEN letter of its colour (`n`, `Q`; `k`/`K`: a king
    /// taken under Koedem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured: Option<String>,
    /// Where the piece a move took went: the capturer's partner on the other board (a
    /// king hand-over under Koedem when the piece is `K`/`k`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoff: Option<Handoff>,
    /// A Koedem grab promotion: the piece taken from the other board (both boards named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grab: Option<Grab>,
    /// Alerts: the number of the table's game the alert is about (1 for the first game,
    /// then one more each time the boards are set up again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<u32>,
    /// Alerts: the wall-clock time the daemon published the alert, in ms since the Unix
    /// epoch (`t` is match time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<u64>,
    /// Alerts: the answers the arbiter may give in one click (the kinds an occupancy-only
    /// board's drop or promotion may be), each the operator action it posts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
}

/// One answer to an alert, given in one click on the arbiter page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// What the button says (the move as it would be recorded, e.g. `N@f3`, `exd8=N`).
    pub label: String,
    /// The operator action it posts: the body of `POST /api/matches/<id>/arbiter/actions`.
    pub post: ActionKind,
}

/// A captured piece handed to the capturer's partner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handoff {
    /// The partner's board.
    pub board: Board,
    /// The partner's side there.
    pub side: Side,
    /// The piece now in his hand, as a FEN letter of its colour (`K`/`k`: a king he must
    /// drop as his next move, under Koedem).
    pub piece: String,
}

/// A Koedem grab promotion: the promoting player took a piece of his colour from the
/// other board and put it on the promotion square.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grab {
    /// The board the piece was taken from.
    pub from_board: Board,
    /// The square it stood on there.
    pub from: String,
    /// The promoting board.
    pub to_board: Board,
    /// The promotion square.
    pub to: String,
    /// The piece, as a FEN letter of its colour (`R`, `q`).
    pub piece: String,
}

impl Event {
    /// An event of `kind` at time `t` with every optional field empty.
    #[must_use]
    pub fn new(kind: EventKind, t: u64) -> Self {
        Event {
            seq: 0,
            t,
            kind,
            board: None,
            side: None,
            number: None,
            san: None,
            clock: None,
            bfen: None,
            code: None,
            reason: None,
            result: None,
            detail: None,
            flags: Vec::new(),
            action: None,
            captured: None,
            handoff: None,
            grab: None,
            game: None,
            wall: None,
            choices: Vec::new(),
        }
    }
}

/// The last move of a board, for highlighting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastMove {
    /// Origin square (`e2`); absent for a drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Destination square (`e4`), or the square a piece was dropped on.
    pub to: String,
    /// The dropped piece as a FEN letter (`N`, `p`) when the move was a drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<String>,
    /// The move as SAN.
    pub san: String,
    /// Who moved.
    pub side: Side,
    /// Move number of the BPGN token.
    pub number: u32,
    /// The piece taken, as a FEN letter (`k`/`K`: a king, under Koedem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured: Option<String>,
    /// Where the piece taken went (the capturer's partner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoff: Option<Handoff>,
    /// A Koedem grab promotion, naming both boards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grab: Option<Grab>,
}

/// One board of the match as the viewer shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardState {
    /// Name of the player with White, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    /// Name of the player with Black, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
    /// This board's half of the BFEN (placement, holdings, `~` marks, side, castling, ep,
    /// times). Promoted pieces are the ones followed by `~` in the placement.
    pub bfen: String,
    /// The pieces in hand as FEN letters, White's uppercase then Black's lowercase (`NPpq`);
    /// the same as the BFEN holdings, repeated so readers need not parse BFEN.
    pub holdings: String,
    /// Side to move.
    pub to_move: Side,
    /// The last move or drop on this board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<LastMove>,
    /// Whether the e-board's link is up (drives the `boards connected` metric).
    pub connected: bool,
    /// Whether the table's configuration has this board: a one-board table publishes the
    /// other board as not configured (no clocks to show, no lost link). Absent when true.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub configured: bool,
    /// What the board's sensors show (FEN placement) while its moves are not being
    /// recorded: its link came back and the plies it missed could not be worked out (an
    /// `unrecognized-position` alert said so).
    /// Absent while the board is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical: Option<String>,
    /// Koedem: the sides holding a captured king, who must drop it as their next move.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub must_drop_king: Vec<Side>,
}

impl Default for BoardState {
    fn default() -> Self {
        BoardState {
            white: None,
            black: None,
            bfen: String::new(),
            holdings: String::new(),
            to_move: Side::White,
            last_move: None,
            connected: false,
            configured: true,
            physical: None,
            must_drop_king: Vec::new(),
        }
    }
}

/// The clock of one board.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BoardClock {
    /// White's remaining time in seconds at the reading.
    pub white: f64,
    /// Black's remaining time in seconds at the reading.
    pub black: f64,
    /// Whose clock runs, or `None` when the clock is stopped.
    #[serde(default)]
    pub running: Option<Side>,
    /// No reading of this board's clock yet: a board without a clock (or not configured),
    /// or a clock not yet read; the times are then 0 and mean nothing. Absent when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub unread: bool,
}

/// The four clocks as last read.
///
/// A viewer extrapolates: the running side's time is its value minus the time elapsed since
/// `at` (milliseconds since the Unix epoch, the server's clock when the reading was taken).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[allow(non_snake_case)] // the JSON keys are the board letters
pub struct Clocks {
    /// When the readings were taken, ms since the Unix epoch (server clock).
    pub at: u64,
    /// Board A's clock.
    pub A: BoardClock,
    /// Board B's clock.
    pub B: BoardClock,
}

/// One entry of the BPGN move list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveEntry {
    /// The board it was played on.
    pub board: Board,
    /// Who played it.
    pub side: Side,
    /// Move number of the BPGN token.
    pub number: u32,
    /// The move as SAN.
    pub san: String,
    /// The mover's remaining time in seconds, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<f64>,
    /// How the move was recognised, when not plainly: the `flags` of its `move` event
    /// (`reconstructed` after a lost connection, `ambiguous`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

impl MoveEntry {
    /// The BPGN move token: `12A.` for White on A, `12a.` for Black on A.
    #[must_use]
    pub fn token(&self) -> String {
        let letter = match (self.board, self.side) {
            (Board::A, Side::White) => 'A',
            (Board::A, Side::Black) => 'a',
            (Board::B, Side::White) => 'B',
            (Board::B, Side::Black) => 'b',
        };
        format!("{}{letter}.", self.number)
    }
}

/// How the match ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// `1-0` (team of WhiteA and BlackB won), `0-1`, or `1/2-1/2`.
    pub result: String,
    /// Why: `checkmate`, `resignation`, `flag-fall`, `draw-agreement`, ...
    pub reason: String,
    /// The board where the deciding game ended, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<Board>,
    /// Human-readable detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The whole state of a match: the payload of the retained `state` topic, the catch-up event
/// of every stream and the body of `GET /api/matches/<id>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchState {
    /// Schema version ([`SCHEMA_VERSION`]; set by the hub).
    #[serde(default)]
    pub v: u32,
    /// The match id (set by the hub).
    #[serde(default)]
    pub id: String,
    /// `seq` of the last event published on the events stream (set by the hub): a consumer
    /// that saw event `n` and reads a state with `seq > n` knows what it missed.
    #[serde(default)]
    pub seq: u64,
    /// The full BFEN, `<board A> | <board B>`.
    pub bfen: String,
    /// The two boards.
    pub boards: ByBoard<BoardState>,
    /// The four clocks.
    pub clocks: Clocks,
    /// The BPGN move list in the order played.
    #[serde(default)]
    pub moves: Vec<MoveEntry>,
    /// BPGN tags (`Event`, `WhiteA`, ...), for display.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// The result once the match has ended.
    #[serde(default)]
    pub result: Option<MatchResult>,
    /// The end reasons the match's ruleset has, which the arbiter may record (a subset of
    /// [`END_REASONS`], in the order the arbiter view offers them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub end_reasons: Vec<String>,
}

/// One line of `GET /api/matches`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchSummary {
    /// The match id.
    pub id: String,
    /// `seq` of the last event.
    pub seq: u64,
    /// The current BFEN.
    pub bfen: String,
    /// The last entry of the move list, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<MoveEntry>,
    /// The result once the match has ended.
    #[serde(default)]
    pub result: Option<MatchResult>,
    /// Relative URL of the viewer page.
    pub viewer: String,
    /// Relative URL of the JSON state.
    pub api: String,
}

/// The end reasons of the schema (`docs/events.md`): the `reason` of an `end` event and of
/// a `result` action. Which of them a match offers depends on its ruleset (the state's
/// `end_reasons`).
pub const END_REASONS: [&str; 10] = [
    "checkmate",
    "flag-fall",
    "both-flags",
    "resignation",
    "draw-agreement",
    "repetition",
    "illegal-move-claim",
    "all-kings",
    "simultaneous",
    "aborted",
];

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_false(b: &bool) -> bool {
    !*b
}

#[allow(clippy::trivially_copy_pass_by_ref)] // as above
fn is_true(b: &bool) -> bool {
    *b
}

fn yes() -> bool {
    true
}

/// An operator action from the arbiter view, sent to the daemon (which journals and applies
/// it). Body of `POST /api/matches/<id>/arbiter/actions`, tagged by `"action"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "lowercase", deny_unknown_fields)]
pub enum ActionKind {
    /// Declare the promotion piece of a move (`piece` is a letter: `q`, `r`, `b`, `n`).
    Promotion {
        /// The board.
        board: Board,
        /// Move number of the BPGN token.
        number: u32,
        /// Who promoted.
        side: Side,
        /// The piece promoted to.
        piece: String,
    },
    /// Record a result: `result` is `1-0`, `0-1` or `1/2-1/2`; `reason` one of
    /// [`END_REASONS`] (e.g. `resignation`, `flag-fall`, `draw-agreement`).
    Result {
        /// The team result.
        result: String,
        /// Why.
        reason: String,
        /// The game has ended and this corrects its result. Without it a result for an
        /// ended game is refused: a second click must not silently replace the first.
        #[serde(default, skip_serializing_if = "is_false")]
        correct: bool,
    },
    /// Replace a wrongly inferred move by `san`.
    Replace {
        /// The board.
        board: Board,
        /// Move number of the BPGN token.
        number: u32,
        /// Who moved.
        side: Side,
        /// The move that was really played.
        san: String,
    },
    /// Fill a board's link gap with the moves it played meanwhile (SAN, in order from the
    /// position before the gap), or pick one of the orders a `gap-ambiguous` alert lists.
    Fill {
        /// The board.
        board: Board,
        /// The plies, as SAN.
        moves: Vec<String>,
        /// The move number of the first ply, with `side`, as the alert offering the moves
        /// named it: a board whose record has moved on since refuses them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        number: Option<u32>,
        /// Who makes the first ply (with `number`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<Side>,
    },
}

/// An operator action addressed to one match, as delivered on the hub's action channel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OperatorAction {
    /// The action's id, unique across relays and daemons; the table confirms the action
    /// with an `action` event carrying it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The match the action is for (from the URL).
    pub match_id: String,
    /// What to do.
    #[serde(flatten)]
    pub kind: ActionKind,
}

impl ActionKind {
    /// The action's name as in its JSON `"action"` tag.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            ActionKind::Promotion { .. } => "promotion",
            ActionKind::Result { .. } => "result",
            ActionKind::Replace { .. } => "replace",
            ActionKind::Fill { .. } => "fill",
        }
    }
}

impl OperatorAction {
    /// A fresh action id: host process, start time and a counter, so that ids from
    /// different relays and restarts do not collide.
    #[must_use]
    pub fn new_id() -> String {
        use std::sync::OnceLock;
        use std::sync::atomic::{AtomicU64, Ordering};
        static START: OnceLock<u128> = OnceLock::new();
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let start = *START.get_or_init(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        });
        let n = COUNTER.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{:x}-{:x}-{n}", std::process::id(), start % (1 << 48))
    }
}

/// Topic names under a prefix: `<prefix>/<match>/<leaf>`.
pub mod topic {
    /// `online`/`offline`, retained, also the last will.
    pub const STATUS: &str = "status";
    /// The current BFEN, retained.
    pub const BFEN: &str = "bfen";
    /// The whole BPGN so far, retained.
    pub const BPGN: &str = "bpgn";
    /// The [`MatchState`](super::MatchState) JSON, retained.
    pub const STATE: &str = "state";
    /// One [`Event`](super::Event) per message, not retained.
    pub const EVENTS: &str = "events";
    /// Arbiter alerts, not retained.
    pub const ALERTS: &str = "alerts";
    /// Operator actions for the table ([`OperatorAction`](super::OperatorAction) JSON), not
    /// retained; taken only by a daemon whose configuration says `operator = true`.
    pub const OPERATOR: &str = "operator";
    /// The alerts arbiters acknowledged, retained JSON `{"acked": [seq, ...]}`, written by
    /// relays so that every relay and every restart agrees on what was acknowledged.
    pub const ACKS: &str = "acks";
    /// The match's latest alerts, retained JSON `{"alerts": [{"at": ms, ...alert}, ...]}`,
    /// written by relays so that an arbiter console started (or restarted) mid-round shows
    /// the alerts raised before it.
    pub const ALERT_LOG: &str = "alertlog";

    /// The full topic name `<prefix>/<match_id>/<leaf>`.
    #[must_use]
    pub fn name(prefix: &str, match_id: &str, leaf: &str) -> String {
        format!("{prefix}/{match_id}/{leaf}")
    }
}

/// The players of one board, from the BPGN tags (`WhiteA`, `BlackA`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Players {
    /// White's name, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    /// Black's name, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
}

/// One game recorded by this daemon: a line of `GET /api/games`.
///
/// A game is listed once it has ended or a later game has begun at the table; the game in
/// progress is the live match (`/api/matches/<id>`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameSummary {
    /// The match id.
    #[serde(rename = "match")]
    pub match_id: String,
    /// The game's number at the table, from 1 (`<match>-<number>.bpgn` in the record dir).
    pub number: u32,
    /// The players of both boards.
    pub players: ByBoard<Players>,
    /// The team result as the BPGN says it: `1-0` (WhiteA and BlackB won), `0-1`,
    /// `1/2-1/2`, or `*` for a game left unfinished.
    pub result: String,
    /// How many moves and drops the record holds (both boards).
    pub plies: u32,
    /// The `Date` tag (`2026.11.23`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Relative URL of the page that steps through the game (set by the hub).
    #[serde(default)]
    pub viewer: String,
    /// Relative URL of the game with its positions, [`GameRecord`] (set by the hub).
    #[serde(default)]
    pub api: String,
    /// Relative URL of the BPGN file (set by the hub).
    #[serde(default)]
    pub bpgn: String,
}

/// One move of a recorded game with the position after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GamePly {
    /// The board it was played on.
    pub board: Board,
    /// Who played it.
    pub side: Side,
    /// Move number of the BPGN token.
    pub number: u32,
    /// The move as written in the BPGN.
    pub san: String,
    /// The mover's remaining time in seconds (the BPGN clock comment), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<f64>,
    /// Origin square; absent for a drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Destination square, or the square a piece was dropped on.
    pub to: String,
    /// The dropped piece as an uppercase letter, for a drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<String>,
    /// The full BFEN after the move (both boards, holdings, latest known times).
    pub bfen: String,
}

/// A recorded game with a position per move: the body of `GET /api/games/<match>/<n>`.
///
/// The daemon computes every position with its rules core; a viewer only draws them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// What the list says about it.
    #[serde(flatten)]
    pub summary: GameSummary,
    /// The BPGN tags.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// The BFEN before the first move (the initial position or the game's set-up).
    pub start_bfen: String,
    /// The moves in the order they were completed, each with the position after it.
    pub moves: Vec<GamePly>,
    /// Set when the positions stop before the end of the record, saying where and why (a
    /// move that names no move on its board); the BPGN download is still the whole record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
}
