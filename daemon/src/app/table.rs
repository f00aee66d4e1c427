//! The table: one match's journal, inference, record and publication.
//!
//! Every event is journaled *before* it is interpreted (written to the OS, so a killed
//! process loses nothing); the journal is synced to disk at each clock press, when a move is
//! completed (right after the move is published, so viewers never wait for the disk), and
//! at each operator action; the BPGN is rewritten atomically after each decision that
//! changes it. Started again after a crash,
//! [`Table::open`] re-infers the latest journal and carries on appending to it.

use std::collections::BTreeMap;
use std::time::Instant;

use bugbridge_broadcast::{Hub, Update, wire};
use bugbridge_drivers::trace::{Side, TraceEvent, TraceLine};
use tracing::{debug, info, warn};

use crate::config::Config;
use crate::game::{LIVE_TICK_MS, Match};
use crate::infer::{ActionRefused, InferConfig, Inference, OperatorAction, SensorEvent};
use crate::publish;
use crate::record::{GameFiles, Journal, Store, write_atomic};
use crate::rules::{BoardId, ByBoard, EndReason, MatchResult, Move, Role};
use crate::sensor;

use super::AppError;
use super::archive;
use super::time::{date_time_tags, from_tags, wall_ms};

/// One match at the table.
#[derive(Debug)]
pub(crate) struct Table {
    match_id: String,
    store: Store,
    files: GameFiles,
    journal: Journal,
    game: Match,
    infer: InferConfig,
    base_tags: BTreeMap<String, String>,
    ruleset: String,
    time_control: Option<String>,
    hub: Option<Hub>,
    /// Trace time = `base_t` + time since `origin`.
    origin: Instant,
    base_t: u64,
    /// The running side of each board's last clock reading: a change is a press.
    running: ByBoard<Option<Option<Side>>>,
    /// Decisions not yet published.
    pending: Vec<Inference>,
    /// The boards the configuration has (an action about another one is refused).
    boards: ByBoard<bool>,
    /// The earliest time the next journaled line may have: just after the last tick the
    /// timer ran. An event the board sent before it but heard after it is journaled after
    /// it, as it was interpreted, so that the journal played again meets it after the tick
    /// too (see [`Match::ticks_before`](crate::game::Match)).
    after_tick: u64,
}

impl Table {
    /// Opens the table: recovers the latest game's journal if there is one, or starts game 1.
    pub(crate) fn open(config: &Config, hub: Option<Hub>) -> Result<Table, AppError> {
        let store = Store::open(&config.record_dir, &config.match_id)
            .map_err(|e| AppError::Record(format!("{}: {e}", config.record_dir.display())))?;
        let infer = InferConfig {
            ruleset: config.rules(),
            clock: ByBoard::new_with(|b| {
                config
                    .boards
                    .iter()
                    .find(|c| c.id == b)
                    .is_none_or(crate::config::BoardConfig::has_clock)
            }),
            stable_commit_ms: config.stable_commit_ms,
            drop_tolerance_ms: config.drop_tolerance_ms,
            gap_max_plies: config.gap_max_plies,
            grab_window_ms: config.koedem.grab_window_ms,
            ..InferConfig::default()
        };
        let mut base_tags = config.tags.clone();
        if let Some(tc) = config.time_control {
            base_tags.insert("TimeControl".into(), tc.to_string());
        }
        if let Some(variant) = crate::rules::notation::variant::variant_of(config.ruleset) {
            base_tags.insert("Variant".into(), variant.into());
        }
        if config.ruleset == crate::rules::RulesetName::Koedem
            && config.koedem.promotion == crate::config::KoedemPromotion::Announce
        {
            // The journal and the BPGN say the promotions are not grabs.
            base_tags.insert(
                crate::rules::notation::variant::PROMOTION_TAG.into(),
                crate::rules::notation::variant::ANNOUNCE_PROMOTION.into(),
            );
        }
        let latest = store
            .latest()
            .map_err(|e| AppError::Record(format!("{}: {e}", config.record_dir.display())))?;
        // What earlier runs published for this match, re-derived from its journals, so that
        // the events' `seq` goes on where it was.
        let mut finished = Vec::new();
        let mut current = Vec::new();
        let mut table = match latest {
            Some(files) => {
                for n in 1..files.number {
                    finished.extend(rederive(&store.files(n), &config.match_id, infer));
                }
                Table::recover(config, store, files, infer, base_tags, &mut current)?
            }
            None => {
                let files = store.files(1);
                Table::start(config, store, files, infer, base_tags)?
            }
        };
        if let Some(hub) = &hub {
            let finished: Vec<wire::Event> = finished.iter().filter_map(publish::event).collect();
            let current = current.iter().filter_map(publish::event).collect();
            match hub.resume(&config.match_id, &finished, current) {
                Ok(p) if p.seq > 0 || p.alert_seq > 0 => {
                    info!(
                        seq = p.seq,
                        alert_seq = p.alert_seq,
                        "event numbering continues"
                    );
                }
                Ok(_) => {}
                Err(e) => debug!("not resumed: {e}"),
            }
        }
        table.hub = hub;
        if let Some(hub) = &table.hub {
            let rules = table.infer.ruleset;
            archive::add_earlier(
                hub,
                &table.store,
                &table.match_id,
                table.files.number,
                rules,
            );
        }
        if table.game.end().is_some() {
            table.archive(table.files.number);
        }
        table.publish();
        Ok(table)
    }

