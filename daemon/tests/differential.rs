//! Differential test against shakmaty's crazyhouse: one bughouse board generates exactly
//! crazyhouse's moves, so on positions reached by random play the legal-move sets must be
//! identical. (Where the two games differ — where captures go, what mate means, no
//! stalemate — the rules core has its own tests.)

use std::collections::BTreeSet;

use bugbridge::rules::notation::parse_board_fen;
use bugbridge::rules::{Position, Ruleset};
use shakmaty::fen::Fen;
use shakmaty::variant::Crazyhouse;
use shakmaty::{CastlingMode, EnPassantMode, Position as _};

/// A small deterministic generator (SplitMix64), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn ours_from(theirs: &Crazyhouse) -> Position {
    let fen = Fen::from_position(theirs, EnPassantMode::Legal).to_string();
    parse_board_fen(&fen, Ruleset::default())
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .position
}

fn uci_set_theirs(pos: &Crazyhouse) -> BTreeSet<String> {
    pos.legal_moves()
        .iter()
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        .collect()
}

fn uci_set_ours(pos: &Position) -> BTreeSet<String> {
    pos.legal_moves().iter().map(|m| m.uci()).collect()
}

#[test]
fn legal_moves_equal_shakmaty_crazyhouse_on_10000_random_positions() {
    let mut rng = Rng(0xb16b_0d9e);
    let mut compared = 0;
    let mut with_drops = 0;
    let mut in_check = 0;
    while compared < 10_000 {
        let mut theirs = Crazyhouse::default();
        for _ply in 0..120 {
            let ours = ours_from(&theirs);
            let (a, b) = (uci_set_ours(&ours), uci_set_theirs(&theirs));
            let fen = Fen::from_position(&theirs, EnPassantMode::Legal).to_string();
            assert_eq!(a, b, "legal moves differ in {fen}");
            assert_eq!(ours.is_check(), theirs.is_check(), "check differs in {fen}");
            compared += 1;
            with_drops += usize::from(a.iter().any(|m| m.contains('@')));
            in_check += usize::from(ours.is_check());
            let moves = theirs.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Prefer captures and drops now and then, so holdings fill up.
            let m = moves[rng.below(moves.len())];
            // Play the same move on our side and compare the result (crazyhouse keeps the
            // capture in the capturer's holdings; the bughouse game would pass it on).
            let uci = m.to_uci(CastlingMode::Standard).to_string();
            let ours_move = ours
                .legal_moves()
                .into_iter()
                .find(|x| x.uci() == uci)
                .expect("the move exists on our side");
            let mut after = ours.clone();
            let mover = after.turn();
            if let Some(c) = after.play(&ours_move).captured {
                after.pockets_mut()[mover].add(c.handoff_role());
            }
            theirs.play_unchecked(m);
            let expected = ours_from(&theirs);
            assert_eq!(
                (
                    after.board(),
                    after.pockets(),
                    after.promoted(),
                    after.turn()
                ),
                (
                    expected.board(),
                    expected.pockets(),
                    expected.promoted(),
                    expected.turn()
                ),
                "{fen} after {uci}"
            );
            assert_eq!(
                after.capturable_ep_square(),
                expected.capturable_ep_square()
            );
            assert_eq!(
                after.castling_rights(),
                expected.castling_rights(),
                "{fen} after {uci}"
            );
        }
    }
    assert!(
        with_drops > 2_000,
        "too few positions with drops: {with_drops}"
    );
    assert!(in_check > 200, "too few positions in check: {in_check}");
}
