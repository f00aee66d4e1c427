//! The traces made outside the project (`../shared/data/outside-traces/`, see its README):
//! an independent generator's link outages with power lost and Koedem games with grabs
//! beside the owner's own moves, each with the game really played. Every one is a
//! regression test, replayed as `bugbridge replay` does and judged against its `.bpgn`:
//!
//! - outages: each board's record is the game's, or a gap flagged `gap-ambiguous` whose
//!   alternatives hold the game's plies, or (the unreachable) a correct prefix and one
//!   `unrecognized-position` alert; no `illegal-move` alert; the record replays through
//!   `bugbridge check`;
//! - Koedem: exact (grab squares included); no `illegal-move` alert; the record replays.
//!
//! A game is judged up to where the rules end it (a generator's game that played on after
//! a mate on one board holds moves no record may have).
//!
//! The shared data is read where it lies, never copied; a missing directory fails.

use std::path::{Path, PathBuf};

use bugbridge::cli::replay::{Replayed, replay_text};
use bugbridge::infer::{AlertCode, Inference, RecordEntry};
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay as replay_bpgn};
use bugbridge::rules::{BoardId, Move, RulesetName};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/outside-traces")
}

/// One move of the game really played.
struct Truth {
    board: BoardId,
    mv: Move,
    san: String,
}

fn strip(san: &str) -> &str {
    san.trim_end_matches(['+', '#'])
}

fn truth(bpgn: &Path, ruleset: RulesetName) -> Vec<Truth> {
    let text = std::fs::read_to_string(bpgn)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", bpgn.display()));
    let games = parse_bpgn(&text).unwrap_or_else(|e| panic!("{}: {e}", bpgn.display()));
    let replayed = replay_bpgn(&games[0], ruleset.ruleset())
        .unwrap_or_else(|e| panic!("{}: {e}", bpgn.display()));
    assert!(replayed.is_legal(), "{}: the game is legal", bpgn.display());
    // The game ends where the rules end it: a generator that played on after a mate on
    // one board wrote moves that no record may hold.
    let end = replayed
        .moves
        .iter()
        .position(|m| m.outcome.end.is_some())
        .map_or(replayed.moves.len(), |i| i + 1);
    replayed.moves[..end]
        .iter()
        .map(|m| Truth {
            board: m.token.board,
            mv: m.mv,
            san: m.canonical_san.clone(),
        })
        .collect()
}

fn replay(trace: &Path) -> Replayed {
    let text = std::fs::read_to_string(trace)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", trace.display()));
    replay_text(&text, None).unwrap_or_else(|e| panic!("{}: {e}", trace.display()))
}

/// Every move the table recorded, games finished at it first.
fn all_moves(r: &Replayed) -> Vec<RecordEntry> {
    let inf = r.game.inferrer();
    let mut out: Vec<RecordEntry> = inf.finished_records().iter().flatten().cloned().collect();
    out.extend(r.game.record().iter().cloned());
    out
}

fn alerts(r: &Replayed, code: AlertCode) -> Vec<String> {
    r.decisions
        .iter()
        .filter_map(|d| match d {
            Inference::Alert(a) if a.code == code => Some(format!(
                "{} {:?} [{}] {}",
                a.t,
                a.board,
                a.san.clone().unwrap_or_default(),
                a.detail
            )),
            _ => None,
        })
        .collect()
}

/// Whether the record, written as BPGN, passes `bugbridge check`.
fn replayable(name: &str, r: &Replayed) -> Result<(), String> {
    let text = r.game.all_bpgn().join("\n");
    let path = std::env::temp_dir().join(format!(
        "bugbridge-outside-{}-{name}.bpgn",
        std::process::id()
    ));
    std::fs::write(&path, &text).map_err(|e| e.to_string())?;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status =
        bugbridge::check::run_with(std::slice::from_ref(&path), None, false, &mut out, &mut err);
    let _ = std::fs::remove_file(&path);
    if status == 0 {
        Ok(())
    } else {
        Err(format!(
            "{}{}\n{text}",
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&err)
        ))
    }
}

