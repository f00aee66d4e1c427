use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, Pace};
use bugbridge_drivers::session::{DriverKind, PortSpec, SessionConfig, spawn_session};
use bugbridge_drivers::trace::{BoardId, Square};

use crate::common::*;

fn emulator(pace: Pace) -> EmulatorConfig {
    let mut c = EmulatorConfig::new(DriverKind::Millennium);
    c.pace = pace;
    c.board = BoardId::A;
    c
}

fn session(path: std::path::PathBuf) -> SessionConfig {
    SessionConfig::new(DriverKind::Millennium, PortSpec::Path(path), BoardId::B)
}

#[tokio::test]
async fn emulated_millennium_board_plays_the_trace() {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, false);
    let events: Vec<_> = events
        .into_iter()
        .map(|e| e.with_board(BoardId::B))
        .collect();
    let emu = Emulator::start(emulator(Pace::Asap), &lines).expect("emulator");
    let (handle, mut rx) = spawn_session(session(emu.path())).expect("session");
    assert_eq!(
        take(&mut rx, 2).await,
        vec![link(BoardId::B, true), board_event(BoardId::B, start)]
    );
    assert_eq!(take(&mut rx, events.len()).await, events);
    let (g1, f3) = (
        Square::from_name("g1").expect("g1"),
        Square::from_name("f3").expect("f3"),
    );
    handle.show_move(Some((g1, f3)));
    wait_status(&emu, "LEDs on g1 f3", |s| {
        let mut l = s.device.leds.clone();
        l.sort();
        l == vec![g1, f3]
    })
    .await;
    handle.show_move(None);
    wait_status(&emu, "LEDs off", |s| s.device.leds.is_empty()).await;
}

#[tokio::test]
async fn millennium_unplug_garbage_and_rotation() {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, false);
    let path = temp_link("mill-unplug");
    let mut ec = emulator(Pace::Manual);
    ec.link_path = Some(path.clone());
    ec.rotated = true;
    let mut emu = Emulator::start(ec, &lines).expect("emulator");
    let mut sc = session(path.clone());
    sc.board = BoardId::A;
    let (_session, mut rx) = spawn_session(sc).expect("session");
    assert_eq!(
        take(&mut rx, 2).await,
        vec![link(BoardId::A, true), board_event(BoardId::A, start)]
    );
    emu.advance(4);
    assert_eq!(take(&mut rx, 4).await, events[..4]);
    emu.inject_garbage(&[
        0x00, // even parity
        0x73, // 's' (odd parity) starting a frame that never completes
        0x80, // even parity inside it
        0xD3, // 'S' (not a reply letter)
    ]);
    emu.advance(2);
    assert_eq!(take(&mut rx, 2).await, events[4..6]);
    emu.unplug();
    assert_eq!(next(&mut rx).await, link(BoardId::A, false));
    emu.advance(3);
    wait_status(&emu, "9 played", |s| s.played == 9).await;
    emu.replug().expect("replug");
    assert_eq!(
        take(&mut rx, 2).await,
        vec![
            link(BoardId::A, true),
            board_event(BoardId::A, after(start, &events[..9]))
        ]
    );
    emu.advance(events.len() - 9);
    assert_eq!(take(&mut rx, events.len() - 9).await, events[9..]);
}
