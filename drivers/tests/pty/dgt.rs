use bugbridge_drivers::dgt::{BwtimeLayout, ClockCommand, ClockSide};
use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, Pace};
use bugbridge_drivers::session::{DriverKind, PortSpec, SessionConfig, spawn_session};
use bugbridge_drivers::trace::{BoardId, Square, TraceEvent};

use crate::common::*;

fn emulator(pace: Pace) -> EmulatorConfig {
    let mut c = EmulatorConfig::new(DriverKind::Dgt);
    c.pace = pace;
    c
}

fn session(path: std::path::PathBuf) -> SessionConfig {
    SessionConfig::new(DriverKind::Dgt, PortSpec::Path(path), BoardId::A)
}

#[tokio::test]
async fn emulated_dgt_board_plays_the_trace_and_the_driver_reports_it_in_order() {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, true);
    let emu = Emulator::start(emulator(Pace::Asap), &lines).expect("emulator");
    let (_session, mut rx) = spawn_session(session(emu.path())).expect("session");
    assert_eq!(next(&mut rx).await, link(BoardId::A, true));
    assert_eq!(next(&mut rx).await, board_event(BoardId::A, start));
    assert_eq!(take(&mut rx, events.len()).await, events);
    wait_status(&emu, "all played", |s| s.played == s.total).await;
}

#[tokio::test]
async fn clock_sides_follow_white_side_in_both_bwtime_layouts() {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, true);
    for layout in [BwtimeLayout::V103, BwtimeLayout::Modern] {
        let mut ec = emulator(Pace::Asap);
        ec.white_side = ClockSide::Right;
        ec.bwtime_layout = layout;
        let emu = Emulator::start(ec, &lines).expect("emulator");
        let mut sc = session(emu.path());
        sc.white_side = Some(ClockSide::Right);
        sc.bwtime_layout = layout;
        let (_session, mut rx) = spawn_session(sc).expect("session");
        assert_eq!(next(&mut rx).await, link(BoardId::A, true));
        assert_eq!(next(&mut rx).await, board_event(BoardId::A, start));
        assert_eq!(take(&mut rx, events.len()).await, events, "{layout:?}");
    }
}

/// The game's first five events, then the cable out for the next four (a press among
/// them), then the cable back: returns the emulator, the session's events and the expected
/// events of board A.
async fn unplugged_for_four_events(
    name: &str,
    power_loss: bool,
    rotated: bool,
) -> (
    bugbridge_drivers::emulate::EmulatorHandle,
    tokio::sync::mpsc::Receiver<bugbridge_drivers::session::SensorEvent>,
    bugbridge_drivers::session::SessionHandle,
    bugbridge_drivers::trace::Placement,
    Vec<TraceEvent>,
) {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, true);
    let path = temp_link(name);
    let mut ec = emulator(Pace::Manual);
    ec.link_path = Some(path.clone());
    ec.rotated = rotated;
    let mut emu = Emulator::start(ec, &lines).expect("emulator");
    let (session, mut rx) = spawn_session(session(path.clone())).expect("session");
    assert_eq!(next(&mut rx).await, link(BoardId::A, true));
    assert_eq!(next(&mut rx).await, board_event(BoardId::A, start));

    emu.advance(5);
    assert_eq!(take(&mut rx, 5).await, events[..5]);

    if power_loss {
        emu.power_loss();
    } else {
        emu.unplug();
    }
    assert_eq!(next(&mut rx).await, link(BoardId::A, false));
    // Moves made while the cable is out.
    emu.advance(4);
    wait_status(&emu, "9 played", |s| s.played == 9).await;
    assert_eq!(emu.replug().expect("replug"), path);
    assert_eq!(next(&mut rx).await, link(BoardId::A, true));
    (emu, rx, session, start, events)
}

#[tokio::test]
async fn a_powered_board_unplugged_and_replugged_replays_what_it_logged() {
    let (emu, mut rx, _session, start, events) =
        unplugged_for_four_events("dgt-unplug", false, false).await;
    // The board as it was left, then what its EEPROM log holds since: the field changes
    // and the press, with the halted side's time, exactly as they were reported live.
    assert_eq!(
        next(&mut rx).await,
        board_event(BoardId::A, after(start, &events[..5]))
    );
    assert_eq!(take(&mut rx, 4).await, events[5..9]);
    assert!(
        events[5..9]
            .iter()
            .any(|e| matches!(e, TraceEvent::Clock { .. })),
        "a press among the missed events"
    );
    // A fresh clock reading follows: the last clock shown.
    let last_clock = events[..9]
        .iter()
        .rev()
        .find(|e| matches!(e, TraceEvent::Clock { .. }))
        .cloned();
    assert_eq!(Some(next(&mut rx).await), last_clock);

    emu.advance(events.len() - 9);
    assert_eq!(take(&mut rx, events.len() - 9).await, events[9..]);
}

