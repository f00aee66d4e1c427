//! The trace reader on arbitrary bytes: no panic; every line it accepts is written back in
//! a form it accepts again, with the same event kind and time.
#![no_main]

use bugbridge_drivers::trace::{TraceReader, line_to_string, parse_line};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for line in TraceReader::new(data).flatten() {
        let text = line_to_string(&line);
        let first = matches!(line.event, bugbridge_drivers::trace::TraceEvent::Meta { .. });
        let again = parse_line(&text, first).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(again.t, line.t);
        assert_eq!(again.event.kind(), line.event.kind());
    }
});
