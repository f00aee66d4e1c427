//! The hub's numbering and bookkeeping, without any I/O.

mod common;

use bugbridge_broadcast::hub::valid_match_id;
use bugbridge_broadcast::{Hub, HubOptions, PublishError, Update};

#[test]
fn seq_is_gap_free_from_one_and_alerts_have_their_own() {
    let (hub, _actions) = Hub::new(HubOptions::default());
    let mut expected = 0;
    for plies in 1..=20 {
        let mut update = common::move_update(plies);
        if plies % 5 == 0 {
            update.events.insert(0, common::alert(1));
        }
        expected += 1;
        let published = hub.publish("m", update).unwrap();
        assert_eq!(published.seq, expected);
        assert_eq!(published.alert_seq, u64::from(plies / 5));
    }
    assert_eq!(hub.state("m").unwrap().seq, 20);
}

#[test]
fn public_alerts_take_a_public_seq_too() {
    let (hub, _actions) = Hub::new(HubOptions {
        alerts_public: true,
        ..HubOptions::default()
    });
    let mut update = common::move_update(1);
    update.events.push(common::alert(1));
    let published = hub.publish("m", update).unwrap();
    assert_eq!((published.seq, published.alert_seq), (2, 1));
}

#[test]
fn a_bad_match_id_gives_the_update_back() {
    let (hub, _actions) = Hub::new(HubOptions::default());
    for id in [
        "",
        "a/b",
        "a+b",
        "#",
        "..",
        "x".repeat(65).as_str(),
        "tab le",
    ] {
        assert!(!valid_match_id(id), "{id:?}");
        let err = hub.publish(id, common::move_update(3)).unwrap_err();
        assert!(matches!(err, PublishError::InvalidMatchId { .. }));
        assert!(err.to_string().contains("invalid match id"));
        assert_eq!(err.into_update().bpgn, common::move_update(3).bpgn);
    }
    assert!(hub.match_ids().is_empty());
    for id in ["table-1", "club_night.2", "A"] {
        assert!(valid_match_id(id));
    }
}

#[test]
fn state_bpgn_and_summaries_follow_the_latest_update() {
    let (hub, _actions) = Hub::new(HubOptions {
        history: 3,
        ..HubOptions::default()
    });
    assert!(hub.state("m").is_none() && hub.bpgn("m").is_none());
    for plies in 1..=10 {
        hub.publish("m", common::move_update(plies)).unwrap();
    }
    hub.publish("a", Update::default()).unwrap();
    assert_eq!(hub.match_ids(), ["a", "m"]);
    assert!(hub.bpgn("m").unwrap().contains("10 plies"));
    let summaries = hub.summaries();
    assert_eq!(summaries[1].seq, 10);
    assert_eq!(summaries[1].last_move.as_ref().unwrap().token(), "5a.");
    assert!(!hub.is_closed());
    hub.close();
    assert!(hub.is_closed());
    // Publishing still works after the streams were closed.
    assert_eq!(hub.publish("m", common::move_update(11)).unwrap().seq, 11);
}
