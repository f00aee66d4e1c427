//! Library entry points behind the `bugbridge listen`, `ports`, `emulate` and `calibrate`
//! subcommands.

mod calibrate;
mod emulate;
mod listen;
mod ports;

pub use calibrate::{SurveyLimits, survey_start_position};
pub use emulate::{EmulateOptions, emulate_file, read_trace_file};
pub use listen::listen;
pub use ports::{
    PORTS_HEADER, PortReport, known_usb_board, ports, probe, probe_certabo, stable_names, try_probe,
};
