use std::io::Write;

use bugbridge_drivers::dgt::ClockSide;
use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, Pace};
use bugbridge_drivers::listen;
use bugbridge_drivers::session::{DriverKind, PortSpec, SessionConfig};
use bugbridge_drivers::trace::{BoardId, TraceEvent, parse_line};
use tokio::sync::mpsc;

use crate::common::*;

/// Sends each complete line written to it.
struct Lines {
    buf: Vec<u8>,
    tx: mpsc::UnboundedSender<String>,
}

impl Write for Lines {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(b);
        while let Some(i) = self.buf.iter().position(|&c| c == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=i).collect();
            let _ = self
                .tx
                .send(String::from_utf8_lossy(&line[..i]).into_owned());
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn listen_prints_the_board_as_trace_lines() {
    let lines = game();
    let (start, events) = expected(&lines, BoardId::A, true);
    let mut ec = EmulatorConfig::new(DriverKind::Dgt);
    ec.pace = Pace::Asap;
    let emu = Emulator::start(ec, &lines).expect("emulator");
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let config = SessionConfig::new(DriverKind::Dgt, PortSpec::Path(emu.path()), BoardId::A);
    let task = tokio::spawn(async move {
        let mut out = Lines {
            buf: Vec::new(),
            tx,
        };
        listen(config, &mut out, async {
            let _ = stop_rx.await;
        })
        .await
    });
    let mut want = vec![
        TraceEvent::Link {
            board: BoardId::A,
            up: true,
        },
        TraceEvent::Board {
            board: BoardId::A,
            placement: start,
        },
    ];
    // White sits left (the emulator's default): the learner states it before the first
    // clock line (the left time runs first from the start position), and says it again as
    // decided from play before the line of the first press.
    let stated = TraceEvent::ClockSide {
        board: BoardId::A,
        white_side: ClockSide::Left,
        configured: None,
        evidence: String::new(),
    };
    let mut clocks = 0;
    for e in events {
        if matches!(e, TraceEvent::Clock { .. }) {
            clocks += 1;
            if clocks <= 2 {
                want.push(stated.clone());
            }
        }
        want.push(e);
    }
    let mut last_t = 0;
    for (i, w) in want.iter().enumerate() {
        let line = tokio::time::timeout(WAIT, rx.recv())
            .await
            .expect("line in time")
            .expect("line");
        let parsed = parse_line(&line, false).unwrap_or_else(|e| panic!("line {i} {line:?}: {e}"));
        assert!(parsed.t >= last_t, "t never decreases");
        last_t = parsed.t;
        match (&parsed.event, w) {
            (
                TraceEvent::ClockSide {
                    white_side,
                    configured,
                    evidence,
                    ..
                },
                TraceEvent::ClockSide {
                    white_side: want_side,
                    configured: want_configured,
                    ..
                },
            ) => {
                assert_eq!(
                    (white_side, configured),
                    (want_side, want_configured),
                    "line {i}"
                );
                assert!(!evidence.is_empty(), "line {i}: the evidence is given");
            }
            (got, w) => assert_eq!(got, w, "line {i}"),
        }
        assert!(
            line.starts_with(&format!("{{\"t\":{},\"board\":\"A\",\"ev\":", parsed.t)),
            "{line}"
        );
    }
    let _ = stop_tx.send(());
    tokio::time::timeout(WAIT, task)
        .await
        .expect("listen stops")
        .expect("task")
        .expect("listen ok");
}
