//! The DGT EEPROM log parser on arbitrary bytes: no panic, and whatever parses re-encodes to
//! a stream that parses to the same entries.
#![no_main]

use bugbridge_drivers::dgt::eeprom::{self, tag};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Short inputs as they come; long ones also padded to a full (wrapped) ring.
    let mut ring = data.to_vec();
    ring.resize(eeprom::RING_SIZE, tag::NOP);
    if let Some(last) = ring.last_mut() {
        *last = tag::EOF;
    }
    for payload in [data, &ring[..]] {
        let Ok(log) = eeprom::parse(payload) else {
            continue;
        };
        assert!(log.skipped <= payload.len());
        let mut again = Vec::new();
        for e in &log.entries {
            e.encode(&mut again);
        }
        again.push(tag::EOF);
        if again.len() < eeprom::RING_SIZE {
            let back = eeprom::parse(&again).expect("re-encoded entries parse");
            assert_eq!(back.entries, log.entries);
        }
    }
});
