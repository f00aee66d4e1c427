//! Files for readers that depart from the BPGN standard: `bugbridge export --for
//! bughouse.pro|pychess` and `?for=` on the BPGN routes.
//!
//! bugbridge's own files follow the standard, which pychess.org's importer and the BPGN
//! viewer read as written. Two readers need more, and an export for each changes only what
//! that reader needs, saying what it changed:
//!
//! - **bughouse.pro** stops, in this order, on: a terminator after the moves; missing
//!   `UTCDate`, `UTCTime`, integer `Round`; a `TimeControl` that is not bare seconds; no
//!   `Variant` containing Bughouse; `+`/`#` on drops and castling; missing player tags;
//!   Koedem without `[Promotion "Steal"]`; SAN disambiguation that leaves out a pinned
//!   piece (it counts pinned pieces as candidates); BFEN holdings written as a ninth rank.
//! - **pychess.org** refuses a game with an illegal move (nothing of it is imported) and has
//!   no Koedem: the export is the game up to the illegal move, with an end comment saying
//!   where and why it was cut; a Koedem game is refused, named.

use crate::rules::notation::SanKind;
use crate::rules::notation::bfen::parse_bfen;
use crate::rules::notation::variant::{
    PROMOTION_TAG, VARIANT_TAG, promotion_by_grab_of, rules_with_promotion, ruleset_of_variant,
};
use crate::rules::{Color, Role, Ruleset, RulesetName, Seat};

use super::{Annotation, BpgnGame, ParseBpgnError, ReplayStop, parse_bpgn, replay, write_bpgn};

/// The reader an export is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFor {
    /// bughouse.pro's importer.
    BughousePro,
    /// pychess.org's importer.
    Pychess,
}

impl std::str::FromStr for ExportFor {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "bughouse.pro" | "bughousepro" | "bughouse-pro" => Ok(ExportFor::BughousePro),
            "pychess" | "pychess.org" | "pychess-variants" => Ok(ExportFor::Pychess),
            _ => Err(format!("unknown reader {s:?}: bughouse.pro or pychess")),
        }
    }
}

/// An exported text and what was changed to make it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The BPGN text for the reader.
    pub text: String,
    /// What was changed, one line each, games numbered from 1 (`#1: ...`).
    pub changes: Vec<String>,
}

