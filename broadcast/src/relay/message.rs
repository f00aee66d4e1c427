//! What arrives on the broker for one match, read from its topic and payload.

use crate::wire::{Event, MatchState, topic};

/// One message of a match's topics, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// `status`: whether the table's daemon is online.
    Status(bool),
    /// `state`: the whole state (retained).
    State(Box<MatchState>),
    /// `bpgn`: the whole BPGN so far (retained).
    Bpgn(String),
    /// `events`: one public event with its `seq`.
    Event(Event),
    /// `alerts`: one alert with its own `seq`.
    Alert(Event),
    /// `acks` (retained, written by relays): the alert `seq`s arbiters acknowledged.
    Acks(Vec<u64>),
    /// `alertlog` (retained, written by relays): the match's latest alerts.
    AlertLog(Vec<LoggedAlert>),
}

/// The leaf of the acknowledged alerts of a match ([`topic::ACKS`](crate::wire::topic::ACKS)).
pub const ACKS: &str = crate::wire::topic::ACKS;

/// The payload of the `acks` topic.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AckList {
    /// Alert `seq`s acknowledged, ascending.
    pub acked: Vec<u64>,
}

/// The leaf of a match's alert log ([`topic::ALERT_LOG`]).
pub const ALERT_LOG: &str = crate::wire::topic::ALERT_LOG;

/// How many alerts a match's alert log keeps (the latest).
pub const ALERT_LOG_LEN: usize = 200;

/// One alert of a match's log: the alert as the table published it and when a relay first
/// received it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoggedAlert {
    /// When a relay received it (ms since the Unix epoch): the console's order.
    pub at: u64,
    /// The alert (`seq` is its alert sequence).
    #[serde(flatten)]
    pub alert: Event,
}

/// The payload of the `alertlog` topic.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AlertLog {
    /// The match's latest alerts, oldest first.
    pub alerts: Vec<LoggedAlert>,
}

/// Why a message was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{topic}: {why}")]
pub struct MessageError {
    /// The topic it came on.
    pub topic: String,
    /// What is wrong with it.
    pub why: String,
}

/// Splits `<prefix>/<match>/<leaf>` into `(match, leaf)`, or `None` for another prefix or
/// depth.
#[must_use]
pub fn split_topic<'a>(prefix: &str, name: &'a str) -> Option<(&'a str, &'a str)> {
    let rest = name.strip_prefix(prefix)?.strip_prefix('/')?;
    let (id, leaf) = rest.split_once('/')?;
    (!leaf.contains('/') && !id.is_empty()).then_some((id, leaf))
}

impl Message {
    /// Reads a message of `leaf`; `Ok(None)` for the topics the relay does not use (`bfen`,
    /// which the state repeats, and `operator`, which it sends itself).
    ///
    /// # Errors
    ///
    /// A payload that is not what the topic carries; the error names the topic.
    pub fn parse(
        full_topic: &str,
        leaf: &str,
        payload: &[u8],
    ) -> Result<Option<Self>, MessageError> {
        let fail = |why: String| MessageError {
            topic: full_topic.to_owned(),
            why,
        };
        let text = std::str::from_utf8(payload).map_err(|e| fail(format!("not UTF-8: {e}")))?;
        let json = |what: &str| fail(format!("not {what} JSON"));
        Ok(Some(match leaf {
            topic::STATUS => match text {
                "online" => Message::Status(true),
                "offline" => Message::Status(false),
                other => {
                    return Err(fail(format!(
                        "status {other:?}: expected online or offline"
                    )));
                }
            },
            topic::STATE => Message::State(Box::new(
                serde_json::from_str(text).map_err(|e| json(&format!("state ({e})")))?,
            )),
            topic::BPGN => Message::Bpgn(text.to_owned()),
            topic::EVENTS => Message::Event(
                serde_json::from_str(text).map_err(|e| json(&format!("event ({e})")))?,
            ),
            topic::ALERTS => Message::Alert(
                serde_json::from_str(text).map_err(|e| json(&format!("alert ({e})")))?,
            ),
            ACKS => Message::Acks(
                serde_json::from_str::<AckList>(text)
                    .map_err(|e| json(&format!("acks ({e})")))?
                    .acked,
            ),
            ALERT_LOG => Message::AlertLog(
                serde_json::from_str::<AlertLog>(text)
                    .map_err(|e| json(&format!("alert log ({e})")))?
                    .alerts,
            ),
            _ => return Ok(None),
        }))
    }
}
