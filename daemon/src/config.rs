//! The daemon's configuration: TOML, read in two steps; every key is described in
//! `docs/configuration.md` (checked against [`RawConfig`] by `tests/docs.rs`).
//!
//! [`RawConfig`] is what serde reads, with no I/O and no cross-field rules; [`Config`] is the
//! validated, resolved form the daemon runs on. Every refusal names the file, the line and
//! column, the key (`board[1].driver`) and the reason, so an organiser can fix the file at
//! the table. Unknown keys are refused too: a misspelt key silently ignored is a board that
//! does not do what the organiser thinks.
//!
//! Relative paths in the file (`record.dir`, `http.arbiter_token_file`,
//! `mqtt.password_file`, `mqtt.ca_file`, `board[].trace`) are taken from the directory of
//! the configuration file, so the daemon finds the same files whatever its working
//! directory (systemd starts services in `/`).

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::rules::{BoardId, RulesetName};

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line and column, when the place is known.
    pub position: Option<(usize, usize)>,
    /// The key, as a path (`board[1].driver`), when known.
    pub key: Option<String>,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some((line, col)) = self.position {
            write!(f, ":{line}:{col}")?;
        }
        f.write_str(": ")?;
        if let Some(key) = &self.key {
            write!(f, "key `{key}`: ")?;
        }
        f.write_str(&self.reason)
    }
}

impl std::error::Error for ConfigError {}

/// The board drivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DriverKind {
    /// A DGT e-board (USB, serial or Bluetooth), maybe with a DGT clock plugged in.
    Dgt,
    /// A Millennium ChessLink / eONE board.
    Millennium,
    /// A Certabo RFID board (no clock; pieces named by the table's tag calibration).
    Certabo,
    /// A TabuTronic Sentio board (no clock; senses only which squares are occupied: the
    /// occupancy inference works the moves out).
    Sentio,
    /// A board emulated on a pseudo-terminal, playing the trace of `board[].trace`.
    Emulated,
}

/// Where a board's clock comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ClockSource {
    /// Found or missed (the default): a DGT board starts with a clock, and its session
    /// reports when the board says none is plugged in or it stops reporting, and when it
    /// reports again; a Millennium board has none.
    #[default]
    Auto,
    /// A DGT clock relayed through this board: expected, so a missing one is warned about
    /// (and still followed).
    Board,
    /// No clock: moves are committed when the board has been stable for a while.
    None,
}

/// Which side of the clock White sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum WhiteSide {
    /// Learnt from play (the default): the colour that moves while a side's time runs.
    #[default]
    Auto,
    /// The left side; play that shows otherwise is followed, with a `clock-side` alert.
    Left,
    /// The right side; likewise.
    Right,
}

/// How the board lies on the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Orientation {
    /// Recognised from the start position (the default).
    #[default]
    Auto,
    /// White at the connector's near side.
    Normal,
    /// Turned 180°.
    Rotated,
}

/// Parity of a Millennium board's characters (`board[].parity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Parity {
    /// Accept characters with and without parity, answer as the board sends (the default).
    #[default]
    Auto,
    /// 7 data bits plus odd parity (ChessLink, Exclusive, Performance).
    Odd,
    /// 7-bit characters without parity (DGT Centaur's ChessLink emulation, some eONEs).
    None,
}

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines (the default).
    #[default]
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// How a Koedem pawn promotes (`koedem.promotion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum KoedemPromotion {
    /// The official rule: a piece of one's colour is taken from the other board (the
    /// default).
    #[default]
    Grab,
    /// The "announce piece" alternative: promotion as in bughouse.
    Announce,
}

/// The file as serde reads it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// `[match]`.
    #[serde(rename = "match")]
    pub match_: RawMatch,
    /// `[[board]]`, one or two.
    #[serde(default)]
    pub board: Vec<Spanned<RawBoard>>,
    /// `[mqtt]`.
    #[serde(default)]
    pub mqtt: Option<RawMqtt>,
    /// `[http]`.
    #[serde(default)]
    pub http: Option<RawHttp>,
    /// `[record]`.
    #[serde(default)]
    pub record: Option<RawRecord>,
    /// `[inference]`.
    #[serde(default)]
    pub inference: Option<RawInference>,
    /// `[koedem]`: options of the Koedem ruleset.
    #[serde(default)]
    pub koedem: Option<RawKoedem>,
    /// `[log]`.
    #[serde(default)]
    pub log: Option<RawLog>,
}