    /// A new game's files, its journal opening with the `meta` line.
    fn start(
        config: &Config,
        store: Store,
        files: GameFiles,
        infer: InferConfig,
        base_tags: BTreeMap<String, String>,
    ) -> Result<Table, AppError> {
        let mut journal =
            Journal::create(&files.journal).map_err(|e| AppError::Record(e.to_string()))?;
        let mut tags = base_tags.clone();
        let (date, time) = date_time_tags(wall_ms());
        tags.insert("Date".into(), date);
        tags.insert("Time".into(), time);
        let ruleset = config.ruleset.as_str().to_owned();
        let time_control = config.time_control.map(|tc| tc.to_string());
        journal
            .append(&TraceLine {
                t: 0,
                event: TraceEvent::Meta {
                    ruleset: Some(ruleset.clone()),
                    time_control: time_control.clone(),
                    setup: None,
                    tags: tags.clone(),
                },
            })
            .and_then(|()| journal.sync())
            .map_err(|e| AppError::Record(e.to_string()))?;
        info!(journal = %files.journal.display(), "game {} started", files.number);
        Ok(Table {
            match_id: config.match_id.clone(),
            store,
            files,
            journal,
            game: {
                let mut game = Match::new(&config.match_id, tags, infer, None);
                game.set_configured(configured_boards(config));
                game
            },
            infer,
            base_tags,
            ruleset,
            time_control,
            hub: None,
            origin: Instant::now(),
            base_t: 0,
            running: ByBoard::default(),
            pending: Vec::new(),
            boards: configured_boards(config),
            after_tick: 0,
        })
    }

    /// Re-infers a journal left by an earlier run (stopped or crashed) and goes on with it.
    fn recover(
        config: &Config,
        store: Store,
        files: GameFiles,
        infer: InferConfig,
        base_tags: BTreeMap<String, String>,
        decisions: &mut Vec<Inference>,
    ) -> Result<Table, AppError> {
        let (journal, recovered) =
            Journal::recover(&files.journal).map_err(|e| AppError::Record(e.to_string()))?;
        if recovered.dropped_bytes > 0 {
            warn!(
                bytes = recovered.dropped_bytes,
                "dropped a torn last journal line"
            );
        }
        let mut tags = base_tags.clone();
        let mut origin_wall = None;
        for line in &recovered.lines {
            if let TraceEvent::Meta {
                tags: meta_tags, ..
            } = &line.event
            {
                tags.extend(meta_tags.clone());
                origin_wall = meta_tags
                    .get("Date")
                    .zip(meta_tags.get("Time"))
                    .and_then(|(d, t)| from_tags(d, t));
            }
        }
        let mut game = Match::new(&config.match_id, tags, infer, None);
        game.set_configured(configured_boards(config));
        let mut running = ByBoard::<Option<Option<Side>>>::default();
        for line in &recovered.lines {
            if let TraceEvent::Clock {
                board, running: r, ..
            } = &line.event
            {
                running[sensor::board_id(*board)] = Some(*r);
            }
            decisions.extend(game.feed_decoded(line.t, &sensor::decode(&line.event), wall_ms()));
        }
        // The links the journal shows were the earlier run's: this run's boards are
        // connected when their sessions say so.
        game.set_connected(ByBoard::default());
        let last_t = journal.last_t();
        // The time since the game started, when the journal says when that was; at least
        // the journal's last time (a trace's time never goes back).
        let base_t = origin_wall.map_or(last_t, |o| wall_ms().saturating_sub(o).max(last_t));
        info!(
            journal = %files.journal.display(),
            lines = recovered.lines.len(),
            moves = game.record().len(),
            "recovered game {} from its journal",
            files.number
        );
        Ok(Table {
            match_id: config.match_id.clone(),
            store,
            files,
            journal,
            game,
            infer,
            base_tags,
            ruleset: config.ruleset.as_str().to_owned(),
            time_control: config.time_control.map(|tc| tc.to_string()),
            hub: None,
            origin: Instant::now(),
            base_t,
            running,
            pending: Vec::new(),
            boards: configured_boards(config),
            after_tick: 0,
        })
    }

    /// Trace time of an instant.
    fn t(&self, at: Instant) -> u64 {
        let since = at.saturating_duration_since(self.origin).as_millis();
        self.base_t + u64::try_from(since).unwrap_or(u64::MAX / 2)
    }

    /// The current game's files.
    pub(crate) fn files(&self) -> &GameFiles {
        &self.files
    }

