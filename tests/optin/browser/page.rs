//! What the viewer page shows, read from its DOM, and the check that it is the daemon's
//! state: every square's piece, the holdings, the four clocks, the move list.
//!
//! The oracle is the daemon's own reading of the BFEN of `GET /api/matches/<id>`
//! (`bugbridge::rules::notation::bfen`), not the page's parser.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use bugbridge::rules::notation::bfen::parse_bfen;
use bugbridge::rules::{BoardId, RulesetName, Square, holdings_string};
use bugbridge_broadcast::wire::{self, MatchState};
use bugbridge_tests::{LIMIT, http, within};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::driver::Browser;

/// How much more than the time since the page received a reading its running clock may have
/// been counted down: `viewer.js` also subtracts the reading's age when it arrived, capped
/// at 2 s (against skew between the server's and the browser's clocks), and the text shows
/// whole seconds (1 s) and is refreshed every 100 ms.
const TICK: f64 = 3.1;

/// Reads the page: its state and what its DOM shows.
const SNAPSHOT: &str = r##"
const api = window.bugbridge;
const text = (el) => (el ? el.textContent : null);
const squares = [];
for (const el of document.querySelectorAll("[data-board][data-square]")) {
  const pieces = [...el.querySelectorAll("[data-piece]")];
  squares.push({
    board: el.dataset.board,
    square: el.dataset.square,
    pieces: pieces.map((p) => p.dataset.piece).join(""),
    promoted: pieces.some((p) => p.classList.contains("promoted")),
    from: el.classList.contains("from"),
    to: el.classList.contains("to") || el.classList.contains("drop"),
  });
}
const holdings = [];
for (const el of document.querySelectorAll(".holdings [data-piece]")) {
  const box = el.closest(".holdings");
  holdings.push({
    board: box.dataset.board || "",
    color: box.dataset.color || "",
    piece: el.dataset.piece,
    count: Number(el.dataset.count || "1"),
  });
}
const clocks = {};
for (const el of document.querySelectorAll(".clock[data-board][data-color]")) {
  clocks[el.dataset.board + "-" + el.dataset.color] = {
    text: el.textContent,
    running: el.classList.contains("running"),
  };
}
const moves = [...document.querySelectorAll("#moves li")].map(
  (li) => text(li.querySelector(".tok")) + " " + text(li.querySelector(".san")));
const result = document.getElementById("result");
return {
  now: Date.now(),
  receivedAt: api ? api.receivedAt : 0,
  state: api ? api.state : null,
  connected: api ? api.connected : false,
  stateCount: api ? api.stateCount : 0,
  squares,
  holdings,
  clocks,
  pieces: document.querySelectorAll("[data-piece]").length,
  moves,
  result: result && !result.hidden ? result.textContent : null,
};
"##;

/// The page as read by [`SNAPSHOT`].
#[derive(Debug)]
pub(crate) struct Snapshot {
    /// The whole `snapshot` value, for failure messages.
    pub(crate) raw: Value,
    /// The state the page last received (`window.bugbridge.state`).
    pub(crate) state: Option<MatchState>,
    /// How many `state` messages it has received since it loaded.
    pub(crate) state_count: u64,
    /// The `#result` banner's text when it is shown.
    pub(crate) result: Option<String>,
}

/// Reads the page.
pub(crate) async fn snapshot(browser: &Browser) -> Snapshot {
    let raw = browser.eval(SNAPSHOT, vec![]).await;
    let state = match &raw["state"] {
        Value::Null => None,
        v => Some(
            serde_json::from_value(v.clone())
                .unwrap_or_else(|e| panic!("window.bugbridge.state is not a state ({e}): {v}")),
        ),
    };
    Snapshot {
        state,
        state_count: raw["stateCount"].as_u64().unwrap_or(0),
        result: raw["result"].as_str().map(str::to_owned),
        raw,
    }
}

/// The clock text as the viewer writes it (`fmt` in `viewer.js`): tenths under 20 s,
/// else `m:ss` or `h:mm:ss`. (At an exact half tenth JavaScript's `toFixed` rounds up and
/// Rust to even; the clocks compared exactly are stopped ones, in whole seconds.)
#[must_use]
pub(crate) fn clock_text(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "–:––".into();
    }
    let s = seconds.max(0.0);
    if s < 20.0 {
        return format!("{s:.1}");
    }
    // Whole seconds of a clock: far below u64::MAX.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let whole = s.floor() as u64;
    let (h, m, sec) = (whole / 3600, whole % 3600 / 60, whole % 60);
    if h > 0 {
        format!("{h}:{m:02}:{sec:02}")
    } else {
        format!("{m}:{sec:02}")
    }
}

