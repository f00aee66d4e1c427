//! The relay's tournament page in headless Chromium: six tables published through the
//! broker (each by its own publisher, with positions of the corpus game `1934301`), a
//! relay with a public delay. The page shows every table's squares as the relay's state
//! says, grouped by round and ordered by the `Table` tag; a table that goes offline shows
//! so; a move and its alert reach the arbiter console and the arbiter's view at once, the
//! public page only after the delay.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use bugbridge_broadcast::mqtt::{Publisher, PublisherOptions};
use bugbridge_broadcast::wire::{
    Board, BoardClock, BoardState, ByBoard, Event, EventKind, MatchState, MoveEntry, Side,
};
use bugbridge_broadcast::{Hub, HubOptions, Update};
use bugbridge_tests::game::TestGame;
use bugbridge_tests::mqtt::RestartableBroker;
use bugbridge_tests::relay::{RunningRelay, TOKEN};
use serde_json::Value;

use super::driver::Browser;

/// Long enough for the live checks to finish well within it on a loaded machine.
const DELAY: Duration = Duration::from_secs(8);

/// `(board, square, piece)` of a BFEN half's placement; promoted pieces as their letter.
fn placement(board: &str, bfen: &str) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    let field = bfen.split_whitespace().next().unwrap_or_default();
    let field = field.split('[').next().unwrap_or_default();
    for (r, rank) in field.split('/').take(8).enumerate() {
        let mut file = 0u8;
        for c in rank.chars() {
            if let Some(d) = c.to_digit(10) {
                file += u8::try_from(d).unwrap_or(0);
            } else if c.is_ascii_alphabetic() {
                let square = format!("{}{}", char::from(b'a' + file), 8 - r);
                out.insert((board.to_owned(), square, c.to_string()));
                file += 1;
            }
        }
    }
    out
}

fn state(game: &TestGame, plies: usize, table: &str) -> MatchState {
    let last = &game.moves[plies - 1];
    let halves: Vec<&str> = last.bfen.split(" | ").collect();
    let board = |i: usize| BoardState {
        bfen: halves[i].to_owned(),
        connected: true,
        physical: None,
        ..BoardState::default()
    };
    let mut tags = std::collections::BTreeMap::new();
    tags.insert("Event".to_owned(), "Browser Open".to_owned());
    tags.insert("Round".to_owned(), "2".to_owned());
    tags.insert("Table".to_owned(), table.to_owned());
    MatchState {
        bfen: last.bfen.clone(),
        boards: ByBoard {
            A: board(0),
            B: board(1),
        },
        moves: game.moves[..plies]
            .iter()
            .map(|m| MoveEntry {
                board: m.board,
                side: m.side,
                number: m.number,
                san: m.san.clone(),
                clock: m.clock,
                flags: Vec::new(),
            })
            .collect(),
        tags,
        ..MatchState::default()
    }
}

