//! An emulated match → a subscriber receives every move in order with the right BFEN
//! (the embedded rumqttd as the broker).

use bugbridge_tests::mqtt::RestartableBroker;
use bugbridge_tests::scenarios;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_receives_every_move_in_order_with_its_bfen() {
    let broker = RestartableBroker::start().await;
    scenarios::subscriber_receives_every_move(&broker).await;
}
