//! Tests: what the daemon publishes about a board's link gaps, from the sensor events in to
//! the hub's `/metrics` and state out. Three outages of board A's link, one after the
//! other: one bridged, one bridged with another order possible (`gap-ambiguous`), one that
//! nothing explains (a king knocked over while the cable was out); each moves its counter,
//! and the last leaves the board shown as it stands, not recorded, until it is set right.

use std::time::{Duration, Instant};

use bugbridge_broadcast::hub::{Hub, HubOptions};
use bugbridge_drivers::trace::{
    BoardId as WireBoard, Placement, SensorPiece, Side, Square, TraceEvent,
};

use super::table::{Table, test_config};

const MATCH: &str = "gaps";

/// Board A's events, each at its trace time (ms).
struct Feed {
    table: Table,
    hub: Hub,
    origin: Instant,
}

impl Feed {
    fn at(&mut self, ms: u64, event: TraceEvent) {
        let at = self.origin + Duration::from_millis(ms);
        self.table.on_sensor(at, event).expect("the event is taken");
    }

    fn tick(&mut self, ms: u64) {
        let at = self.origin + Duration::from_millis(ms);
        self.table.on_tick(at).expect("the timers run");
    }

    fn square(&mut self, ms: u64, sq: &str, piece: Option<char>) {
        let sq = Square::from_name(sq).expect("a square");
        let piece = piece.and_then(SensorPiece::from_char);
        self.at(
            ms,
            TraceEvent::Square {
                board: WireBoard::A,
                sq,
                piece,
            },
        );
    }

    fn clock(&mut self, ms: u64, white: f64, black: f64, running: Side) {
        let ev = TraceEvent::Clock {
            board: WireBoard::A,
            white,
            black,
            running: Some(running),
        };
        self.at(ms, ev);
    }

    /// The link down at `down`, back at `up` with the board showing `fen` and the clock
    /// these readings.
    fn outage(&mut self, down: u64, up: u64, fen: &str, clock: (f64, f64, Side)) {
        self.cut(down, up, fen);
        self.clock(up + 30, clock.0, clock.1, clock.2);
        self.clock(up + 1030, clock.0, clock.1, clock.2);
    }

    /// [`Feed::outage`] up to the snapshot, without the clock reading.
    ///
    /// A reading without a press judges the board once it has been still for a second (a
    /// hand may be in the air at link-up), so the clock reads twice: at link-up and a
    /// second later.
    fn cut(&mut self, down: u64, up: u64, fen: &str) {
        self.at(
            down,
            TraceEvent::Link {
                board: WireBoard::A,
                up: false,
            },
        );
        self.at(
            up,
            TraceEvent::Link {
                board: WireBoard::A,
                up: true,
            },
        );
        let placement = Placement::from_fen(fen).expect("a placement");
        self.at(
            up + 20,
            TraceEvent::Board {
                board: WireBoard::A,
                placement,
            },
        );
    }

    /// `bugbridge_link_gaps{outcome=…}` as `/metrics` shows it.
    fn gaps(&mut self, outcome: &str) -> u64 {
        self.table.publish();
        let text = self.hub.metrics().encode();
        let head = format!("bugbridge_link_gaps{{match=\"{MATCH}\",outcome=\"{outcome}\"}} ");
        text.lines()
            .find_map(|l| l.strip_prefix(&head))
            .unwrap_or_else(|| panic!("no `{head}` in\n{text}"))
            .parse()
            .expect("a count")
    }

    /// The state as published now.
    fn state(&mut self) -> bugbridge_broadcast::wire::MatchState {
        self.table.publish();
        self.hub.state(MATCH).expect("the match is published")
    }
}

#[test]
fn each_outage_moves_its_counter_and_an_unbridged_board_is_shown_not_recorded() {
    let dir = std::env::temp_dir().join(format!("bugbridge-gap-metrics-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (hub, _actions) = Hub::new(HubOptions::default());
    let table = Table::open(&test_config(&dir, MATCH), Some(hub.clone())).expect("the table opens");
    let mut f = Feed {
        table,
        hub,
        origin: Instant::now(),
    };
    for board in [WireBoard::A, WireBoard::B] {
        f.at(
            0,
            TraceEvent::Board {
                board,
                placement: Placement::start(),
            },
        );
        f.at(
            0,
            TraceEvent::Clock {
                board,
                white: 180.0,
                black: 180.0,
                running: Some(Side::White),
            },
        );
    }
    // 1A. e4, seen.
    f.square(1000, "e2", None);
    f.square(1200, "e4", Some('P'));
    f.clock(1500, 178.0, 180.0, Side::Black);
    for outcome in ["outage", "bridged", "ambiguous", "unbridged"] {
        assert_eq!(f.gaps(outcome), 0, "{outcome}");
    }

    // 1... e5 2. Nf3 while the cable is out: one sequence explains it. Between the
    // snapshot and the clock reading the gap is open, yet nothing says "not recorded".
    f.cut(
        2000,
        6000,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R",
    );
    let state = f.state();
    assert!(state.boards.A.connected);
    assert!(state.boards.A.physical.is_none());
    f.clock(6030, 176.0, 178.0, Side::Black);
    f.clock(7030, 176.0, 178.0, Side::Black);
    assert_eq!((f.gaps("outage"), f.gaps("bridged")), (1, 1));
    assert_eq!(f.gaps("ambiguous"), 0);
    let moves = f.state().moves;
    assert_eq!(moves.len(), 3);
    assert!(
        moves[1..]
            .iter()
            .all(|m| m.flags.iter().any(|x| x == "reconstructed")),
        "{moves:?}"
    );
    assert!(moves[0].flags.is_empty(), "{moves:?}");

    // 2... Nc6 3. Bc4 Nf6 (or 2... Nf6 3. Bc4 Nc6): bridged, ambiguous.
    f.outage(
        8000,
        13000,
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R",
        (174.0, 175.0, Side::White),
    );
    assert_eq!((f.gaps("outage"), f.gaps("bridged")), (2, 2));
    assert_eq!(f.gaps("ambiguous"), 1);
    assert_eq!(f.state().moves.len(), 6);
    assert!(f.state().boards.A.physical.is_none());

    // The white king knocked off the board while the cable was out: nothing explains it.
    let knocked = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ3R";
    f.outage(15000, 20000, knocked, (174.0, 175.0, Side::White));
    f.tick(30000);
    assert_eq!(f.gaps("outage"), 3);
    assert_eq!(f.gaps("unbridged"), 1);
    assert_eq!(f.gaps("bridged"), 2);
    let state = f.state();
    assert_eq!(state.moves.len(), 6, "no move invented");
    assert!(state.boards.A.connected);
    assert_eq!(state.boards.A.physical.as_deref(), Some(knocked));
    assert!(state.boards.B.physical.is_none());

    // The king stood up again: the board is the game's, recorded again.
    f.square(31000, "e1", Some('K'));
    f.tick(40000);
    assert!(f.state().boards.A.physical.is_none());
    std::fs::remove_dir_all(&dir).expect("the directory is removed");
}