/// One board's record against the game's moves of that board; `Ok(true)` when exact.
fn compare_board(
    board: BoardId,
    got: &[&RecordEntry],
    want: &[&Truth],
    alternatives: &[String],
    stopped_alerts: usize,
    grabs: bool,
) -> Result<bool, String> {
    if got.len() > want.len() {
        return Err(format!(
            "board {board}: extra move {} at ply {}",
            got[want.len()].san,
            want.len()
        ));
    }
    let mut exact = true;
    let mut i = 0;
    while i < got.len() {
        let (g, w) = (got[i], want[i]);
        let same = g.mv == w.mv && (!grabs || strip(&g.san) == strip(&w.san));
        if same {
            i += 1;
            continue;
        }
        if !g.flags.gap_ambiguous {
            return Err(format!(
                "board {board} ply {i}: recorded {} ({:?}), the game's {}",
                g.san,
                g.flags.names(),
                w.san
            ));
        }
        let start = (0..=i)
            .rev()
            .take_while(|&k| got[k].flags.gap_ambiguous)
            .last()
            .unwrap_or(i);
        let end = (i..got.len())
            .find(|&k| !got[k].flags.gap_ambiguous)
            .unwrap_or(got.len());
        let plies: Vec<&str> = want[start..end.min(want.len())]
            .iter()
            .map(|t| strip(&t.san))
            .collect();
        let offered = alternatives.iter().any(|a| {
            a.split(['[', ']', '|', ';'])
                .map(|alt| {
                    alt.split_whitespace()
                        .map(strip)
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                })
                .any(|alt| alt == plies)
        });
        if !offered {
            return Err(format!(
                "board {board} ply {i}: ambiguous gap recorded {:?}; the game's {plies:?} is not among the alternatives {alternatives:?}",
                got[start..end]
                    .iter()
                    .map(|e| e.san.as_str())
                    .collect::<Vec<_>>()
            ));
        }
        exact = false;
        i = end;
    }
    if got.len() < want.len() {
        if stopped_alerts != 1 {
            return Err(format!(
                "board {board}: stopped at ply {} of {} with {stopped_alerts} unrecognized-position alerts",
                got.len(),
                want.len()
            ));
        }
        exact = false;
    }
    Ok(exact)
}

/// Judges one trace; panics with every problem found.
fn judge(kind: &str, name: &str, game: &str) {
    let dir = shared().join(kind);
    assert!(
        dir.is_dir(),
        "{}: the shared outside traces are missing",
        dir.display()
    );
    let ruleset = if kind == "koedem" {
        RulesetName::Koedem
    } else {
        RulesetName::Fide
    };
    let want = truth(&dir.join(format!("{game}.bpgn")), ruleset);
    let r = replay(&dir.join(format!("{name}.trace.jsonl")));
    let got = all_moves(&r);
    let mut problems = Vec::new();
    let illegal = alerts(&r, AlertCode::IllegalMove);
    if !illegal.is_empty() {
        problems.push(format!("illegal-move alerts in a legal game: {illegal:#?}"));
    }
    let stopped = alerts(&r, AlertCode::UnrecognizedPosition);
    let ambiguous = alerts(&r, AlertCode::GapAmbiguous);
    let mut exact = true;
    for board in BoardId::ALL {
        let g: Vec<&RecordEntry> = got.iter().filter(|e| e.board == board).collect();
        let w: Vec<&Truth> = want.iter().filter(|t| t.board == board).collect();
        let alts: Vec<String> = ambiguous
            .iter()
            .filter(|a| a.contains(&format!("Some({board:?})")))
            .cloned()
            .collect();
        let on_board = stopped
            .iter()
            .filter(|a| a.contains(&format!("Some({board:?})")))
            .count();
        match compare_board(board, &g, &w, &alts, on_board, kind == "koedem") {
            Ok(e) => exact &= e,
            Err(e) => problems.push(e),
        }
    }
    if kind == "koedem" && !exact {
        problems.push("a Koedem trace must come back exactly".into());
    }
    if let Err(e) = replayable(name, &r) {
        problems.push(format!("the record does not replay: {e}"));
    }
    assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
}

