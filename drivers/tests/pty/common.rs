use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bugbridge_drivers::emulate::{EmulatorHandle, EmulatorStatus};
use bugbridge_drivers::session::SensorEvent;
use bugbridge_drivers::trace::{BoardId, Placement, TraceEvent, TraceLine, parse_trace};
use tokio::sync::mpsc::Receiver;

pub(crate) const WAIT: Duration = Duration::from_secs(10);

pub(crate) const GAME: &str = r#"{"t":0,"ev":"meta","ruleset":"fide","time_control":"180+0"}
{"t":0,"board":"A","ev":"board","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}
{"t":0,"board":"B","ev":"board","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}
{"t":0,"board":"A","ev":"clock","white":180,"black":180,"running":"white"}
{"t":0,"board":"B","ev":"clock","white":180,"black":180,"running":"white"}
{"t":1450,"board":"A","ev":"square","sq":"e2","piece":null}
{"t":1610,"board":"A","ev":"square","sq":"e4","piece":"P"}
{"t":1790,"board":"A","ev":"clock","white":178,"black":180,"running":"black"}
{"t":2000,"board":"B","ev":"square","sq":"d2","piece":null}
{"t":2100,"board":"A","ev":"square","sq":"d7","piece":null}
{"t":2200,"board":"A","ev":"square","sq":"d5","piece":"p"}
{"t":2300,"board":"A","ev":"clock","white":178,"black":177,"running":"white"}
{"t":2500,"board":"A","ev":"square","sq":"d5","piece":null}
{"t":2550,"board":"A","ev":"square","sq":"e4","piece":null}
{"t":2600,"board":"A","ev":"square","sq":"d5","piece":"P"}
{"t":2700,"board":"A","ev":"clock","white":176,"black":177,"running":"black"}
{"t":2800,"board":"A","ev":"square","sq":"g8","piece":null}
{"t":2900,"board":"A","ev":"square","sq":"f6","piece":"n"}
{"t":3000,"board":"A","ev":"clock","white":176,"black":175,"running":"white"}
{"t":3100,"board":"A","ev":"square","sq":"h2","piece":null}
{"t":3200,"board":"A","ev":"square","sq":"h2","piece":"P"}
{"t":3300,"board":"A","ev":"operator","action":"note","text":"no effect on sensors"}
{"t":3400,"board":"A","ev":"square","sq":"b1","piece":null}
{"t":3500,"board":"A","ev":"square","sq":"c3","piece":"N"}
{"t":3600,"board":"A","ev":"clock","white":175,"black":175,"running":"black"}
"#;

pub(crate) fn game() -> Vec<TraceLine> {
    parse_trace(GAME).expect("test trace parses")
}

/// The first `board` of `board` and its later sensor events, as a driver should report them.
pub(crate) fn expected(
    lines: &[TraceLine],
    board: BoardId,
    with_clock: bool,
) -> (Placement, Vec<TraceEvent>) {
    let mut initial = None;
    let mut rest = Vec::new();
    for l in lines.iter().filter(|l| l.event.board() == Some(board)) {
        match &l.event {
            TraceEvent::Board { placement, .. } if initial.is_none() => initial = Some(*placement),
            TraceEvent::Square { .. } => rest.push(l.event.clone()),
            TraceEvent::Clock { .. } if with_clock => rest.push(l.event.clone()),
            _ => {}
        }
    }
    (initial.expect("trace has a board"), rest)
}

/// The placement after applying `events` to `start`.
pub(crate) fn after(start: Placement, events: &[TraceEvent]) -> Placement {
    let mut p = start;
    for e in events {
        if let TraceEvent::Square { sq, piece, .. } = e {
            p.set(*sq, *piece);
        }
    }
    p
}

/// The next event other than a `clock_side` statement (the labelling of the clock lines
/// that follow; `listen.rs` and the learner's own tests check those).
pub(crate) async fn next(rx: &mut Receiver<SensorEvent>) -> TraceEvent {
    loop {
        match next_any(rx).await {
            TraceEvent::ClockSide { .. } => {}
            e => return e,
        }
    }
}

/// The next event, whatever it is.
pub(crate) async fn next_any(rx: &mut Receiver<SensorEvent>) -> TraceEvent {
    match tokio::time::timeout(WAIT, rx.recv()).await {
        Ok(Some(e)) => e.event,
        Ok(None) => panic!("session ended"),
        Err(_) => panic!("no event within {WAIT:?}"),
    }
}

pub(crate) async fn take(rx: &mut Receiver<SensorEvent>, n: usize) -> Vec<TraceEvent> {
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(next(rx).await);
    }
    v
}

pub(crate) async fn wait_status(
    emu: &EmulatorHandle,
    what: &str,
    f: impl FnMut(&EmulatorStatus) -> bool,
) -> EmulatorStatus {
    let mut w = emu.watch();
    match tokio::time::timeout(WAIT, w.wait_for(f)).await {
        Ok(Ok(s)) => s.clone(),
        _ => panic!("emulator never reached: {what}; status {:?}", emu.status()),
    }
}

/// A fresh path for an emulator symlink.
pub(crate) fn temp_link(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::SeqCst);
    std::env::temp_dir().join(format!("bugbridge-test-{}-{name}-{n}", std::process::id()))
}

pub(crate) fn link(board: BoardId, up: bool) -> TraceEvent {
    TraceEvent::Link { board, up }
}

pub(crate) fn board_event(board: BoardId, placement: Placement) -> TraceEvent {
    TraceEvent::Board { board, placement }
}
