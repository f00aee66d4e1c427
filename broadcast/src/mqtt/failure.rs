//! Why the broker cannot be reached, in words an organiser can act on.

use rumqttc::{ConnectReturnCode, ConnectionError, StateError};

/// The kind of a connection failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Problem {
    /// Nothing listens at the address, or the broker refused the connection.
    Refused,
    /// The broker refused the user name or password, or this client.
    NotAuthorised,
    /// The TLS handshake failed (certificate, CA file, host name).
    Tls,
    /// The host name does not resolve.
    Dns,
    /// No answer in time.
    Timeout,
    /// The broker closed the connection before accepting it (rumqttd does so on a wrong
    /// password).
    Closed,
    /// An established connection was lost.
    Lost,
    /// The broker answered something unexpected.
    Protocol,
}

impl Problem {
    /// The code published in `/healthz`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Problem::Refused => "refused",
            Problem::NotAuthorised => "not-authorised",
            Problem::Tls => "tls",
            Problem::Dns => "dns",
            Problem::Timeout => "timeout",
            Problem::Closed => "closed",
            Problem::Lost => "lost",
            Problem::Protocol => "protocol",
        }
    }
}

fn io_problem(e: &std::io::Error) -> (Problem, String) {
    use std::io::ErrorKind;
    let text = e.to_string();
    let lower = text.to_lowercase();
    if lower.contains("lookup") || lower.contains("name or service") || lower.contains("resolve") {
        return (
            Problem::Dns,
            format!("the broker's host name does not resolve ({text})"),
        );
    }
    if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake") {
        return (Problem::Tls, format!("TLS failed: {text}"));
    }
    match e.kind() {
        ErrorKind::ConnectionRefused => (
            Problem::Refused,
            format!("connection refused: nothing listens at that address ({text})"),
        ),
        ErrorKind::TimedOut => (Problem::Timeout, format!("no answer in time ({text})")),
        ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::UnexpectedEof => {
            (Problem::Lost, format!("the connection was closed ({text})"))
        }
        _ => (Problem::Refused, format!("cannot connect: {text}")),
    }
}

/// Where a daemon's credentials are configured, named in the reasons.
const DAEMON_KEYS: &str = "mqtt.username, mqtt.password_file";

/// Classifies a connection error. `connected` says whether the connection had been
/// accepted (a close before that means the broker turned this client away).
#[must_use]
pub fn classify(e: &ConnectionError, connected: bool) -> (Problem, String) {
    classify_with(e, connected, DAEMON_KEYS)
}

/// [`classify`], naming `keys` as where the user name and password are set (a relay takes
/// them from its `--mqtt` URL, a daemon from its configuration).
#[must_use]
pub fn classify_with(e: &ConnectionError, connected: bool, keys: &str) -> (Problem, String) {
    match e {
        ConnectionError::ConnectionRefused(code) => match code {
            ConnectReturnCode::BadUserNamePassword => (
                Problem::NotAuthorised,
                format!("the broker refused the user name or password ({keys})"),
            ),
            ConnectReturnCode::NotAuthorized => (
                Problem::NotAuthorised,
                format!(
                    "the broker says this client is not authorised: check the user name or \
                     password ({keys}) and the broker's access rules"
                ),
            ),
            other => (
                Problem::Refused,
                format!("the broker refused the connection: {other:?}"),
            ),
        },
        ConnectionError::Tls(t) => (Problem::Tls, format!("TLS failed: {t}")),
        ConnectionError::Io(io) | ConnectionError::MqttState(StateError::Io(io)) => {
            let (problem, text) = io_problem(io);
            if problem == Problem::Lost && !connected {
                (Problem::Closed, closed_text(keys))
            } else {
                (problem, text)
            }
        }
        ConnectionError::MqttState(StateError::ConnectionAborted) if !connected => {
            (Problem::Closed, closed_text(keys))
        }
        ConnectionError::MqttState(StateError::ConnectionAborted) => {
            (Problem::Lost, "the broker closed the connection".to_owned())
        }
        ConnectionError::NetworkTimeout | ConnectionError::FlushTimeout => (
            Problem::Timeout,
            "no answer from the broker in time".to_owned(),
        ),
        other => (Problem::Protocol, other.to_string()),
    }
}

fn closed_text(keys: &str) -> String {
    format!(
        "the broker closed the connection before accepting it: a wrong user name or password \
         ({keys})?"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_has_its_kind_and_words() {
        let (p, why) = classify(
            &ConnectionError::ConnectionRefused(ConnectReturnCode::BadUserNamePassword),
            false,
        );
        assert_eq!(p, Problem::NotAuthorised);
        assert!(why.contains("user name or password"), "{why}");
        let (p, _) = classify(
            &ConnectionError::ConnectionRefused(ConnectReturnCode::NotAuthorized),
            false,
        );
        assert_eq!(p.code(), "not-authorised");
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        let (p, why) = classify(&ConnectionError::Io(refused), false);
        assert_eq!(p, Problem::Refused);
        assert!(why.contains("refused"), "{why}");
        let dns = std::io::Error::other(
            "failed to lookup address information: Name or service not known",
        );
        assert_eq!(classify(&ConnectionError::Io(dns), false).0, Problem::Dns);
        let (p, _) = classify(
            &ConnectionError::MqttState(StateError::ConnectionAborted),
            false,
        );
        assert_eq!(p, Problem::Closed);
        let (p, _) = classify(
            &ConnectionError::MqttState(StateError::ConnectionAborted),
            true,
        );
        assert_eq!(p, Problem::Lost);
    }
}