/// `[match]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMatch {
    /// The match id: topic and URL component.
    pub id: Spanned<String>,
    /// The ruleset name.
    #[serde(default)]
    pub ruleset: Option<Spanned<String>>,
    /// `base+increment` in seconds.
    #[serde(default)]
    pub time_control: Option<Spanned<String>>,
    /// BPGN tags.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

/// `[[board]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBoard {
    /// `A` or `B`.
    pub name: Spanned<String>,
    /// The driver.
    pub driver: DriverKind,
    /// The serial device path.
    #[serde(default)]
    pub port: Option<String>,
    /// Reopen the board by its USB serial number instead of the path.
    #[serde(default)]
    pub usb_serial: Option<String>,
    /// Where the clock comes from.
    #[serde(default)]
    pub clock: ClockSource,
    /// Which side of the clock White sits on.
    #[serde(default)]
    pub white_side: WhiteSide,
    /// How the board lies.
    #[serde(default)]
    pub orientation: Orientation,
    /// Millennium: parity of the board's characters.
    #[serde(default)]
    pub parity: Parity,
    /// For `emulated`: the sensor trace it plays.
    #[serde(default)]
    pub trace: Option<PathBuf>,
    /// Certabo: the table's tag calibration file (learnt sets are added to it).
    #[serde(default)]
    pub calibration: Option<PathBuf>,
}

/// `[mqtt]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMqtt {
    /// `mqtt://host:port`, `mqtts://host:port`, or `embedded`.
    pub url: Spanned<String>,
    /// Topic prefix, `bughouse` by default.
    #[serde(default)]
    pub topic_prefix: Option<String>,
    /// User name for the broker.
    #[serde(default)]
    pub username: Option<String>,
    /// A file holding the broker password (kept out of the configuration).
    #[serde(default)]
    pub password_file: Option<PathBuf>,
    /// For `mqtts://`: a PEM file of the certificate authority to trust instead of the
    /// system's (a club's own broker with its own certificate).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    /// Also publish arbiter alerts on the public `events` topic.
    #[serde(default)]
    pub alerts_public: bool,
    /// Take operator actions from `<prefix>/<match>/operator` (sent by a relay's arbiter
    /// console); only with a broker ACL that lets no one else publish there.
    #[serde(default)]
    pub operator: bool,
    /// Where the embedded broker listens (`url = "embedded"`).
    #[serde(default)]
    pub embedded_listen: Option<Spanned<String>>,
}

/// `[http]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHttp {
    /// The listening address.
    pub listen: Spanned<String>,
    /// A file holding the arbiter's token.
    #[serde(default)]
    pub arbiter_token_file: Option<PathBuf>,
}

/// `[record]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRecord {
    /// Where journals and BPGN files live.
    pub dir: PathBuf,
}

/// `[inference]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawInference {
    /// Boards without a clock: how long the board must be stable before a move counts.
    #[serde(default)]
    pub stable_commit_ms: Option<u64>,
    /// How late the other board's press may arrive for a drop to count as in time.
    #[serde(default)]
    pub drop_tolerance_ms: Option<u64>,
    /// A board back from a lost link: the longest sequence of plies searched for what
    /// it played meanwhile.
    #[serde(default)]
    pub gap_max_plies: Option<usize>,
}

/// `[koedem]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawKoedem {
    /// `grab` or `announce`.
    #[serde(default)]
    pub promotion: Option<KoedemPromotion>,
    /// How far apart (ms) a promotion's press and the grabbed piece leaving the other
    /// board may be.
    #[serde(default)]
    pub grab_window_ms: Option<Spanned<u64>>,
}

/// `[log]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLog {
    /// `text` or `json`.
    #[serde(default)]
    pub format: LogFormat,
    /// A level (`error`, `warn`, `info`, `debug`, `trace`, `off`), or a tracing filter of
    /// them per target, e.g. `info,bugbridge=debug`.
    #[serde(default)]
    pub level: Option<Spanned<String>>,
}

/// A time control: base seconds and increment per move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    /// Seconds on each clock at the start.
    pub base: u32,
    /// Seconds added per move (Fischer).
    pub increment: u32,
}

impl TimeControl {
    /// Parses `180+0` (or `180`).
    #[must_use]
    pub fn parse(s: &str) -> Option<TimeControl> {
        let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
        Some(TimeControl {
            base: base.trim().parse().ok()?,
            increment: inc.trim().parse().ok()?,
        })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.base, self.increment)
    }
}

