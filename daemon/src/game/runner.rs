//! [`Match`]: one table's match, fed sensor events, answering with decisions and views.

use std::collections::BTreeMap;

use crate::infer::occupancy::{Handed, OccupancyFeed};
use crate::infer::{
    ActionRefused, AlertCode, InferConfig, Inference, Inferrer, OperatorAction, RecordEntry,
    SensorEvent, unknown_tag_alert,
};
use crate::publish::{ClockReading, View};
use crate::record::bpgn::{MatchRecord, text};
use crate::rules::notation::bfen::{ParseBfenError, parse_bfen};
use crate::rules::{Board, BoardId, BughouseGame, ByBoard, ByColor, EndReason, MatchResult};
use crate::sensor::Decoded;

/// How often the live daemon lets the inference's timers run (ms): at each multiple of it,
/// in trace time (see [`Match::ticks_before`]).
pub const LIVE_TICK_MS: u64 = 100;

/// How many ticks a pause between two events runs one by one, at most (five minutes): by
/// then every timer has run out, and a trace whose time jumps far (damaged) does not hold
/// the replay for hours.
const MAX_PAUSE_TICKS: u64 = 3_000;

/// How a match ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct End {
    /// The result.
    pub result: MatchResult,
    /// Why, when it is one of the published reasons.
    pub reason: Option<EndReason>,
    /// The board where it ended.
    pub board: Option<BoardId>,
    /// Words for people (the BPGN end comment).
    pub detail: String,
}

/// `detail` with each seat it mentions (`WhiteB`) followed by its player's name from the
/// BPGN tags, when one is known: the end comment then says who lost, not only where.
fn name_players(detail: &str, tags: &BTreeMap<String, String>) -> String {
    let mut out = detail.to_owned();
    for seat in ["WhiteA", "BlackA", "WhiteB", "BlackB"] {
        let Some(name) = tags.get(seat).map(|n| n.trim()) else {
            continue;
        };
        if name.is_empty() || name == "?" {
            continue;
        }
        out = out.replace(seat, &format!("{seat} ({name})"));
    }
    out
}

/// One table's match.
#[derive(Debug, Clone)]
pub struct Match {
    id: String,
    tags: BTreeMap<String, String>,
    inferrer: Inferrer,
    clocks: ByBoard<Option<ClockReading>>,
    clock_at: u64,
    connected: ByBoard<bool>,
    /// Which boards the table's configuration has (both unless told otherwise).
    configured: ByBoard<bool>,
    /// An `unrecognized-position` alert was raised for the board's open link gap: its
    /// moves are not being recorded until the gap is bridged.
    gap_alerted: ByBoard<bool>,
    end: Option<End>,
    /// Ends of games already finished at this table (a new game started after them).
    finished_ends: Vec<Option<End>>,
    /// The BFEN the match started from when it was not the initial position (the BPGN's
    /// `SetUp`/`FEN` tags).
    setup: Option<String>,
    /// The moves of occupancy-only boards (Sentio), made from their snapshots.
    occupancy: OccupancyFeed,
    /// The latest time the timers ran to (ms).
    ticked: u64,
    /// Whether any event was fed: the first one starts the timers, none ran before it.
    fed: bool,
}

impl Match {
    /// A match `id` with BPGN `tags`, inferred with `config` from `start` (the initial
    /// position when `None`).
    #[must_use]
    pub fn new(
        id: &str,
        tags: BTreeMap<String, String>,
        config: InferConfig,
        start: Option<BughouseGame>,
    ) -> Match {
        let first = start
            .clone()
            .unwrap_or_else(|| BughouseGame::new(config.ruleset));
        Match {
            occupancy: OccupancyFeed::new(first, config.ruleset, config.stable_commit_ms),
            ticked: 0,
            fed: false,
            id: id.to_owned(),
            tags,
            inferrer: Inferrer::new(config, start),
            clocks: ByBoard::default(),
            clock_at: 0,
            // Nothing is connected until a board says so (its snapshot or its link): a board
            // that is not configured never does.
            connected: ByBoard { a: false, b: false },
            configured: ByBoard { a: true, b: true },
            gap_alerted: ByBoard::default(),
            end: None,
            finished_ends: Vec::new(),
            setup: None,
        }
    }

