//! The broker restarted mid-game → the retained state is current afterwards and `seq`
//! shows no unexplained gap (the embedded rumqttd behind a port the test can close).

use bugbridge_tests::mqtt::RestartableBroker;
use bugbridge_tests::scenarios;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_broker_restarted_mid_game_gets_the_current_state_and_no_unexplained_gap() {
    let mut broker = RestartableBroker::start().await;
    scenarios::broker_restart_mid_game(&mut broker).await;
}