impl BoardConfig {
    /// Whether the board starts with a clock (`board`, or `auto` on a DGT board): its
    /// presses complete its moves until its session says the clock is missing.
    #[must_use]
    pub fn has_clock(&self) -> bool {
        match self.clock {
            ClockSource::Board => true,
            ClockSource::None => false,
            ClockSource::Auto => !self.driver.is_clockless(),
        }
    }
}

/// One board, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardConfig {
    /// A or B.
    pub id: BoardId,
    /// The driver.
    pub driver: DriverKind,
    /// The device path (none for a board found by USB serial number only).
    pub port: Option<String>,
    /// The USB serial number to find the board by.
    pub usb_serial: Option<String>,
    /// Whether a clock is relayed through the board (`auto` only on DGT and emulated
    /// boards: a Millennium board's `auto` is resolved to `none`).
    pub clock: ClockSource,
    /// Which side of the clock White sits on.
    pub white_side: WhiteSide,
    /// How the board lies.
    pub orientation: Orientation,
    /// Millennium: parity of the board's characters.
    pub parity: Parity,
    /// For an emulated board: the trace it plays.
    pub trace: Option<PathBuf>,
    /// Certabo: the table's tag calibration file (default: beside the configuration,
    /// `<name>.calibration.json`).
    pub calibration: Option<PathBuf>,
}

impl DriverKind {
    /// Boards that relay no clock (Millennium, Certabo, Sentio).
    #[must_use]
    pub fn is_clockless(self) -> bool {
        matches!(
            self,
            DriverKind::Millennium | DriverKind::Certabo | DriverKind::Sentio
        )
    }

    /// The driver's name in the configuration.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DriverKind::Dgt => "dgt",
            DriverKind::Millennium => "millennium",
            DriverKind::Certabo => "certabo",
            DriverKind::Sentio => "sentio",
            DriverKind::Emulated => "emulated",
        }
    }
}

/// MQTT, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct MqttConfig {
    /// The broker URL or `embedded`.
    pub url: String,
    /// Topic prefix.
    pub topic_prefix: String,
    /// User name.
    pub username: Option<String>,
    /// Password file.
    pub password_file: Option<PathBuf>,
    /// CA certificate file for TLS.
    pub ca_file: Option<PathBuf>,
    /// Alerts also on the public topic.
    pub alerts_public: bool,
    /// Operator actions taken from the `operator` topic.
    pub operator: bool,
    /// Embedded broker address.
    pub embedded_listen: SocketAddr,
}

/// HTTP, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpConfig {
    /// The listening address.
    pub listen: SocketAddr,
    /// The arbiter token file; without it the arbiter view is closed.
    pub arbiter_token_file: Option<PathBuf>,
}

/// The options of the Koedem ruleset, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KoedemOptions {
    /// Grab promotion or the "announce piece" alternative.
    pub promotion: KoedemPromotion,
    /// The grab window (ms).
    pub grab_window_ms: u64,
}

impl Default for KoedemOptions {
    fn default() -> KoedemOptions {
        KoedemOptions {
            promotion: KoedemPromotion::Grab,
            grab_window_ms: 15_000,
        }
    }
}

/// The validated configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The match id.
    pub match_id: String,
    /// The ruleset.
    pub ruleset: RulesetName,
    /// The time control, if known.
    pub time_control: Option<TimeControl>,
    /// BPGN tags.
    pub tags: BTreeMap<String, String>,
    /// The boards, A first.
    pub boards: Vec<BoardConfig>,
    /// MQTT, if publishing.
    pub mqtt: Option<MqttConfig>,
    /// HTTP, if serving.
    pub http: Option<HttpConfig>,
    /// Journals and BPGN files.
    pub record_dir: PathBuf,
    /// Clockless commit delay.
    pub stable_commit_ms: u64,
    /// Cross-board drop tolerance.
    pub drop_tolerance_ms: u64,
    /// The longest link gap searched, in plies.
    pub gap_max_plies: usize,
    /// Koedem options (defaults for other rulesets).
    pub koedem: KoedemOptions,
    /// Log format.
    pub log_format: LogFormat,
    /// Log filter.
    pub log_level: String,
}

/// The default embedded broker address.
pub const DEFAULT_EMBEDDED_LISTEN: &str = "127.0.0.1:1883";

/// Byte offset → 1-based (line, column).
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, col)
}

impl Config {
    /// The rules of the match, with the ruleset's options applied (Koedem's "announce
    /// piece" promotion).
    #[must_use]
    pub fn rules(&self) -> crate::rules::Ruleset {
        let mut rules = self.ruleset.ruleset();
        if self.koedem.promotion == KoedemPromotion::Announce {
            rules.promotion_by_grab = false;
        }
        rules
    }

