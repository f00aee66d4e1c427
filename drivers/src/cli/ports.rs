//! `bugbridge ports`: serial ports present, with the board type where it can tell.

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::BytesMut;

use crate::dgt::{BoardMessage, Command, DgtDecoder};
use crate::millennium::{MillCommand, ParityMode, Reply, ReplyDecoder};
use crate::serial::{LineSettings, Port, UsbInfo, list_ports};
use crate::session::DriverKind;

/// One serial port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortReport {
    /// Device path.
    pub path: String,
    /// "usb", "bluetooth", "pci" or "unknown".
    pub kind: &'static str,
    /// USB vendor/product/serial/manufacturer/product strings, for USB ports.
    pub usb: Option<UsbInfo>,
    /// What the USB vendor and product id suggest, e.g. "DGT Smart Board".
    pub board: Option<&'static str>,
    /// What answered a probe, when probing was asked for.
    pub probed: Option<DriverKind>,
    /// Why the probe could not open the port (e.g. permission denied: the user is not in
    /// the `dialout` group), rather than "no answer".
    pub probe_error: Option<String>,
    /// The stable names udev gives the device: `/dev/serial/by-id/…` (the USB serial
    /// number: follows the board from socket to socket) and `/dev/serial/by-path/…` (the
    /// USB socket: stays with the socket, tells two identical boards apart).
    pub stable_names: Vec<PathBuf>,
}

/// The header line printed above the [`PortReport`] lines (tab-separated like them).
pub const PORTS_HEADER: &str = "device\tkind\tusb id\tdescription\tboard\tstable names";

/// The symlinks under `dirs` (normally `/dev/serial/by-id` and `/dev/serial/by-path`)
/// that resolve to `device`, sorted.
#[must_use]
pub(crate) fn stable_names_in(dirs: &[&Path], device: &Path) -> Vec<PathBuf> {
    let Ok(target) = std::fs::canonicalize(device) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if std::fs::canonicalize(&path).is_ok_and(|t| t == target) {
                names.push(path);
            }
        }
    }
    names.sort();
    names
}

/// The udev names of `device` under `/dev/serial/by-id` and `/dev/serial/by-path`.
#[must_use]
pub fn stable_names(device: &Path) -> Vec<PathBuf> {
    stable_names_in(
        &[
            Path::new("/dev/serial/by-id"),
            Path::new("/dev/serial/by-path"),
        ],
        device,
    )
}

/// What a USB vendor/product id suggests. The FTDI id is shared with many other devices,
/// hence the question mark.
#[must_use]
pub fn known_usb_board(vid: u16, pid: u16) -> Option<&'static str> {
    match (vid, pid) {
        (0x0403, 0x6001) => Some("DGT e-board? (FTDI FT232 bridge, as in DGT USB boards)"),
        (0x045B, 0x8111) => Some("DGT Smart Board"),
        (0x10C4, 0xEA60) => Some(
            "Certabo or TabuTronic board? (CP210x bridge, used by many devices: --probe tells by what it sends)",
        ),
        (0x2D80, _) => Some("Chessnut (HID, not supported)"),
        _ => None,
    }
}

impl fmt::Display for PortReport {
    /// One line, tab-separated, the columns of [`PORTS_HEADER`]: `path  kind  vid:pid
    /// manufacturer=… product=… serial=…  board=…  stable names`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\t{}", self.path, self.kind)?;
        match &self.usb {
            Some(u) => write!(
                f,
                "\t{:04x}:{:04x}\tmanufacturer={:?} product={:?} serial={:?}",
                u.vid,
                u.pid,
                u.manufacturer.as_deref().unwrap_or(""),
                u.product.as_deref().unwrap_or(""),
                u.serial.as_deref().unwrap_or("")
            )?,
            None => write!(f, "\t-\t-")?,
        }
        match (self.probed, self.board) {
            _ if self.probe_error.is_some() => write!(
                f,
                "\tboard={} (cannot open: {})",
                self.board.unwrap_or("unknown"),
                self.probe_error.as_deref().unwrap_or_default()
            )?,
            (Some(k), _) => write!(f, "\tboard={} (answered a probe)", k.name())?,
            (None, Some(b)) => write!(f, "\tboard={b}")?,
            (None, None) => write!(f, "\tboard=unknown")?,
        }
        if self.stable_names.is_empty() {
            write!(f, "\t-")
        } else {
            let names: Vec<String> = self
                .stable_names
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            write!(f, "\t{}", names.join(" "))
        }
    }
}

