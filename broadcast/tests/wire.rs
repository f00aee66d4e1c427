//! Golden JSON of the published schema: changing the contract must change a fixture.
//!
//! Fixtures live in `tests/fixtures/`. After an intended change, regenerate them with
//! `BLESS=1 cargo test -p bugbridge-broadcast --test wire` and review the diff.

mod common;

use bugbridge_broadcast::wire::{
    ActionKind, Board, Event, EventKind, Grab, Handoff, MatchResult, MatchState, OperatorAction,
    Side,
};
use bugbridge_broadcast::{Hub, HubOptions, Update};
use serde::Serialize;

fn golden<T: Serialize>(name: &str, value: &T) {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let actual = serde_json::to_string_pretty(value).unwrap() + "\n";
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        expected, actual,
        "{name}.json differs: the published contract changed (BLESS=1 to accept)"
    );
}

#[test]
fn move_event_matches_replay_events_line_plus_seq() {
    let mut e = common::move_event(1);
    e.seq = 1;
    golden("event_move", &e);
    // The compact form is exactly the line of docs/events.md with "seq" first.
    let line = serde_json::to_string(&Event {
        seq: 1,
        t: 1790,
        san: Some("e4".into()),
        clock: Some(178.0),
        bfen: Some("...".into()),
        ..e
    })
    .unwrap();
    assert_eq!(
        line,
        r#"{"seq":1,"t":1790,"kind":"move","board":"A","side":"white","number":1,"san":"e4","clock":178.0,"bfen":"..."}"#
    );
}

#[test]
fn koedem_king_capture_hand_over_and_grab_naming_both_boards() {
    let capture = Event {
        seq: 12,
        board: Some(Board::A),
        side: Some(Side::White),
        number: Some(9),
        san: Some("Bxd2".into()),
        clock: Some(171.0),
        bfen: Some("...".into()),
        captured: Some("k".into()),
        handoff: Some(Handoff {
            board: Board::B,
            side: Side::Black,
            piece: "k".into(),
        }),
        ..Event::new(EventKind::Move, 40210)
    };
    golden("event_koedem_king_capture", &capture);
    let grab = Event {
        seq: 30,
        board: Some(Board::A),
        side: Some(Side::White),
        number: Some(21),
        san: Some("b8=Ra1".into()),
        clock: Some(150.0),
        bfen: Some("...".into()),
        grab: Some(Grab {
            from_board: Board::B,
            from: "a1".into(),
            to_board: Board::A,
            to: "b8".into(),
            piece: "R".into(),
        }),
        ..Event::new(EventKind::Move, 88020)
    };
    golden("event_koedem_grab", &grab);
    // The lines of docs/events.md.
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/events.md")).unwrap();
    for e in [&capture, &grab] {
        let line = serde_json::to_string(e).unwrap();
        assert!(docs.contains(&line), "docs/events.md lacks {line}");
        assert_eq!(&serde_json::from_str::<Event>(&line).unwrap(), e);
    }
}

#[test]
fn alert_end_and_correction_events() {
    let mut alert = common::alert(5120);
    alert.seq = 1;
    golden("event_alert", &alert);
    let end = Event {
        seq: 9,
        board: Some(Board::A),
        result: Some("1-0".into()),
        reason: Some("checkmate".into()),
        detail: Some("Qh7#".into()),
        ..Event::new(EventKind::End, 9000)
    };
    golden("event_end", &end);
    let correction = Event {
        seq: 10,
        board: Some(Board::A),
        side: Some(Side::White),
        number: Some(12),
        san: Some("Nf3".into()),
        bfen: Some("...".into()),
        detail: Some("replaces Nd2".into()),
        ..Event::new(EventKind::Correction, 9100)
    };
    golden("event_correction", &correction);
}

#[test]
fn events_parse_back() {
    let line = r#"{"t":5120,"kind":"alert","board":"B","code":"illegal-move","reason":"drop-not-in-hand","number":7,"side":"black","san":"N@f3","detail":"..."}"#;
    let e: Event = serde_json::from_str(line).unwrap();
    assert_eq!(e.kind, EventKind::Alert);
    assert_eq!(e.seq, 0);
    assert_eq!(e.code.as_deref(), Some("illegal-move"));
}

#[test]
fn state_as_published_by_the_hub() {
    let (hub, _actions) = Hub::new(HubOptions::default());
    hub.publish("table-1", common::move_update(1)).unwrap();
    let mut update = common::move_update(2);
    update.state.result = Some(MatchResult {
        result: "0-1".into(),
        reason: "flag-fall".into(),
        board: Some(Board::B),
        detail: None,
    });
    hub.publish("table-1", update).unwrap();
    let state: MatchState = hub.state("table-1").unwrap();
    assert_eq!(state.seq, 2);
    assert_eq!(state.id, "table-1");
    golden("state", &state);
    golden("summaries", &hub.summaries());
}

#[test]
fn operator_actions() {
    let actions = [
        ActionKind::Promotion {
            board: Board::A,
            number: 23,
            side: Side::White,
            piece: "n".into(),
        },
        ActionKind::Result {
            result: "1/2-1/2".into(),
            reason: "draw-agreement".into(),
            correct: false,
        },
        ActionKind::Replace {
            board: Board::B,
            number: 4,
            side: Side::Black,
            san: "Nxe4".into(),
        },
    ];
    let delivered: Vec<OperatorAction> = actions
        .into_iter()
        .map(|kind| OperatorAction {
            id: None,
            match_id: "table-1".into(),
            kind,
        })
        .collect();
    golden("actions", &delivered);
    let back: OperatorAction =
        serde_json::from_str(&serde_json::to_string(&delivered[2]).unwrap()).unwrap();
    assert_eq!(back, delivered[2]);
}

#[test]
fn default_update_is_publishable() {
    let (hub, _actions) = Hub::new(HubOptions::default());
    let published = hub.publish("m", Update::default()).unwrap();
    assert_eq!(published.seq, 0);
}