    /// Reads and validates the file at `path`.
    ///
    /// # Errors
    ///
    /// [`ConfigError`] naming the place and the reason.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.to_owned(),
            position: None,
            key: None,
            reason: format!("cannot read: {e}"),
        })?;
        Config::parse(&text, path)
    }

    /// Parses and validates `text` (named `file` in errors).
    ///
    /// # Errors
    ///
    /// [`ConfigError`] naming the place and the reason.
    pub fn parse(text: &str, file: &Path) -> Result<Config, ConfigError> {
        let at = |span: Option<std::ops::Range<usize>>, key: Option<String>, reason: String| {
            ConfigError {
                file: file.to_owned(),
                position: span.map(|s| line_col(text, s.start)),
                key,
                reason,
            }
        };
        let de = toml::Deserializer::parse(text)
            .map_err(|e| at(e.span(), None, e.message().to_owned()))?;
        let raw: RawConfig = serde_path_to_error::deserialize(de).map_err(|e| {
            // `Spanned` wrappers show up as private path segments: leave them out.
            let path = e
                .path()
                .to_string()
                .split('.')
                .filter(|seg| !seg.starts_with("$__"))
                .collect::<Vec<_>>()
                .join(".");
            let inner = e.into_inner();
            let key = (path != "." && !path.is_empty()).then_some(path);
            at(inner.span(), key, inner.message().to_owned())
        })?;
        Config::from_raw(raw, file, &|span, key: &str, reason: String| {
            at(Some(span), Some(key.to_owned()), reason)
        })
    }

    fn from_raw(
        raw: RawConfig,
        file: &Path,
        at: &dyn Fn(std::ops::Range<usize>, &str, String) -> ConfigError,
    ) -> Result<Config, ConfigError> {
        let id = raw.match_.id;
        if !valid_match_id(id.get_ref()) {
            return Err(at(
                id.span(),
                "match.id",
                "a match id is 1 to 64 letters, digits, '-', '_' or '.'".into(),
            ));
        }
        let ruleset = match &raw.match_.ruleset {
            Some(r) => r
                .get_ref()
                .parse::<RulesetName>()
                .map_err(|e| at(r.span(), "match.ruleset", e.to_string()))?,
            None => RulesetName::Fide,
        };
        let time_control = match &raw.match_.time_control {
            Some(tc) => Some(TimeControl::parse(tc.get_ref()).ok_or_else(|| {
                at(
                    tc.span(),
                    "match.time_control",
                    "expected seconds and increment like \"180+0\"".into(),
                )
            })?),
            None => None,
        };
        if raw.board.is_empty() || raw.board.len() > 2 {
            return Err(ConfigError {
                file: file.to_owned(),
                position: None,
                key: Some("board".into()),
                reason: format!(
                    "expected one or two [[board]] tables, found {}",
                    raw.board.len()
                ),
            });
        }
        let mut boards: Vec<BoardConfig> = Vec::new();
        for (i, b) in raw.board.iter().enumerate() {
            let span = b.span();
            let b = b.get_ref();
            let key = |k: &str| format!("board[{i}].{k}");
            let id = match b.name.get_ref().as_str() {
                "A" | "a" => BoardId::A,
                "B" | "b" => BoardId::B,
                other => {
                    return Err(at(
                        b.name.span(),
                        &key("name"),
                        format!("expected \"A\" or \"B\", found {other:?}"),
                    ));
                }
            };
            if boards.iter().any(|o| o.id == id) {
                return Err(at(
                    b.name.span(),
                    &key("name"),
                    format!("board {id} is configured twice"),
                ));
            }
            match b.driver {
                DriverKind::Emulated if b.trace.is_none() => {
                    return Err(at(
                        span,
                        &key("trace"),
                        "an emulated board needs the trace it plays".into(),
                    ));
                }
                DriverKind::Dgt
                | DriverKind::Millennium
                | DriverKind::Certabo
                | DriverKind::Sentio
                    if b.port.is_none() && b.usb_serial.is_none() =>
                {
                    return Err(at(
                        span,
                        &key("port"),
                        "a board needs a port or a usb_serial".into(),
                    ));
                }
                _ => {}
            }
            if let Some(port) = &b.port
                && boards.iter().any(|o| o.port.as_deref() == Some(port))
            {
                return Err(at(
                    span,
                    &key("port"),
                    format!("port {port} is used by both boards"),
                ));
            }
            if b.driver.is_clockless() && b.clock == ClockSource::Board {
                let name = match b.driver {
                    DriverKind::Certabo => "Certabo",
                    DriverKind::Sentio => "Sentio",
                    _ => "Millennium",
                };
                return Err(at(
                    span,
                    &key("clock"),
                    format!("a {name} board relays no clock: set clock = \"none\""),
                ));
            }
            if b.driver != DriverKind::Certabo && b.calibration.is_some() {
                return Err(at(
                    span,
                    &key("calibration"),
                    "calibration applies to Certabo boards only".into(),
                ));
            }
            if b.driver != DriverKind::Millennium && b.parity != Parity::Auto {
                return Err(at(
                    span,
                    &key("parity"),
                    "parity applies to Millennium boards only".into(),
                ));
            }
            boards.push(BoardConfig {
                id,
                driver: b.driver,
                port: b.port.clone(),
                usb_serial: b.usb_serial.clone(),
                clock: match (b.driver, b.clock) {
                    (d, ClockSource::Auto) if d.is_clockless() => ClockSource::None,
                    (_, clock) => clock,
                },
                white_side: b.white_side,
                orientation: b.orientation,
                parity: b.parity,
                trace: b.trace.as_deref().map(|p| relative_to(file, p)),
                calibration: (b.driver == DriverKind::Certabo).then(|| match &b.calibration {
                    Some(p) => relative_to(file, p),
                    None => default_calibration(file),
                }),
            });
        }
        boards.sort_by_key(|b| b.id);
        let mqtt = match raw.mqtt {
            Some(m) => {
                let url = m.url.get_ref().clone();
                let ok =
                    url == "embedded" || url.starts_with("mqtt://") || url.starts_with("mqtts://");
                if !ok {
                    return Err(at(
                        m.url.span(),
                        "mqtt.url",
                        "expected \"embedded\", mqtt://host:port or mqtts://host:port".into(),
                    ));
                }
                let embedded_listen = match &m.embedded_listen {
                    Some(s) => s.get_ref().parse().map_err(|_| {
                        at(
                            s.span(),
                            "mqtt.embedded_listen",
                            "expected an address like 127.0.0.1:1883".into(),
                        )
                    })?,
                    None => DEFAULT_EMBEDDED_LISTEN.parse().map_err(|_| {
                        at(
                            m.url.span(),
                            "mqtt.embedded_listen",
                            "bad default address".into(),
                        )
                    })?,
                };
                Some(MqttConfig {
                    url,
                    topic_prefix: m.topic_prefix.unwrap_or_else(|| "bughouse".into()),
                    username: m.username,
                    password_file: m.password_file.as_deref().map(|p| relative_to(file, p)),
                    ca_file: m.ca_file.as_deref().map(|p| relative_to(file, p)),
                    alerts_public: m.alerts_public,
                    operator: m.operator,
                    embedded_listen,
                })
            }
            None => None,
        };
        let http = match raw.http {
            Some(h) => Some(HttpConfig {
                listen: h.listen.get_ref().parse().map_err(|_| {
                    at(
                        h.listen.span(),
                        "http.listen",
                        "expected an address like 127.0.0.1:8080".into(),
                    )
                })?,
                arbiter_token_file: h
                    .arbiter_token_file
                    .as_deref()
                    .map(|p| relative_to(file, p)),
            }),
            None => None,
        };
        let inference = raw.inference.unwrap_or(RawInference {
            stable_commit_ms: None,
            drop_tolerance_ms: None,
            gap_max_plies: None,
        });
        let koedem = match raw.koedem {
            None => KoedemOptions::default(),
            Some(_) if ruleset != RulesetName::Koedem => {
                return Err(ConfigError {
                    file: file.to_owned(),
                    position: None,
                    key: Some("koedem".into()),
                    reason: format!(
                        "Koedem options with match.ruleset = \"{}\": set ruleset = \"koedem\" or remove [koedem]",
                        ruleset.as_str()
                    ),
                });
            }
            Some(k) => {
                let defaults = KoedemOptions::default();
                let grab_window_ms = match &k.grab_window_ms {
                    Some(w) if !(1000..=120_000).contains(w.get_ref()) => {
                        return Err(at(
                            w.span(),
                            "koedem.grab_window_ms",
                            "expected 1000 to 120000 (ms)".into(),
                        ));
                    }
                    Some(w) => *w.get_ref(),
                    None => defaults.grab_window_ms,
                };
                KoedemOptions {
                    promotion: k.promotion.unwrap_or(defaults.promotion),
                    grab_window_ms,
                }
            }
        };
        let log = raw.log.unwrap_or(RawLog {
            format: LogFormat::Text,
            level: None,
        });
        let log_level = match &log.level {
            Some(l) => log_level(l.get_ref()).map_err(|why| at(l.span(), "log.level", why))?,
            None => "info".to_owned(),
        };
        Ok(Config {
            match_id: id.into_inner(),
            ruleset,
            time_control,
            tags: raw.match_.tags,
            boards,
            mqtt,
            http,
            record_dir: relative_to(
                file,
                &raw.record.map_or_else(|| PathBuf::from("games"), |r| r.dir),
            ),
            stable_commit_ms: inference
                .stable_commit_ms
                .unwrap_or(crate::infer::config::DEFAULT_STABLE_COMMIT_MS),
            drop_tolerance_ms: inference.drop_tolerance_ms.unwrap_or(300),
            gap_max_plies: inference.gap_max_plies.unwrap_or(6).clamp(1, 8),
            koedem,
            log_format: log.format,
            log_level,
        })
    }
}

