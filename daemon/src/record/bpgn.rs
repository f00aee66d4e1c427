//! The BPGN of a recorded match: the inference's record, the match's tags and its result,
//! written canonically.

use crate::infer::RecordEntry;
use crate::rules::notation::San;
use crate::rules::notation::bpgn::{
    Annotation, BpgnGame, BpgnMove, MoveToken, RECORDER_TAG, recorder_value, write_bpgn,
};
use crate::rules::notation::variant::{
    PROMOTION_TAG, VARIANT_TAG, promotion_by_grab_of, ruleset_of_variant,
};
use crate::rules::{BoardId, EndReason, Legality, MatchResult, RulesetName, Team};

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

/// What the record says about how a move was seen, as one `{C:...}` comment after its
/// clock: a reader of the BPGN should know which moves were played illegally (the
/// arbiter was alerted), which promotions were not shown on the board and which moves were
/// worked out after a lost connection. One comment, prefixed `C:`, because the BPGN viewer
/// stops at a second comment that is not one of its prefixed notes, and at a second `C:`.
///
/// A move of a board without a clock gets no comment of its own: readers take the first
/// comment after a move for its clock time (pychess.org's importer fails on one that is
/// not a number), so that the board had no clock is said once, before the moves
/// ([`clock_note`]).
fn notes(e: &RecordEntry) -> Vec<Annotation> {
    if e.clock.is_none() {
        return Vec::new();
    }
    let mut notes = Vec::new();
    let illegal;
    if let Legality::Illegal(reason) = e.legality
        && !e.flags.unread_pending
    {
        // A drop pending on the other board's moves is not alerted (not known illegal).
        illegal = format!("illegal: {}; arbiter alerted", reason.code());
        notes.push(illegal.as_str());
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
    if e.flags.unread_pending {
        notes.push("drop pending on the other board's moves not read yet");
    }
    if e.flags.grab_pending {
        notes.push("grab pending on the other board's lost connection");
    }
    if notes.is_empty() {
        return Vec::new();
    }
    vec![Annotation::Comment(format!("C:{}", notes.join("; ")))]
}

/// The tags every file carries, with `?` when the configuration gives none: readers
/// (pychess.org's importer, the BPGN viewer) refuse or ignore a game without them.
const ROSTER_DEFAULTS: [(&str, &str); 8] = [
    ("Event", "Bughouse match"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("WhiteA", "?"),
    ("BlackA", "?"),
    ("WhiteB", "?"),
    ("BlackB", "?"),
];

/// The `TimeControl` when the configuration gives none: the largest first clock reading of
/// the four players, rounded up to a whole minute, in seconds with no increment (`180+0`).
fn time_control_of(moves: &[RecordEntry]) -> Option<String> {
    // Only the first reading of each player counts: later ones are lower.
    let mut seen = Vec::new();
    let mut max: Option<f64> = None;
    for e in moves {
        if let Some(t) = e.clock
            && !seen.contains(&(e.board, e.side))
        {
            seen.push((e.board, e.side));
            max = Some(max.map_or(t, |m: f64| m.max(t)));
        }
    }
    let t = max?;
    let minutes = (t / 60.0).ceil().max(1.0) as u64;
    Some(format!("{}+0", minutes * 60))
}

/// The end comment always written before the result, so that readers that find the result
/// only after an end comment (the BPGN viewer) read it.
fn default_end(result: MatchResult) -> String {
    match result {
        MatchResult::Won(Team::WhiteA) => "WhiteA and BlackB won".to_owned(),
        MatchResult::Won(Team::BlackA) => "BlackA and WhiteB won".to_owned(),
        MatchResult::Draw => "game drawn".to_owned(),
        MatchResult::Unfinished => "game unfinished".to_owned(),
    }
}

/// The leading comment of a game with moves recorded without a clock, e.g. `C:board B had
/// no clock`: said once, before the moves, rather than after each of them (see [`notes`]).
/// It is a `C:` comment, as the bughouse database writes its own leading comment, because
/// the BPGN viewer stops reading a game at a comment without one of its prefixes.
///
/// A board whose clock was lost (or plugged in) during the game had no clock for only
/// some of its moves: the comment counts them and names the first.
#[must_use]
pub fn clock_note(moves: &[RecordEntry]) -> Option<String> {
    let mut whole = Vec::new();
    let mut partial = Vec::new();
    for board in BoardId::ALL {
        let mut on_board = moves.iter().filter(|e| e.board == board);
        let total = on_board.clone().count();
        let Some(first) = on_board.find(|e| e.flags.no_clock) else {
            continue;
        };
        let without = 1 + on_board.filter(|e| e.flags.no_clock).count();
        if without == total {
            whole.push(board.to_string());
        } else {
            let token = MoveToken {
                number: first.number,
                board,
                color: first.side,
            };
            partial.push(format!(
                "board {board} had no clock at {without} of its {total} moves, from {token}"
            ));
        }
    }
    let whole = match whole.as_slice() {
        [] => None,
        [one] => Some(format!("board {one} had no clock")),
        many => Some(format!("boards {} had no clock", many.join(" and "))),
    };
    let parts: Vec<String> = whole.into_iter().chain(partial).collect();
    (!parts.is_empty()).then(|| format!("C:{}", parts.join("; ")))
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
    for (name, default) in ROSTER_DEFAULTS {
        if !tags.iter().any(|(k, _)| k == name) {
            tags.push((name.into(), default.into()));
        }
    }
    if !tags.iter().any(|(k, _)| k == "TimeControl")
        && let Some(tc) = time_control_of(record.moves)
    {
        tags.push(("TimeControl".into(), tc));
    }
    if !tags.iter().any(|(k, _)| k == VARIANT_TAG) {
        tags.push((VARIANT_TAG.into(), "Bughouse".into()));
    }
    // Koedem's promotion in the words bughouse.pro reads (and bugbridge too): Steal for the
    // grab, Upgrade for a promotion as in bughouse.
    if tags
        .iter()
        .any(|(k, v)| k == VARIANT_TAG && ruleset_of_variant(v) == Some(RulesetName::Koedem))
    {
        let grab = tags
            .iter()
            .find(|(k, _)| k == PROMOTION_TAG)
            .and_then(|(_, v)| promotion_by_grab_of(v))
            .unwrap_or(true);
        tags.retain(|(k, _)| k != PROMOTION_TAG);
        tags.push((
            PROMOTION_TAG.into(),
            if grab { "Steal" } else { "Upgrade" }.into(),
        ));
    }
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
            // The SAN writer gives every move a text the reader parses (illegal ones
            // included): one that does not is a bug, said rather than left out unseen.
            let san: San = match e.san.parse() {
                Ok(san) => san,
                Err(err) => {
                    tracing::error!(san = %e.san, board = %e.board, number = e.number, %err, "a recorded move whose SAN does not parse is left out of the BPGN");
                    return None;
                }
            };
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
        preamble: clock_note(record.moves)
            .map(Annotation::Comment)
            .into_iter()
            .collect(),
        moves,
        // After a move without a clock, no end comment: readers take the first comment
        // after a move for its clock (pychess.org's importer fails on any other).
        end_comment: record
            .moves
            .last()
            .is_none_or(|e| e.clock.is_some())
            .then(|| {
                end_comment
                    .filter(|c| !c.is_empty())
                    .unwrap_or_else(|| default_end(result))
            }),
        result: Some(result),
    }
}

/// The BPGN text of a record.
#[must_use]
pub fn text(record: &MatchRecord<'_>) -> String {
    write_bpgn(&game(record))
}

#[cfg(test)]
mod tests;
