//! The only file that touches `serialport`: opening ports, finding them by USB serial
//! number, listing them, and creating pseudo-terminal pairs for the emulators.
//!
//! Ports are opened exclusively (`TIOCEXCL` + `flock`, as asyncdgt does) and released with
//! `TIOCNXCL` when closed cleanly, so a reconnect to the same tty is not refused with EBUSY.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serialport::{SerialPort, SerialPortType, TTYPort};

/// Line settings of a board link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSettings {
    /// Baud rate.
    pub baud: u32,
}

impl LineSettings {
    /// DGT: 9600 baud 8N1.
    pub const DGT: LineSettings = LineSettings { baud: 9600 };
    /// Millennium: 38400 baud, run as 8N1 with parity handled in software (python-mchess).
    pub const MILLENNIUM: LineSettings = LineSettings { baud: 38400 };
    /// Certabo and TabuTronic boards: 38400 baud 8N1.
    pub const CERTABO: LineSettings = LineSettings { baud: 38400 };
}

/// An open serial port (or pty side) with a read timeout.
#[derive(Debug)]
pub struct Port {
    inner: TTYPort,
}

impl Port {
    /// Opens `path` with `settings`, exclusive, reads timing out after `timeout`.
    ///
    /// # Errors
    /// The OS error (no such device, busy, permission).
    pub fn open(path: &Path, settings: LineSettings, timeout: Duration) -> io::Result<Port> {
        let inner = serialport::new(path.to_string_lossy(), settings.baud)
            .data_bits(serialport::DataBits::Eight)
            .parity(serialport::Parity::None)
            .stop_bits(serialport::StopBits::One)
            .flow_control(serialport::FlowControl::None)
            .timeout(timeout)
            .open_native()
            .map_err(io::Error::from)?;
        Ok(Port { inner })
    }

    /// The device path, if known.
    #[must_use]
    pub fn name(&self) -> Option<String> {
        self.inner.name()
    }

    /// A second handle on the same port (e.g. one thread reads, another writes).
    ///
    /// # Errors
    /// The OS error.
    pub fn try_clone(&self) -> io::Result<Port> {
        Ok(Port {
            inner: self.inner.try_clone_native().map_err(io::Error::from)?,
        })
    }

    /// Changes the read timeout.
    ///
    /// # Errors
    /// The OS error.
    pub fn set_timeout(&mut self, timeout: Duration) -> io::Result<()> {
        self.inner.set_timeout(timeout).map_err(io::Error::from)
    }
}

impl Read for Port {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

impl Write for Port {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        // tcdrain on a pty master can fail; the bytes are already queued.
        Ok(())
    }
}

impl Drop for Port {
    fn drop(&mut self) {
        // Release TIOCEXCL so the next open of the same tty is not refused.
        let _ = self.inner.set_exclusive(false);
    }
}

/// A pseudo-terminal pair: the master side (the emulated device's end) and the slave's path
/// (what a driver opens). The slave is kept open here too so the master never sees a hangup
/// while no driver is attached.
#[derive(Debug)]
pub struct PtyPair {
    /// The device's end.
    pub master: Port,
    /// Held open; dropping it (with the master) unplugs the device.
    pub slave_keepalive: Port,
    /// The slave's path, e.g. `/dev/pts/7`.
    pub slave_path: PathBuf,
}

/// Creates a pseudo-terminal pair with `serialport::TTYPort::pair()`.
///
/// # Errors
/// The OS error.
pub fn pty_pair(timeout: Duration) -> io::Result<PtyPair> {
    let (mut master, slave) = TTYPort::pair().map_err(io::Error::from)?;
    master.set_timeout(timeout).map_err(io::Error::from)?;
    let slave_path = slave
        .name()
        .map(PathBuf::from)
        .ok_or_else(|| io::Error::other("pty slave has no name"))?;
    Ok(PtyPair {
        master: Port { inner: master },
        slave_keepalive: Port { inner: slave },
        slave_path,
    })
}

/// USB facts of a port.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UsbInfo {
    /// Vendor id.
    pub vid: u16,
    /// Product id.
    pub pid: u16,
    /// iSerial string, when the device has one.
    pub serial: Option<String>,
    /// Manufacturer string.
    pub manufacturer: Option<String>,
    /// Product string.
    pub product: Option<String>,
}

/// A serial port present on the system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortInfo {
    /// Device path.
    pub path: String,
    /// USB facts, for USB ports.
    pub usb: Option<UsbInfo>,
    /// "usb", "bluetooth", "pci" or "unknown".
    pub kind: &'static str,
}

/// The serial ports present (without libudev: from `/sys/class/tty`).
#[must_use]
pub fn list_ports() -> Vec<PortInfo> {
    let ports = serialport::available_ports().unwrap_or_default();
    ports
        .into_iter()
        .map(|p| {
            let (usb, kind) = match p.port_type {
                SerialPortType::UsbPort(u) => (
                    Some(UsbInfo {
                        vid: u.vid,
                        pid: u.pid,
                        serial: u.serial_number,
                        manufacturer: u.manufacturer,
                        product: u.product,
                    }),
                    "usb",
                ),
                SerialPortType::BluetoothPort => (None, "bluetooth"),
                SerialPortType::PciPort => (None, "pci"),
                SerialPortType::Unknown => (None, "unknown"),
            };
            PortInfo {
                path: p.port_name,
                usb,
                kind,
            }
        })
        .collect()
}

/// The path of the USB serial port whose iSerial is `serial`.
#[must_use]
pub fn find_by_usb_serial(serial: &str) -> Option<PathBuf> {
    list_ports()
        .into_iter()
        .find(|p| p.usb.as_ref().and_then(|u| u.serial.as_deref()) == Some(serial))
        .map(|p| PathBuf::from(p.path))
}
