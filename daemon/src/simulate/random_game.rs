//! Random legal bughouse games made with the rules core: both boards played at once, moves
//! interleaved in the order of their presses, plausible whole-second clock readings, with
//! a bias towards captures, drops and promotions so that every mechanism gets exercised.
//! Under Koedem's rules the kings are captured and dropped like other pieces, and a
//! promotion grabs a piece from the other board.

use crate::rules::{BoardId, BughouseGame, ByBoard, ByColor, Move, MoveList, Rank, Role, Ruleset};

use super::rng::Rng;
use super::{SimGame, SimMove};

/// A random game of at most `max_plies` moves (both boards together), 5 minutes a side.
#[must_use]
pub fn random_game(seed: u64, max_plies: usize, rules: Ruleset) -> SimGame {
    let mut rng = Rng::new(seed ^ 0x5EED_0000_0000_0001);
    let start = BughouseGame::new(rules);
    let mut game = start.clone();
    let base_ms: u64 = 300_000;
    let mut remaining: ByBoard<ByColor<u64>> = ByBoard::new_with(|_| ByColor {
        white: base_ms,
        black: base_ms,
    });
    let mut last_press: ByBoard<u64> = ByBoard::default();
    let mut next_at: ByBoard<u64> = ByBoard::new_with(|_| 0);
    for b in BoardId::ALL {
        next_at[b] = think(&mut rng);
    }
    let mut moves = Vec::new();
    let mut scratch = MoveList::with_capacity(256);
    let mut stuck = 0;
    while moves.len() < max_plies && game.end().is_none() && stuck < 20 {
        let b = if next_at.a <= next_at.b {
            BoardId::A
        } else {
            BoardId::B
        };
        let pos = game.board(b);
        pos.legal_moves_into(&mut scratch);
        if scratch.is_empty() {
            // He waits for a piece from his partner.
            next_at[b] += 2000;
            stuck += 1;
            continue;
        }
        if game.rules().promotion_by_grab {
            // A Koedem promotion needs a piece to grab.
            scratch.retain(|m| m.promotion().is_none() || game.grab_sources(b, m).any());
            if scratch.is_empty() {
                next_at[b] += 2000;
                stuck += 1;
                continue;
            }
        }
        stuck = 0;
        let mv = pick(&mut rng, &scratch);
        let grab = super::koedem::choose_grab(&mut rng, &game, b, &mv);
        let side = pos.turn();
        let t = next_at[b];
        let elapsed = t - last_press[b];
        let rem = &mut remaining[b][side];
        if *rem <= elapsed + 1000 {
            break;
        }
        *rem -= elapsed;
        let clock = (*rem / 1000) as f64;
        last_press[b] = t;
        next_at[b] = t + think(&mut rng);
        match grab {
            Some(sq) => {
                let _ = game.play_grab_promotion(b, &mv, sq, t);
            }
            None => {
                game.play(b, &mv, t);
            }
        }
        moves.push(SimMove {
            board: b,
            mv,
            clock,
            grab,
        });
    }
    SimGame {
        start,
        moves,
        base_seconds: (base_ms / 1000) as f64,
    }
}

fn think(rng: &mut Rng) -> u64 {
    if rng.chance(0.2) {
        rng.range(600, 1500)
    } else {
        rng.range(1500, 9000)
    }
}

fn pick(rng: &mut Rng, moves: &[Move]) -> Move {
    let promotions: Vec<&Move> = moves.iter().filter(|m| m.promotion().is_some()).collect();
    if !promotions.is_empty() && rng.chance(0.7) {
        return *promotions[rng.below(promotions.len())];
    }
    let drops: Vec<&Move> = moves.iter().filter(|m| m.is_drop()).collect();
    if !drops.is_empty() && rng.chance(0.4) {
        // Pawns dropped near promotion make promotions happen.
        let advanced: Vec<&&Move> = drops
            .iter()
            .filter(|m| match m {
                Move::Drop { piece, to } => {
                    piece.role == Role::Pawn && to.rank() == Rank::Seventh.relative_to(piece.color)
                }
                _ => false,
            })
            .collect();
        if !advanced.is_empty() && rng.chance(0.5) {
            return **advanced[rng.below(advanced.len())];
        }
        return *drops[rng.below(drops.len())];
    }
    let captures: Vec<&Move> = moves.iter().filter(|m| m.is_capture()).collect();
    if !captures.is_empty() && rng.chance(0.5) {
        return *captures[rng.below(captures.len())];
    }
    moves[rng.below(moves.len())]
}