    /// One event from a board: journal, sync at a press, infer, record, publish.
    pub(crate) fn on_sensor(
        &mut self,
        at: Instant,
        event: TraceEvent,
    ) -> Result<Vec<Inference>, AppError> {
        let t = self.t(at).max(self.journal.last_t()).max(self.after_tick);
        let press = match &event {
            TraceEvent::Clock { board, running, .. } => {
                let b = sensor::board_id(*board);
                let before = self.running[b].replace(*running);
                before.is_some_and(|r| r != *running)
            }
            TraceEvent::Link { .. } => true,
            _ => false,
        };
        let line = TraceLine { t, event };
        self.journal
            .append(&line)
            .map_err(|e| AppError::Record(e.to_string()))?;
        let links = self.game.connected();
        let decided = self
            .game
            .feed_decoded(t, &sensor::decode(&line.event), wall_ms());
        let decided = self.after(decided, press || self.game.connected() != links)?;
        // The line reached the OS before it was interpreted, so a killed process loses
        // nothing; the sync that also survives a power cut comes right after the move is
        // published, so viewers do not wait for the disk (an fsync costs milliseconds).
        if press {
            self.journal
                .sync()
                .map_err(|e| AppError::Record(e.to_string()))?;
        }
        Ok(decided)
    }

    /// An operator action from the arbiter view: checked against the game (a refused one
    /// changes nothing and is not journaled), journaled (synced), then applied. Whoever sent
    /// it hears the outcome through the hub ([`Hub::answer`]).
    pub(crate) fn on_action(
        &mut self,
        action: &wire::OperatorAction,
    ) -> Result<Vec<Inference>, AppError> {
        let t = self
            .t(Instant::now())
            .max(self.journal.last_t())
            .max(self.after_tick);
        let op = match self.check_action(t, action) {
            Ok(op) => op,
            Err(refused) => {
                warn!(?action, "operator action refused: {refused}");
                self.answer(action, Err(refused));
                return Ok(Vec::new());
            }
        };
        let ev = SensorEvent::Operator(op);
        let line = TraceLine {
            t,
            event: sensor::encode(&ev),
        };
        if let Err(e) = self
            .journal
            .append(&line)
            .and_then(|()| self.journal.sync())
        {
            self.answer(
                action,
                Err(ActionRefused {
                    field: "action",
                    message: format!("the daemon could not journal it: {e}"),
                }),
            );
            return Err(AppError::Record(e.to_string()));
        }
        info!(?action, "operator action journaled");
        self.answer(action, Ok(()));
        let decided = self.game.feed(t, &ev, wall_ms());
        let decided = self.after(decided, true)?;
        self.confirm(t, action);
        Ok(decided)
    }

    /// Checks an action against the configuration and the game.
    fn check_action(
        &self,
        t: u64,
        action: &wire::OperatorAction,
    ) -> Result<OperatorAction, ActionRefused> {
        let op = operator_action(action)?;
        if let Some(b) = op.board()
            && !self.boards[b]
        {
            return Err(ActionRefused {
                field: "board",
                message: format!("board {b} is not configured at this table"),
            });
        }
        self.game.check_action(t, &op)?;
        Ok(op)
    }

    /// Tells the sender of `action` (the arbiter page waiting on its request) the outcome.
    fn answer(&self, action: &wire::OperatorAction, outcome: Result<(), ActionRefused>) {
        if let (Some(hub), Some(id)) = (&self.hub, &action.id) {
            hub.answer(
                id,
                outcome.map_err(|r| bugbridge_broadcast::ActionRefusal {
                    field: r.field.to_owned(),
                    message: r.message,
                }),
            );
        }
    }

    /// Publishes an `action` event carrying the action's id, so that the console that sent
    /// it (possibly through a relay and a broker) can show it was applied.
    fn confirm(&self, t: u64, action: &wire::OperatorAction) {
        let (Some(hub), Some(id)) = (&self.hub, &action.id) else {
            return;
        };
        let mut event = wire::Event::new(wire::EventKind::Action, t);
        event.action = Some(id.clone());
        event.code = Some(action.kind.name().to_owned());
        let update = Update {
            state: publish::state(&self.game.view()),
            bpgn: self.game.bpgn(),
            events: vec![event],
        };
        if let Err(e) = hub.publish(&self.match_id, update) {
            debug!("not published: {e}");
        }
    }

    /// Lets the inference's timers run (clockless commits, drop tolerances).
    pub(crate) fn on_tick(&mut self, now: Instant) -> Result<Vec<Inference>, AppError> {
        // At a multiple of the tick, as a journal played again ticks; one that ran already
        // (before an event heard since) does not run again.
        let t = self.t(now) / LIVE_TICK_MS * LIVE_TICK_MS;
        if t <= self.game.ticked() {
            return Ok(Vec::new());
        }
        self.after_tick = t + 1;
        let decided = self.game.tick(t);
        self.after(decided, false)
    }

