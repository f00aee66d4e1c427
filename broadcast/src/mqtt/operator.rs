//! Operator actions arriving on `<prefix>/<match>/operator` (when the daemon's configuration
//! enables it): checked and handed to the hub's action channel, the same one the arbiter
//! page's actions travel, so the daemon journals and applies both alike.

use crate::hub::Hub;
use crate::wire::OperatorAction;

/// Takes one message of the operator topic `name`; anything malformed, or addressed to
/// another match than the topic's, is logged and dropped.
pub(super) fn take(hub: &Hub, name: &str, payload: &[u8]) {
    let action: OperatorAction = match serde_json::from_slice(payload) {
        Ok(a) => a,
        Err(e) => {
            tracing::warn!(topic = %name, error = %e, "operator action not understood; ignored");
            return;
        }
    };
    let expected = name.rsplit('/').nth(1).unwrap_or_default();
    if action.match_id != expected {
        tracing::warn!(topic = %name, match_id = %action.match_id, "operator action for another match; ignored");
        return;
    }
    if hub.action_sender().try_send(action).is_ok() {
        hub.metrics().operator_actions.inc();
    } else {
        tracing::warn!(topic = %name, "operator action dropped: the daemon is not taking actions");
    }
}