macro_rules! outage {
    ($($test:ident => $name:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            judge("outage", $name, $name);
        }
    )*};
}

outage! {
    outage_39 => "outage-39",
    outage_65 => "outage-65",
    outage_82 => "outage-82",
    outage_104 => "outage-104",
    outage_105 => "outage-105",
    outage_116 => "outage-116",
    outage_122 => "outage-122",
    outage_146 => "outage-146",
    outage_159 => "outage-159",
    outage_169 => "outage-169",
    outage_176 => "outage-176",
    outage_194 => "outage-194",
    outage_202 => "outage-202",
    outage_209 => "outage-209",
    outage_232 => "outage-232",
    outage_252 => "outage-252",
    outage_269 => "outage-269",
    outage_273 => "outage-273",
    outage_277 => "outage-277",
}

macro_rules! koedem {
    ($($test:ident => $name:literal, $game:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            judge("koedem", $name, $game);
        }
    )*};
}

koedem! {
    koedem_2101_noisy => "koedem-2101-noisy", "koedem-2101",
    koedem_3022_noisy => "koedem-3022-noisy", "koedem-3022",
    koedem_3193_noisy => "koedem-3193-noisy", "koedem-3193",
    koedem_3204_clean => "koedem-3204-clean", "koedem-3204",
    koedem_3204_noisy => "koedem-3204-noisy", "koedem-3204",
    koedem_4074_clean => "koedem-4074-clean", "koedem-4074",
    koedem_4195_clean => "koedem-4195-clean", "koedem-4195",
    koedem_4195_noisy => "koedem-4195-noisy", "koedem-4195",
    koedem_4278_clean => "koedem-4278-clean", "koedem-4278",
    koedem_4278_noisy => "koedem-4278-noisy", "koedem-4278",
    koedem_5024_clean => "koedem-5024-clean", "koedem-5024",
    koedem_5087_clean => "koedem-5087-clean", "koedem-5087",
    koedem_5087_noisy => "koedem-5087-noisy", "koedem-5087",
    koedem_5137_clean => "koedem-5137-clean", "koedem-5137",
    koedem_5147_clean => "koedem-5147-clean", "koedem-5147",
    koedem_5216_noisy => "koedem-5216-noisy", "koedem-5216",
    koedem_5240_noisy => "koedem-5240-noisy", "koedem-5240",
    koedem_6040_noisy => "koedem-6040-noisy", "koedem-6040",
    koedem_6070_clean => "koedem-6070-clean", "koedem-6070",
    koedem_6070_noisy => "koedem-6070-noisy", "koedem-6070",
    koedem_6198_noisy => "koedem-6198-noisy", "koedem-6198",
    koedem_6262_clean => "koedem-6262-clean", "koedem-6262",
    koedem_6262_noisy => "koedem-6262-noisy", "koedem-6262",
    koedem_6263_noisy => "koedem-6263-noisy", "koedem-6263",
    koedem_6267_noisy => "koedem-6267-noisy", "koedem-6267",
}

/// Every trace of the directory has its test above: a new one added to the shared data
/// is not left out silently.
#[test]
fn every_outside_trace_has_a_test() {
    let source = include_str!("outside_traces.rs");
    for kind in ["outage", "koedem"] {
        let dir = shared().join(kind);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
            panic!(
                "{}: the shared outside traces are missing: {e}",
                dir.display()
            )
        });
        let mut count = 0;
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if let Some(name) = file.strip_suffix(".trace.jsonl") {
                count += 1;
                assert!(
                    source.contains(&format!("\"{name}\"")),
                    "{file} has no test"
                );
            }
        }
        assert!(count > 0, "{}: no traces", dir.display());
    }
}