/// The serial ports present. With `probe_timeout`, each port is also opened and asked for
/// its version in the DGT and then the Millennium protocol (this writes to the devices:
/// leave it off for ports that belong to something else).
#[must_use]
pub fn ports(probe_timeout: Option<Duration>) -> Vec<PortReport> {
    list_ports()
        .into_iter()
        .map(|p| {
            let board = p.usb.as_ref().and_then(|u| known_usb_board(u.vid, u.pid));
            let cp210x = p.usb.as_ref().is_some_and(|u| {
                (u.vid, u.pid) == (crate::certabo::USB_VID, crate::certabo::USB_PID)
            });
            let (probed, probe_error) = match probe_timeout.map(|t| {
                if cp210x {
                    // Listen first: what a Certabo or TabuTronic board sends tells it apart
                    // from the other devices on this bridge.
                    match probe_certabo(Path::new(&p.path), t) {
                        Ok(None) => try_probe(Path::new(&p.path), t),
                        other => other,
                    }
                } else {
                    try_probe(Path::new(&p.path), t)
                }
            }) {
                Some(Ok(kind)) => (kind, None),
                Some(Err(e)) => (None, Some(open_error(&e))),
                None => (None, None),
            };
            PortReport {
                probe_error,
                stable_names: stable_names(Path::new(&p.path)),
                path: p.path,
                kind: p.kind,
                usb: p.usb,
                board,
                probed,
            }
        })
        .collect()
}

/// Asks the device at `path` for its version, DGT first (9600 baud, `0x4D`), then
/// Millennium (38400 baud, `V`). `None` when neither answers within `timeout` each.
#[must_use]
pub fn probe(path: &Path, timeout: Duration) -> Option<DriverKind> {
    try_probe(path, timeout).ok().flatten()
}

/// Why a port could not be opened, for people: permission denied names the usual fix.
fn open_error(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::PermissionDenied {
        format!("permission denied ({e}): add the user to the dialout group")
    } else {
        e.to_string()
    }
}

/// As [`probe`], but a port that cannot be opened is an error, not "no answer".
///
/// # Errors
/// Opening the port failed (permission denied, busy, gone).
pub fn try_probe(path: &Path, timeout: Duration) -> std::io::Result<Option<DriverKind>> {
    let dgt = exchange(
        path,
        LineSettings::DGT,
        &Command::Version.to_bytes(),
        timeout,
        |buf| {
            let mut d = DgtDecoder::new();
            std::iter::from_fn(|| d.next_message(buf))
                .any(|m| matches!(m, BoardMessage::Version { .. }))
        },
    )?;
    if dgt {
        return Ok(Some(DriverKind::Dgt));
    }
    let mill = exchange(
        path,
        LineSettings::MILLENNIUM,
        &MillCommand::Version.to_bytes(),
        timeout,
        |buf| {
            let mut d = ReplyDecoder::new(ParityMode::Ignore);
            std::iter::from_fn(|| d.next_reply(buf)).any(|r| matches!(r, Reply::Version { .. }))
        },
    );
    if mill? {
        return Ok(Some(DriverKind::Millennium));
    }
    probe_certabo(path, timeout)
}