/// Why a file cannot be exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// The text is not BPGN.
    Parse(ParseBpgnError),
    /// A game cannot be written for the reader (named, with the reason).
    Game(String),
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::Parse(e) => write!(f, "{e}"),
            ExportError::Game(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for ExportError {}

/// The ruleset a game is played under: its `Variant` (Koedem) and `Promotion` tags.
fn rules_of(game: &BpgnGame) -> (RulesetName, Ruleset) {
    let name = game
        .tag(VARIANT_TAG)
        .and_then(ruleset_of_variant)
        .unwrap_or_default();
    let grab = game.tag(PROMOTION_TAG).and_then(promotion_by_grab_of);
    (name, rules_with_promotion(name, grab))
}

/// Exports every game of `text` for `reader` (see the module docs).
///
/// # Errors
///
/// [`ExportError::Parse`] for text that is not BPGN; [`ExportError::Game`] for a game the
/// reader cannot take (a Koedem game for pychess, a setup that is not a BFEN).
pub fn export(text: &str, reader: ExportFor) -> Result<Exported, ExportError> {
    let games = parse_bpgn(text).map_err(ExportError::Parse)?;
    let mut out = Vec::new();
    let mut changes = Vec::new();
    for (i, mut game) in games.into_iter().enumerate() {
        let n = i + 1;
        let mut changed = Vec::new();
        match reader {
            ExportFor::Pychess => for_pychess(&mut game, &mut changed)
                .map_err(|e| ExportError::Game(format!("#{n}: {e}")))?,
            ExportFor::BughousePro => for_bughouse_pro(&mut game, &mut changed)
                .map_err(|e| ExportError::Game(format!("#{n}: {e}")))?,
        }
        changes.extend(changed.into_iter().map(|c| format!("#{n}: {c}")));
        out.push(write_bpgn(&game));
    }
    Ok(Exported {
        text: out.join("\n"),
        changes,
    })
}

fn set_tag(game: &mut BpgnGame, name: &str, value: &str) {
    match game.tags.iter_mut().find(|(n, _)| n == name) {
        Some((_, v)) => *v = value.to_owned(),
        None => game.tags.push((name.to_owned(), value.to_owned())),
    }
}

fn player_seats() -> [Seat; 4] {
    [
        Seat::new(crate::rules::BoardId::A, Color::White),
        Seat::new(crate::rules::BoardId::A, Color::Black),
        Seat::new(crate::rules::BoardId::B, Color::White),
        Seat::new(crate::rules::BoardId::B, Color::Black),
    ]
}

fn for_pychess(game: &mut BpgnGame, changed: &mut Vec<String>) -> Result<(), String> {
    let (name, rules) = rules_of(game);
    if name == RulesetName::Koedem {
        return Err("a Koedem game: pychess.org has no Koedem, so it cannot import it".into());
    }
    for seat in player_seats() {
        if game.tag(&seat.tag()).is_none_or(|v| v.trim().is_empty()) {
            set_tag(game, &seat.tag(), "?");
            changed.push(format!(
                "[{}] added as \"?\": pychess requires the four players",
                seat.tag()
            ));
        }
    }
    // pychess reads the first comment after a move as its clock (float()): a move without
    // a clock must have no comment.
    for m in &mut game.moves {
        if m.clock.is_none()
            && m.annotations
                .iter()
                .any(|a| matches!(a, Annotation::Comment(_)))
        {
            m.annotations
                .retain(|a| !matches!(a, Annotation::Comment(_)));
            changed.push(format!(
                "comments after {} {} (no clock) left out: pychess takes the first comment for the clock",
                m.token, m.san_text
            ));
        }
    }
    if let Some(note) = cut_at_illegal(game, rules, "pychess.org")? {
        changed.push(note.clone());
        game.end_comment = Some(note);
        if game.result.is_none() {
            game.result = Some(game.raw_result());
        }
    }
    // After a move without a clock, the end comment would be read as its clock.
    if game.moves.last().is_some_and(|m| m.clock.is_none()) && game.end_comment.take().is_some() {
        changed.push("no end comment after the last move, which has no clock".into());
    }
    Ok(())
}

/// Cuts the game before its first illegal move (a move completed at the table, recorded as
/// played): the readers replay the moves with their own rules and refuse the whole game.
/// Returns what was cut, in words.
fn cut_at_illegal(
    game: &mut BpgnGame,
    rules: Ruleset,
    reader: &str,
) -> Result<Option<String>, String> {
    let replayed = replay(game, rules).map_err(|e| e.to_string())?;
    let Some(stop) = &replayed.stop else {
        return Ok(None);
    };
    let index = match stop {
        ReplayStop::Illegal { index, .. }
        | ReplayStop::Repeated { index, .. }
        | ReplayStop::Unresolved { index, .. } => *index,
    };
    let cut = game.moves.len() - index;
    game.moves.truncate(index);
    Ok(Some(format!(
        "game cut before {} {}, an illegal move ({}) that {reader} refuses; {cut} plies not \
         exported",
        stop.token(),
        stop.san_text(),
        stop.reason_code()
    )))
}

fn for_bughouse_pro(game: &mut BpgnGame, changed: &mut Vec<String>) -> Result<(), String> {
    let (name, rules) = rules_of(game);
    if game.result.is_some() || game.end_comment.is_some() {
        // The tag keeps the (team) result.
        let result = game.raw_result();
        set_tag(game, "Result", result.as_str());
        game.result = None;
        game.end_comment = None;
        changed.push(
            "no terminator nor end comment after the moves (the result is in [Result])".into(),
        );
    }
    let date = game
        .tag("UTCDate")
        .or(game.tag("Date"))
        .map(|d| d.replace('-', "."))
        .filter(|d| d.len() == 10 && d.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .unwrap_or_else(|| "1970.01.01".to_owned());
    if game.tag("UTCDate") != Some(date.as_str()) {
        set_tag(game, "UTCDate", &date);
        changed.push(format!("[UTCDate \"{date}\"] added"));
    }
    if game.tag("UTCTime").is_none() {
        let time = game
            .tag("Time")
            .map(|t| t.chars().take(8).collect::<String>())
            .filter(|t| t.len() == 8 && t.bytes().all(|b| b.is_ascii_digit() || b == b':'))
            .unwrap_or_else(|| "00:00:00".to_owned());
        set_tag(game, "UTCTime", &time);
        changed.push(format!("[UTCTime \"{time}\"] added"));
    }
    let round = game.tag("Round").and_then(|r| r.trim().parse::<u32>().ok());
    if round.is_none() {
        set_tag(game, "Round", "1");
        changed.push("[Round \"1\"]: bughouse.pro needs a whole number".into());
    }
    let base = game.base_time().or_else(|| {
        game.moves
            .iter()
            .filter_map(|m| m.clock)
            .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))))
            .map(|t| (t / 60.0).ceil().max(1.0) * 60.0)
    });
    let tc = format!("{}", base.unwrap_or(300.0).round() as u64);
    if game.tag("TimeControl") != Some(tc.as_str()) {
        set_tag(game, "TimeControl", &tc);
        changed.push(format!("[TimeControl \"{tc}\"]: bare seconds"));
    }
    if !game
        .tag(VARIANT_TAG)
        .is_some_and(|v| v.to_ascii_lowercase().contains("bughouse"))
    {
        set_tag(game, VARIANT_TAG, "Bughouse");
        changed.push("[Variant \"Bughouse\"] added".into());
    }
    for seat in player_seats() {
        if game
            .tag(&seat.tag())
            .is_none_or(|v| v.trim().is_empty() || v.trim() == "?")
        {
            set_tag(game, &seat.tag(), &seat.tag());
            changed.push(format!(
                "[{0} \"{0}\"]: bughouse.pro needs a player name",
                seat.tag()
            ));
        }
    }
    if name == RulesetName::Koedem {
        let grab = game
            .tag(PROMOTION_TAG)
            .and_then(promotion_by_grab_of)
            .unwrap_or(true);
        let want = if grab { "Steal" } else { "Upgrade" };
        if game.tag(PROMOTION_TAG) != Some(want) {
            set_tag(game, PROMOTION_TAG, want);
            changed.push(format!(
                "[Promotion \"{want}\"]: bughouse.pro's name of the rule"
            ));
        }
    }
    if let Some(fen) = game.setup.clone() {
        let ninth = holdings_in_brackets(&fen);
        if ninth != fen {
            set_tag(game, "FEN", &ninth);
            game.setup = Some(ninth);
            changed.push("[FEN]: holdings in brackets, not as a ninth rank".into());
        }
    }
    let mut suffixes = 0;
    for m in &mut game.moves {
        if matches!(m.san.kind, SanKind::Drop { .. } | SanKind::Castle(_)) && m.san.suffix.is_some()
        {
            m.san.suffix = None;
            suffixes += 1;
        }
    }
    if suffixes > 0 {
        changed.push(format!("+/# left out on {suffixes} drops and castlings"));
    }
    if let Some(note) = cut_at_illegal(game, rules, "bughouse.pro")? {
        changed.push(note);
    }
    disambiguate_pinned(game, rules, changed)?;
    Ok(())
}