#[tokio::test]
async fn a_turned_board_replays_its_log_in_the_normal_frame() {
    // The log holds the board's own square indices; the replay comes out turned back.
    let (_emu, mut rx, _session, start, events) =
        unplugged_for_four_events("dgt-unplug-turned", false, true).await;
    assert_eq!(
        next(&mut rx).await,
        board_event(BoardId::A, after(start, &events[..5]))
    );
    assert_eq!(take(&mut rx, 4).await, events[5..9]);
}

#[tokio::test]
async fn a_board_that_lost_power_resyncs_from_its_dump_alone() {
    let (emu, mut rx, _session, start, events) =
        unplugged_for_four_events("dgt-power-loss", true, false).await;
    // The log restarted with a power-up tag: nothing is replayed, the dump is the news.
    assert_eq!(
        next(&mut rx).await,
        board_event(BoardId::A, after(start, &events[..9]))
    );
    let last_clock = events[..9]
        .iter()
        .rev()
        .find(|e| matches!(e, TraceEvent::Clock { .. }))
        .cloned();
    assert_eq!(Some(next(&mut rx).await), last_clock);

    emu.advance(events.len() - 9);
    assert_eq!(take(&mut rx, events.len() - 9).await, events[9..]);
}

#[tokio::test]
async fn garbage_mid_stream_is_skipped() {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, true);
    let emu = Emulator::start(emulator(Pace::Manual), &lines).expect("emulator");
    let (_session, mut rx) = spawn_session(session(emu.path())).expect("session");
    assert_eq!(
        take(&mut rx, 2).await,
        vec![link(BoardId::A, true), board_event(BoardId::A, start)]
    );
    emu.advance(3);
    assert_eq!(take(&mut rx, 3).await, events[..3]);
    emu.inject_garbage(&[
        0x00, 0x13, 0x7F, // bytes with bit 7 clear outside a message
        0xFF, 0xC0, // no such message ids
        0x86, 0x00, 0x43, 0x01, 0x02, // a board dump cut short by the next message
    ]);
    emu.advance(events.len() - 3);
    assert_eq!(take(&mut rx, events.len() - 3).await, events[3..]);
    // A trailing partial header is cut short by the next message too.
    emu.inject_garbage(&[0x8E, 0x00]);
    emu.inject_garbage(&[0x8D]);
    let _ = emu;
}

#[tokio::test]
async fn rotated_board_is_recognised_from_the_start_position() {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, true);
    let mut ec = emulator(Pace::Asap);
    ec.rotated = true;
    let emu = Emulator::start(ec, &lines).expect("emulator");
    let mut sc = session(emu.path());
    sc.leds = true;
    let (handle, mut rx) = spawn_session(sc).expect("session");
    assert_eq!(
        take(&mut rx, 2).await,
        vec![link(BoardId::A, true), board_event(BoardId::A, start)]
    );
    assert_eq!(take(&mut rx, events.len()).await, events);
    // LEDs (Revelation II) light the last move in the board's own frame.
    let e2 = Square::from_name("e2").expect("e2");
    let e4 = Square::from_name("e4").expect("e4");
    handle.show_move(Some((e2, e4)));
    wait_status(&emu, "LEDs on e2 e4", |s| {
        let mut l = s.device.leds.clone();
        l.sort();
        l == vec![e2, e4]
    })
    .await;
}

#[tokio::test]
async fn clock_text_is_acknowledged_and_shown() {
    let lines = game();
    let emu = Emulator::start(emulator(Pace::Manual), &lines).expect("emulator");
    let (handle, mut rx) = spawn_session(session(emu.path())).expect("session");
    assert_eq!(next(&mut rx).await, link(BoardId::A, true));
    handle.clock_command(ClockCommand::text("e4", 0));
    handle.clock_command(ClockCommand::text("d5", 1));
    wait_status(&emu, "second text shown", |s| {
        s.device.clock_text.as_deref() == Some("d5")
    })
    .await;
}

#[tokio::test]
async fn a_silent_board_is_noticed_by_the_probe_and_reconnected() {
    let lines = game();
    let (start, _) = expected(&lines, BoardId::A, true);
    let emu = Emulator::start(emulator(Pace::Manual), &lines).expect("emulator");
    let mut sc = session(emu.path());
    sc.probe_after = std::time::Duration::from_millis(300);
    sc.reply_timeout = std::time::Duration::from_secs(1);
    let (_session, mut rx) = spawn_session(sc).expect("session");
    assert_eq!(
        take(&mut rx, 2).await,
        vec![link(BoardId::A, true), board_event(BoardId::A, start)]
    );
    emu.set_mute(true);
    assert_eq!(next(&mut rx).await, link(BoardId::A, false));
    emu.set_mute(false);
    assert_eq!(
        take(&mut rx, 2).await,
        vec![link(BoardId::A, true), board_event(BoardId::A, start)]
    );
}

