//! Two TabuTronic Sentio boards at a bughouse table: a real corpus game at its real pace,
//! played by emulated Sentio boards on ptys (occupancy readings only, in 64-byte pieces),
//! through `bugbridge run` (a process of its own, with its embedded broker) to an MQTT
//! subscriber.
//!
//! The boards sense only whether a square is occupied, so a drop whose kind neither the hand
//! nor the square tells, a promotion, or a move of a piece of such a kind, is recorded with a
//! placeholder kind and one `kind-undetermined` alert naming the square and the kinds it may
//! be. The record must be the game, move for move, except those moves: each of them must be
//! the game's move on the same squares, flagged by an alert whose choices hold the truth (the
//! move's own, or, for a move of a piece whose kind is a placeholder, the alert that left it
//! undetermined). No move may be wrong or in excess.
//!
//! Until the arbiter corrects them, placeholder kinds stand in the game: a later move of such
//! a piece, a capture of it, a drop from a hand that got the placeholder's kind, are judged
//! against the placeholder (an `illegal-move` or `material-mismatch` alert may follow it), and
//! a mate may be recorded as a check (in this game the last drop mates: with a placeholder
//! on the board it reads as a check). The last move of each board is recorded once the
//! board rests on it (no move comes after it); where the readings are still unsure at the
//! end (after a placeholder) it may be missing, and the test prints what was; the board
//! resting on it then says so, with the move among the choices the arbiter enters in one
//! click.

use std::collections::BTreeMap;

use bugbridge::game::{LIVE_TICK_MS, Match};
use bugbridge::infer::InferConfig;
use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
use bugbridge::rules::{BoardId, ByBoard, RulesetName};
use bugbridge::sensor::decode_trace_lines;
use bugbridge::simulate::Profile;
use bugbridge_broadcast::wire;
use bugbridge_drivers::session::DriverKind;
use bugbridge_tests::child::ChildDaemon;
use bugbridge_tests::clockless::{ClocklessGame, Ply};
use bugbridge_tests::paced::PacedTable;
use bugbridge_tests::temp::TempDir;

/// 79 plies, 105 s of play, 19 drops on both boards, a mate by a drop on board B: the
/// shortest legal game of the corpus with drops.
const GAME: &str = include_str!("../../daemon/tests/data/bpgn/lwerdna-chess/foo.bpgn");

const SEED: u64 = 1;

/// The square a SAN moves to (`Nf3`, `exd6`, `N@f3+`, `e8=Q`), and the role moved there
/// (the dropped piece, the promotion piece, the moving piece).
fn target(san: &str) -> (String, &'static str) {
    let san = san.trim_end_matches(['+', '#']);
    if san.starts_with("O-O") {
        return (String::new(), "king");
    }
    let role = |c: char| match c.to_ascii_uppercase() {
        'K' => "king",
        'Q' => "queen",
        'R' => "rook",
        'B' => "bishop",
        'N' => "knight",
        _ => "pawn",
    };
    let (body, piece) = match san.split_once('=') {
        Some((body, promo)) => (body, role(promo.chars().next().unwrap_or('Q'))),
        None => match san.split_once('@') {
            Some((p, _)) => (san, role(p.chars().next().unwrap_or('P'))),
            None => (san, role(san.chars().next().unwrap_or('P'))),
        },
    };
    let square = body
        .char_indices()
        .rev()
        .find(|&(i, c)| c.is_ascii_digit() && i > 0)
        .map(|(i, _)| body[i - 1..=i].to_owned())
        .unwrap_or_default();
    (square, piece)
}

/// The `kind-undetermined` alert of `want`'s board that names `square` and the true kind
/// among its choices, if any.
fn alert_for<'a>(want: &Ply, square: &str, alerts: &'a [wire::Event]) -> Option<&'a str> {
    let (_, truth) = target(&want.san);
    let board = format!("board {:?}:", want.board);
    alerts
        .iter()
        .filter_map(|a| a.detail.as_deref())
        .find(|d| d.starts_with(&board) && d.contains(&format!(" {square} ")) && d.contains(truth))
}

