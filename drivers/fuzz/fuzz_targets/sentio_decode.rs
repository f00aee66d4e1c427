//! Sentio readings on arbitrary bytes: no panic, the same occupancy snapshots whatever the
//! read sizes, and every snapshot decoded turns back into the bytes it came from.
#![no_main]

use bugbridge_drivers::certabo::{Expect, FrameDecoder, Message};
use bugbridge_drivers::sentio;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&split, data)) = data.split_first() else { return };
    let chunk = usize::from(split % 32) + 1;
    let whole = FrameDecoder::new(Expect::Ranks).decode(data);
    let mut d = FrameDecoder::new(Expect::Ranks);
    let mut parts = Vec::new();
    for part in data.chunks(chunk) {
        parts.extend(d.decode(part));
    }
    assert_eq!(parts, whole);
    for m in whole {
        match m {
            Message::Ranks(bits) => assert_eq!(sentio::rank_bits(sentio::occupancy(bits)), bits),
            Message::Ack(_) => {}
            Message::Tags(_) => panic!("a Sentio decoder took a Certabo reading"),
        }
    }
});