/// `/holdings` after the eighth rank becomes `[holdings]`, on both boards.
fn holdings_in_brackets(fen: &str) -> String {
    fen.split('|')
        .map(|board| {
            let board = board.trim();
            let (placement, rest) = board.split_once(' ').unwrap_or((board, ""));
            let ranks: Vec<&str> = placement.split('/').collect();
            let placement = if ranks.len() == 9 {
                format!("{}[{}]", ranks[..8].join("/"), ranks[8])
            } else {
                placement.to_owned()
            };
            if rest.is_empty() {
                placement
            } else {
                format!("{placement} {rest}")
            }
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Adds the disambiguation bughouse.pro expects where another piece of the same kind
/// reaches the square but is pinned (standard SAN leaves it out).
fn disambiguate_pinned(
    game: &mut BpgnGame,
    rules: Ruleset,
    changed: &mut Vec<String>,
) -> Result<(), String> {
    let replayed = replay(game, rules).map_err(|e| e.to_string())?;
    let mut before = replayed.start_bfen.clone();
    for r in &replayed.moves {
        let boards = parse_bfen(&before, rules).map_err(|e| e.to_string())?;
        let position = &boards[r.token.board].position;
        before.clone_from(&r.bfen);
        let m = &mut game.moves[r.index];
        let SanKind::Normal {
            role,
            file,
            rank,
            to,
            ..
        } = &mut m.san.kind
        else {
            continue;
        };
        if matches!(*role, Role::Pawn | Role::King) {
            continue;
        }
        let Some(from) = r.mv.from() else { continue };
        let board = position.board();
        let reach = position.attackers_to(*to, r.token.color, board.occupied())
            & board.by_role(*role)
            & board.by_color(r.token.color);
        let others: Vec<_> = reach.without(from).into_iter().collect();
        if others.is_empty() {
            continue;
        }
        let (f, k) = if others.iter().all(|o| o.file() != from.file()) {
            (Some(from.file()), None)
        } else if others.iter().all(|o| o.rank() != from.rank()) {
            (None, Some(from.rank()))
        } else {
            (Some(from.file()), Some(from.rank()))
        };
        let covered = (f.is_none() || *file == f) && (k.is_none() || *rank == k);
        if !covered {
            *file = f.or(*file);
            *rank = k.or(*rank);
            changed.push(format!(
                "{} {} written {}: bughouse.pro counts the pinned piece",
                m.token, m.san_text, m.san
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::MatchResult;

    const GAME: &str = "[Event \"x\"]\n[WhiteA \"a\"]\n[BlackA \"b\"]\n[WhiteB \"c\"]\n\
        [BlackB \"d\"]\n[TimeControl \"180+0\"]\n[Result \"1-0\"]\n\n\
        1A. e4 {179} 1a. d5 {179} 2A. exd5 {178} 1B. d4 {179} 1b. P@e3 {177} 2B. fxe3 {176} \
        {game ended} 1-0\n";

    #[test]
    fn bughouse_pro_gets_what_it_reads() {
        let e = export(GAME, ExportFor::BughousePro).unwrap();
        for want in [
            "[UTCDate \"1970.01.01\"]",
            "[UTCTime \"00:00:00\"]",
            "[Round \"1\"]",
            "[TimeControl \"180\"]",
            "[Variant \"Bughouse\"]",
            "[Result \"1-0\"]",
        ] {
            assert!(e.text.contains(want), "{want} in {}", e.text);
        }
        let flat = e.text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.ends_with("fxe3 {176}"), "{}", e.text);
        assert!(!e.changes.is_empty());
        assert_eq!(
            holdings_in_brackets("8/8/8/8/8/8/8/8/Pp w - - | 8/8/8/8/8/8/8/8 b - -"),
            "8/8/8/8/8/8/8/8[Pp] w - - | 8/8/8/8/8/8/8/8 b - -"
        );
    }

    #[test]
    fn pychess_gets_the_game_up_to_an_illegal_move() {
        let text = GAME.replace("2B. fxe3 {176}", "2B. Ke2 {176} 2b. e6 {175}");
        let e = export(&text, ExportFor::Pychess).unwrap();
        let game = &parse_bpgn(&e.text).unwrap()[0];
        assert_eq!(game.moves.len(), 5, "{}", e.text);
        assert!(
            game.end_comment.as_deref().unwrap().contains("2B. Ke2"),
            "{}",
            e.text
        );
        assert_eq!(game.tag("Result"), Some("1-0"));
        assert_eq!(e.changes.len(), 1, "{:?}", e.changes);
        let koedem = GAME.replace("[Event \"x\"]", "[Variant \"Bughouse Koedem\"]");
        assert!(export(&koedem, ExportFor::Pychess).is_err());
        assert_eq!(MatchResult::Won(crate::rules::Team::WhiteA).as_str(), "1-0");
    }
}
