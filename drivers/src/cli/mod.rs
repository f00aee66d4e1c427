//! Library entry points behind the `bugbridge listen`, `ports` and `emulate` subcommands.

mod emulate;
mod listen;
mod ports;

pub use emulate::{EmulateOptions, emulate_file, read_trace_file};
pub use listen::listen;
pub use ports::{
    PORTS_HEADER, PortReport, known_usb_board, ports, probe, probe_certabo, stable_names, try_probe,
};