/// The squares each board's game moves from and to, in its order (`None` for a drop's
/// origin).
fn squares_of(bpgn: &str) -> Vec<(wire::Board, Option<String>, String)> {
    let games = parse_bpgn(bpgn).expect("the game parses");
    let replayed = replay(&games[0], RulesetName::Fide.ruleset()).expect("the game replays");
    replayed
        .moves
        .iter()
        .map(|m| {
            let board = match m.token.board {
                BoardId::A => wire::Board::A,
                BoardId::B => wire::Board::B,
            };
            let to = m.mv.to().to_string();
            (board, m.mv.from().map(|f| f.to_string()), to)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sentio_boards_record_a_real_game_flagging_only_what_occupancy_cannot_tell() {
    let game =
        ClocklessGame::from_bpgn_with(GAME, ByBoard { a: true, b: true }, Profile::Clean, SEED);
    let table = PacedTable::start(&game.lines, [DriverKind::Sentio, DriverKind::Sentio]);
    let dir = TempDir::new("sentio");
    let config = dir.path().join("table.toml");
    table.write_config(&config, "sentio", &dir.path().join("games"));
    let (daemon, mut sub) = ChildDaemon::run_with_subscriber(
        env!("CARGO_BIN_EXE_bugbridge-e2e"),
        &config,
        "sentio",
        "sentio",
    )
    .await;
    sub.until("both boards connected", |s| {
        s.state()
            .is_some_and(|st| st.boards.A.connected && st.boards.B.connected)
    })
    .await;
    table.play().await;
    table.played_all().await;
    // The last moves are final once the boards have been still for
    // `inference.stable_commit_ms` (800 ms): the game's end, or every move, comes within
    // seconds (a board whose record stopped short never gets there: the bound ends the wait).
    let plies = game.plies.len();
    let ended = sub
        .until_within(std::time::Duration::from_secs(10), |s| {
            s.events.iter().any(|e| e.kind == wire::EventKind::End) || s.moves().len() >= plies
        })
        .await
        && sub.events.iter().any(|e| e.kind == wire::EventKind::End);

    if let Ok(keep) = std::env::var("SENTIO_KEEP") {
        let _ = std::process::Command::new("cp")
            .arg("-r")
            .arg(dir.path())
            .arg(&keep)
            .status();
    }
    let recorded: Vec<Ply> = sub.moves().into_iter().filter_map(Ply::of_event).collect();
    let undetermined: Vec<wire::Event> = sub
        .alerts
        .iter()
        .filter(|a| a.code.as_deref() == Some("kind-undetermined"))
        .cloned()
        .collect();
    let first_placeholder = undetermined.iter().map(|a| a.t).min().unwrap_or(u64::MAX);
    // What a placeholder kind entails until the arbiter corrects it: the moves after it are
    // judged against the placeholder (a capture by the piece, a drop from a hand that
    // holds the placeholder's kind), which may be found illegal or the material wrong.
    let consequences = ["illegal-move", "material-mismatch", "end-undetermined"];
    let mut wrong = Vec::new();
    let mut missing = Vec::new();
    let mut missing_plies: Vec<&Ply> = Vec::new();
    let mut stopped_short = std::collections::BTreeSet::new();
    let mut exact = 0;
    let mut flagged_moves = Vec::new();
    let squares = squares_of(GAME);
    for b in [wire::Board::A, wire::Board::B] {
        let want = game.plies_of(b);
        let moved: Vec<&(wire::Board, Option<String>, String)> =
            squares.iter().filter(|(board, _, _)| *board == b).collect();
        let got: Vec<&Ply> = recorded.iter().filter(|p| p.board == b).collect();
        // Squares holding a piece of undetermined kind (a placeholder until the arbiter
        // says), with the alert that gave its choices.
        let mut placeholders: BTreeMap<String, String> = BTreeMap::new();
        for i in 0..want.len().max(got.len()) {
            let (from, to) = moved
                .get(i)
                .map(|(_, from, to)| (from.clone(), to.clone()))
                .unwrap_or_default();
            let moving = from.as_ref().and_then(|f| placeholders.remove(f));
            placeholders.remove(&to);
            match (got.get(i), want.get(i)) {
                // Whether the move checks or mates, the record tells from the pieces it
                // holds: with a placeholder on the board (until the arbiter settles it) a
                // mate may read as a check.
                (Some(g), Some(w))
                    if g.same_move(w) || (!placeholders.is_empty() && same_but_check(g, w)) =>
                {
                    exact += 1;
                    if let Some(alert) =
                        moving.or_else(|| alert_for(w, &to, &undetermined).map(str::to_owned))
                    {
                        placeholders.insert(to, alert);
                    }
                }
                (Some(g), Some(w))
                    if (g.number, g.side, target(&g.san).0) == (w.number, w.side, to.clone()) =>
                {
                    // The truth among the choices of this move's alert, or of the alert of
                    // the placeholder piece it moves.
                    let (_, truth) = target(&w.san);
                    let alert = alert_for(w, &to, &undetermined)
                        .map(str::to_owned)
                        .or(moving.filter(|a| a.contains(truth)));
                    match alert {
                        Some(alert) => {
                            flagged_moves.push(format!("{g} for {w}"));
                            placeholders.insert(to, alert);
                        }
                        None => wrong.push(format!("recorded {g}, the game has {w}")),
                    }
                }
                (Some(g), Some(w)) => wrong.push(format!("recorded {g}, the game has {w}")),
                (None, Some(w)) => {
                    missing.push(format!("{w}"));
                    missing_plies.push(w);
                    stopped_short.insert(format!("board {}:", w.board.as_str()));
                }
                (Some(g), None) => wrong.push(format!("in excess {g}")),
                (None, None) => {}
            }
        }
    }
    // A board whose record stopped short may say so: `occupancy-stalled` names it.
    let unexplained_alerts: Vec<String> = sub
        .alerts
        .iter()
        .filter(|a| a.code.as_deref() != Some("kind-undetermined"))
        .filter(|a| {
            !(a.t >= first_placeholder && consequences.contains(&a.code.as_deref().unwrap_or("")))
        })
        .filter(|a| {
            !(a.code.as_deref() == Some("occupancy-stalled")
                && stopped_short.iter().any(|b| {
                    a.detail
                        .as_deref()
                        .is_some_and(|d| d.starts_with(b.as_str()))
                }))
        })
        .map(|a| format!("{:?} {:?}", a.code, a.detail))
        .collect();
    // Each names its move as recorded and offers the arbiter its kinds in one click (the
    // rare move of a piece the record has settled while the reading holds it open has none).
    assert!(
        undetermined
            .iter()
            .all(|a| a.number.is_some() && a.side.is_some() && a.san.is_some()),
        "kind-undetermined alerts name their move: {undetermined:#?}"
    );
    let with_choices = undetermined
        .iter()
        .filter(|a| !a.choices.is_empty())
        .count();
    assert!(
        with_choices * 2 >= undetermined.len(),
        "only {with_choices} of {} kind-undetermined alerts offer choices",
        undetermined.len()
    );
    let undetermined_details: Vec<&str> = undetermined
        .iter()
        .filter_map(|a| a.detail.as_deref())
        .collect();
    println!(
        "sentio e2e: {} plies, {exact} exact, {} flagged with the truth among the choices ({} kind-undetermined alerts), {} not recorded: {missing:?}; other alerts after a placeholder: {}",
        game.plies.len(),
        flagged_moves.len(),
        undetermined.len(),
        missing.len(),
        sub.alerts.len() - undetermined.len() - unexplained_alerts.len()
    );
    // No wrong move: each recorded move is the game's, or flagged with the truth among its
    // kinds, in the game's order (a board's record may stop short: see the module's note).
    assert!(
        wrong.is_empty() && unexplained_alerts.is_empty(),
        "wrong moves:\n  {}\nunexplained alerts: {unexplained_alerts:#?}\nflagged: {flagged_moves:#?}\nkind-undetermined alerts: {undetermined_details:#?}",
        wrong.join("\n  ")
    );
    // A board's last move is final once the board rests on it; with readings still
    // running side by side on the other board that may wait (they must all show it), and a
    // move that reads like a capture and a drop waits for a move after it. So a last move
    // may be missing, but only where a placeholder stands (the readings follow from it).
    assert!(
        missing.is_empty() || first_placeholder < u64::MAX,
        "moves missing without a placeholder to explain it: {missing:?}"
    );
    assert!(
        missing.len() <= 2,
        "more than each board's last move missing: {missing:?}"
    );
    // A board resting on a move it cannot tell says so: the arbiter enters it in one click
    // (a quiet move that reads like a capture and a drop: either reading is a choice).
    let bare = |san: &str| san.trim_end_matches(['+', '#']).to_owned();
    let offered = |w: &Ply| {
        sub.alerts.iter().any(|a| {
            a.board == Some(w.board)
                && a.choices
                    .iter()
                    .any(|c| c.label.rsplit(' ').next().map(bare) == Some(bare(&w.san)))
        })
    };
    let unoffered: Vec<String> = missing_plies
        .iter()
        .filter(|w| !offered(w))
        .map(|w| w.to_string())
        .collect();
    assert!(
        unoffered.is_empty(),
        "moves missing and not offered to the arbiter in one click: {unoffered:?}"
    );
    assert!(
        !flagged_moves.is_empty(),
        "the game has drops occupancy cannot tell"
    );
    assert!(
        undetermined.len() >= flagged_moves.len(),
        "one alert per flagged move: {undetermined_details:#?}"
    );
    let last_seq = sub.events.iter().map(|e| e.seq).max().unwrap_or(0);
    sub.until("the BPGN of the last move", |s| {
        s.state().is_some_and(|st| st.seq >= last_seq)
    })
    .await;
    let bpgn = sub.topic("bpgn").unwrap_or_default().to_owned();
    let parsed = parse_bpgn(&bpgn).unwrap_or_else(|e| panic!("{e}:\n{bpgn}"));
    assert_eq!(parsed[0].moves.len(), recorded.len(), "{bpgn}");
    // The game ends by the mate the record sees; with a placeholder on the board a mate may
    // read as a check (as here), and then the arbiter ends the game.
    let mate_seen = game
        .plies
        .last()
        .is_some_and(|w| recorded.iter().any(|g| g.same_move(w)));
    // A mate among pieces whose kinds the board could not tell is left to the arbiter: an
    // `end-undetermined` alert offers the game's result in one click.
    let result_offered = sub.alerts.iter().any(|a| {
        a.code.as_deref() == Some("end-undetermined")
            && a.choices.iter().any(|c| {
                c.label
                    .split(' ')
                    .next()
                    .is_some_and(|r| r == game.result.as_str())
            })
    });
    if mate_seen && !result_offered {
        assert!(ended, "the game ended");
        assert_eq!(parsed[0].team_result(), game.result, "{bpgn}");
    } else if !mate_seen {
        assert!(
            first_placeholder < u64::MAX,
            "a mate missed without a placeholder"
        );
    }
    daemon.terminate().await;
    let journal = dir.path().join("games").join("sentio-1.trace.jsonl");
    replay_publishes_the_same(&journal, &sub.events, &sub.alerts);
}

/// The journal the daemon wrote, played again as a restarted daemon plays it, gives what
/// the daemon published, event for event and alert for alert: `seq`, time, move, kind,
/// detail. The daemon ran its timers (a board at rest makes its move final) at ticks of its
/// own, between the readings, and on for seconds after the last one: played again, they run
/// at the same times.
fn replay_publishes_the_same(
    journal: &std::path::Path,
    events: &[wire::Event],
    alerts: &[wire::Event],
) {
    let text = std::fs::read_to_string(journal).expect("the journal");
    let (_, lines) = decode_trace_lines(&text).expect("the journal reads");
    let config = InferConfig {
        ruleset: RulesetName::Fide.ruleset(),
        clock: ByBoard { a: false, b: false },
        ..InferConfig::default()
    };
    let mut game = Match::new("sentio", BTreeMap::new(), config, None);
    let mut decisions = Vec::new();
    for (t, line) in &lines {
        decisions.extend(game.feed_decoded(*t, line, *t));
    }
    // The ticks after the last reading: the test waited seconds for the last moves.
    let last = lines.last().map_or(0, |(t, _)| *t);
    for n in 1..=100 {
        decisions.extend(game.tick((last / LIVE_TICK_MS + n) * LIVE_TICK_MS));
    }
    let published: Vec<wire::Event> = decisions
        .iter()
        .filter_map(bugbridge::publish::event)
        .collect();
    for (live, alert) in [(events, false), (alerts, true)] {
        let again: Vec<&wire::Event> = published
            .iter()
            .filter(|e| (e.kind == wire::EventKind::Alert) == alert)
            .collect();
        let mut by_seq: BTreeMap<u64, &wire::Event> = BTreeMap::new();
        for e in live {
            by_seq.insert(e.seq, e);
        }
        let stream = if alert { "alerts" } else { "events" };
        assert!(!by_seq.is_empty(), "no {stream} published");
        for (&seq, &e) in &by_seq {
            let i = usize::try_from(seq).expect("seq") - 1;
            let mut again = again.get(i).map(|&a| a.clone());
            if let Some(a) = again.as_mut() {
                // The hub numbers them; an alert carries its game's number and the
                // wall-clock time it was sent.
                a.seq = seq;
                a.wall = e.wall;
                a.game = e.game;
            }
            if again.as_ref() != Some(e) {
                // Kept for whoever reads the failure (the test's directory goes with it).
                let kept = std::env::temp_dir().join(format!(
                    "bugbridge-sentio-{}.trace.jsonl",
                    std::process::id()
                ));
                let _ = std::fs::copy(journal, &kept);
                let fields = |e: Option<&wire::Event>| match serde_json::to_value(e) {
                    Ok(serde_json::Value::Object(m)) => m,
                    _ => serde_json::Map::new(),
                };
                let (again, published) = (fields(again.as_ref()), fields(Some(e)));
                let differ: Vec<String> = published
                    .iter()
                    .filter(|(k, v)| again.get(*k) != Some(*v))
                    .map(|(k, v)| format!("{k}: played again {:?}, published {v}", again.get(k)))
                    .collect();
                panic!(
                    "{stream} seq {seq} differs: {differ:#?}\n(the journal: {})",
                    kept.display()
                );
            }
        }
    }
}

/// Whether `g` and `w` are the same move, told apart only by their check or mate mark.
fn same_but_check(g: &Ply, w: &Ply) -> bool {
    let bare = |san: &str| san.trim_end_matches(['+', '#']).to_owned();
    (g.board, g.side, g.number, bare(&g.san)) == (w.board, w.side, w.number, bare(&w.san))
}