    /// A match like [`Match::new`] that starts from the set-up position `bfen` (both
    /// boards, holdings), which its BPGN records in the `FEN` tag.
    ///
    /// # Errors
    ///
    /// [`ParseBfenError`] when `bfen` is not a BFEN.
    pub fn from_setup(
        id: &str,
        tags: BTreeMap<String, String>,
        config: InferConfig,
        bfen: &str,
    ) -> Result<Match, ParseBfenError> {
        let start = parse_bfen(bfen, config.ruleset)?;
        let game = BughouseGame::from_positions(start.a.position, start.b.position, config.ruleset);
        let mut m = Match::new(id, tags, config, Some(game));
        m.setup = Some(bfen.to_owned());
        Ok(m)
    }

    /// The match id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The inference.
    #[must_use]
    pub const fn inferrer(&self) -> &Inferrer {
        &self.inferrer
    }

    /// The BPGN tags.
    #[must_use]
    pub const fn tags(&self) -> &BTreeMap<String, String> {
        &self.tags
    }

    /// The committed moves of the current game.
    #[must_use]
    pub fn record(&self) -> &[RecordEntry] {
        self.inferrer.record()
    }

    /// How the current game ended, if it did.
    #[must_use]
    pub const fn end(&self) -> Option<&End> {
        self.end.as_ref()
    }

    /// Whether each board's device link is up, as its events said.
    #[must_use]
    pub const fn connected(&self) -> ByBoard<bool> {
        self.connected
    }

    /// Says which boards the table's configuration has: a board it has not is published
    /// as such (no clocks, no lost link), not as a board whose link was lost.
    pub fn set_configured(&mut self, configured: ByBoard<bool>) {
        self.configured = configured;
    }

    /// Sets what is known of the device links: a daemon that restarts re-infers the links
    /// of the earlier run from its journal, but its own devices have not spoken yet.
    pub fn set_connected(&mut self, connected: ByBoard<bool>) {
        self.connected = connected;
    }

    /// Feeds one event at trace time `t` (`wall_ms`: the server clock, for viewers).
    pub fn feed(&mut self, t: u64, ev: &SensorEvent, wall_ms: u64) -> Vec<Inference> {
        if let SensorEvent::Operator(_) = ev {
            // The arbiter acted on what he saw at `t`: the timers run to `t` first, live
            // and replayed alike, so a journal replayed after a restart applies his action
            // to the same record (an occupancy board's last move, final by then, included).
            let mut out = self.ticks_before(t);
            out.extend(self.tick(t));
            out.extend(self.feed_now(t, ev, wall_ms));
            return out;
        }
        self.feed_now(t, ev, wall_ms)
    }

    /// The latest time the timers ran to (ms): the live daemon's next tick comes after
    /// it, and so must the next event it journals (see [`Match::ticks_before`]).
    #[must_use]
    pub const fn ticked(&self) -> u64 {
        self.ticked
    }

    /// Runs the timers at each multiple of [`LIVE_TICK_MS`] after the last time they ran
    /// and before `t`, the time of the event about to be fed. The live daemon ticks at
    /// those times too (when its timer is late, here, before the event), and journals no
    /// event before a tick that ran: a journal played again (a restart, `replay`) meets
    /// every tick where the live daemon met it, and decides what it decided (an occupancy
    /// board's move made final at rest, the `seq` of what was published).
    fn ticks_before(&mut self, t: u64) -> Vec<Inference> {
        let mut out = Vec::new();
        if !self.fed {
            // The first event starts the match's time: no timer ran before it.
            self.fed = true;
            self.ticked = self.ticked.max(t.saturating_sub(1));
            return out;
        }
        let mut at = (self.ticked / LIVE_TICK_MS + 1) * LIVE_TICK_MS;
        let mut left = MAX_PAUSE_TICKS;
        while at < t {
            if left == 0 {
                // A long pause: every timer ran out long ago; the last tick before `t`.
                at = (t - 1) / LIVE_TICK_MS * LIVE_TICK_MS;
            }
            left = left.saturating_sub(1);
            out.extend(self.tick(at));
            at += LIVE_TICK_MS;
        }
        out
    }

