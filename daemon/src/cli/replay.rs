//! `bugbridge replay [--ruleset R] [--events FILE] TRACE`: re-infer a sensor trace into
//! BPGN on stdout; with `--events`, the decisions as JSON lines in the order they were made.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::game::Match;
use crate::infer::{InferConfig, Inference, SensorEvent};
use crate::publish;
use crate::rules::{ByBoard, RulesetName};
use crate::sensor::decode_trace;

use super::check::parse_ruleset;

/// Arguments of `replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The ruleset (default: the trace's `meta`, else fide).
    #[arg(long, value_parser = parse_ruleset)]
    pub ruleset: Option<RulesetName>,
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
}

/// Re-infers the trace `text`.
///
/// # Errors
///
/// A message naming the line of the first bad trace line, or an unknown ruleset in `meta`.
pub fn replay_text(text: &str, ruleset: Option<RulesetName>) -> Result<Replayed, String> {
    let (meta, events, unknown_actions) = decode_trace(text).map_err(|e| e.to_string())?;
    let ruleset = match (ruleset, &meta.ruleset) {
        (Some(r), _) => r,
        (None, Some(name)) => name
            .parse::<RulesetName>()
            .map_err(|e| format!("line 1: meta: {e}"))?,
        (None, None) => RulesetName::Fide,
    };
    let has_clock = |b| {
        events
            .iter()
            .any(|(_, e)| matches!(e, SensorEvent::Clock { board, .. } if *board == b))
    };
    let config = InferConfig {
        ruleset: ruleset.ruleset(),
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
    }
    let mut game = Match::new("replay", tags, config, None);
    let mut decisions = Vec::new();
    let mut last_t = 0;
    for (t, ev) in &events {
        last_t = *t;
        decisions.extend(game.feed(*t, ev, *t));
    }
    // Let every timer run out: clockless commits, drop tolerances, presses' grace.
    let settle = config
        .stable_commit_ms
        .max(config.drop_tolerance_ms)
        .max(config.press_grace_ms);
    decisions.extend(game.tick(last_t.saturating_add(settle + 1)));
    Ok(Replayed {
        game,
        decisions,
        unknown_actions,
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
    let replayed = match replay_text(&text, args.ruleset) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{file}: {e}");
            return 1;
        }
    };
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