#[tokio::test]
async fn timed_playback_runs_the_clock_between_presses() {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, true);
    let emu = Emulator::start(emulator(Pace::Timed { speed: 20.0 }), &lines).expect("emulator");
    let (_session, mut rx) = spawn_session(session(emu.path())).expect("session");
    assert_eq!(
        take(&mut rx, 2).await,
        vec![link(BoardId::A, true), board_event(BoardId::A, start)]
    );
    let squares: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, TraceEvent::Square { .. }))
        .cloned()
        .collect();
    let clocks: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, TraceEvent::Clock { .. }))
        .cloned()
        .collect();
    let (mut got_squares, mut got_clocks) = (Vec::new(), Vec::new());
    while got_squares.len() < squares.len() {
        match next(&mut rx).await {
            e @ TraceEvent::Square { .. } => got_squares.push(e),
            e @ TraceEvent::Clock { .. } => got_clocks.push(e),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(got_squares, squares);
    wait_status(&emu, "all played", |s| s.played == s.total).await;
    // Every press of the trace is reported, in order, among the running clock's readings.
    let last = clocks.last().cloned().expect("clock events");
    while !got_clocks.contains(&last) {
        match next(&mut rx).await {
            e @ TraceEvent::Clock { .. } => got_clocks.push(e),
            other => panic!("unexpected {other:?}"),
        }
    }
    let mut it = got_clocks.iter();
    for c in &clocks {
        assert!(
            it.any(|g| g == c),
            "press {c:?} missing from {got_clocks:?}"
        );
    }
}

#[tokio::test]
async fn a_board_plugged_in_after_start_is_picked_up() {
    let lines = game();
    let (start, _) = expected(&lines, BoardId::A, true);
    let path = temp_link("late");
    let (_session, mut rx) = spawn_session(session(path.clone())).expect("session");
    // Nothing there yet: the link is reported down once, then retried quietly.
    assert_eq!(next(&mut rx).await, link(BoardId::A, false));
    let mut ec = emulator(Pace::Manual);
    ec.link_path = Some(path);
    let _emu = Emulator::start(ec, &lines).expect("emulator");
    assert_eq!(
        take(&mut rx, 2).await,
        vec![link(BoardId::A, true), board_event(BoardId::A, start)]
    );
}

/// A board whose clock is unplugged mid-game keeps waiting for presses that never
/// come. The clock's cable goes out after Black's first press and back in after White's
/// next press (made while it was out): the session says `clock_link` down once (after the
/// board has said "no clock" for a while), reports the squares as ever, and `clock_link` up
/// once the clock reports, followed by the clock as it stands.
#[tokio::test]
async fn a_clock_unplugged_mid_game_and_plugged_back_is_reported_down_and_up_once_each() {
    let mut lines = game();
    let clock_link = |t, up| bugbridge_drivers::trace::TraceLine {
        t,
        event: TraceEvent::ClockLink {
            board: BoardId::A,
            up,
        },
    };
    // Board A's events (`expected` leaves the cable out): 0..=6 up to Black's press
    // `178/177 white` (t 2300); 7..=9 White's capture; 10 his press `176/177 black`
    // (t 2700); 11.. the rest.
    let press_at = |lines: &[bugbridge_drivers::trace::TraceLine], t| {
        lines
            .iter()
            .position(|l| l.t == t && l.event.board() == Some(BoardId::A))
            .expect("the press")
    };
    let i = press_at(&lines, 2300) + 1;
    lines.insert(i, clock_link(2350, false));
    let j = press_at(&lines, 2700) + 1;
    lines.insert(j, clock_link(2750, true));
    let (start, events) = expected(&lines, BoardId::A, true);
    assert!(
        matches!(events[6], TraceEvent::Clock { white, black, .. } if (white, black) == (178.0, 177.0))
    );
    assert!(
        matches!(events[10], TraceEvent::Clock { white, black, .. } if (white, black) == (176.0, 177.0))
    );
    let emu = Emulator::start(emulator(Pace::Manual), &lines).expect("emulator");
    let (_session, mut rx) = spawn_session(session(emu.path())).expect("session");
    assert_eq!(next(&mut rx).await, link(BoardId::A, true));
    assert_eq!(next(&mut rx).await, board_event(BoardId::A, start));
    emu.advance(7);
    assert_eq!(take(&mut rx, 7).await, events[..7]);
    // The clock's cable out: said once the board has said "no clock" for a while.
    emu.advance(1);
    let clock_link = |up| TraceEvent::ClockLink {
        board: BoardId::A,
        up,
    };
    assert_eq!(next(&mut rx).await, clock_link(false));
    // White's capture and press while it is out: the squares only.
    emu.advance(4);
    assert_eq!(take(&mut rx, 3).await, events[7..10]);
    // Back in: up, then the clock as it stands (Black's time runs), then play as before.
    emu.advance(1);
    assert_eq!(next(&mut rx).await, clock_link(true));
    assert_eq!(next(&mut rx).await, events[10]);
    let rest = events.len() - 11;
    emu.advance(rest);
    assert_eq!(take(&mut rx, rest).await, events[11..]);
    wait_status(&emu, "all played", |s| s.played == s.total).await;
}