    fn after(
        &mut self,
        decided: Vec<Inference>,
        state_changed: bool,
    ) -> Result<Vec<Inference>, AppError> {
        let mut rotate = false;
        let mut bpgn_changed = false;
        for d in &decided {
            match d {
                Inference::Move { entry, .. } => {
                    debug!(board = %entry.board, san = %entry.san, "move");
                    bpgn_changed = true;
                }
                Inference::Correction(_)
                | Inference::End { .. }
                | Inference::ResultCorrection { .. } => bpgn_changed = true,
                // An alert is the arbiter's business (MQTT, the arbiter view), not a fault
                // of the daemon: logged, but not as a warning.
                Inference::Alert(a) => info!(code = a.code.code(), detail = %a.detail, "alert"),
                Inference::NewGame { .. } => rotate = true,
            }
        }
        self.pending.extend(decided.iter().cloned());
        if state_changed || !decided.is_empty() {
            self.publish();
        }
        // After publishing: the BPGN is derived from the journal, which is already synced
        // at the press, so writing it first (two more syncs) only delayed every move event
        // by their duration (~8 ms on an ordinary disk) without making anything safer.
        if bpgn_changed {
            self.write_bpgn()?;
            if self.game.end().is_some() {
                self.archive(self.files.number);
            }
        }
        if rotate {
            self.rotate()?;
        }
        Ok(decided)
    }

    /// Writes the current game's BPGN (temporary file + rename).
    pub(crate) fn write_bpgn(&self) -> Result<(), AppError> {
        write_atomic(&self.files.bpgn, self.game.bpgn().as_bytes())
            .map_err(|e| AppError::Record(format!("{}: {e}", self.files.bpgn.display())))
    }

    /// A new game began at the table (both boards set up again): the finished game's files
    /// are closed and the next number's are opened, starting with the boards as they stand.
    fn rotate(&mut self) -> Result<(), AppError> {
        if let Some(previous) = self.game.finished_bpgn() {
            write_atomic(&self.files.bpgn, previous.as_bytes())
                .map_err(|e| AppError::Record(format!("{}: {e}", self.files.bpgn.display())))?;
        }
        self.archive(self.files.number);
        self.journal
            .sync()
            .map_err(|e| AppError::Record(e.to_string()))?;
        let files = self.store.files(self.files.number + 1);
        let mut journal =
            Journal::create(&files.journal).map_err(|e| AppError::Record(e.to_string()))?;
        let t = self.journal.last_t();
        let mut tags = self.base_tags.clone();
        let (date, time) = date_time_tags(wall_ms());
        tags.insert("Date".into(), date);
        tags.insert("Time".into(), time);
        let mut lines = vec![TraceLine {
            t,
            event: TraceEvent::Meta {
                ruleset: Some(self.ruleset.clone()),
                time_control: self.time_control.clone(),
                setup: None,
                tags: tags.clone(),
            },
        }];
        for b in BoardId::ALL {
            lines.push(TraceLine {
                t,
                event: TraceEvent::Board {
                    board: sensor::wire_board_id(b),
                    placement: sensor::placement(self.game.inferrer().physical(b)),
                },
            });
        }
        for line in &lines {
            journal
                .append(line)
                .map_err(|e| AppError::Record(e.to_string()))?;
        }
        journal
            .sync()
            .map_err(|e| AppError::Record(e.to_string()))?;
        info!(journal = %files.journal.display(), "game {} started", files.number);
        self.journal = journal;
        self.files = files;
        // The new game's match: re-inferred from the lines just written, so a restart
        // sees exactly what this run sees.
        let mut game = Match::new(&self.match_id, tags, self.infer, None);
        game.set_configured(self.boards);
        for line in &lines {
            game.feed_decoded(line.t, &sensor::decode(&line.event), wall_ms());
        }
        // The snapshots above are the boards as they stand, not news from the devices.
        game.set_connected(self.game.connected());
        self.game = game;
        self.write_bpgn()?;
        self.publish();
        Ok(())
    }

    /// Serves game `number`'s BPGN file as a recorded game (`/api/games`).
    fn archive(&self, number: u32) {
        if let Some(hub) = &self.hub {
            archive::add(hub, &self.store, &self.match_id, number, self.infer.ruleset);
        }
    }

    /// Publishes the state and the decisions not yet published.
    pub(crate) fn publish(&mut self) {
        let Some(hub) = &self.hub else {
            self.pending.clear();
            return;
        };
        let game = self.files.number;
        let events = self
            .pending
            .drain(..)
            .filter_map(|d| publish::event(&d))
            .map(|mut e| {
                if e.kind == wire::EventKind::Alert {
                    e.game = Some(game);
                    e.wall = Some(wall_ms());
                }
                e
            })
            .collect();
        let gaps = self.game.inferrer().gap_stats();
        hub.metrics().set_link_gaps(
            &self.match_id,
            [
                ("outage", gaps.outages),
                ("bridged", gaps.bridged),
                ("ambiguous", gaps.ambiguous),
                ("unbridged", gaps.unbridged),
            ],
        );
        let update = Update {
            state: publish::state(&self.game.view()),
            bpgn: self.game.bpgn(),
            events,
        };
        if let Err(e) = hub.publish(&self.match_id, update) {
            debug!("not published: {e}");
        }
    }

    /// Makes everything durable (shutdown).
    pub(crate) fn flush(&mut self) -> Result<(), AppError> {
        self.journal
            .sync()
            .map_err(|e| AppError::Record(e.to_string()))?;
        self.write_bpgn()
    }
}

