//! Millennium decoders on arbitrary bytes: no panic, and decoded frames round-trip.
#![no_main]

use bugbridge_drivers::millennium::{CommandDecoder, ParityMode, ReplyDecoder};
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&split, data)) = data.split_first() else { return };
    let chunk = usize::from(split % 64) + 1;
    for parity in [ParityMode::Odd, ParityMode::Ignore, ParityMode::Auto] {
        let mut d = ReplyDecoder::new(parity);
        let mut buf = BytesMut::new();
        for part in data.chunks(chunk) {
            buf.extend_from_slice(part);
            while let Some(r) = d.next_reply(&mut buf) {
                let mut again = BytesMut::from(&r.to_bytes()[..]);
                assert_eq!(ReplyDecoder::new(ParityMode::Odd).next_reply(&mut again), Some(r));
            }
        }
        let mut c = CommandDecoder::new(parity);
        let mut buf = BytesMut::from(data);
        while let Some(cmd) = c.next_command(&mut buf) {
            let mut again = BytesMut::from(&cmd.to_bytes()[..]);
            assert_eq!(CommandDecoder::new(ParityMode::Odd).next_command(&mut again), Some(cmd));
        }
    }
});
