//! The arbiter view's forms change the record: a corpus game (`1934301`) played up to just
//! after its promotion (`32A. c8=Q+`) and the reply on board B, then through the page
//!
//! * the result form, which names both teams by their players (BPGN: `1-0` is the team of
//!   White on A and Black on B) and offers the ruleset's end reasons from the state: a
//!   resignation recorded, then corrected with "correct the result";
//! * the promotion form: `32A. c8=Q+` declared a rook;
//! * the replace form: the game's last move replaced by another legal move;
//!
//! each checked in the daemon's state (`GET /api/matches/<id>`); a `gap-ambiguous`
//! alert's orders offered as one-click `fill`s (the daemon's refusal names the field:
//! there is no gap); and under `uscf2006`
//! (a flag counts when claimed) a flag fall confirmed with the alert's one button.

use bugbridge::rules::RulesetName;
use bugbridge::rules::notation::bfen::parse_bfen;
use bugbridge::rules::notation::san::San;
use bugbridge_broadcast::wire::{Board, MatchState, Side};
use bugbridge_tests::daemon::{InProcess, MATCH, config};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::http;
use bugbridge_tests::table::Table;
use bugbridge_tests::temp::TempDir;
use serde_json::Value;

use super::driver::Browser;
use super::page::wait_moves;

/// Sets the fields of form `css` (`select`, `input`, a checkbox for `"true"`/`"false"`)
/// and submits it with its button.
async fn submit(browser: &Browser, css: &str, fields: &[(&str, &str)]) {
    let fields: Value = fields
        .iter()
        .map(|(k, v)| Value::from(vec![Value::from(*k), Value::from(*v)]))
        .collect();
    browser
        .eval(
            "const form = document.querySelector(arguments[0]); \
             for (const [k, v] of arguments[1]) { \
               const el = form.querySelector('[name=' + k + ']'); \
               if (el.type === 'checkbox') el.checked = v === 'true'; else el.value = v; \
               if (el.value !== v && el.type !== 'checkbox') throw new Error(k + ' has no ' + v); \
             } \
             return true;",
            vec![Value::from(css), fields],
        )
        .await;
    browser.click(&format!("{css} button[type=submit]")).await;
}

/// Waits for the page's answer to its `n`th action (from 1) and checks it was applied.
async fn applied(browser: &Browser, n: usize) {
    let results = browser
        .wait_for(
            &format!("the page's answer to action {n}"),
            "const r = window.bugbridge.actionResults; return r.length >= arguments[0] ? r : null;",
            vec![n.into()],
        )
        .await;
    assert_eq!(results[n - 1]["status"], 202, "{results}");
    assert_eq!(results[n - 1]["body"]["applied"], true, "{results}");
}

