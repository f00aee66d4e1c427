//! Any bytes as BFEN: reading never panics; what reads writes back to a text that reads to
//! the same thing.
#![no_main]

use bugbridge::rules::notation::bfen::{parse_bfen, write_bfen};
use bugbridge::rules::{ByBoard, Ruleset};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let rules = Ruleset::default();
    let Ok(both) = parse_bfen(&text, rules) else {
        return;
    };
    let written = write_bfen(
        ByBoard {
            a: &both.a.position,
            b: &both.b.position,
        },
        ByBoard {
            a: both.a.times,
            b: both.b.times,
        },
    );
    let again = parse_bfen(&written, rules).expect("written BFEN reads back");
    let rewritten = write_bfen(
        ByBoard {
            a: &again.a.position,
            b: &again.b.position,
        },
        ByBoard {
            a: again.a.times,
            b: again.b.times,
        },
    );
    assert_eq!(written, rewritten);
    for b in [&again.a.position, &again.b.position] {
        let _ = b.legal_moves();
        let _ = b.is_checkmate();
    }
});
