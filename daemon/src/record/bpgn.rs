//! The BPGN of a recorded match: the inference's record, the match's tags and its result,
//! written canonically.

use crate::infer::RecordEntry;
use crate::rules::notation::San;
use crate::rules::notation::bpgn::{
    Annotation, BpgnGame, BpgnMove, MoveToken, RECORDER_TAG, recorder_value, write_bpgn,
};
use crate::rules::{EndReason, MatchResult};

/// What the BPGN of a match is made of.
#[derive(Debug, Clone, Default)]
pub struct MatchRecord<'a> {
    /// Tags in order (the writer puts the standard ones first).
    pub tags: Vec<(String, String)>,
    /// A BFEN when the match did not start from the initial position.
    pub setup: Option<String>,
    /// The committed moves of both boards, in the order they were completed.
    pub moves: &'a [RecordEntry],
    /// The result so far (`*` while playing).
    pub result: Option<MatchResult>,
    /// Why it ended, for the end comment.
    pub end: Option<(Option<EndReason>, String)>,
}

/// What the record says about how a move was seen, as comments after it: a reader of the
/// BPGN should know which moves were not completed by a clock press, which promotions were
/// not shown on the board, and which moves were worked out after a lost connection.
fn notes(e: &RecordEntry) -> Vec<Annotation> {
    let mut notes = Vec::new();
    if e.flags.no_clock {
        notes.push("no clock: committed when the board was still");
    }
    if e.flags.promotion_not_shown {
        notes.push("promotion not shown: the pawn stayed on the board");
    }
    if e.flags.gap_inferred {
        notes.push("reconstructed after a lost connection");
    }
    if e.flags.gap_ambiguous {
        notes.push("ambiguous: other orders of the gap's moves fit the board");
    }
    if e.flags.time_estimated {
        notes.push("time estimated from the clocks");
    }
    if e.flags.gap_pending {
        notes.push("drop pending on the other board's lost connection");
    }
    if e.flags.grab_pending {
        notes.push("grab pending on the other board's lost connection");
    }
    notes
        .into_iter()
        .map(|n| Annotation::Comment(n.to_owned()))
        .collect()
}

/// Builds the BPGN game of a record. Its result is the team result (`1-0`: White on board
/// A's team won), as the BPGN standard states it, and the `Recorder` tag says so to readers
/// that would otherwise take it for a FICS export's board result.
#[must_use]
pub fn game(record: &MatchRecord<'_>) -> BpgnGame {
    let result = record.result.unwrap_or(MatchResult::Unfinished);
    let mut tags: Vec<(String, String)> = record
        .tags
        .iter()
        .filter(|(k, _)| {
            !matches!(k.as_str(), "Result" | "Setup" | "SetUp" | "FEN") && k != RECORDER_TAG
        })
        .cloned()
        .collect();
    tags.push((RECORDER_TAG.into(), recorder_value()));
    if let Some(fen) = &record.setup {
        tags.push(("Setup".into(), "1".into()));
        tags.push(("FEN".into(), fen.clone()));
    }
    tags.push(("Result".into(), result.as_str().into()));
    let moves = record
        .moves
        .iter()
        .filter_map(|e| {
            let san: San = e.san.parse().ok()?;
            Some(BpgnMove {
                token: MoveToken {
                    number: e.number,
                    board: e.board,
                    color: e.side,
                },
                san_text: e.san.clone(),
                san,
                clock: e.clock,
                annotations: notes(e),
            })
        })
        .collect();
    let end_comment = record.end.as_ref().map(|(reason, detail)| {
        if detail.is_empty() {
            reason.map_or_else(String::new, |r| r.code().to_owned())
        } else {
            detail.clone()
        }
    });
    BpgnGame {
        tags,
        setup: record.setup.clone(),
        preamble: Vec::new(),
        moves,
        end_comment: end_comment.filter(|c| !c.is_empty()),
        result: Some(result),
    }
}

/// The BPGN text of a record.
#[must_use]
pub fn text(record: &MatchRecord<'_>) -> String {
    write_bpgn(&game(record))
}