    fn feed_now(&mut self, t: u64, ev: &SensorEvent, wall_ms: u64) -> Vec<Inference> {
        match *ev {
            SensorEvent::Clock {
                board,
                white,
                black,
                running,
            } => {
                self.clocks[board] = Some(ClockReading {
                    times: ByColor { white, black },
                    running,
                });
                self.clock_at = wall_ms;
            }
            SensorEvent::Link { board, up } => {
                self.connected[board] = up;
                if !up {
                    self.gap_alerted[board] = false;
                }
            }
            SensorEvent::Snapshot { board, .. } => self.connected[board] = true,
            _ => {}
        }
        if let SensorEvent::Operator(OperatorAction::Fill {
            board,
            moves,
            first,
        }) = ev
            && self.occupancy.reads(*board)
        {
            // An occupancy-only board the arbiter takes up again: his moves, then what its
            // readings since decide.
            return match self.occupancy.fill(*board, moves, *first, t) {
                Ok((events, alerts)) => self.occupancy_out(t, events, alerts, wall_ms),
                Err(refused) => {
                    tracing::warn!(%refused, "fill of an occupancy-only board refused");
                    Vec::new()
                }
            };
        }
        let mut out = self.inferrer.observe(t, ev);
        self.absorb(&out);
        if let SensorEvent::Operator(
            OperatorAction::Replace {
                board,
                number,
                side,
                ..
            }
            | OperatorAction::Promotion {
                board,
                number,
                side,
                ..
            },
        ) = ev
            && self.occupancy.reads(*board)
        {
            // The kind the arbiter gave a placeholder is the occupancy reading's too.
            let mine = self.inferrer.record().iter().filter(|e| e.board == *board);
            if let Some((ply, entry)) = mine
                .enumerate()
                .find(|(_, e)| e.number == *number && e.side == *side)
            {
                let mended = self.occupancy.replaced(*board, ply, entry.mv, t);
                out.extend(self.hand_over(&mended, wall_ms));
            }
        }
        out
    }

    /// Checks an operator action against the game: a `fill` of an occupancy-only board
    /// against its reading (tried on a copy), any other against the record.
    ///
    /// # Errors
    ///
    /// [`ActionRefused`] naming the field at fault (see [`Inferrer::check_action`]).
    pub fn check_action(&self, t: u64, op: &OperatorAction) -> Result<(), ActionRefused> {
        if let OperatorAction::Fill {
            board,
            moves,
            first,
        } = op
            && self.occupancy.reads(*board)
        {
            if let Some(first) = *first
                && let Err(refused) = self.occupancy.fill_starts_at(*board, first)
            {
                return Err(ActionRefused {
                    field: "number",
                    message: refused.to_string(),
                });
            }
            let mut probe = self.occupancy.clone();
            return probe
                .fill(*board, moves, *first, t)
                .map(|_| ())
                .map_err(|refused| ActionRefused {
                    field: "moves",
                    message: refused.to_string(),
                });
        }
        self.inferrer.check_action(t, op)
    }