/// The seconds a clock text shows (the inverse of [`clock_text`], to the shown precision).
fn parse_clock(text: &str) -> Option<f64> {
    if text.contains(':') {
        text.split(':').try_fold(0.0, |acc, part| {
            Some(acc * 60.0 + part.parse::<f64>().ok()?)
        })
    } else {
        text.parse().ok()
    }
}

/// Waits until the page has received the daemon's current state (the same as `GET
/// /api/matches/<id>`, clocks included) and returns both.
pub(crate) async fn caught_up(
    browser: &Browser,
    addr: SocketAddr,
    id: &str,
) -> (MatchState, Snapshot) {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let truth = http::state(addr, id).await;
        let page = snapshot(browser).await;
        if page.state.as_ref() == Some(&truth) {
            return (truth, page);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {LIMIT:?}: the page's state {:?} is not the daemon's {truth:?}",
            page.state
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

fn board_letter(b: BoardId) -> &'static str {
    match b {
        BoardId::A => "A",
        BoardId::B => "B",
    }
}

fn sorted(s: &str) -> String {
    let mut v: Vec<char> = s.chars().collect();
    v.sort_unstable();
    v.into_iter().collect()
}

/// Asserts that the page shows `truth`: every square of both boards holds the BFEN's piece
/// (and only it, promoted ones marked), the holdings boxes hold each side's pieces in hand
/// with their counts, the four clocks read the state's times (stopped ones exactly as
/// `viewer.js` formats them, the running one counted down by the time since the page
/// received the reading plus at most [`TICK`]; a clock never read shows nothing), the move
/// list is the state's, and nothing else carries a piece.
pub(crate) fn assert_shows(page: &Snapshot, truth: &MatchState, when: &str) {
    let raw = &page.raw;
    let ctx = || format!("{when}: page {raw}\nstate {truth:?}");
    let boards = parse_bfen(&truth.bfen, RulesetName::Fide.ruleset())
        .unwrap_or_else(|e| panic!("{when}: the daemon's BFEN {:?}: {e}", truth.bfen));
    let squares = raw["squares"].as_array().expect("squares");
    assert_eq!(squares.len(), 128, "64 squares per board; {}", ctx());

    // Seconds since the page received the state (both clocks are the browser's).
    let since = match (raw["now"].as_f64(), raw["receivedAt"].as_f64()) {
        (Some(now), Some(at)) => ((now - at) / 1000.0).max(0.0),
        _ => panic!("{when}: no receipt time on the page"),
    };
    let mut placed = 0;
    let mut held_total = 0;
    for (id, position) in [
        (BoardId::A, &boards.a.position),
        (BoardId::B, &boards.b.position),
    ] {
        let b = board_letter(id);
        let wb = if b == "A" {
            wire::Board::A
        } else {
            wire::Board::B
        };
        let info = truth.boards.get(wb);
        let last = info.last_move.as_ref();
        let mut seen = BTreeMap::new();
        for sq in squares.iter().filter(|s| s["board"] == b) {
            let name = sq["square"].as_str().expect("data-square").to_owned();
            let square: Square = name
                .parse()
                .unwrap_or_else(|_| panic!("data-square {name:?}"));
            let want = position
                .board()
                .piece_at(square)
                .map(|p| p.char().to_string());
            let got = sq["pieces"].as_str().unwrap_or("");
            assert_eq!(
                got,
                want.as_deref().unwrap_or(""),
                "board {b} {name}; {}",
                ctx()
            );
            assert_eq!(
                sq["promoted"].as_bool(),
                Some(position.promoted().contains(square) && want.is_some()),
                "board {b} {name}: promoted mark; {}",
                ctx()
            );
            let from = last.and_then(|m| m.from.as_deref()) == Some(name.as_str());
            let to = last.is_some_and(|m| m.to == name);
            assert_eq!(
                sq["from"].as_bool(),
                Some(from),
                "board {b} {name}: last-move origin"
            );
            assert_eq!(
                sq["to"].as_bool(),
                Some(to),
                "board {b} {name}: last-move target"
            );
            placed += usize::from(want.is_some());
            assert!(seen.insert(name, ()).is_none(), "board {b}: a square twice");
        }
        assert_eq!(seen.len(), 64, "board {b}: 64 distinct squares; {}", ctx());

        // Holdings: each letter in its colour's box, counts as in the BFEN and the state.
        let want = holdings_string(position.pockets());
        assert_eq!(
            sorted(&want),
            sorted(&info.holdings),
            "{when}: board {b}: the state's holdings disagree with its BFEN"
        );
        let mut got = String::new();
        for h in raw["holdings"]
            .as_array()
            .expect("holdings")
            .iter()
            .filter(|h| h["board"] == b)
        {
            let piece = h["piece"].as_str().expect("data-piece");
            let color = if piece.chars().all(|c| c.is_ascii_uppercase()) {
                "white"
            } else {
                "black"
            };
            assert_eq!(
                h["color"],
                color,
                "board {b}: {piece} in the wrong box; {}",
                ctx()
            );
            let n = h["count"].as_u64().expect("data-count");
            for _ in 0..n {
                got.push_str(piece);
            }
            held_total += 1;
        }
        assert_eq!(
            sorted(&got),
            sorted(&want),
            "board {b}: holdings; {}",
            ctx()
        );

        // Clocks.
        let clock = match wb {
            wire::Board::A => &truth.clocks.A,
            wire::Board::B => &truth.clocks.B,
        };
        for (side, name, value) in [
            (wire::Side::White, "white", clock.white),
            (wire::Side::Black, "black", clock.black),
        ] {
            let shown = &raw["clocks"][format!("{b}-{name}")];
            let text = shown["text"].as_str().expect("a clock text");
            let running = clock.running == Some(side) && truth.result.is_none();
            assert_eq!(
                shown["running"].as_bool(),
                Some(running),
                "clock {b} {name}: running mark; {}",
                ctx()
            );
            if clock.unread {
                // Never read (before the first reading, or no clock): no clock shown.
                assert_eq!(
                    text,
                    "",
                    "clock {b} {name}: never read, not shown; {}",
                    ctx()
                );
            } else if running {
                let v = parse_clock(text)
                    .unwrap_or_else(|| panic!("clock {b} {name}: {text:?} is not a time"));
                let floor = value - since - TICK;
                assert!(
                    v <= value + 0.05 && v >= floor,
                    "clock {b} {name}: {text:?} is not {value} s counted down to at most \
                     {floor:.1} s ({since:.1} s since the page received it); {}",
                    ctx()
                );
            } else {
                assert_eq!(text, clock_text(value), "clock {b} {name}; {}", ctx());
            }
        }
    }
    assert_eq!(
        raw["pieces"].as_u64(),
        Some((placed + held_total) as u64),
        "pieces outside the squares and holdings; {}",
        ctx()
    );

    // The move list.
    let moves: Vec<String> = truth
        .moves
        .iter()
        .map(|m| format!("{} {}", m.token(), m.san))
        .collect();
    let shown: Vec<&str> = raw["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(shown, moves, "{when}: the move list");
}

/// Waits until the page has received a state with at least `n` moves.
pub(crate) async fn wait_moves(browser: &Browser, n: usize) {
    browser
        .wait_for(
            &format!("move {n} on the page"),
            "const s = window.bugbridge && window.bugbridge.state; \
             return !!s && (s.moves || []).length >= arguments[0];",
            vec![n.into()],
        )
        .await;
}

/// `POST path` with `headers` and a JSON `body` on the daemon's HTTP server: the status
/// and the body.
pub(crate) async fn post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    within(&format!("POST {path}"), async {
        let mut stream = TcpStream::connect(addr)
            .await
            .unwrap_or_else(|e| panic!("connect to {addr}: {e}"));
        let mut request = format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream
            .write_all(request.as_bytes())
            .await
            .expect("send the request");
        let mut response = Vec::new();
        stream
            .read_to_end(&mut response)
            .await
            .expect("read the response");
        let response = String::from_utf8_lossy(&response).into_owned();
        let status = response
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("POST {path}: not HTTP: {response:?}"));
        let body = response
            .split_once("\r\n\r\n")
            .map_or(String::new(), |(_, b)| b.to_owned());
        (status, body)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::{clock_text, parse_clock};

    #[test]
    fn clock_texts_are_the_viewers() {
        assert_eq!(clock_text(298.0), "4:58");
        assert_eq!(clock_text(60.9), "1:00");
        assert_eq!(clock_text(3725.0), "1:02:05");
        assert_eq!(clock_text(19.96), "20.0");
        assert_eq!(clock_text(7.3), "7.3");
        assert_eq!(clock_text(-3.0), "0.0");
        assert_eq!(parse_clock("4:58"), Some(298.0));
        assert_eq!(parse_clock("1:02:05"), Some(3725.0));
        assert_eq!(parse_clock("7.2"), Some(7.2));
    }
}
