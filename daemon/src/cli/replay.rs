//! `bugbridge replay [--ruleset R] [--koedem-promotion grab|announce] [--events FILE] TRACE`: re-infer a sensor trace into
//! BPGN on stdout; with `--events`, the decisions as JSON lines in the order they were made.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::game::Match;
use crate::infer::{InferConfig, Inference, SensorEvent};
use crate::publish;
use crate::rules::{ByBoard, RulesetName};
use crate::sensor::{Decoded, decode_trace_lines};

use super::check::{parse_koedem_promotion, parse_ruleset};
use crate::config::KoedemPromotion;
use crate::rules::notation::variant::{
    ANNOUNCE_PROMOTION, PROMOTION_TAG, promotion_by_grab_of, rules_with_promotion,
};

/// Arguments of `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The ruleset (default: the trace's `meta`, else fide).
    #[arg(long, value_parser = parse_ruleset)]
    pub ruleset: Option<RulesetName>,
    /// How Koedem games promote: grab or announce (default: the `Promotion` tag of the
    /// trace's `meta`, else grab).
    #[arg(long, value_name = "grab|announce", value_parser = parse_koedem_promotion)]
    pub koedem_promotion: Option<KoedemPromotion>,
    /// Write every decision (moves, alerts, corrections, ends) as JSON lines to this file.
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// The sensor trace (`.trace.jsonl`).
    pub trace: PathBuf,
}

/// The inference of a whole trace: the match after it and every decision on the way.
#[derive(Debug)]
pub struct Replayed {
    /// The match after the last event.
    pub game: Match,
    /// Every decision, in order.
    pub decisions: Vec<Inference>,
    /// Operator actions this version does not know (kept in the trace, not applied).
    pub unknown_actions: Vec<String>,
    /// A last line cut off in the middle (no line end, not a whole trace line), left out:
    /// what a power cut leaves at the end of a journal.
    pub torn_tail: Option<TornTail>,
}

/// A torn last line that was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// Its line number (1-based).
    pub line: usize,
    /// Its length in bytes.
    pub bytes: usize,
    /// Why it is not a trace line.
    pub error: String,
}

/// Splits off a torn last line: text after the last line end that does not read as a trace
/// line. A last line without a line end that reads whole is kept, and a damaged line that
/// does end in a line end is an error, as anywhere else.
fn split_torn_tail(text: &str) -> (&str, Option<TornTail>) {
    let whole = text.rfind('\n').map_or(0, |i| i + 1);
    let tail = &text[whole..];
    if tail.trim().is_empty() {
        return (text, None);
    }
    let first = text[..whole].trim().is_empty();
    match bugbridge_drivers::trace::parse_line(tail.trim(), first) {
        Ok(_) => (text, None),
        Err(e) => (
            &text[..whole],
            Some(TornTail {
                line: text[..whole].matches('\n').count() + 1,
                bytes: tail.len(),
                error: e.to_string(),
            }),
        ),
    }
}

/// Re-infers the trace `text`.
///
/// # Errors
///
/// A message naming the line of the first bad trace line, or an unknown ruleset in `meta`.
/// A torn last line is not an error: it is left out and reported in
/// [`Replayed::torn_tail`].
pub fn replay_text(text: &str, ruleset: Option<RulesetName>) -> Result<Replayed, String> {
    replay_text_with(text, ruleset, None)
}

/// As [`replay_text`], with Koedem's promotion rule given (`Some(true)` grab, `Some(false)`
/// announce) or, for `None`, read from the `Promotion` tag of the trace's `meta`.
///
/// # Errors
///
/// As [`replay_text`], and an unknown `Promotion` tag value.
pub fn replay_text_with(
    text: &str,
    ruleset: Option<RulesetName>,
    promotion_by_grab: Option<bool>,
) -> Result<Replayed, String> {
    let (text, torn_tail) = split_torn_tail(text);
    let (meta, lines) = decode_trace_lines(text).map_err(|e| e.to_string())?;
    let unknown_actions: Vec<String> = lines
        .iter()
        .filter_map(|(_, d)| match d {
            Decoded::UnknownOperator(a) => Some(a.clone()),
            _ => None,
        })
        .collect();

    let ruleset = match (ruleset, &meta.ruleset) {
        (Some(r), _) => r,
        (None, Some(name)) => name
            .parse::<RulesetName>()
            .map_err(|e| format!("line 1: meta: {e}"))?,
        (None, None) => RulesetName::Fide,
    };
    let has_clock = |b| {
        lines.iter().any(
            |(_, d)| matches!(d, Decoded::Event(SensorEvent::Clock { board, .. }) if *board == b),
        )
    };
    let tagged = match meta.tags.get(PROMOTION_TAG) {
        Some(value) if ruleset == RulesetName::Koedem => Some(
            promotion_by_grab_of(value)
                .ok_or_else(|| format!("line 1: meta: unknown {PROMOTION_TAG} {value:?}"))?,
        ),
        _ => None,
    };
    let rules = rules_with_promotion(ruleset, promotion_by_grab.or(tagged));
    let config = InferConfig {
        ruleset: rules,
        clock: ByBoard::new_with(has_clock),
        ..InferConfig::default()
    };
    let mut tags: BTreeMap<String, String> = meta.tags.clone();
    if let Some(tc) = &meta.time_control {
        tags.entry("TimeControl".into())
            .or_insert_with(|| tc.clone());
    }
    if let Some(variant) = crate::rules::notation::variant::variant_of(ruleset) {
        tags.entry("Variant".into())
            .or_insert_with(|| variant.into());
        if rules.promotion_by_grab {
            tags.remove(PROMOTION_TAG);
        } else {
            tags.insert(PROMOTION_TAG.into(), ANNOUNCE_PROMOTION.into());
        }
    }
    let mut game = match &meta.setup {
        Some(fen) => Match::from_setup("replay", tags, config, fen)
            .map_err(|e| format!("line 1: meta: setup {fen:?}: {e}"))?,
        None => Match::new("replay", tags, config, None),
    };
    let mut decisions = Vec::new();
    let mut last_t = 0;
    for (t, line) in &lines {
        last_t = *t;
        decisions.extend(game.feed_decoded(*t, line, *t));
    }
    // Let every timer run out: clockless commits, drop tolerances, presses' grace.
    let settle = config
        .stable_commit_ms
        .max(config.drop_tolerance_ms)
        .max(config.press_grace_ms);
    decisions.extend(game.finish_occupancy(last_t, last_t));
    decisions.extend(game.tick(last_t.saturating_add(settle + 1)));
    Ok(Replayed {
        game,
        decisions,
        unknown_actions,
        torn_tail,
    })
}