    /// Feeds one decoded trace line, the timers run first to the ticks before it (see
    /// [`Match::ticks_before`]): sensor events go to the inference, an occupancy snapshot
    /// to the occupancy reading, an unknown RFID tag becomes its `unknown-tag` alert; the
    /// rest (the `meta` line, operator actions this version does not know) decides nothing.
    pub fn feed_decoded(&mut self, t: u64, line: &Decoded, wall_ms: u64) -> Vec<Inference> {
        let mut out = self.ticks_before(t);
        out.extend(self.feed_line(t, line, wall_ms));
        out
    }

    fn feed_line(&mut self, t: u64, line: &Decoded, wall_ms: u64) -> Vec<Inference> {
        match line {
            Decoded::Event(ev) => self.feed(t, ev, wall_ms),
            Decoded::UnknownTag { board, sq, tag } => {
                let out = vec![unknown_tag_alert(t, *board, *sq, tag)];
                self.absorb(&out);
                out
            }
            Decoded::Occupancy { board, occupied } => {
                let (events, alerts) = self.occupancy.feed(*board, t, *occupied);
                self.occupancy_out(t, events, alerts, wall_ms)
            }
            Decoded::Meta(_) | Decoded::UnknownOperator(_) => Vec::new(),
        }
    }

    /// The end of an occupancy-only trace: its open moves become final.
    pub fn finish_occupancy(&mut self, t: u64, wall_ms: u64) -> Vec<Inference> {
        let (events, alerts) = self.occupancy.finish(t);
        self.occupancy_out(t, events, alerts, wall_ms)
    }

    fn occupancy_out(
        &mut self,
        t: u64,
        events: Vec<Handed>,
        alerts: Vec<Inference>,
        wall_ms: u64,
    ) -> Vec<Inference> {
        self.sync_unread(t);
        let mut out = self.hand_over(&events, wall_ms);
        // Timers that ran out between the move and now.
        out.extend(self.tick(t));
        self.absorb(&alerts);
        out.extend(alerts);
        out
    }

    /// Tells the piece inference which occupancy-only boards are not read now (`t`): the
    /// partner's drops meanwhile wait for their moves (see `infer/unread.rs`); and which
    /// moves put down pieces of open kind, which make a mate unsure (`infer/unsure_end.rs`).
    fn sync_unread(&mut self, t: u64) {
        let at = t.max(self.occupancy.handed_until());
        for b in BoardId::ALL {
            self.inferrer.set_unread(b, self.occupancy.unread(b), at);
        }
        self.inferrer.set_open_kinds(self.occupancy.open_kinds());
    }

    /// Feeds what the occupancy feed handed on to the piece inference.
    fn hand_over(&mut self, events: &[Handed], wall_ms: u64) -> Vec<Inference> {
        let mut out = Vec::new();
        for h in events {
            match h {
                Handed::Event(at, ev) => out.extend(self.feed(*at, ev, wall_ms)),
                Handed::Settled {
                    t,
                    board,
                    ply,
                    mv,
                    open,
                } => {
                    // The moves handed on before it are final in the record first.
                    let ticked = self.inferrer.tick(*t);
                    self.absorb(&ticked);
                    out.extend(ticked);
                    let settled = self.inferrer.settle_kind(*t, *board, *ply, *mv, *open);
                    self.absorb(&settled);
                    out.extend(settled);
                }
            }
        }
        out
    }

    /// Lets the inference's timers run to trace time `t`.
    pub fn tick(&mut self, t: u64) -> Vec<Inference> {
        self.ticked = self.ticked.max(t);
        // An occupancy-only board's piece held still long enough is a move now.
        let (events, alerts) = self.occupancy.tick(t);
        self.sync_unread(t);
        let mut out = self.hand_over(&events, t);
        let ticked = self.inferrer.tick(t);
        self.absorb(&ticked);
        out.extend(ticked);
        self.absorb(&alerts);
        out.extend(alerts);
        out
    }

