//! Certabo/Sentio decoder on arbitrary bytes: no panic, the same messages whatever the read
//! sizes, decoded messages round-trip, and the LED command reader never panics.
#![no_main]

use bugbridge_drivers::certabo::{Expect, FrameDecoder, led};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&split, data)) = data.split_first() else { return };
    let chunk = usize::from(split % 64) + 1;
    for expect in [Expect::Detect, Expect::Tags, Expect::Ranks] {
        let whole = FrameDecoder::new(expect).decode(data);
        let mut d = FrameDecoder::new(expect);
        let mut parts = Vec::new();
        for part in data.chunks(chunk) {
            parts.extend(d.decode(part));
        }
        assert_eq!(parts, whole);
        for m in whole {
            assert_eq!(FrameDecoder::new(Expect::Detect).decode(&m.to_bytes()), vec![m]);
        }
    }
    let (_, used) = led::parse_commands(data);
    assert!(used <= data.len());
});
