//! Any bytes as SAN: reading never panics; what reads writes back to itself and is
//! resolved on a few positions (legal, physical fallback, out of turn), and a resolved
//! move is classified, written and played.
#![no_main]

use std::sync::OnceLock;

use bugbridge::rules::notation::bfen::parse_board_fen;
use bugbridge::rules::notation::{San, san_string};
use bugbridge::rules::{Color, Position, Ruleset};
use libfuzzer_sys::fuzz_target;

const FENS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/pPpp1ppp/8/3Pp3/8/8/P1PP1PpP/R3K2R/QRBNPqrbnp w KQkq e6 0 1",
    "4k3/8/8/7N/8/6p1/8/4KN1r w - - 0 1",
    "6k1/5ppp/8/8/8/8/8/R3K3/Q b - - 0 1",
    "8/8/8/8/8/8/8/8/QqNn w - - 0 1",
    "1k6/1P6/8/8/8/8/6p1/4K2R/Pp b K - 0 1",
];

fn positions() -> &'static [Position] {
    static P: OnceLock<Vec<Position>> = OnceLock::new();
    P.get_or_init(|| {
        FENS.iter()
            .map(|f| {
                parse_board_fen(f, Ruleset::default())
                    .expect("fuzz seed FEN")
                    .position
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(san) = text.parse::<San>() else {
        return;
    };
    let written = san.to_string();
    assert_eq!(
        written.parse::<San>().ok(),
        Some(san),
        "{text:?} -> {written:?}"
    );
    for p in positions() {
        let resolved = [
            san.to_move(p),
            san.to_move_for(p, Color::White),
            san.to_move_for(p, Color::Black),
        ];
        for m in resolved.into_iter().flatten() {
            let _ = p.classify(&m);
            let _ = san_string(p, &m);
            let mut after = p.clone();
            after.play(&m);
            let _ = after.is_checkmate();
        }
    }
});