struct Publishing {
    hub: Hub,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

fn publishing(broker: &str, id: &str) -> Publishing {
    let (hub, _actions) = Hub::new(HubOptions::default());
    let mut opts = PublisherOptions::from_url(broker).expect("a URL");
    opts.client_id = format!("browser-{id}");
    opts.will_match = Some(id.to_owned());
    let (_handle, publisher) = Publisher::new(hub.clone(), opts).expect("a publisher");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(publisher.run(async {
        let _ = stopped.await;
    }));
    Publishing { hub, stop, task }
}

const CARD_SQUARES: &str = "const card = document.querySelector('.table-card[data-match=\"' + arguments[0] + '\"]'); \
    if (!card) return null; \
    return [...card.querySelectorAll('[data-square]')].flatMap((sq) => { \
      const p = sq.querySelector('[data-piece]'); \
      return p ? [[sq.dataset.board, sq.dataset.square, p.dataset.piece]] : []; });";

/// The text of `id`'s four clocks on the tournament page as rendered (A white, A black,
/// B white, B black): empty for a clock not shown.
async fn card_clocks(browser: &Browser, id: &str) -> Vec<String> {
    let shown = browser
        .eval(
            "return ['A-white', 'A-black', 'B-white', 'B-black'].map((k) => { \
               const c = document.querySelector('.table-card[data-match=\"' + arguments[0] + '\"] [data-clock=\"' + k + '\"]'); \
               return c && c.getClientRects().length > 0 ? c.innerText.trim() : ''; });",
            vec![id.into()],
        )
        .await;
    shown
        .as_array()
        .expect("clocks")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tournament_page_shows_every_table_and_the_public_lags_by_the_delay() {
    let game = TestGame::demo_prefix(40);
    let broker = RestartableBroker::start().await;
    let relay = RunningRelay::start(&broker.url(), "browser-relay", DELAY).await;
    // Ids and Table tags in different orders: the page orders by the tag.
    let tables = [
        ("t1", "3", 10),
        ("t2", "1", 20),
        ("t3", "2", 30),
        ("t4", "6", 5),
        ("t5", "4", 15),
        ("t6", "5", 25),
    ];
    let mut publishers = Vec::new();
    for (id, table, plies) in tables {
        let p = publishing(&broker.url(), id);
        p.hub
            .publish(
                id,
                Update {
                    state: state(&game, plies, table),
                    bpgn: String::new(),
                    events: Vec::new(),
                },
            )
            .expect("a valid id");
        publishers.push(p);
    }
    relay
        .until("the public view holds every table", |r| {
            tables.iter().all(|(id, _, plies)| {
                r.public()
                    .hub()
                    .state(id)
                    .is_some_and(|s| s.moves.len() == *plies)
            })
        })
        .await;

    let browser = Browser::start().await;
    let base = format!("http://{}", relay.http);
    browser.goto(&format!("{base}/")).await;
    browser
        .wait_for(
            "six tables on the page",
            "return document.querySelectorAll('.table-card').length === 6;",
            vec![],
        )
        .await;
    for (id, _, _) in tables {
        let truth = relay.relay.public().hub().state(id).expect("served");
        let mut wanted = placement("A", &truth.boards.A.bfen);
        wanted.extend(placement("B", &truth.boards.B.bfen));
        let shown = browser.eval(CARD_SQUARES, vec![id.into()]).await;
        let shown: BTreeSet<(String, String, String)> = shown
            .as_array()
            .expect("squares")
            .iter()
            .map(|v| {
                let s = |i: usize| v[i].as_str().unwrap_or_default().to_owned();
                (s(0), s(1), s(2))
            })
            .collect();
        assert_eq!(shown, wanted, "{id}: the page's squares are the relay's");
    }
    let order = browser
        .eval(
            "return [...document.querySelectorAll('section.round .table-card')].map((c) => c.dataset.match);",
            vec![],
        )
        .await;
    assert_eq!(
        order,
        Value::from(vec!["t2", "t3", "t1", "t5", "t6", "t4"]),
        "ordered by Table"
    );
    let group = browser
        .eval(
            "const s = document.querySelector('section.round'); return [s.dataset.event, s.dataset.round];",
            vec![],
        )
        .await;
    assert_eq!(group, Value::from(vec!["Browser Open", "2"]));
    browser.screenshot("tournament-page").await;

    // The arbiter console and the arbiter's view of t2 are live; the public page follows
    // after the delay. The move comes with an alert, which only the console shows.
    browser.goto(&format!("{base}/arbiter?token={TOKEN}")).await;
    browser
        .wait_for(
            "the arbiter console connected",
            "const c = document.getElementById('conn'); return !!c && c.dataset.state === 'live';",
            vec![],
        )
        .await;
    let moved = Instant::now();
    let alert = Event {
        board: Some(Board::A),
        code: Some("illegal-move".to_owned()),
        reason: Some("leaves-king-in-check".to_owned()),
        ..Event::new(EventKind::Alert, 21_000)
    };
    publishers[1]
        .hub
        .publish(
            "t2",
            Update {
                state: state(&game, 21, "1"),
                bpgn: String::new(),
                events: vec![alert],
            },
        )
        .expect("a valid id");
    browser
        .wait_for(
            "the alert on the arbiter console",
            "return !!document.querySelector('li.alert[data-match=\"t2\"][data-code=\"illegal-move\"]');",
            vec![],
        )
        .await;
    let console = moved.elapsed();
    assert!(console < DELAY, "the console is not delayed ({console:?})");
    browser
        .goto(&format!("{base}/arbiter/t2?token={TOKEN}"))
        .await;
    browser
        .wait_for(
            "the move on the arbiter's view",
            "const s = window.bugbridge && window.bugbridge.state; return !!s && s.moves.length === 21;",
            vec![],
        )
        .await;
    let live = moved.elapsed();
    assert!(live < DELAY, "the arbiter's view is not delayed ({live:?})");
    // A public visitor (no arbiter cookie).
    browser
        .client()
        .delete_all_cookies()
        .await
        .expect("cookies cleared");
    browser.goto(&format!("{base}/")).await;
    browser
        .wait_for(
            "the move on the public page",
            "const t = window.bugbridge && window.bugbridge.tables.t2; return !!t && t.state.plies === 21;",
            vec![],
        )
        .await;
    let public = moved.elapsed();
    assert!(
        public >= DELAY,
        "the public page lags by the delay ({public:?})"
    );
    // By the delay, not by much more (a generous bound for a loaded machine).
    assert!(
        public < DELAY + Duration::from_secs(15),
        "the public page follows once the delay is over ({public:?})"
    );

    // A table whose daemon stops shows offline (after the delay, like everything public).
    let t3 = publishers.remove(2);
    let _ = t3.stop.send(());
    let _ = t3.task.await;
    browser
        .wait_for(
            "t3 offline on the page",
            "const c = document.querySelector('.table-card[data-match=\"t3\"]'); return !!c && c.dataset.status === 'offline';",
            vec![],
        )
        .await;
    browser.close().await;
    for p in publishers {
        let _ = p.stop.send(());
        let _ = p.task.await;
    }
    relay.stop().await;
}

/// The tournament page and the arbiter console judged by what renders, at a
/// desktop's, a laptop's and a phone's width: within each table's card nothing overlaps,
/// nothing is cut by the card's edge, every name and clock is visible; an offline table
/// keeps its last clock readings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tournament_page_and_the_console_render_without_overlap_at_every_width() {
    let game = TestGame::demo_prefix(30);
    let broker = RestartableBroker::start().await;
    let relay = RunningRelay::start(&broker.url(), "layout-relay", Duration::ZERO).await;
    let mut publishers = Vec::new();
    for (n, plies) in [(1, 12), (2, 30), (3, 7), (4, 21), (5, 9), (6, 4)] {
        let id = format!("lay{n}");
        let p = publishing(&broker.url(), &id);
        let mut st = state(&game, plies, &n.to_string());
        for (key, value) in [
            ("WhiteA", "Alexandra Kosteniuk-Longname"),
            ("BlackA", "Bo"),
            ("WhiteB", "Carl"),
            ("BlackB", "Dmitri Andreikin"),
        ] {
            st.tags.insert(key.to_owned(), value.to_owned());
        }
        st.clocks.at = 1;
        st.clocks.A.white = 181.0;
        st.clocks.A.black = 203.5;
        st.clocks.B.white = 97.0;
        st.clocks.B.black = 12.0;
        match n {
            // The table that goes offline: its clocks were running, read long ago.
            3 => {
                st.clocks.A.running = Some(Side::White);
                st.clocks.B.running = Some(Side::Black);
            }
            // A one-board table: board B is not configured, its clock never read.
            5 => {
                st.boards.B.configured = false;
                st.clocks.B = BoardClock {
                    unread: true,
                    ..BoardClock::default()
                };
            }
            // A table whose clocks were never read (boards without clocks).
            6 => {
                for clock in [&mut st.clocks.A, &mut st.clocks.B] {
                    *clock = BoardClock {
                        unread: true,
                        ..BoardClock::default()
                    };
                }
            }
            _ => {}
        }
        let events = Vec::new();
        p.hub
            .publish(
                &id,
                Update {
                    state: st,
                    bpgn: String::new(),
                    events,
                },
            )
            .expect("a valid id");
        publishers.push(p);
    }
    relay
        .until("every table", |r| {
            (1..=6).all(|n| r.public().hub().state(&format!("lay{n}")).is_some())
        })
        .await;
    // An alert of table 2, for the console, once the relay follows every table.
    let mut st = relay.relay.live().hub().state("lay2").expect("lay2");
    st.moves.pop();
    let alert = Event {
        board: Some(Board::A),
        code: Some("illegal-move".to_owned()),
        reason: Some("leaves-king-in-check".to_owned()),
        ..Event::new(EventKind::Alert, 9_000)
    };
    publishers[1]
        .hub
        .publish(
            "lay2",
            Update {
                state: st,
                bpgn: String::new(),
                events: vec![alert],
            },
        )
        .expect("a valid id");
    relay
        .until("the alert", |r| !r.live().console_alerts(None).is_empty())
        .await;
    // Table 3 goes offline.
    let gone = publishers.remove(2);
    let _ = gone.stop.send(());
    let _ = gone.task.await;
    relay
        .until("lay3 offline", |r| r.public().online("lay3") == Some(false))
        .await;

    let browser = Browser::start().await;
    let base = format!("http://{}", relay.http);
    browser.goto(&format!("{base}/")).await;
    browser
        .wait_for(
            "six tables, one offline",
            "return document.querySelectorAll('.table-card').length === 6 && !!document.querySelector('.table-card[data-status=\"offline\"]');",
            vec![],
        )
        .await;
    // The offline table shows its last readings, not a fresh clock.
    let shown = browser
        .eval(
            "return [...document.querySelectorAll('.table-card[data-match=\"lay3\"] [data-clock]')].map((c) => c.textContent);",
            vec![],
        )
        .await;
    let shown: Vec<String> = shown
        .as_array()
        .expect("clocks")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(shown.len(), 4, "{shown:?}");
    for (text, want) in shown.iter().zip(["3:01", "3:23", "1:37", "0:12"]) {
        assert!(text.ends_with(want), "{shown:?}");
    }
    // Clocks never read show nothing (not a red 0:00): board B of the one-board table,
    // both boards of the table without clocks; board A of the one-board table is shown.
    assert_eq!(
        card_clocks(&browser, "lay5").await,
        ["3:01", "3:23", "", ""],
        "the one-board table's clocks"
    );
    assert_eq!(
        card_clocks(&browser, "lay6").await,
        ["", "", "", ""],
        "the clocks of a table without clocks"
    );
    super::layout::assert_renders(&browser, "tournament-page", ".table-card, header.chrome").await;

    browser.goto(&format!("{base}/arbiter?token={TOKEN}")).await;
    browser
        .wait_for(
            "the alert on the console",
            "return !!document.querySelector('li.alert[data-match=\"lay2\"]');",
            vec![],
        )
        .await;
    super::layout::assert_renders(&browser, "console", "main.console, header.chrome").await;
    // The relay's viewer and arbiter view of a table.
    browser
        .goto(&format!("{base}/arbiter/lay2?token={TOKEN}"))
        .await;
    browser
        .wait_for(
            "the arbiter view's state",
            "return !!(window.bugbridge && window.bugbridge.state);",
            vec![],
        )
        .await;
    super::layout::assert_renders(&browser, "arbiter-view", "main, header.chrome").await;
    browser
        .client()
        .delete_all_cookies()
        .await
        .expect("cookies cleared");
    browser.goto(&format!("{base}/match/lay1")).await;
    browser
        .wait_for(
            "the viewer's state",
            "return !!(window.bugbridge && window.bugbridge.state);",
            vec![],
        )
        .await;
    super::layout::assert_renders(&browser, "viewer", "main, header.chrome").await;
    // The relay's viewer of the one-board table: board A's clocks, none for board B.
    browser.goto(&format!("{base}/match/lay5")).await;
    let clocks = browser
        .wait_for(
            "the one-board table's clocks on the viewer",
            "const s = window.bugbridge && window.bugbridge.state; \
             if (!s || s.id !== 'lay5') return null; \
             const shown = ['A-white', 'A-black', 'B-white', 'B-black'].map((k) => { \
               const c = document.getElementById('clock-' + k); \
               return c && c.getClientRects().length > 0 ? c.innerText.trim() : ''; }); \
             return shown[0] ? shown : null;",
            vec![],
        )
        .await;
    assert_eq!(
        clocks,
        Value::from(vec!["3:01", "3:23", "", ""]),
        "the one-board table's clocks on the relay's viewer"
    );
    super::layout::assert_renders(&browser, "viewer-one-board", "main, header.chrome").await;
    // The relay's viewer of the offline table: told so, its clocks as last read (running,
    // they would have run down to 0.0 since their reading).
    browser.goto(&format!("{base}/match/lay3")).await;
    let clocks = browser
        .wait_for(
            "the offline table's clocks on the viewer",
            "const s = window.bugbridge && window.bugbridge.state; \
             if (!s || s.id !== 'lay3' || window.bugbridge.online !== false) return null; \
             const conn = document.getElementById('conn').textContent; \
             const shown = ['A-white', 'A-black', 'B-white', 'B-black'].map((k) => \
               document.getElementById('clock-' + k).innerText.trim()); \
             return shown[0] ? [conn, ...shown] : null;",
            vec![],
        )
        .await;
    assert_eq!(
        clocks,
        Value::from(vec!["table offline", "3:01", "3:23", "1:37", "12.0"]),
        "the offline table's clocks on the relay's viewer"
    );
    browser.close().await;
    for p in publishers {
        let _ = p.stop.send(());
        let _ = p.task.await;
    }
    relay.stop().await;
}
