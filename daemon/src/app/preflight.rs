//! Everything `run` needs, checked before anything is touched: secret files readable, the
//! record directory writable, the listening ports free, emulated boards' traces readable.
//!
//! A daemon that starts a game, writes a journal and then stops on a missing token file
//! leaves a journal the next start "recovers"; so every check that can fail runs first, and
//! its error names the configuration file and the key to fix.

use std::net::{SocketAddr, TcpListener};
use std::path::Path;

use bugbridge_broadcast::http::ArbiterToken;
use bugbridge_broadcast::mqtt::PublisherOptions;

use super::AppError;
use crate::config::{Config, DriverKind};

/// What the checks produced, for `run` to use.
#[derive(Debug)]
pub(super) struct Prepared {
    /// The HTTP listener, already bound.
    pub(super) http: Option<TcpListener>,
    /// The arbiter token read from its file.
    pub(super) arbiter_token: Option<ArbiterToken>,
    /// The publisher's options, secrets read.
    pub(super) mqtt: Option<PublisherOptions>,
}

/// An error naming the configuration file (when there is one) and the key.
fn refuse(file: Option<&Path>, key: &str, reason: impl std::fmt::Display) -> AppError {
    match file {
        Some(f) => AppError::Config(format!("{}: key `{key}`: {reason}", f.display())),
        None => AppError::Config(format!("key `{key}`: {reason}")),
    }
}

fn read_secret(path: &Path, file: Option<&Path>, key: &str) -> Result<String, AppError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| refuse(file, key, format!("{}: cannot read: {e}", path.display())))?;
    let text = text.trim().to_owned();
    if text.is_empty() {
        return Err(refuse(
            file,
            key,
            format!("{}: the file is empty", path.display()),
        ));
    }
    Ok(text)
}

/// Creates `dir` if needed and proves it writable by creating and removing a file in it.
fn check_writable(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".bugbridge-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

/// Binds `addr` now, to know it is free (port 0: any free port).
fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let listener = TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Runs every check; `file` is the configuration file, named in the errors.
///
/// # Errors
///
/// [`AppError::Config`] naming the file, the key and what is wrong.
pub(super) fn check(config: &Config, file: Option<&Path>) -> Result<Prepared, AppError> {
    for b in &config.boards {
        if b.driver == DriverKind::Emulated
            && let Some(trace) = &b.trace
        {
            std::fs::File::open(trace).map_err(|e| {
                refuse(
                    file,
                    &format!("board {}: trace", b.id),
                    format!("{}: cannot read: {e}", trace.display()),
                )
            })?;
        }
    }

    let mut mqtt_opts = None;
    if let Some(mqtt) = &config.mqtt {
        let mut opts =
            PublisherOptions::from_url(&mqtt.url).map_err(|e| refuse(file, "mqtt.url", e))?;
        opts.topic_prefix.clone_from(&mqtt.topic_prefix);
        opts.embedded_listen = mqtt.embedded_listen;
        opts.will_match = Some(config.match_id.clone());
        opts.client_id = format!("bugbridge-{}", config.match_id);
        opts.accept_operator = mqtt.operator;
        if let Some(user) = &mqtt.username {
            opts.username = Some(user.clone());
        } else if mqtt.password_file.is_some() {
            // One broker user per table, named as its match (config/mosquitto/acl.conf), so
            // one file with --match-id serves every table.
            opts.username = Some(config.match_id.clone());
        }
        if let Some(path) = &mqtt.password_file {
            opts.password = Some(read_secret(path, file, "mqtt.password_file")?);
        }
        if let Some(path) = &mqtt.ca_file {
            opts.ca_pem = Some(std::fs::read(path).map_err(|e| {
                refuse(
                    file,
                    "mqtt.ca_file",
                    format!("{}: cannot read: {e}", path.display()),
                )
            })?);
        }
        opts.validate()
            .map_err(|e| refuse(file, "mqtt.topic_prefix", e))?;
        if mqtt.url == "embedded" && mqtt.embedded_listen.port() != 0 {
            // The broker binds on its own thread later: prove the port free now.
            drop(bind(mqtt.embedded_listen).map_err(|e| {
                refuse(
                    file,
                    "mqtt.embedded_listen",
                    format!("{}: {e}", mqtt.embedded_listen),
                )
            })?);
        }
        mqtt_opts = Some(opts);
    }

    let mut http = None;
    let mut arbiter_token = None;
    if let Some(h) = &config.http {
        if let Some(path) = &h.arbiter_token_file {
            let token = read_secret(path, file, "http.arbiter_token_file")?;
            arbiter_token = ArbiterToken::new(&token);
        }
        http = Some(
            bind(h.listen)
                .map_err(|e| refuse(file, "http.listen", format!("{}: {e}", h.listen)))?,
        );
    }
    // Last: the only check that may create something (the directory itself).
    check_writable(&config.record_dir).map_err(|e| {
        refuse(
            file,
            "record.dir",
            format!(
                "{}: not a writable directory: {e}",
                config.record_dir.display()
            ),
        )
    })?;
    Ok(Prepared {
        http,
        arbiter_token,
        mqtt: mqtt_opts,
    })
}