pub(super) fn run(args: ReplayArgs) -> u8 {
    let file = args.trace.display().to_string();
    let text = match std::fs::read(&args.trace) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("{file}: cannot read: {e}");
            return 2;
        }
    };
    if sensor_lines(&text) == 0 {
        // Nothing to re-infer: an empty BPGN with exit 0 would pass for a game.
        eprintln!("{file}: the trace holds no sensor events: nothing to replay, no BPGN written");
        return 1;
    }
    let promotion = args.koedem_promotion.map(|p| p == KoedemPromotion::Grab);
    let replayed = match replay_text_with(&text, args.ruleset, promotion) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{file}: {e}");
            return 1;
        }
    };
    if let Some(torn) = &replayed.torn_tail {
        eprintln!(
            "{file}: warning: line {}: the last line is cut off ({} bytes; {}), as a power cut \
             leaves it: left out",
            torn.line, torn.bytes, torn.error
        );
    }
    for action in &replayed.unknown_actions {
        eprintln!(
            "{file}: operator action {action:?} is not known to this version; kept, not applied"
        );
    }
    if let Some(path) = &args.events {
        let mut lines = String::new();
        for d in &replayed.decisions {
            if let Some(e) = publish::event(d) {
                lines.push_str(&publish::replay_line(&e));
                lines.push('\n');
            }
        }
        if let Err(e) = std::fs::write(path, lines) {
            eprintln!("{}: cannot write: {e}", path.display());
            return 3;
        }
    }
    if !replayed
        .decisions
        .iter()
        .any(|d| matches!(d, Inference::Move { .. }))
    {
        eprintln!("{file}: no move was recognised in the trace; the BPGN has no moves");
    }
    let mut out = std::io::stdout().lock();
    for (i, bpgn) in replayed.game.all_bpgn().iter().enumerate() {
        if i > 0 && writeln!(out).is_err() {
            return 3;
        }
        if out.write_all(bpgn.as_bytes()).is_err() {
            return 3;
        }
    }
    if out.flush().is_err() {
        return 3;
    }
    0
}

/// How many lines of `text` are sensor events (not blank, not `meta`). Lines that are not
/// JSON count: `replay_text` reports them with their line number.
fn sensor_lines(text: &str) -> usize {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| {
            serde_json::from_str::<serde_json::Value>(l).map_or(true, |v| {
                v.get("ev").and_then(|e| e.as_str()) != Some("meta")
            })
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::AlertCode;

    /// An `unknown_tag` line is one `unknown-tag` alert naming the square; the record stays
    /// what the pieces show (no piece is made up for the tag).
    #[test]
    fn an_unknown_tag_is_one_alert_naming_the_square_and_no_piece() {
        let trace = concat!(
            "{\"t\":0,\"ev\":\"board\",\"board\":\"A\",\"fen\":\"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\"}\n",
            "{\"t\":0,\"ev\":\"clock\",\"board\":\"A\",\"white\":180,\"black\":180,\"running\":\"white\"}\n",
            "{\"t\":500,\"ev\":\"unknown_tag\",\"board\":\"A\",\"sq\":\"e3\",\"tag\":\"99 1 2 3 4\"}\n",
            "{\"t\":900,\"ev\":\"square\",\"board\":\"A\",\"sq\":\"e2\",\"piece\":null}\n",
            "{\"t\":1000,\"ev\":\"square\",\"board\":\"A\",\"sq\":\"e4\",\"piece\":\"P\"}\n",
            "{\"t\":2000,\"ev\":\"clock\",\"board\":\"A\",\"white\":178,\"black\":180,\"running\":\"black\"}\n",
        );
        let replayed = replay_text(trace, None).expect("replays");
        let alerts: Vec<_> = replayed
            .decisions
            .iter()
            .filter_map(|d| match d {
                Inference::Alert(a) => Some(a),
                _ => None,
            })
            .collect();
        assert_eq!(alerts.len(), 1, "{alerts:?}");
        assert_eq!(alerts[0].code, AlertCode::UnknownTag);
        assert_eq!(alerts[0].board, Some(crate::rules::BoardId::A));
        assert!(alerts[0].detail.contains("e3"), "{}", alerts[0].detail);
        assert!(
            replayed.game.bpgn().contains("1A. e4 {178}"),
            "{}",
            replayed.game.bpgn()
        );
    }
}
