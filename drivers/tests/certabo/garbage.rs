//! Hostile byte streams through the Certabo and Sentio decoders, deterministically (a seeded
//! generator, streams cut at random points): random bytes, runs of digits, numbers above 255,
//! readings of every wrong length, stray `:`s, line ends and acknowledgements, readings cut
//! short. The decoders never panic, hold at most one reading's numbers, decode the same
//! messages whatever the cuts, and a valid reading sent after the garbage is decoded.

use bugbridge_drivers::certabo::{Expect, FrameDecoder, Message, RankBits, TagId, TagReading};
use bugbridge_drivers::sentio;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn byte(&mut self) -> u8 {
        (self.next() >> 56) as u8
    }
}

fn certabo_reading(rng: &mut Rng) -> Message {
    let mut ids = [TagId::NONE; 64];
    for id in &mut ids {
        for b in &mut id.0 {
            *b = rng.byte();
        }
    }
    Message::Tags(Box::new(TagReading(ids)))
}

fn sentio_reading(rng: &mut Rng) -> Message {
    let mut ranks = [0u8; 8];
    for r in &mut ranks {
        *r = rng.byte();
    }
    Message::Ranks(RankBits(ranks))
}

/// `n` decimal numbers below `max`, separated by spaces.
fn numbers(rng: &mut Rng, n: usize, max: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        if i > 0 {
            out.push(b' ');
        }
        out.extend((rng.next() % max).to_string().bytes());
    }
    out
}

/// One hostile piece of a stream.
fn segment(rng: &mut Rng) -> Vec<u8> {
    match rng.below(12) {
        0 => (0..rng.below(300)).map(|_| rng.byte()).collect(),
        1 => (0..rng.below(2000))
            .map(|_| b'0' + rng.byte() % 10)
            .collect(),
        2 => {
            // A reading of a wrong length, maybe far too long.
            let n = [7, 9, 319, 321, 640, rng.below(1000)][rng.below(6)];
            let mut v = vec![b':'];
            v.extend(numbers(rng, n, 256));
            v.extend(b"\r\n");
            v
        }
        3 => {
            // Numbers above a byte.
            let mut v = vec![b':'];
            let n = 1 + rng.below(320);
            v.extend(numbers(rng, n, 100_000));
            v.extend(b"\r\n");
            v
        }
        4 => (0..rng.below(50))
            .map(|_| b":\r\n LD "[rng.below(7)])
            .collect(),
        5 => {
            // A valid reading cut short.
            let m = if rng.below(2) == 0 {
                certabo_reading(rng)
            } else {
                sentio_reading(rng)
            };
            let bytes = m.to_bytes();
            bytes[..rng.below(bytes.len())].to_vec()
        }
        6 => {
            // A reading broken by a stray byte.
            let mut bytes = certabo_reading(rng).to_bytes();
            let at = rng.below(bytes.len());
            bytes[at] = b"X:\x00\xff-"[rng.below(5)];
            bytes
        }
        7 => certabo_reading(rng).to_bytes(),
        8 => sentio_reading(rng).to_bytes(),
        9 => (0..rng.below(400))
            .map(|_| [b' ', b'\n', b'\r', b'0', b'9'][rng.below(5)])
            .collect(),
        10 => b"L\r\nD\r\nL".to_vec(),
        _ => vec![0xff; rng.below(5000)],
    }
}

/// Feeds `bytes` cut at random points; checks the numbers held after every piece.
fn decode_cut(expect: Expect, bytes: &[u8], rng: &mut Rng) -> Vec<Message> {
    let mut d = FrameDecoder::new(expect);
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = 1 + rng.below(rest.len().min(700));
        let (part, more) = rest.split_at(n);
        d.feed(part, &mut out);
        assert!(d.held() <= 320, "{} numbers held", d.held());
        rest = more;
    }
    out
}

#[test]
fn hostile_streams_never_panic_stay_bounded_and_a_valid_reading_after_them_is_decoded() {
    let mut rng = Rng(0x6a7b_a9e5_1234_5678);
    let mut decoded = [0usize; 3];
    for stream in 0..600 {
        let mut garbage = Vec::new();
        for _ in 0..1 + rng.below(8) {
            garbage.extend(segment(&mut rng));
        }
        for (k, expect) in [Expect::Detect, Expect::Tags, Expect::Ranks]
            .into_iter()
            .enumerate()
        {
            let whole = FrameDecoder::new(expect).decode(&garbage);
            let cut = decode_cut(expect, &garbage, &mut rng);
            assert_eq!(
                cut, whole,
                "stream {stream}: the cuts changed what was read"
            );
            decoded[k] += whole.len();
            for m in &whole {
                if let Message::Ranks(bits) = m {
                    assert_eq!(sentio::rank_bits(sentio::occupancy(*bits)), *bits);
                }
            }
            // A valid reading after the garbage, of the kind this decoder takes. A
            // detecting decoder sticks to the first kind it completes (a reading the
            // garbage left without its line end is completed by what comes next): there
            // the garbage is ended by a line end, and the reading is of the kind chosen.
            let mut stream_bytes = garbage.clone();
            let sentio_next = match expect {
                Expect::Ranks => true,
                Expect::Tags => false,
                Expect::Detect => {
                    stream_bytes.extend(b"\r\n");
                    let mut d = FrameDecoder::new(expect);
                    let _ = d.decode(&stream_bytes);
                    d.expect() == Expect::Ranks
                }
            };
            let valid = if sentio_next {
                sentio_reading(&mut rng)
            } else {
                certabo_reading(&mut rng)
            };
            stream_bytes.extend(valid.to_bytes());
            let got = decode_cut(expect, &stream_bytes, &mut rng);
            assert_eq!(
                got.last(),
                Some(&valid),
                "stream {stream} ({expect:?}): the reading after the garbage was not decoded; garbage ends {:?}",
                String::from_utf8_lossy(&garbage[garbage.len().saturating_sub(120)..])
            );
        }
    }
    // The streams held readings that were decoded too: the test is not all rejections.
    assert!(decoded.iter().all(|&n| n > 100), "{decoded:?}");
}
