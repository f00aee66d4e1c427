//! The canonical BPGN text of a game, as the BPGN standard and document 003 write it.
//!
//! Tags one per line in the roster order (Event, Site, Date, Round, WhiteA, BlackA, WhiteB,
//! BlackB, their Elos, TimeControl, Result), then the other tags in their original order; a
//! blank line; the movetext `1A. e4 {178} 1a. e5 {179} ...` with SAN in canonical form
//! (`P@e4`, `=Q`, `O-O`), clock times as [`format_seconds`] writes them, every comment and
//! variation kept; then the end comment and the result. Lines are wrapped at 80 columns,
//! never inside a comment `{...}` (a longer comment has its line to itself), and end in LF. Reading the text back gives the same game (tags in the canonical order).

use crate::rules::notation::bfen::format_seconds;

use super::{Annotation, BpgnGame};

/// The tags written first, in this order, when present.
const ROSTER: [&str; 14] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "WhiteA",
    "BlackA",
    "WhiteB",
    "BlackB",
    "WhiteAElo",
    "BlackAElo",
    "WhiteBElo",
    "BlackBElo",
    "TimeControl",
    "Result",
];

/// The widest line the writer makes (a single longer word stays whole).
const WIDTH: usize = 80;

/// The game's tags in the order the writer uses.
#[must_use]
pub fn canonical_tags(game: &BpgnGame) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(game.tags.len());
    for name in ROSTER {
        out.extend(game.tags.iter().filter(|(n, _)| n == name).cloned());
    }
    out.extend(
        game.tags
            .iter()
            .filter(|(n, _)| !ROSTER.contains(&n.as_str()))
            .cloned(),
    );
    out
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Makes a comment's text safe to write inside braces.
fn comment(c: &str) -> String {
    format!("{{{}}}", c.replace('}', ")"))
}

fn annotation(a: &Annotation) -> String {
    match a {
        Annotation::Comment(c) => comment(c),
        Annotation::Variation(v) => format!("({v})"),
        Annotation::DrawOffer => "(=)".to_owned(),
        Annotation::Nag(n) => format!("${n}"),
    }
}

/// Writes one game (see the module docs).
#[must_use]
pub fn write_bpgn(game: &BpgnGame) -> String {
    let mut out = String::new();
    for (name, value) in canonical_tags(game) {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(&value)));
    }
    if !game.tags.is_empty() {
        out.push('\n');
    }
    let mut words: Vec<String> = Vec::new();
    words.extend(game.preamble.iter().map(annotation));
    for m in &game.moves {
        words.push(m.token.to_string());
        words.push(m.san.to_string());
        if let Some(t) = m.clock {
            words.push(format!("{{{}}}", format_seconds(t)));
        }
        words.extend(m.annotations.iter().map(annotation));
    }
    if let Some(end) = &game.end_comment {
        words.push(comment(end));
    }
    if let Some(r) = game.result {
        words.push(r.as_str().to_owned());
    }
    let mut line = String::new();
    // A comment is one word: never a line break inside `{...}` (older readers fail on it).
    let split = words.iter().flat_map(|w| {
        if w.starts_with('{') {
            vec![w.as_str()]
        } else {
            w.split(' ').collect()
        }
    });
    for word in split {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Writes several games, a blank line between them.
#[must_use]
pub fn write_bpgn_games(games: &[BpgnGame]) -> String {
    games.iter().map(write_bpgn).collect::<Vec<_>>().join("\n")
}