/// The levels `[log] level` takes, alone or after `target=`.
const LOG_LEVELS: [&str; 6] = ["error", "warn", "info", "debug", "trace", "off"];

/// `[log] level` checked and made a tracing filter: comma-separated directives, each a
/// level or `target=level` (`warning` is taken as `warn`, as people write it). A bare word
/// that is no level (a typo) is refused rather than read as a target to log at `trace`.
fn log_level(value: &str) -> Result<String, String> {
    let level = |l: &str| {
        let l = l.trim().to_ascii_lowercase();
        let l = if l == "warning" { "warn".to_owned() } else { l };
        if LOG_LEVELS.contains(&l.as_str()) {
            Ok(l)
        } else {
            Err(format!(
                "{l:?} is not a log level: expected one of {} (or target=level, comma-separated)",
                LOG_LEVELS.join(", ")
            ))
        }
    };
    let mut out = Vec::new();
    for directive in value.split(',') {
        let directive = directive.trim();
        if directive.is_empty() {
            return Err(format!("{value:?}: an empty directive"));
        }
        match directive.split_once('=') {
            Some((target, l)) => {
                let target = target.trim();
                if target.is_empty()
                    || !target
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-'))
                {
                    return Err(format!(
                        "{target:?} is not a target (a module path like bugbridge::infer)"
                    ));
                }
                out.push(format!("{target}={}", level(l)?));
            }
            None => out.push(level(directive)?),
        }
    }
    Ok(out.join(","))
}