/// The decisions a finished game's journal re-infers to (nothing when it cannot be read:
/// the numbering of events then restarts lower, which is logged).
fn rederive(files: &GameFiles, match_id: &str, infer: InferConfig) -> Vec<Inference> {
    let recovered = match Journal::read(&files.journal) {
        Ok(r) => r,
        Err(e) => {
            warn!("game {}: {e}; its events are not counted", files.number);
            return Vec::new();
        }
    };
    let mut game = Match::new(match_id, BTreeMap::new(), infer, None);
    let mut out = Vec::new();
    for line in &recovered.lines {
        out.extend(game.feed_decoded(line.t, &sensor::decode(&line.event), 0));
    }
    out
}

/// Which boards the configuration has.
fn configured_boards(config: &Config) -> ByBoard<bool> {
    ByBoard::new_with(|b| config.boards.iter().any(|c| c.id == b))
}

/// The squares to light for a decided move.
pub(crate) fn led_squares(mv: &Move) -> Option<(crate::rules::Square, crate::rules::Square)> {
    match mv.from() {
        Some(from) => Some((from, mv.to())),
        None => Some((mv.to(), mv.to())),
    }
}

/// The domain form of an arbiter's action.
fn operator_action(a: &wire::OperatorAction) -> Result<OperatorAction, ActionRefused> {
    use publish::{board_id as board, color as side};
    let refused = |field: &'static str, message: String| ActionRefused { field, message };
    Ok(match &a.kind {
        wire::ActionKind::Promotion {
            board: b,
            number,
            side: s,
            piece,
        } => OperatorAction::Promotion {
            board: board(*b),
            number: *number,
            side: side(*s),
            piece: piece
                .chars()
                .next()
                .filter(|_| piece.chars().count() == 1)
                .and_then(Role::from_char)
                .ok_or_else(|| refused("piece", format!("{piece:?} is not a piece letter")))?,
        },
        wire::ActionKind::Result {
            result,
            reason,
            correct,
        } => OperatorAction::Result {
            result: MatchResult::from_str_opt(result)
                .filter(|r| *r != MatchResult::Unfinished)
                .ok_or_else(|| {
                    refused("result", format!("{result:?} is not 1-0, 0-1 or 1/2-1/2"))
                })?,
            reason: Some(
                EndReason::from_code(reason)
                    .ok_or_else(|| refused("reason", format!("{reason:?} is not an end reason")))?,
            ),
            correct: *correct,
        },
        wire::ActionKind::Replace {
            board: b,
            number,
            side: s,
            san,
        } => OperatorAction::Replace {
            board: board(*b),
            number: *number,
            side: side(*s),
            san: san.clone(),
        },
        wire::ActionKind::Fill {
            board: b,
            moves,
            number,
            side: s,
        } => OperatorAction::Fill {
            board: board(*b),
            moves: moves.clone(),
            first: match (number, s) {
                (Some(n), Some(s)) => Some((*n, side(*s))),
                (None, None) => None,
                (Some(_), None) => return Err(refused("side", "a number needs its side".into())),
                (None, Some(_)) => return Err(refused("number", "a side needs its number".into())),
            },
        },
    })
}