/// Listens at 38400 baud for a Certabo reading (320 numbers) or a Sentio reading (8 numbers)
/// after switching the LEDs off (8 zero bytes, harmless on these boards; the boards report
/// unasked, an emulated one once a host has spoken).
///
/// # Errors
/// Opening the port failed.
pub fn probe_certabo(path: &Path, timeout: Duration) -> std::io::Result<Option<DriverKind>> {
    let found = std::cell::Cell::new(None);
    let mut decoder = crate::certabo::FrameDecoder::default();
    let mut seen = 0;
    exchange(path, LineSettings::CERTABO, &[0u8; 8], timeout, |buf| {
        let msgs = decoder.decode(&buf[seen..]);
        seen = buf.len();
        for m in msgs {
            match m {
                crate::certabo::Message::Tags(_) => found.set(Some(DriverKind::Certabo)),
                crate::certabo::Message::Ranks(_) => found.set(Some(DriverKind::Sentio)),
                crate::certabo::Message::Ack(_) => {}
            }
        }
        found.get().is_some()
    })?;
    Ok(found.get())
}

fn exchange(
    path: &Path,
    settings: LineSettings,
    ask: &[u8],
    timeout: Duration,
    mut answered: impl FnMut(&mut BytesMut) -> bool,
) -> std::io::Result<bool> {
    let mut port = Port::open(path, settings, Duration::from_millis(50))?;
    if port.write_all(ask).is_err() {
        return Ok(false);
    }
    let end = Instant::now() + timeout;
    let mut buf = BytesMut::new();
    let mut chunk = [0u8; 256];
    while Instant::now() < end {
        match port.read(&mut chunk) {
            Ok(0) => return Ok(false),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                let mut copy = buf.clone();
                if answered(&mut copy) {
                    return Ok(true);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return Ok(false),
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_that_cannot_be_opened_is_reported_as_such_not_as_no_answer() {
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let report = PortReport {
            path: "/dev/ttyUSB0".into(),
            kind: "usb",
            usb: None,
            board: None,
            probed: None,
            probe_error: Some(open_error(&denied)),
            stable_names: Vec::new(),
        };
        let line = report.to_string();
        assert!(
            line.contains("cannot open: permission denied") && line.contains("dialout"),
            "{line}"
        );
        // A path that is no port at all fails to open too, and says why.
        let gone = try_probe(Path::new("/nonexistent/ttyUSB9"), Duration::from_millis(10));
        assert!(gone.is_err(), "{gone:?}");
    }

    #[test]
    fn stable_names_are_the_links_to_the_device() {
        let root = std::env::temp_dir().join(format!("bugbridge-ports-{}", std::process::id()));
        let (by_id, by_path) = (root.join("by-id"), root.join("by-path"));
        std::fs::create_dir_all(&by_id).unwrap();
        std::fs::create_dir_all(&by_path).unwrap();
        let device = root.join("ttyUSB0");
        let other = root.join("ttyUSB1");
        std::fs::write(&device, b"").unwrap();
        std::fs::write(&other, b"").unwrap();
        let id = by_id.join("usb-DGT_Board_A1B2-if00-port0");
        let path = by_path.join("platform-xhci-usb-0:1:1.0-port0");
        std::os::unix::fs::symlink(&device, &id).unwrap();
        std::os::unix::fs::symlink(&device, &path).unwrap();
        std::os::unix::fs::symlink(&other, by_path.join("platform-xhci-usb-0:2:1.0-port0"))
            .unwrap();
        let names = stable_names_in(&[&by_id, &by_path], &device);
        assert_eq!(names, vec![id.clone(), path.clone()]);
        let report = PortReport {
            path: device.display().to_string(),
            kind: "usb",
            usb: None,
            board: None,
            probed: None,
            probe_error: None,
            stable_names: names,
        };
        let line = report.to_string();
        assert!(
            line.ends_with(&format!("{} {}", id.display(), path.display())),
            "{line}"
        );
        assert_eq!(
            line.split('\t').count(),
            PORTS_HEADER.split('\t').count(),
            "one field per header column: {line}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