/// Waits until the page has a state for which `test` (a JS expression over `s`) holds,
/// then returns the daemon's.
async fn page_state(
    browser: &Browser,
    addr: std::net::SocketAddr,
    what: &str,
    test: &str,
) -> MatchState {
    browser
        .wait_for(
            what,
            &format!("const s = window.bugbridge.state; return !!s && ({test});"),
            vec![],
        )
        .await;
    http::state(addr, MATCH).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_arbiters_result_promotion_and_replace_forms_change_the_record() {
    let game = TestGame::demo_prefix(104);
    let promotion = game
        .moves
        .iter()
        .position(|m| m.san.contains('='))
        .expect("a promotion in the game");
    assert_eq!(game.moves[promotion].san, "c8=Q+");
    let last = game.moves.len() - 1;
    let records = TempDir::new("browser-arbiter-forms");
    let secrets = TempDir::new("browser-arbiter-forms-token");
    let token = format!("forms-{}-token", std::process::id());
    let token_file = secrets.path().join("arbiter.token");
    std::fs::write(&token_file, format!("{token}\n")).expect("the token file");
    let mut table = Table::start(&game, None);
    let mut cfg = config(&table, None, records.path());
    cfg.http.as_mut().expect("HTTP is on").arbiter_token_file = Some(token_file);
    for (tag, name) in [
        ("WhiteA", "Ann"),
        ("BlackA", "Bob"),
        ("WhiteB", "Cid"),
        ("BlackB", "Dee"),
    ] {
        cfg.tags.insert(tag.to_owned(), name.to_owned());
    }
    let daemon = InProcess::start(cfg).await;
    let addr = daemon.http();
    let browser = Browser::start().await;
    browser
        .goto(&format!("http://{addr}/arbiter/{MATCH}?token={token}"))
        .await;
    table.synced().await;

    // The result form: the teams by name, the ruleset's end reasons, no "correct" yet.
    let truth = http::state(addr, MATCH).await;
    let form = browser
        .wait_for(
            "the result form filled from the state",
            "const f = document.getElementById('act-result'); \
             const s = window.bugbridge.state; \
             if (!s || !s.end_reasons) return null; \
             const reasons = [...f.querySelectorAll('select[name=reason] option')].map(o => o.textContent); \
             if (reasons.join() !== s.end_reasons.join()) return null; \
             return { results: [...f.querySelectorAll('select[name=result] option')].map(o => [o.value, o.textContent]), \
                      reasons, correct: !document.getElementById('correct-label').hidden };",
            vec![],
        )
        .await;
    assert_eq!(
        form["results"],
        serde_json::json!([
            ["1-0", "1-0 Ann & Dee win"],
            ["0-1", "0-1 Bob & Cid win"],
            ["1/2-1/2", "1/2-1/2 draw"]
        ]),
        "{form}"
    );
    assert_eq!(form["reasons"], serde_json::json!(truth.end_reasons));
    assert!(!truth.end_reasons.iter().any(|r| r == "flag-claim"));
    assert_eq!(form["correct"], false, "{form}");

    table
        .play_moves(game.moves.len(), &mut async |k| {
            wait_moves(&browser, k).await
        })
        .await;

    // Promotion: 32A. c8=Q+ was a rook.
    let token_of = |i: usize| {
        let m = &game.moves[i];
        (m.board, m.number, m.side)
    };
    let (board, number, side) = token_of(promotion);
    assert_eq!((board, side), (Board::A, Side::White));
    submit(
        &browser,
        "#act-promotion",
        &[
            ("board", "A"),
            ("number", &number.to_string()),
            ("side", "white"),
            ("piece", "r"),
        ],
    )
    .await;
    applied(&browser, 1).await;
    let state = page_state(
        &browser,
        addr,
        "the promotion corrected on the page",
        "s.moves.some(m => m.san.startsWith('c8=R'))",
    )
    .await;
    assert!(
        state.moves.iter().any(|m| m.san.starts_with("c8=R")),
        "{:?}",
        state.moves
    );
    assert_eq!(state.moves.len(), game.moves.len());

    // Replace: the game's last move by another legal one.
    let (board, number, side) = token_of(last);
    let before = parse_bfen(&game.moves[last - 1].bfen, RulesetName::Fide.ruleset())
        .expect("the BFEN before the last move");
    let pos = if board == Board::A {
        &before.a.position
    } else {
        &before.b.position
    };
    let other = pos
        .legal_moves()
        .iter()
        .map(|m| San::from_move(pos, m).to_string())
        .find(|san| *san != game.moves[last].san)
        .expect("another legal move");
    submit(
        &browser,
        "#act-replace",
        &[
            ("board", board.as_str()),
            ("number", &number.to_string()),
            (
                "side",
                if side == Side::White {
                    "white"
                } else {
                    "black"
                },
            ),
            ("san", &other),
        ],
    )
    .await;
    applied(&browser, 2).await;
    let state = page_state(
        &browser,
        addr,
        "the replaced move on the page",
        &format!(
            "s.moves.length > {last} && s.moves[{last}].san === {}",
            Value::from(other.clone())
        ),
    )
    .await;
    let entry = &state.moves[last];
    assert_eq!(
        (entry.board, entry.number, entry.san.as_str()),
        (board, number, other.as_str())
    );

    // Result: 0-1 by resignation, then corrected to a draw by agreement.
    submit(
        &browser,
        "#act-result",
        &[("result", "0-1"), ("reason", "resignation")],
    )
    .await;
    browser.accept_dialog("Record 0-1 (resignation)").await;
    applied(&browser, 3).await;
    let state = page_state(&browser, addr, "the result on the page", "!!s.result").await;
    let result = state.result.expect("a result");
    assert_eq!(
        (result.result.as_str(), result.reason.as_str()),
        ("0-1", "resignation")
    );
    browser
        .wait_for(
            "the correct checkbox offered for the ended game",
            "return !document.getElementById('correct-label').hidden;",
            vec![],
        )
        .await;
    submit(
        &browser,
        "#act-result",
        &[
            ("result", "1/2-1/2"),
            ("reason", "draw-agreement"),
            ("correct", "true"),
        ],
    )
    .await;
    browser.accept_dialog("correcting the result").await;
    applied(&browser, 4).await;
    let state = page_state(
        &browser,
        addr,
        "the corrected result on the page",
        "!!s.result && s.result.result === '1/2-1/2'",
    )
    .await;
    let result = state.result.expect("a result");
    assert_eq!(
        (result.result.as_str(), result.reason.as_str()),
        ("1/2-1/2", "draw-agreement")
    );
    browser.screenshot("browser-arbiter-forms").await;

    // A `gap-ambiguous` alert (its `detail` as the daemon writes it) gets one button per
    // order it lists; a click posts that order as a `fill` (refused here: board B has no
    // gap, and the refusal names the field).
    let choices = browser
        .eval(
            "window.bugbridge.showAlert({ seq: 99999, t: 1000, kind: 'alert', code: 'gap-ambiguous', \
               board: 'B', side: 'white', number: 3, san: 'Nf3 e5 Nc3', game: 1, wall: Date.now(), \
               detail: 'board B: the 3 plies played while the link was down could have come in other orders; \
recorded [Nf3 e5 Nc3], also possible [Nc3 e5 Nf3]; the arbiter may pick one (fill) or replace a move' }); \
             return [...document.querySelectorAll('#alerts li[data-seq=\"99999\"] button.fill-choice')].map(b => b.textContent);",
            vec![],
        )
        .await;
    assert_eq!(
        choices,
        serde_json::json!(["Fill Nf3 e5 Nc3", "Fill Nc3 e5 Nf3"])
    );
    browser
        .click("#alerts li[data-seq=\"99999\"] button.fill-choice:nth-of-type(2)")
        .await;
    let results = browser
        .wait_for(
            "the page's answer to the fill",
            "const r = window.bugbridge.actionResults; return r.length >= 5 ? r[4] : null;",
            vec![],
        )
        .await;
    assert_eq!(
        results["sent"],
        serde_json::json!({"action": "fill", "board": "B", "moves": ["Nc3", "e5", "Nf3"]}),
        "{results}"
    );
    assert_eq!(results["status"], 400, "{results}");
    assert_eq!(results["body"]["field"], "board", "{results}");

    // A `kind-undetermined` alert (an occupancy-only board's drop) gets one button per
    // choice the daemon offers, shown in the alert; a click posts its action as it stands.
    let labels = browser
        .eval(
            "window.bugbridge.showAlert({ seq: 99998, t: 2000, kind: 'alert', code: 'kind-undetermined', \
               board: 'A', side: 'white', number: 40, san: 'N@f3', game: 1, wall: Date.now(), \
               detail: 'board A: the piece dropped on f3 may be a knight, bishop: the board senses only occupancy (recorded as a knight until the arbiter says)', \
               choices: [ \
                 { label: 'N@f3', post: { action: 'replace', board: 'A', number: 40, side: 'white', san: 'N@f3' } }, \
                 { label: 'B@f3', post: { action: 'replace', board: 'A', number: 40, side: 'white', san: 'B@f3' } } ] }); \
             const li = document.querySelector('#alerts li[data-seq=\"99998\"]'); \
             const box = li.getBoundingClientRect(); \
             return [...li.querySelectorAll('button.choice')].map(b => { \
               const r = b.getBoundingClientRect(); \
               return [b.textContent, r.width > 0 && r.height > 0 && r.left >= box.left - 1 && r.right <= box.right + 1]; });",
            vec![],
        )
        .await;
    assert_eq!(
        labels,
        serde_json::json!([["N@f3", true], ["B@f3", true]]),
        "each choice a visible button inside its alert"
    );
    browser
        .click("#alerts li[data-seq=\"99998\"] button.choice:nth-of-type(2)")
        .await;
    let results = browser
        .wait_for(
            "the page's answer to the choice",
            "const r = window.bugbridge.actionResults; return r.length >= 6 ? r[5] : null;",
            vec![],
        )
        .await;
    assert_eq!(
        results["sent"],
        serde_json::json!({"action": "replace", "board": "A", "number": 40, "side": "white", "san": "B@f3"}),
        "{results}"
    );
    // The game has no 40th move: refused, naming the field.
    assert_eq!(results["status"], 400, "{results}");

    // A board resting on a move it cannot tell offers each reading to enter (`fill`): its
    // choices, labelled with whole moves, wrap inside the alert at every width, a phone's
    // included, with nothing overlapping, cut or scrolling sideways.
    let buttons = browser
        .eval(
            "window.bugbridge.showAlert({ seq: 99997, t: 3000, kind: 'alert', code: 'occupancy-stalled', \
               board: 'A', side: 'white', number: 19, san: 'Kg1', game: 1, wall: Date.now(), \
               detail: 'board A: resting for 8 s on Kg1, which the board shows as it would show Kxg2 set straight onto its victim and the opponent\\'s drop on g1; the board\\'s next move tells, or the arbiter enters one (fill)', \
               choices: [ \
                 { label: '19. Kg1', post: { action: 'fill', board: 'A', moves: ['Kg1'] } }, \
                 { label: '19. Kxg2 19... P@g1', post: { action: 'fill', board: 'A', moves: ['Kxg2', 'P@g1'] } }, \
                 { label: '19. Kxg2 19... N@g1', post: { action: 'fill', board: 'A', moves: ['Kxg2', 'N@g1'] } }, \
                 { label: '19. Kxg2 19... B@g1', post: { action: 'fill', board: 'A', moves: ['Kxg2', 'B@g1'] } }, \
                 { label: '19. Kxg2 19... R@g1', post: { action: 'fill', board: 'A', moves: ['Kxg2', 'R@g1'] } }, \
                 { label: '19. Kxg2 19... Q@g1', post: { action: 'fill', board: 'A', moves: ['Kxg2', 'Q@g1'] } } ] }); \
             return document.querySelectorAll('#alerts li[data-seq=\"99997\"] button.choice').length;",
            vec![],
        )
        .await;
    assert_eq!(buttons, serde_json::json!(6), "one button per reading");
    super::layout::assert_renders(&browser, "arbiter-choices", "main, header.chrome").await;

    // A stalled occupancy board offers the most readings an alert carries (24), the longest
    // labels among them: a piece of open kind moving as one of its kinds, and a move an
    // opponent's piece of open kind rules out as its placeholder, entered after a statement
    // of that piece's kind (`(f1=N)`). They wrap inside
    // the alert at every width too, and a click posts the fill with the move it starts at
    // (`number`, `side`), which the daemon checks.
    let labels = browser
        .eval(
            "const kinds = [['Q', 'queen'], ['R', 'rook'], ['B', 'bishop'], ['N', 'knight']]; \
             const choices = kinds.flatMap(([l, k]) => [ \
               { label: '17... ' + l + 'xg5 (e3 a ' + k + ')', post: { action: 'fill', board: 'B', number: 17, side: 'black', moves: [l + 'e3xg5'] } }, \
               { label: '17... ' + l + 'xe1+ (e3 a ' + k + ')', post: { action: 'fill', board: 'B', number: 17, side: 'black', moves: [l + 'e3xe1'] } } ]) \
               .concat(kinds.flatMap(([l, k]) => [ \
               { label: '17... fxg4 (f1 a ' + k + ')', post: { action: 'fill', board: 'B', number: 17, side: 'black', moves: ['(f1=' + l + ')', 'fxg4'] } }, \
               { label: '17... dxc3+ (b2 a ' + k + ')', post: { action: 'fill', board: 'B', number: 17, side: 'black', moves: ['(b2=' + l + ')', 'dxc3'] } } ])) \
               .concat(kinds.flatMap(([l, k]) => [ \
               { label: '17... exf1=' + l + '+ (e2 a pawn)', post: { action: 'fill', board: 'B', number: 17, side: 'black', moves: ['(e2=P)', 'exf1=' + l] } }, \
               { label: '17... e1=' + l + '+ (e2 a pawn)', post: { action: 'fill', board: 'B', number: 17, side: 'black', moves: ['(e2=P)', 'e1=' + l] } } ])); \
             window.bugbridge.showAlert({ seq: 99996, t: 4000, kind: 'alert', code: 'occupancy-stalled', \
               board: 'B', side: 'black', number: 17, san: '', game: 1, wall: Date.now(), \
               detail: 'board B: for 8 s showing what no move explains (emptied: e3 g5; filled: g5); the piece from e3 may have been set straight onto a piece it took (g5 or e1); its moves are taken again once it shows one, or once the arbiter enters them (fill)', \
               choices }); \
             const li = document.querySelector('#alerts li[data-seq=\"99996\"]'); \
             const box = li.getBoundingClientRect(); \
             return [...li.querySelectorAll('button.choice')].map(b => { \
               const r = b.getBoundingClientRect(); \
               return r.width > 0 && r.height > 0 && r.left >= box.left - 1 && r.right <= box.right + 1 ? b.textContent : 'outside: ' + b.textContent; });",
            vec![],
        )
        .await;
    assert_eq!(labels.as_array().map(Vec::len), Some(24), "{labels}");
    assert!(
        labels
            .as_array()
            .into_iter()
            .flatten()
            .all(|l| l.as_str().is_some_and(|l| l.starts_with("17... "))),
        "each reading a visible button inside its alert: {labels}"
    );
    super::layout::assert_renders(&browser, "arbiter-stall-kinds", "main, header.chrome").await;
    browser
        .click("#alerts li[data-seq=\"99996\"] button.choice:nth-of-type(3)")
        .await;
    let results = browser
        .wait_for(
            "the page's answer to the stall's choice",
            "const r = window.bugbridge.actionResults; return r.length >= 7 ? r[6] : null;",
            vec![],
        )
        .await;
    assert_eq!(
        results["sent"],
        serde_json::json!({"action": "fill", "board": "B", "number": 17, "side": "black", "moves": ["Re3xg5"]}),
        "{results}"
    );
    // Refused (this table's boards relay every move: nothing to fill), naming the field.
    assert_eq!(results["status"], 400, "{results}");
    assert!(results["body"]["field"].is_string(), "{results}");

    browser.close().await;
    daemon.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_fall_under_a_claim_ruleset_is_confirmed_in_one_click() {
    use bugbridge_drivers::trace::{BoardId, Side as TraceSide, TraceEvent, TraceLine};
    // Six moves, then board A's running clock reaches zero (uscf2006: the flag counts
    // only when claimed).
    let mut game = TestGame::demo_prefix(6);
    let (white, black, running) = game
        .lines
        .iter()
        .rev()
        .find_map(|l| match l.event {
            TraceEvent::Clock {
                board: BoardId::A,
                white,
                black,
                running: Some(r),
            } => Some((white, black, r)),
            _ => None,
        })
        .expect("board A's clock running");
    let t = game.lines.last().expect("a trace").t + 500;
    let (white, black) = match running {
        TraceSide::White => (0.0, black),
        TraceSide::Black => (white, 0.0),
    };
    game.lines.push(TraceLine {
        t,
        event: TraceEvent::Clock {
            board: BoardId::A,
            white,
            black,
            running: Some(running),
        },
    });
    // The team of the player whose flag fell loses: White on A is the 1-0 team.
    let want = if running == TraceSide::White {
        "0-1"
    } else {
        "1-0"
    };
    let records = TempDir::new("browser-arbiter-flag");
    let secrets = TempDir::new("browser-arbiter-flag-token");
    let token = format!("flag-{}-token", std::process::id());
    let token_file = secrets.path().join("arbiter.token");
    std::fs::write(&token_file, &token).expect("the token file");
    let mut table = Table::start(&game, None);
    let mut cfg = config(&table, None, records.path());
    cfg.ruleset = RulesetName::Uscf2006;
    cfg.http.as_mut().expect("HTTP is on").arbiter_token_file = Some(token_file);
    let daemon = InProcess::start(cfg).await;
    let addr = daemon.http();
    let browser = Browser::start().await;
    browser
        .goto(&format!("http://{addr}/arbiter/{MATCH}?token={token}"))
        .await;
    table.synced().await;
    table
        .play_moves(6, &mut async |k| wait_moves(&browser, k).await)
        .await;
    while table.step().await.is_some() {}

    let label = browser
        .wait_for(
            "the flag-fall alert with its claim button",
            "const b = document.querySelector('#alerts li[data-code=\"flag-fall\"] button.claim'); \
             return b && !b.hidden ? b.textContent : null;",
            vec![],
        )
        .await;
    assert!(
        label.as_str().is_some_and(|l| l.contains(want)),
        "{label} (want {want})"
    );
    assert!(
        http::state(addr, MATCH).await.result.is_none(),
        "not ended before the claim"
    );
    browser
        .click("#alerts li[data-code=\"flag-fall\"] button.claim")
        .await;
    applied(&browser, 1).await;
    let state = page_state(&browser, addr, "the result on the page", "!!s.result").await;
    let result = state.result.expect("a result");
    assert_eq!(
        (result.result.as_str(), result.reason.as_str()),
        (want, "flag-fall")
    );
    browser
        .wait_for(
            "the claim button gone once the game has ended",
            "const b = document.querySelector('#alerts li[data-code=\"flag-fall\"] button.claim'); \
             return !!b && b.hidden;",
            vec![],
        )
        .await;

    browser.close().await;
    daemon.stop().await;
}
