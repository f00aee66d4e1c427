use std::time::Duration;

use bugbridge_drivers::emulate::{Emulator, EmulatorConfig, Pace};
use bugbridge_drivers::session::DriverKind;
use bugbridge_drivers::trace::TraceErrorKind;
use bugbridge_drivers::{DriverError, EmulateOptions, emulate_file, known_usb_board, ports, probe};

use crate::common::*;

#[test]
fn probe_tells_dgt_from_millennium() {
    let lines = game();
    for kind in [DriverKind::Dgt, DriverKind::Millennium] {
        let mut c = EmulatorConfig::new(kind);
        c.pace = Pace::Manual;
        let emu = Emulator::start(c, &lines).expect("emulator");
        assert_eq!(probe(&emu.path(), Duration::from_millis(500)), Some(kind));
    }
}

#[test]
fn ports_lists_without_panicking_and_knows_board_ids() {
    for p in ports(None) {
        assert!(!p.to_string().is_empty());
    }
    assert!(known_usb_board(0x045B, 0x8111).is_some_and(|b| b.contains("DGT")));
    assert!(known_usb_board(0x1234, 0x5678).is_none());
}

#[tokio::test]
async fn emulate_prints_the_device_path_and_runs_until_stopped() {
    let path = std::env::temp_dir().join(format!(
        "bugbridge-test-{}-emulate.trace.jsonl",
        std::process::id()
    ));
    std::fs::write(&path, GAME).expect("write trace");
    let mut opts = EmulateOptions::new(DriverKind::Dgt, path.clone());
    opts.speed = None;
    let mut out = Vec::new();
    emulate_file(opts, &mut out, async {})
        .await
        .expect("emulate");
    let printed = String::from_utf8(out).expect("utf8");
    assert!(printed.starts_with("/dev/pts/"), "{printed:?}");
    assert!(printed.ends_with('\n'));

    std::fs::write(&path, "{\"t\":0,\"board\":\"A\",\"ev\":\"link\",\"up\":true}\n{\"t\":1,\"board\":\"A\",\"ev\":\"square\",\"sq\":\"z9\",\"piece\":null}\n").expect("write");
    let err = emulate_file(
        EmulateOptions::new(DriverKind::Dgt, path.clone()),
        &mut Vec::new(),
        async {},
    )
    .await
    .expect_err("bad trace");
    match err {
        DriverError::Trace { source, .. } => {
            assert_eq!(source.line, 2);
            assert!(matches!(source.kind, TraceErrorKind::BadSquare(_)));
        }
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn probe_tells_certabo_from_sentio_by_what_they_send() {
    let lines = game();
    for kind in [DriverKind::Certabo, DriverKind::Sentio] {
        let mut c = EmulatorConfig::new(kind);
        c.pace = Pace::Manual;
        let emu = Emulator::start(c, &lines).expect("emulator");
        assert_eq!(probe(&emu.path(), Duration::from_millis(500)), Some(kind));
    }
    assert!(known_usb_board(0x10C4, 0xEA60).is_some_and(|b| b.contains("Certabo")));
}