/// A table of two DGT boards on ports that are never opened, recording into `dir`: the
/// configuration of the tests that feed a [`Table`] its sensor events directly.
#[cfg(test)]
pub(crate) fn test_config(dir: &std::path::Path, match_id: &str) -> Config {
    let board = |id| crate::config::BoardConfig {
        id,
        driver: crate::config::DriverKind::Dgt,
        port: Some(format!("/dev/null-{id}")),
        usb_serial: None,
        clock: crate::config::ClockSource::Board,
        white_side: crate::config::WhiteSide::Left,
        orientation: crate::config::Orientation::Auto,
        parity: crate::config::Parity::Auto,
        trace: None,
        calibration: None,
    };
    Config {
        match_id: match_id.into(),
        ruleset: crate::rules::RulesetName::Fide,
        time_control: None,
        tags: std::collections::BTreeMap::new(),
        boards: vec![board(BoardId::A), board(BoardId::B)],
        mqtt: None,
        http: None,
        record_dir: dir.to_owned(),
        stable_commit_ms: crate::infer::config::DEFAULT_STABLE_COMMIT_MS,
        drop_tolerance_ms: 300,
        gap_max_plies: 6,
        koedem: crate::config::KoedemOptions::default(),
        log_format: crate::config::LogFormat::Text,
        log_level: "info".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bugbridge_drivers::trace::{BoardId as WireBoard, Placement};

    /// What an alert's one-click choice posts is read back as the action it was made
    /// from.
    #[test]
    fn a_choice_posts_the_action_it_was_made_from() {
        use crate::rules::Color;
        let actions = [
            OperatorAction::Replace {
                board: BoardId::B,
                number: 12,
                side: Color::Black,
                san: "N@f3".to_owned(),
            },
            OperatorAction::Promotion {
                board: BoardId::A,
                number: 30,
                side: Color::White,
                piece: Role::Knight,
            },
            OperatorAction::Fill {
                board: BoardId::A,
                moves: vec!["Nxd5".to_owned(), "P@c3".to_owned()],
                first: None,
            },
            OperatorAction::Fill {
                board: BoardId::B,
                moves: vec!["Qxa4".to_owned()],
                first: Some((17, Color::Black)),
            },
            OperatorAction::Result {
                result: MatchResult::Draw,
                reason: Some(EndReason::DrawAgreement),
                correct: true,
            },
        ];
        for op in actions {
            let posted = wire::OperatorAction {
                id: None,
                match_id: "m".to_owned(),
                kind: publish::action(&op),
            };
            let json = serde_json::to_string(&posted).expect("json");
            let back: wire::OperatorAction = serde_json::from_str(&json).expect(&json);
            assert_eq!(operator_action(&back).expect(&json), op, "{json}");
        }
    }

    fn feed(table: &mut Table, events: Vec<TraceEvent>) {
        for ev in events {
            table.on_sensor(Instant::now(), ev).unwrap();
        }
    }

    /// 1A. e4 as the boards report it: snapshots, the clocks started, e2 lifted, e4 put,
    /// White's press.
    fn first_move() -> Vec<TraceEvent> {
        let sq = |s: &str| bugbridge_drivers::trace::Square::from_name(s).unwrap();
        let clock = |board, white, running| TraceEvent::Clock {
            board,
            white,
            black: 180.0,
            running,
        };
        vec![
            TraceEvent::Board {
                board: WireBoard::A,
                placement: Placement::start(),
            },
            TraceEvent::Board {
                board: WireBoard::B,
                placement: Placement::start(),
            },
            clock(WireBoard::A, 180.0, Some(Side::White)),
            clock(WireBoard::B, 180.0, Some(Side::White)),
            TraceEvent::Square {
                board: WireBoard::A,
                sq: sq("e2"),
                piece: None,
            },
            TraceEvent::Square {
                board: WireBoard::A,
                sq: sq("e4"),
                piece: bugbridge_drivers::trace::SensorPiece::from_char('P'),
            },
            clock(WireBoard::A, 178.0, Some(Side::Black)),
        ]
    }

    /// The players set the boards up again after 1A. e4 (the pawn back to e2): a new game.
    fn set_up_again() -> Vec<TraceEvent> {
        let sq = |s: &str| bugbridge_drivers::trace::Square::from_name(s).unwrap();
        vec![
            TraceEvent::Square {
                board: WireBoard::A,
                sq: sq("e4"),
                piece: None,
            },
            TraceEvent::Square {
                board: WireBoard::A,
                sq: sq("e2"),
                piece: bugbridge_drivers::trace::SensorPiece::from_char('P'),
            },
        ]
    }

    #[test]
    fn moves_and_operator_actions_survive_a_crash_and_a_restart() {
        let dir = std::env::temp_dir().join(format!("bugbridge-table-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = test_config(&dir, "t");
        let mut table = Table::open(&config, None).unwrap();
        feed(&mut table, first_move());
        assert_eq!(table.game.record().len(), 1);
        let resign = wire::OperatorAction {
            id: None,
            match_id: "t".into(),
            kind: wire::ActionKind::Result {
                result: "0-1".into(),
                reason: "resignation".into(),
                correct: false,
            },
        };
        table.on_action(&resign).unwrap();
        assert_eq!(
            table.game.end().map(|e| e.result),
            Some(MatchResult::Won(crate::rules::Team::BlackA))
        );
        let bpgn_before = std::fs::read_to_string(&table.files.bpgn).unwrap();
        assert!(bpgn_before.contains("1A. e4 {178}"), "{bpgn_before}");
        // A crash: nothing flushed or closed on purpose.
        std::mem::forget(table);
        let table = Table::open(&config, None).unwrap();
        assert_eq!(table.files.number, 1, "the same game goes on");
        assert_eq!(table.game.record().len(), 1);
        assert_eq!(
            table.game.end().map(|e| e.reason),
            Some(Some(EndReason::Resignation))
        );
        assert_eq!(table.game.bpgn(), bpgn_before);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// 1a. e5 after the end: the pawn moved and Black's press.
    fn black_replies() -> Vec<TraceEvent> {
        let sq = |s: &str| bugbridge_drivers::trace::Square::from_name(s).unwrap();
        vec![
            TraceEvent::Square {
                board: WireBoard::A,
                sq: sq("e7"),
                piece: None,
            },
            TraceEvent::Square {
                board: WireBoard::A,
                sq: sq("e5"),
                piece: bugbridge_drivers::trace::SensorPiece::from_char('p'),
            },
            TraceEvent::Clock {
                board: WireBoard::A,
                white: 178.0,
                black: 176.0,
                running: Some(Side::White),
            },
        ]
    }

    fn result(result: &str, reason: &str, correct: bool) -> wire::OperatorAction {
        wire::OperatorAction {
            id: Some(format!("{result}-{reason}-{correct}")),
            match_id: "t".into(),
            kind: wire::ActionKind::Result {
                result: result.into(),
                reason: reason.into(),
                correct,
            },
        }
    }

    #[test]
    fn after_the_end_moves_are_not_recorded_results_need_correct_and_corrections_survive_a_restart()
    {
        let dir = std::env::temp_dir().join(format!("bugbridge-table-c-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = test_config(&dir, "t");
        let mut table = Table::open(&config, None).unwrap();
        feed(&mut table, first_move());
        table
            .on_action(&result("0-1", "resignation", false))
            .unwrap();
        let journal = || std::fs::read_to_string(store_files(&dir, 1).journal).unwrap();
        let lines = journal().lines().count();
        // A second result without `correct`, and a reason that does not exist: refused,
        // nothing journaled, the first result stands.
        let refused = table.check_action(0, &result("1-0", "resignation", false));
        assert_eq!(refused.map_err(|r| r.field), Err("correct"));
        let banana = table.check_action(0, &result("0-1", "banana", false));
        assert_eq!(banana.map_err(|r| r.field), Err("reason"));
        table
            .on_action(&result("1-0", "resignation", false))
            .unwrap();
        table.on_action(&result("0-1", "banana", false)).unwrap();
        assert_eq!(journal().lines().count(), lines);
        assert_eq!(
            table.game.end().map(|e| e.result),
            Some(MatchResult::Won(crate::rules::Team::BlackA))
        );
        // Black replies on board A after the end: not recorded.
        feed(&mut table, black_replies());
        assert_eq!(table.game.record().len(), 1);
        // The arbiter corrects the result.
        table.on_action(&result("1-0", "flag-fall", true)).unwrap();
        let end = table.game.end().cloned().expect("an end");
        assert_eq!(end.result, MatchResult::Won(crate::rules::Team::WhiteA));
        assert_eq!(end.reason, Some(EndReason::FlagFall));
        assert!(end.detail.contains("corrected"), "{}", end.detail);
        assert!(end.detail.contains("it was 0-1"), "{}", end.detail);
        let bpgn = std::fs::read_to_string(&table.files.bpgn).unwrap();
        assert!(bpgn.contains("[Result \"1-0\"]"), "{bpgn}");
        assert!(bpgn.contains("corrected by the arbiter"), "{bpgn}");
        assert!(!bpgn.contains("e5"), "{bpgn}");
        // The journal keeps the correction; a restart replays it.
        assert!(journal().contains("\"correct\":true"), "{}", journal());
        std::mem::forget(table);
        let table = Table::open(&config, None).unwrap();
        assert_eq!(table.game.end(), Some(&end));
        assert_eq!(table.game.record().len(), 1);
        assert_eq!(table.game.bpgn(), bpgn);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_action_about_a_board_that_is_not_configured_is_refused() {
        let dir = std::env::temp_dir().join(format!("bugbridge-table-b-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut config = test_config(&dir, "t");
        config.boards.retain(|b| b.id == BoardId::A);
        let table = Table::open(&config, None).unwrap();
        let fill = wire::OperatorAction {
            id: None,
            match_id: "t".into(),
            kind: wire::ActionKind::Fill {
                board: wire::Board::B,
                moves: vec!["d4".into()],
                number: None,
                side: None,
            },
        };
        assert_eq!(
            table.check_action(0, &fill).map_err(|r| r.field),
            Err("board")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_new_game_after_the_end_gets_files_of_its_own() {
        let dir = std::env::temp_dir().join(format!("bugbridge-table-n-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = test_config(&dir, "t");
        let mut table = Table::open(&config, None).unwrap();
        feed(&mut table, first_move());
        let draw = wire::OperatorAction {
            id: None,
            match_id: "t".into(),
            kind: wire::ActionKind::Result {
                result: "1/2-1/2".into(),
                reason: "draw-agreement".into(),
                correct: false,
            },
        };
        table.on_action(&draw).unwrap();
        // The players set both boards up again.
        feed(&mut table, set_up_again());
        assert_eq!(table.files.number, 2, "a new game began");
        let first = std::fs::read_to_string(store_files(&dir, 1).bpgn).unwrap();
        assert!(
            first.contains("1A. e4 {178}") && first.contains("1/2-1/2"),
            "{first}"
        );
        assert!(table.game.record().is_empty());
        // The new journal starts with the boards as they stand and re-infers to the same.
        drop(table);
        let table = Table::open(&config, None).unwrap();
        assert_eq!(table.files.number, 2);
        assert!(table.game.record().is_empty());
        assert_eq!(table.game.end(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_board_that_is_not_configured_is_not_reported_connected() {
        let dir = std::env::temp_dir().join(format!("bugbridge-table-one-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut config = test_config(&dir, "t");
        config.boards.retain(|b| b.id == BoardId::A);
        let (hub, _actions) = bugbridge_broadcast::Hub::new(Default::default());
        let connected = |hub: &bugbridge_broadcast::Hub| {
            let state = hub.state("t").expect("published");
            (state.boards.A.connected, state.boards.B.connected)
        };
        let gauge = |hub: &bugbridge_broadcast::Hub| {
            hub.metrics()
                .encode()
                .lines()
                .find(|l| l.starts_with("bugbridge_boards_connected{"))
                .map(str::to_owned)
        };
        let mut table = Table::open(&config, Some(hub.clone())).unwrap();
        assert_eq!(connected(&hub), (false, false), "nothing spoke yet");
        feed(
            &mut table,
            vec![TraceEvent::Board {
                board: WireBoard::A,
                placement: Placement::start(),
            }],
        );
        assert_eq!(connected(&hub), (true, false));
        assert_eq!(
            gauge(&hub).as_deref(),
            Some("bugbridge_boards_connected{match=\"t\"} 1")
        );
        // A restart: the journal's links were the earlier run's.
        drop(table);
        let (hub, _actions) = bugbridge_broadcast::Hub::new(Default::default());
        let _table = Table::open(&config, Some(hub.clone())).unwrap();
        assert_eq!(connected(&hub), (false, false));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn event_numbers_go_on_after_a_crash_across_games() {
        let dir = std::env::temp_dir().join(format!("bugbridge-table-seq-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = test_config(&dir, "t");
        let hub = || bugbridge_broadcast::Hub::new(Default::default()).0;
        let seq = |hub: &bugbridge_broadcast::Hub| hub.state("t").expect("published").seq;
        let sq = |s: &str| bugbridge_drivers::trace::Square::from_name(s).unwrap();
        let first_hub = hub();
        let mut table = Table::open(&config, Some(first_hub.clone())).unwrap();
        feed(&mut table, first_move());
        table
            .on_action(&wire::OperatorAction {
                id: None,
                match_id: "t".into(),
                kind: wire::ActionKind::Result {
                    result: "1/2-1/2".into(),
                    reason: "draw-agreement".into(),
                    correct: false,
                },
            })
            .unwrap();
        // A new game, and its first move.
        feed(&mut table, set_up_again());
        assert_eq!(table.files.number, 2);
        feed(&mut table, first_move());
        let before = seq(&first_hub);
        assert!(before >= 3, "two moves and an end: {before}");
        // kill -9, and a restart with a fresh process (a fresh hub).
        std::mem::forget(table);
        let second_hub = hub();
        let mut table = Table::open(&config, Some(second_hub.clone())).unwrap();
        assert_eq!(seq(&second_hub), before, "the numbering goes on");
        let sq_e7 = sq("e7");
        feed(
            &mut table,
            vec![
                TraceEvent::Square {
                    board: WireBoard::A,
                    sq: sq_e7,
                    piece: None,
                },
                TraceEvent::Square {
                    board: WireBoard::A,
                    sq: sq("e5"),
                    piece: bugbridge_drivers::trace::SensorPiece::from_char('p'),
                },
                TraceEvent::Clock {
                    board: WireBoard::A,
                    white: 178.0,
                    black: 177.0,
                    running: Some(Side::White),
                },
            ],
        );
        assert_eq!(table.game.record().len(), 2, "1a. e5 decided");
        assert_eq!(
            seq(&second_hub),
            before + 1,
            "the next event is the next number"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn store_files(dir: &std::path::Path, n: u32) -> GameFiles {
        Store::open(dir, "t").unwrap().files(n)
    }

    #[test]
    fn an_unknown_arbiter_action_changes_nothing() {
        let dir = std::env::temp_dir().join(format!("bugbridge-table-x-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut table = Table::open(&test_config(&dir, "t"), None).unwrap();
        let bad = wire::OperatorAction {
            id: None,
            match_id: "t".into(),
            kind: wire::ActionKind::Promotion {
                board: wire::Board::A,
                number: 1,
                side: wire::Side::White,
                piece: "x".into(),
            },
        };
        assert!(table.on_action(&bad).unwrap().is_empty());
        assert_eq!(table.journal.last_t(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A game is served as a recorded game once it has ended, stays served after the next
    /// game begins, and is served again by a daemon started later on the same directory.
    #[test]
    fn finished_games_are_served_with_their_result_and_survive_a_restart() {
        let dir = std::env::temp_dir().join(format!("bugbridge-table-g-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = test_config(&dir, "t");
        let (hub, _actions) = Hub::new(bugbridge_broadcast::HubOptions::default());
        let mut table = Table::open(&config, Some(hub.clone())).unwrap();
        feed(&mut table, first_move());
        assert!(
            hub.archive().list().is_empty(),
            "a game in progress is the live match"
        );
        let resign = wire::OperatorAction {
            id: None,
            match_id: "t".into(),
            kind: wire::ActionKind::Result {
                result: "0-1".into(),
                reason: "resignation".into(),
                correct: false,
            },
        };
        table.on_action(&resign).unwrap();
        let listed = |hub: &Hub| {
            hub.archive()
                .list()
                .into_iter()
                .map(|g| (g.number, g.result, g.plies))
                .collect::<Vec<_>>()
        };
        assert_eq!(listed(&hub), [(1, "0-1".to_owned(), 1)]);
        // The players set both boards up again: game 2 begins, game 1 stays served.
        feed(&mut table, set_up_again());
        assert_eq!(table.files.number, 2);
        assert_eq!(listed(&hub), [(1, "0-1".to_owned(), 1)]);
        drop(table);
        let (hub, _actions) = Hub::new(bugbridge_broadcast::HubOptions::default());
        let _table = Table::open(&config, Some(hub.clone())).unwrap();
        assert_eq!(listed(&hub), [(1, "0-1".to_owned(), 1)]);
        let games = hub.archive().list();
        assert_eq!(games[0].bpgn, "/api/games/t/1/bpgn");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