/// `path` as written in the configuration `file`: a relative path is taken from the file's
/// directory, not from wherever the daemon was started (under systemd that is `/`).
#[must_use]
pub fn relative_to(file: &Path, path: &Path) -> PathBuf {
    match file.parent() {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path.to_owned(),
    }
}

/// The calibration file of a configuration's Certabo boards when none is named:
/// `table.toml` → `table.calibration.json`, beside it.
#[must_use]
pub fn default_calibration(file: &Path) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(|| "table".into(), |s| s.to_string_lossy().into_owned());
    relative_to(file, Path::new(&format!("{stem}.calibration.json")))
}

/// A match id is used in topics, URLs and file names: 1 to 64 of `[A-Za-z0-9._-]`.
#[must_use]
pub fn valid_match_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && id != "."
        && id != ".."
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[match]
id = "table-1"
ruleset = "fide"
time_control = "180+0"
[match.tags]
Event = "Club night"
WhiteA = "Ann"

[[board]]
name = "A"
driver = "dgt"
port = "/dev/ttyUSB0"
clock = "board"
white_side = "left"

[[board]]
name = "B"
driver = "millennium"
port = "/dev/ttyUSB1"
clock = "none"
parity = "none"

[mqtt]
url = "mqtt://127.0.0.1:1883"
topic_prefix = "bughouse"

[http]
listen = "127.0.0.1:8080"
arbiter_token_file = "arbiter.token"

