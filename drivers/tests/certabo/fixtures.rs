//! Every frame of `shared/data/certabo/frames` gives what its test asserts
//! (the table of fixtures.md in shared/data/certabo).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use bugbridge_drivers::certabo::{
    Calibration, CalibrationError, Calibrator, Expect, FrameDecoder, LedAck, Message, SquareFilter,
    TagId, TagReading, index_to_square,
};
use bugbridge_drivers::error::DecodeError;
use bugbridge_drivers::sentio;
use bugbridge_drivers::trace::{Placement, SensorPiece, Square};

fn shared() -> PathBuf {
    std::env::var_os("BUGBRIDGE_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    )
}

fn frames_dir() -> PathBuf {
    let dir = shared().join("data/certabo/frames");
    assert!(
        dir.join("INDEX.tsv").is_file(),
        "the Certabo fixtures are needed at {} or in $BUGBRIDGE_SHARED",
        dir.display()
    );
    dir
}

/// Reads fixtures and remembers which were read.
struct Frames {
    dir: PathBuf,
    used: BTreeSet<String>,
}

impl Frames {
    fn new() -> Self {
        Frames {
            dir: frames_dir(),
            used: BTreeSet::new(),
        }
    }

    fn read(&mut self, name: &str) -> Vec<u8> {
        self.used.insert(name.to_string());
        let path = self.dir.join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// `name.1.raw` … `name.n.raw`.
    fn reads(&mut self, name: &str, n: usize) -> Vec<Vec<u8>> {
        (1..=n)
            .map(|i| self.read(&format!("{name}.{i}.raw")))
            .collect()
    }

    fn all(&self) -> BTreeSet<String> {
        let mut all = BTreeSet::new();
        for sub in ["picochess", "cer2nut"] {
            for e in std::fs::read_dir(self.dir.join(sub)).expect("frames folder") {
                let e = e.expect("entry");
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".raw") {
                    all.insert(format!("{sub}/{name}"));
                }
            }
        }
        all
    }
}

fn decode(bytes: &[u8]) -> (Vec<Message>, FrameDecoder) {
    let mut d = FrameDecoder::default();
    let out = d.decode(bytes);
    (out, d)
}

fn tags(msgs: &[Message]) -> Vec<&TagReading> {
    msgs.iter()
        .filter_map(|m| match m {
            Message::Tags(t) => Some(&**t),
            _ => None,
        })
        .collect()
}

fn acks(msgs: &[Message]) -> Vec<LedAck> {
    msgs.iter()
        .filter_map(|m| match m {
            Message::Ack(a) => Some(*a),
            _ => None,
        })
        .collect()
}

fn occupancy_a8_first(msgs: &[Message]) -> Vec<String> {
    msgs.iter()
        .filter_map(|m| match m {
            Message::Ranks(r) => Some(*r),
            _ => None,
        })
        .map(|r| {
            let occ = sentio::occupancy(r);
            (0..64)
                .map(|i| {
                    if occ.get(index_to_square(i).expect("square")) {
                        '1'
                    } else {
                        '0'
                    }
                })
                .collect()
        })
        .collect()
}

fn h1(r: &TagReading) -> TagId {
    r.0[63]
}

fn id(s: &str) -> TagId {
    TagId::parse(s).expect("tag id")
}

const ALL_OCCUPIED: &str = "1111111111111111000000000000000000000000000000001111111111111111";
const H1_EMPTY: &str = "1111111111111111000000000000000000000000000000001111111111111110";

/// A Certabo reading with one piece recognised: exactly one board, Certabo from then on.
fn one_board(f: &mut Frames, name: &str) -> TagReading {
    let (msgs, d) = decode(&f.read(name));
    let boards = tags(&msgs);
    assert_eq!(boards.len(), 1, "{name}: exactly one board");
    assert_eq!(d.expect(), Expect::Tags, "{name}: piece recognition");
    boards[0].clone()
}

fn parser_fixtures(f: &mut Frames) {
    for (pico, cer) in [
        (
            "picochess/TestParser.test_certabo_has_piece_recognition.raw",
            "cer2nut/CertaboParserTest.hasPieceRecognitionAndTranslateAreCalledOnce.raw",
        ),
        (
            "picochess/TestParser.test_parse_position.raw",
            "picochess/TestParser.test_parse_position.raw",
        ),
    ] {
        one_board(f, pico);
        one_board(f, cer);
    }
    // Junk before the ':' is dropped, named, and the reading still decodes.
    for name in [
        "picochess/TestParser.test_parse_position_with_junk_in_front.raw",
        "cer2nut/CertaboParserTest.parsePositionWithJunkInFront.raw",
    ] {
        let (msgs, d) = decode(&f.read(name));
        let boards = tags(&msgs);
        assert_eq!(boards.len(), 1, "{name}");
        assert_eq!(h1(boards[0]), id("3 0 84 252 15"), "{name}: h1");
        assert_eq!(d.stats().dropped_bytes(), 18, "{name}: the 18 x");
        assert_eq!(
            d.stats().last_error(),
            Some(&DecodeError::NotAFrameStart(b'x'))
        );
        assert_eq!(
            d.stats().last_error().map(ToString::to_string).as_deref(),
            Some("byte 0x78 ('x') before a reading's ':'")
        );
    }
    // A corrupted number: no board, and the error names the byte.
    for (name, byte) in [
        ("picochess/TestParser.test_parse_invalid.raw", b'X'),
        ("cer2nut/CertaboParserTest.parseInvalid.raw", b'X'),
    ] {
        let (msgs, d) = decode(&f.read(name));
        assert!(tags(&msgs).is_empty(), "{name}: no board");
        let mut seen = false;
        // The first error is the reading abandoned at the 'X'; later ones are what follows
        // it up to the next line start.
        let mut d2 = FrameDecoder::default();
        for &b in &f.read(name) {
            let _ = d2.decode(&[b]);
            if let Some(DecodeError::UnexpectedByte { byte: got, .. }) = d2.stats().last_error() {
                assert_eq!(*got, byte, "{name}");
                let text = d2.stats().last_error().map(ToString::to_string);
                assert!(
                    text.as_deref().is_some_and(|t| t.contains("0x58 ('X')")),
                    "{name}: {text:?}"
                );
                seen = true;
                break;
            }
        }
        assert!(seen, "{name}: the garbage byte is named");
        assert!(d.stats().resyncs() >= 1);
    }
    // Split reads: nothing after read 1, the board and the L after read 2.
    for name in [
        "picochess/TestParser.test_parse_position_in_two_parts",
        "cer2nut/CertaboParserTest.parsePositionInTwoParts",
    ] {
        let parts = f.reads(name, 2);
        let mut d = FrameDecoder::default();
        assert!(
            d.decode(&parts[0]).is_empty(),
            "{name}: read 1 stays buffered"
        );
        let msgs = d.decode(&parts[1]);
        let boards = tags(&msgs);
        assert_eq!(boards.len(), 1, "{name}");
        assert_eq!(h1(boards[0]), id("3 0 84 252 170"), "{name}: 17 + 0");
        assert_eq!(acks(&msgs), vec![LedAck::Classic], "{name}");
        // The same bytes one at a time, and in 7-byte pieces, decode the same.
        for chunk in [1, 7, 64] {
            let mut d = FrameDecoder::default();
            let mut all = Vec::new();
            for c in parts.concat().chunks(chunk) {
                all.extend(d.decode(c));
            }
            assert_eq!(all, msgs, "{name} in {chunk}-byte reads");
        }
    }
    for name in [
        "picochess/TestParser.test_parse_two_different_positions_calls_translate_twice.raw",
        "cer2nut/CertaboParserTest.translateIsCalledTwiceForTwoDifferentPositions.raw",
    ] {
        let (msgs, _) = decode(&f.read(name));
        assert_eq!(tags(&msgs).len(), 2, "{name}: two boards");
        assert_eq!(acks(&msgs), vec![LedAck::Classic], "{name}");
        assert_ne!(tags(&msgs)[0], tags(&msgs)[1]);
    }
    // Sentio readings.
    for (name, occ, ack) in [
        (
            "picochess/TestParser.test_parse_position_tabutronic_sentio.raw",
            ALL_OCCUPIED,
            None,
        ),
        (
            "picochess/TestParser.test_tabutronic_sentio_has_no_piece_recognition.raw",
            ALL_OCCUPIED,
            None,
        ),
        (
            "cer2nut/CertaboParserTest.parsePositionTabutronic.raw",
            ALL_OCCUPIED,
            None,
        ),
        (
            "picochess/TestParser.test_parse_position_tabutronic_sentio_with_led_ack.raw",
            H1_EMPTY,
            Some(LedAck::Classic),
        ),
        (
            "cer2nut/CertaboParserTest.parsePositionTabutronicOnePieceMissing.raw",
            H1_EMPTY,
            Some(LedAck::Classic),
        ),
        (
            "cer2nut/CertaboParserTest.detectSingleColorLedBoard.raw",
            H1_EMPTY,
            Some(LedAck::Classic),
        ),
        (
            "cer2nut/CertaboParserTest.detectRgbLedBoard.raw",
            H1_EMPTY,
            Some(LedAck::Rgb),
        ),
    ] {
        let (msgs, d) = decode(&f.read(name));
        assert_eq!(occupancy_a8_first(&msgs), vec![occ.to_string()], "{name}");
        assert_eq!(acks(&msgs), ack.into_iter().collect::<Vec<_>>(), "{name}");
        assert_eq!(d.expect(), Expect::Ranks, "{name}: no piece recognition");
        assert!(tags(&msgs).is_empty());
        assert_eq!(d.stats().resyncs(), 0, "{name}: nothing dropped");
    }
}

fn calibrate(reads: &[Vec<u8>]) -> (Vec<bool>, Result<Calibration, CalibrationError>) {
    let mut d = FrameDecoder::default();
    let mut cal = Calibrator::new();
    let mut done = Vec::new();
    let mut last = Err(CalibrationError::TooFewReadings { have: 0 });
    for r in reads {
        let msgs = d.decode(r);
        let boards = tags(&msgs);
        assert_eq!(boards.len(), 1, "one reading per read");
        last = cal.add(boards[0]);
        done.push(last.is_ok());
    }
    (done, last)
}

fn calibration_fixtures(f: &mut Frames) -> Calibration {
    let (done, result) =
        calibrate(&f.reads("picochess/TestCalibrator.test_calibration_complete", 7));
    assert_eq!(
        done,
        [false, false, false, false, false, false, true],
        "complete after read 7"
    );
    let set1 = result.expect("set 1 calibrates");
    assert_eq!(set1.len(), 32);
    assert_eq!(set1.summary(), "K1 Q1 R2 B2 N2 P8 k1 q1 r2 b2 n2 p8");
    assert_eq!(
        set1.piece(id("3 0 84 252 15")),
        SensorPiece::from_ascii(b'R'),
        "h1 rook"
    );
    assert_eq!(
        set1.piece(id("3 0 84 252 170")),
        SensorPiece::from_ascii(b'P'),
        "d2 pawn"
    );
    let (done, result) =
        calibrate(&f.reads("picochess/TestCalibrator.test_calibration_incomplete", 7));
    assert!(done.iter().all(|d| !d), "never complete");
    assert_eq!(
        result,
        Err(CalibrationError::Unsettled(vec![
            Square::from_name("a8").expect("a8")
        ]))
    );
    for name in ["A", "B", "C", "D"] {
        let name = format!("cer2nut/CertaboCalibratorTest.calibrationComplete_{name}");
        let (done, result) = calibrate(&f.reads(&name, 8));
        // The peers stop calibrating once it settles: complete by the 8th read.
        assert!(done[7], "{name}: complete after the 8 reads: {result:?}");
        assert!(!done[..6].iter().any(|&d| d), "{name}: not before 7 reads");
        assert_eq!(result.expect("calibrated").len(), 32, "{name}");
    }
    let (done, result) =
        calibrate(&f.reads("cer2nut/CertaboCalibratorTest.calibrationIncomplete", 8));
    assert!(
        done.iter().all(|d| !d),
        "calibrationIncomplete never completes"
    );
    assert!(result.is_err());
    set1
}

fn fen(p: &Placement) -> String {
    p.to_string()
}

fn board_message_fixtures(f: &mut Frames, set1: &Calibration) {
    let initial = f.read("cer2nut/CertaboBoardMessageParserTest.INITIAL_POSITION.raw");
    let setup = f.read("cer2nut/CertaboBoardMessageParserTest.SetUp.boardData.raw");
    let data1 = f.read("picochess/TestCertaboBoardMessageParser._board_data.data1.raw");
    assert_eq!(initial, setup);
    // Fed 7 times, the start position calibrates set 2.
    let (done, result) = calibrate(&vec![setup; 7]);
    assert_eq!(done.last(), Some(&true));
    let set2 = result.expect("set 2");
    assert_eq!(set2.len(), 32);
    let reading = |bytes: &[u8]| tags(&decode(bytes).0)[0].clone();
    let placement = |bytes: &[u8]| set2.placement(&reading(bytes));
    let start = Placement::start();
    assert_eq!(placement(&initial), start, "parseInitialPosition");
    let h7_removed = f.read("cer2nut/CertaboBoardMessageParserTest.PAWN_H7_REMOVED.raw");
    let noise = f.read("cer2nut/CertaboBoardMessageParserTest.INITIAL_POSITION_WITH_NOISE.raw");
    let data2 = f.read("picochess/TestCertaboBoardMessageParser._board_data.data2.raw");
    let data3 = f.read("picochess/TestCertaboBoardMessageParser._board_data.data3.raw");
    assert_eq!((&data2, &data3), (&h7_removed, &noise));
    assert_eq!(
        fen(&placement(&h7_removed)),
        "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR"
    );
    assert_eq!(
        fen(&placement(&noise)),
        "rnb1k1n1/ppppppp1/8/8/8/8/P1PPPPP1/RNBQKBNR",
        "misread pieces vanish from that one reading"
    );
    // Filtered (two readings must agree), as picochess's low-gain test: the start, then h7
    // gone; the misread pieces of the third reading never show.
    let run = |agree: u32| {
        let mut filter = SquareFilter::new(agree);
        let mut shown: Vec<String> = Vec::new();
        for bytes in [&data1, &data2, &data3] {
            let p = placement(bytes);
            let mut arr = [None; 64];
            for sq in Square::all() {
                arr[usize::from(sq.index())] = p.get(sq);
            }
            let out = filter.update(&arr);
            let mut q = Placement::empty();
            for sq in Square::all() {
                q.set(sq, out[usize::from(sq.index())]);
            }
            let s = fen(&q);
            if shown.last() != Some(&s) {
                shown.push(s);
            }
        }
        shown
    };
    assert_eq!(
        run(2),
        [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR"
        ]
    );
    // Unfiltered, as the high-gain test: every reading as it is.
    assert_eq!(
        run(1),
        [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "rnb1k1n1/ppppppp1/8/8/8/8/P1PPPPP1/RNBQKBNR"
        ]
    );
    // A bughouse table: both sets on both boards; the two sets share no tag.
    let mut table = set1.clone();
    table.merge(&set2).expect("disjoint sets");
    assert_eq!(table.len(), 64);
    assert_eq!(Calibration::from_json(&table.to_json()), Ok(table.clone()));
    // Set 2's start position is read the same with the table's calibration.
    assert_eq!(table.placement(&reading(&initial)), start);
}

#[test]
fn every_frame_gives_what_its_test_asserts() {
    let mut f = Frames::new();
    parser_fixtures(&mut f);
    let set1 = calibration_fixtures(&mut f);
    board_message_fixtures(&mut f, &set1);
    let missing: Vec<String> = f.all().difference(&f.used).cloned().collect();
    assert!(missing.is_empty(), "fixtures not checked: {missing:?}");
}
