//! Why a board cannot be used, in words the person at the table can act on: the OS error
//! of opening the port, or the silence of a device that speaks another protocol, each with
//! the usual fix.

use std::io;

use super::{DriverKind, PortSpec};
use crate::error::SessionError;

/// The port as the user wrote it: the path, or the USB serial number.
#[must_use]
pub fn port_name(port: &PortSpec) -> String {
    match port {
        PortSpec::Path(p) => p.display().to_string(),
        PortSpec::UsbSerial(s) => format!("usb serial {s:?}"),
    }
}

/// What to do about `err` on a `driver` board, or `None` when there is nothing better to say
/// than the error itself.
#[must_use]
pub fn advice(driver: DriverKind, err: &SessionError) -> Option<String> {
    match err {
        SessionError::Transport(e) => io_advice(e),
        SessionError::Timeout(_) => Some(match driver {
            DriverKind::Dgt => "no DGT board answered on this port: is it a Millennium board \
                                (driver millennium)? Is the board switched on?"
                .to_owned(),
            DriverKind::Millennium => "no Millennium board answered on this port: is it a DGT \
                                       board (driver dgt)? Is the board switched on?"
                .to_owned(),
            DriverKind::Certabo | DriverKind::Sentio => "the board sent no reading: is it \
                                                         switched on, and a Certabo or \
                                                         TabuTronic board (38400 baud)?"
                .to_owned(),
        }),
        SessionError::Decode(_) => None,
    }
}

fn io_advice(e: &io::Error) -> Option<String> {
    let text = e.to_string().to_lowercase();
    if text.contains("busy") {
        return Some(
            "the port is in use by another program (another bugbridge, a chess GUI, \
             ModemManager): close it"
                .to_owned(),
        );
    }
    match e.kind() {
        io::ErrorKind::NotFound => Some(
            "no such device: is the board plugged in, and is this its path? \
             `bugbridge ports` lists the serial ports present"
                .to_owned(),
        ),
        io::ErrorKind::PermissionDenied => Some(
            "permission denied: add this user to the dialout group with \
             `sudo usermod -aG dialout $USER`, then log out and in again"
                .to_owned(),
        ),
        _ if text.contains("inappropriate ioctl") || text.contains("not a typewriter") => Some(
            "this path is not a serial port: `bugbridge ports` lists the serial ports present"
                .to_owned(),
        ),
        _ => None,
    }
}

/// One line: `<port>: <error>` and the advice, if any.
#[must_use]
pub fn explain(driver: DriverKind, port: &PortSpec, err: &SessionError) -> String {
    let mut line = format!("{}: {err}", port_name(port));
    if let Some(a) = advice(driver, err) {
        line.push_str(" — ");
        line.push_str(&a);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_usual_failure_gets_its_fix() {
        let port = PortSpec::Path("/dev/ttyUSB7".into());
        let io = |kind, msg: &str| SessionError::Transport(io::Error::new(kind, msg.to_owned()));
        let missing = explain(
            DriverKind::Dgt,
            &port,
            &io(io::ErrorKind::NotFound, "No such file"),
        );
        assert!(missing.starts_with("/dev/ttyUSB7: "), "{missing}");
        assert!(missing.contains("plugged in"), "{missing}");
        let denied = explain(
            DriverKind::Dgt,
            &port,
            &io(io::ErrorKind::PermissionDenied, "Permission denied"),
        );
        assert!(
            denied.contains("sudo usermod -aG dialout $USER"),
            "{denied}"
        );
        let silent = explain(
            DriverKind::Dgt,
            &port,
            &SessionError::Timeout("no board dump"),
        );
        assert!(silent.contains("is it a Millennium board"), "{silent}");
        let busy = explain(
            DriverKind::Millennium,
            &port,
            &io(io::ErrorKind::NotFound, "Device or resource busy"),
        );
        assert!(busy.contains("in use by another program"), "{busy}");
    }
}
