//! A Koedem match over the emulated boards → a subscriber sees every move (king captures,
//! king drops, grabs written `b8=Ra1`) and the four-kings result (the embedded rumqttd as
//! the broker).

use bugbridge::rules::RulesetName;
use bugbridge::rules::notation::San;
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::mqtt::{RestartableBroker, Subscriber};
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;

/// A seed whose random Koedem game has king captures and grabs and ends with one team
/// holding all four kings.
const SEED: u64 = 21;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_koedem_match_reaches_a_subscriber_with_its_grabs_and_the_four_kings_result() {
    let game = TestGame::koedem(SEED);
    let grab = |san: &str| san.parse::<San>().is_ok_and(|s| s.grab.is_some());
    assert!(
        game.moves.iter().any(|m| grab(&m.san)),
        "the game has a grab"
    );
    assert!(
        game.moves.iter().any(|m| m.san.starts_with("K@")),
        "the game has a king taken and dropped"
    );
    // The record of the match is a Koedem BPGN that the rules core replays to the end.
    assert!(
        game.bpgn.contains("[Variant \"Bughouse Koedem\"]"),
        "{}",
        game.bpgn
    );
    let recorded = parse_bpgn(&game.bpgn).expect("the record parses");
    let replayed = replay(&recorded[0], RulesetName::Koedem.ruleset()).expect("replays");
    assert!(replayed.is_legal(), "{:?}", replayed.stop);
    assert_eq!(replayed.moves.len(), game.moves.len());
    assert!(recorded[0].moves.iter().any(|m| m.san.grab.is_some()));
    let broker = RestartableBroker::start().await;
    let records = TempDir::new("koedem");
    let mut table = Table::start(&game, None);
    let mut sub = Subscriber::start(broker.addr(), "koedem", &format!("bughouse/{MATCH}/#"));
    sub.subscribed(1).await;
    let mut cfg = config(&table, Some(&broker.url()), records.path());
    cfg.ruleset = RulesetName::Koedem;
    let daemon = InProcess::start(cfg).await;
    table.synced().await;
    sub.until("the daemon online", |s| s.topic("status") == Some("online"))
        .await;
    table
        .play_rest(&mut async |n| sub.wait_moves(n).await)
        .await;
    let moves = sub.moves();
    assert_eq!(moves.len(), game.moves.len());
    for (i, (got, want)) in moves.iter().zip(&game.moves).enumerate() {
        assert!(
            want.matches(got),
            "move {}: published {got:?}, expected {want:?}",
            i + 1
        );
    }
    sub.until("the four-kings result", |s| {
        s.state().is_some_and(|st| st.result.is_some())
    })
    .await;
    let result = sub.state().and_then(|st| st.result).expect("a result");
    assert_eq!(result.reason, "all-kings");
    daemon.stop().await;
}