    fn absorb(&mut self, out: &[Inference]) {
        for inf in out {
            match inf {
                Inference::End {
                    board,
                    result,
                    reason,
                    detail,
                    ..
                } => {
                    self.end = Some(End {
                        result: *result,
                        reason: *reason,
                        board: *board,
                        detail: name_players(detail, &self.tags),
                    });
                }
                Inference::ResultCorrection {
                    result,
                    reason,
                    detail,
                    ..
                } => {
                    // The BPGN's end comment keeps what was recorded before, so the record
                    // shows it was corrected.
                    let was = self.end.take();
                    let before = was.as_ref().map_or_else(String::new, |w| {
                        let why = w.reason.map_or("", EndReason::code);
                        format!("; it was {} ({why})", w.result.as_str())
                    });
                    self.end = Some(End {
                        result: *result,
                        reason: *reason,
                        board: was.as_ref().and_then(|w| w.board),
                        detail: format!("{detail}{before}"),
                    });
                }
                Inference::NewGame { .. } => {
                    self.finished_ends.push(self.end.take());
                }
                Inference::Alert(a) if a.code == AlertCode::UnrecognizedPosition => {
                    if let Some(b) = a.board
                        && self.inferrer.link_gap(b)
                    {
                        self.gap_alerted[b] = true;
                    }
                }
                _ => {}
            }
        }
    }

    /// What board `b`'s sensors show, when its link is back but its gap was alerted as not
    /// reconstructable and is still open, and the board differs from the game: its moves
    /// are not being recorded. (While the gap is being bridged, in the moment between the
    /// snapshot and the clock reading, nothing is said.)
    fn unrecorded(&self, b: BoardId) -> Option<Board> {
        let physical = *self.inferrer.physical(b);
        (self.connected[b]
            && self.gap_alerted[b]
            && self.inferrer.link_gap(b)
            && physical != *self.inferrer.game().board(b).board())
        .then_some(physical)
    }

    /// What the published state is made of.
    #[must_use]
    pub fn view(&self) -> View<'_> {
        View {
            match_id: &self.id,
            game: self.inferrer.game(),
            record: self.inferrer.record(),
            clocks: self.clocks,
            clock_at: self.clock_at,
            connected: self.connected,
            configured: self.configured,
            unrecorded: ByBoard::new_with(|b| self.unrecorded(b)),
            tags: &self.tags,
            end: self
                .end
                .as_ref()
                .map(|e| (e.result, e.reason, e.board, e.detail.as_str())),
        }
    }

    /// The BPGN of game `index` (0 = the first at the table; only it starts from the
    /// set-up position, the next ones from the boards set up again).
    fn bpgn_of(&self, index: usize, moves: &[RecordEntry], end: Option<&End>) -> String {
        text(&MatchRecord {
            tags: self
                .tags
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            setup: self.setup.clone().filter(|_| index == 0),
            moves,
            result: end.map(|e| e.result),
            end: end.map(|e| (e.reason, e.detail.clone())),
        })
    }

    /// The BPGN of the current game.
    #[must_use]
    pub fn bpgn(&self) -> String {
        self.bpgn_of(
            self.inferrer.finished_records().len(),
            self.inferrer.record(),
            self.end.as_ref(),
        )
    }

    /// The BPGN of the last game finished at the table (a new one has begun since).
    #[must_use]
    pub fn finished_bpgn(&self) -> Option<String> {
        let i = self.inferrer.finished_records().len().checked_sub(1)?;
        let moves = &self.inferrer.finished_records()[i];
        Some(self.bpgn_of(i, moves, self.finished_ends.get(i).and_then(Option::as_ref)))
    }

    /// The BPGN of every game played at the table so far, finished ones first.
    #[must_use]
    pub fn all_bpgn(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .inferrer
            .finished_records()
            .iter()
            .enumerate()
            .map(|(i, moves)| {
                self.bpgn_of(i, moves, self.finished_ends.get(i).and_then(Option::as_ref))
            })
            .collect();
        if !self.inferrer.record().is_empty() || out.is_empty() {
            out.push(self.bpgn());
        }
        out
    }
}