[record]
dir = "games"
"#;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("table.toml"))
    }

    #[test]
    fn a_log_level_is_checked_like_every_other_key() {
        let with = |level: &str| parse(&format!("{GOOD}\n[log]\nlevel = \"{level}\"\n"));
        assert_eq!(with("debug").unwrap().log_level, "debug");
        assert_eq!(with("Warning").unwrap().log_level, "warn");
        assert_eq!(
            with("info,bugbridge::infer=trace").unwrap().log_level,
            "info,bugbridge::infer=trace"
        );
        for bad in ["verbose", "info,bugbridge=loud", "", "info,,debug"] {
            let e = with(bad).unwrap_err();
            assert_eq!(e.key.as_deref(), Some("log.level"), "{bad:?}: {e}");
            assert!(e.position.is_some(), "{bad:?}: {e}");
        }
        let e = with("verbose").unwrap_err().to_string();
        assert!(
            e.contains("log.level") && e.contains("not a log level"),
            "{e}"
        );
    }

    #[test]
    fn the_documented_keys_are_read() {
        let c = parse(GOOD).unwrap();
        assert_eq!(c.match_id, "table-1");
        assert_eq!(
            c.time_control,
            Some(TimeControl {
                base: 180,
                increment: 0
            })
        );
        assert_eq!(c.boards.len(), 2);
        assert_eq!(c.boards[1].driver, DriverKind::Millennium);
        assert_eq!(c.boards[1].parity, Parity::None);
        assert_eq!(c.boards[0].parity, Parity::Auto, "the default");
        assert_eq!(c.tags.get("WhiteA").map(String::as_str), Some("Ann"));
        assert_eq!(c.http.unwrap().listen.port(), 8080);
        assert_eq!(c.mqtt.unwrap().topic_prefix, "bughouse");
    }

    #[test]
    fn sentio_boards_have_no_clock_and_no_calibration() {
        let table = |extra: &str| {
            Config::parse(
                &format!(
                    "[match]\nid = \"t\"\n[[board]]\nname = \"A\"\ndriver = \"sentio\"\nport = \"/dev/a\"\n{extra}\
                     [[board]]\nname = \"B\"\ndriver = \"sentio\"\nport = \"/dev/b\"\n"
                ),
                Path::new("/clubs/round1/table.toml"),
            )
        };
        let c = table("").unwrap();
        for b in &c.boards {
            assert_eq!(b.driver, DriverKind::Sentio);
            assert_eq!(b.clock, ClockSource::None);
            assert!(!b.has_clock() && b.calibration.is_none());
        }
        let e = table("clock = \"board\"\n").unwrap_err().to_string();
        assert!(e.contains("Sentio board relays no clock"), "{e}");
        let e = table("calibration = \"tags.json\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("Certabo boards only"), "{e}");
    }

    #[test]
    fn certabo_boards_share_a_calibration_beside_the_configuration_and_have_no_clock() {
        let table = |extra: &str| {
            Config::parse(
                &format!(
                    "[match]\nid = \"t\"\n[[board]]\nname = \"A\"\ndriver = \"certabo\"\nport = \"/dev/a\"\n{extra}\
                     [[board]]\nname = \"B\"\ndriver = \"certabo\"\nport = \"/dev/b\"\n"
                ),
                Path::new("/clubs/round1/table.toml"),
            )
        };
        let c = table("").unwrap();
        for b in &c.boards {
            assert_eq!(
                b.calibration.as_deref(),
                Some(Path::new("/clubs/round1/table.calibration.json"))
            );
            assert_eq!(b.clock, ClockSource::None);
            assert!(!b.has_clock());
        }
        let c = table("calibration = \"tags.json\"\n").unwrap();
        assert_eq!(
            c.boards[0].calibration.as_deref(),
            Some(Path::new("/clubs/round1/tags.json"))
        );
        let e = table("clock = \"board\"\n").unwrap_err().to_string();
        assert!(e.contains("Certabo board relays no clock"), "{e}");
        let e = parse(&GOOD.replacen("parity = \"none\"", "calibration = \"t.json\"", 1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("Certabo boards only"), "{e}");
    }

    #[test]
    fn clock_and_white_side_default_to_auto() {
        let c = parse(
            "[match]\nid = \"t\"\n[[board]]\nname = \"A\"\ndriver = \"dgt\"\nport = \"/dev/a\"\n\
             [[board]]\nname = \"B\"\ndriver = \"millennium\"\nport = \"/dev/b\"\n",
        )
        .unwrap();
        let (a, b) = (&c.boards[0], &c.boards[1]);
        assert_eq!(
            (a.clock, a.white_side),
            (ClockSource::Auto, WhiteSide::Auto)
        );
        assert!(a.has_clock(), "a DGT board starts with its clock");
        assert_eq!(b.clock, ClockSource::None, "a Millennium board has none");
        assert!(!b.has_clock());
    }

    #[test]
    fn a_bad_value_names_key_line_and_reason() {
        let bad = GOOD.replace("driver = \"dgt\"", "driver = \"dgtx\"");
        let e = parse(&bad).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("board[0].driver"));
        assert_eq!(e.position.map(|p| p.0), Some(12));
        assert!(e.reason.contains("dgtx"), "{e}");
        assert!(e.to_string().starts_with("table.toml:12:"), "{e}");
    }

    #[test]
    fn an_unknown_key_is_refused() {
        let bad = GOOD.replace("white_side = \"left\"", "whiteside = \"left\"");
        let e = parse(&bad).unwrap_err();
        assert!(e.reason.contains("whiteside"), "{e}");
        assert_eq!(e.position.map(|p| p.0), Some(15));
    }

    #[test]
    fn semantic_errors_name_the_key() {
        let e = parse(&GOOD.replace("ruleset = \"fide\"", "ruleset = \"blitz\"")).unwrap_err();
        assert_eq!(
            (e.key.as_deref(), e.position.map(|p| p.0)),
            (Some("match.ruleset"), Some(4))
        );
        let e = parse(&GOOD.replace("name = \"B\"", "name = \"A\"")).unwrap_err();
        assert!(e.reason.contains("twice"), "{e}");
        let e = parse(&GOOD.replace("\"180+0\"", "\"3 minutes\"")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("match.time_control"));
        let e = parse(&GOOD.replace("127.0.0.1:8080", "localhost")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("http.listen"));
        let e = parse(&GOOD.replace("mqtt://127.0.0.1:1883", "http://x")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("mqtt.url"));
        let e = parse(&GOOD.replace("id = \"table-1\"", "id = \"../etc\"")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("match.id"));
        let e = parse(&GOOD.replace("parity = \"none\"", "parity = \"even\"")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("board[1].parity"));
        let dgt_parity = GOOD.replace(
            "white_side = \"left\"",
            "white_side = \"left\"\nparity = \"odd\"",
        );
        let e = parse(&dgt_parity).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("board[0].parity"));
    }

    #[test]
    fn relative_paths_are_taken_from_the_files_directory() {
        let c = Config::parse(GOOD, Path::new("/etc/bugbridge/table.toml")).unwrap();
        assert_eq!(c.record_dir, Path::new("/etc/bugbridge/games"));
        assert_eq!(
            c.http.unwrap().arbiter_token_file.as_deref(),
            Some(Path::new("/etc/bugbridge/arbiter.token"))
        );
        let absolute = GOOD.replace("dir = \"games\"", "dir = \"/var/lib/bugbridge\"");
        let c = Config::parse(&absolute, Path::new("/etc/bugbridge/table.toml")).unwrap();
        assert_eq!(c.record_dir, Path::new("/var/lib/bugbridge"));
    }

    #[test]
    fn koedem_options_are_read_and_checked() {
        let koedem = GOOD.replace("ruleset = \"fide\"", "ruleset = \"koedem\"");
        let c = parse(&koedem).unwrap();
        assert_eq!(c.koedem, KoedemOptions::default());
        assert!(c.rules().promotion_by_grab);
        let announce =
            format!("{koedem}\n[koedem]\npromotion = \"announce\"\ngrab_window_ms = 20000\n");
        let c = parse(&announce).unwrap();
        assert_eq!(c.koedem.promotion, KoedemPromotion::Announce);
        assert_eq!(c.koedem.grab_window_ms, 20_000);
        assert!(!c.rules().promotion_by_grab);
        let e = parse(&format!("{GOOD}\n[koedem]\npromotion = \"grab\"\n")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("koedem"));
        let e = parse(&format!("{koedem}\n[koedem]\ngrab_window_ms = 5\n")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("koedem.grab_window_ms"));
        let e = parse(&format!("{koedem}\n[koedem]\npromotion = \"pick\"\n")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("koedem.promotion"));
    }

    #[test]
    fn broken_toml_names_the_line() {
        let e = parse("[match]\nid = \"x\n").unwrap_err();
        assert_eq!(e.position.map(|p| p.0), Some(2));
        let e = parse("").unwrap_err();
        assert!(e.reason.contains("match"), "{e}");
    }
}

#[cfg(test)]
mod example_files {
    use super::*;

    /// Every example in `config/` is a valid configuration.
    #[test]
    fn the_examples_in_config_are_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                Config::load(&path).unwrap_or_else(|e| panic!("{e}"));
                n += 1;
            }
        }
        assert!(n >= 3, "examples found: {n}");
    }
}
