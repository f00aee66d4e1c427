//! Any bytes as BPGN: reading never panics; what reads is replayed, written and read again.
#![no_main]

use bugbridge::rules::Ruleset;
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay, write_bpgn};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(games) = parse_bpgn(&text) else {
        return;
    };
    for game in games.iter().take(4) {
        let _ = game.team_result();
        let _ = replay(game, Ruleset::default());
        // The writer's text reads back (clock values beyond milliseconds are rounded, so
        // only the shape is compared).
        let written = write_bpgn(game);
        let again = parse_bpgn(&written).expect("written BPGN reads back");
        assert_eq!(again.len(), 1, "{written}");
        assert_eq!(again[0].moves.len(), game.moves.len(), "{written}");
        assert_eq!(again[0].result, game.result, "{written}");
    }
});
