//! The games recorded at this table, handed to the HTTP archive (`/api/games`) with a
//! position per move.
//!
//! The source is each game's BPGN file in the record directory (`<match>-<n>.bpgn`), the
//! same file the download serves. Its moves are played with the rules core to give the BFEN
//! after each one; a move that breaks a rule is played as it stands (it stood at the
//! table), so the positions go on past it. The broadcast side knows no chess: it only
//! keeps what is computed here.

use bugbridge_broadcast::{Hub, wire};
use tracing::warn;

use crate::publish::{board, side};
use crate::record::Store;
use crate::rules::notation::bfen::write_bfen;
use crate::rules::notation::bpgn::{BpgnGame, parse_bpgn};
use crate::rules::{BoardId, BughouseGame, ByBoard, ByColor, Color, Move, Ruleset};

/// The game of BPGN `text`, game `number` of `match_id`, with every position computed
/// under `rules`.
///
/// # Errors
///
/// A sentence saying why the text is not a recorded game (unreadable BPGN, no game, a
/// set-up that is not a BFEN).
pub fn game_record(
    match_id: &str,
    number: u32,
    text: &str,
    rules: Ruleset,
) -> Result<wire::GameRecord, String> {
    let games = parse_bpgn(text).map_err(|e| e.to_string())?;
    let game = games.first().ok_or("no game in the file")?;
    let start = game
        .start_positions(rules)
        .map_err(|e| format!("the set-up is not a BFEN: {e}"))?;
    // Latest known times of each side: the set-up's, then each clock comment; a side with
    // none yet gets the time control's base, else the board's times are left out.
    let base = game.base_time();
    let mut known: ByBoard<ByColor<Option<f64>>> =
        ByBoard::new_with(|b| start[b].times.map_or(ByColor::default(), |t| t.map(Some)));
    let times = |known: &ByBoard<ByColor<Option<f64>>>| {
        ByBoard::new_with(|b| {
            let k = known[b];
            k.white
                .or(base)
                .zip(k.black.or(base))
                .map(|(white, black)| ByColor { white, black })
        })
    };
    let mut boards =
        BughouseGame::from_positions(start.a.position.clone(), start.b.position.clone(), rules);
    let bfen = |boards: &BughouseGame, known: &ByBoard<ByColor<Option<f64>>>| {
        write_bfen(
            ByBoard {
                a: boards.board(BoardId::A),
                b: boards.board(BoardId::B),
            },
            times(known),
        )
    };
    let start_bfen = bfen(&boards, &known);
    let mut moves = Vec::with_capacity(game.moves.len());
    let mut incomplete = None;
    for m in &game.moves {
        let token = m.token;
        let mv = match m.san.to_move_for(boards.board(token.board), token.color) {
            Ok(mv) => mv,
            Err(e) => {
                incomplete = Some(format!("positions stop before {token} {}: {e}", m.san_text));
                break;
            }
        };
        boards.play(token.board, &mv, 0);
        if let Some(t) = m.clock {
            let side = &mut known[token.board];
            match token.color {
                Color::White => side.white = Some(t),
                Color::Black => side.black = Some(t),
            }
        }
        let (from, drop) = match mv {
            Move::Drop { piece, .. } => (None, Some(piece.role.upper_char().to_string())),
            other => (other.from().map(|s| s.to_string()), None),
        };
        moves.push(wire::GamePly {
            board: board(token.board),
            side: side(token.color),
            number: token.number,
            san: m.san_text.clone(),
            clock: m.clock,
            from,
            to: mv.to().to_string(),
            drop,
            bfen: bfen(&boards, &known),
        });
    }
    Ok(wire::GameRecord {
        summary: summary(match_id, number, game),
        tags: game.tags.iter().cloned().collect(),
        start_bfen,
        moves,
        incomplete,
    })
}

fn summary(match_id: &str, number: u32, game: &BpgnGame) -> wire::GameSummary {
    let players = |b: &str| wire::Players {
        white: game.tag(&format!("White{b}")).map(str::to_owned),
        black: game.tag(&format!("Black{b}")).map(str::to_owned),
    };
    wire::GameSummary {
        match_id: match_id.to_owned(),
        number,
        players: wire::ByBoard {
            A: players("A"),
            B: players("B"),
        },
        // bugbridge writes the team result (from White on board A's team) in its own files.
        result: game.raw_result().as_str().to_owned(),
        plies: u32::try_from(game.moves.len()).unwrap_or(u32::MAX),
        date: game.tag("Date").map(str::to_owned),
        viewer: String::new(),
        api: String::new(),
        bpgn: String::new(),
    }
}

/// Reads game `number`'s BPGN file from `store` and adds it to the hub's archive; a file
/// that cannot be read or played is logged with its path and left out.
pub fn add(hub: &Hub, store: &Store, match_id: &str, number: u32, rules: Ruleset) {
    let path = store.files(number).bpgn;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            warn!(file = %path.display(), "recorded game not served: {e}");
            return;
        }
    };
    match game_record(match_id, number, &text, rules) {
        Ok(record) => hub.archive().add(record, text),
        Err(e) => warn!(file = %path.display(), "recorded game not served: {e}"),
    }
}

/// Adds the games of `store` numbered below `current` (the game being played), the most
/// recent ones first when there are more than the archive keeps.
pub fn add_earlier(hub: &Hub, store: &Store, match_id: &str, current: u32, rules: Ruleset) {
    let keep = u32::try_from(bugbridge_broadcast::archive::Archive::CAPACITY).unwrap_or(u32::MAX);
    let first = current.saturating_sub(keep).max(1);
    for number in first..current {
        if store.files(number).bpgn.exists() {
            add(hub, store, match_id, number, rules);
        }
    }
}
