//! Serves the viewer with a fixed mid-game position, for looking at the pages by hand:
//! `cargo run -p bugbridge-broadcast --example viewer_demo [ADDR]` (default 127.0.0.1:0),
//! then open the printed address. The arbiter token is `demo`.

use std::time::{SystemTime, UNIX_EPOCH};

use bugbridge_broadcast::http::{ArbiterToken, HttpOptions, serve};
use bugbridge_broadcast::wire::{
    Board, BoardClock, BoardState, ByBoard, Clocks, Event, EventKind, LastMove, MatchState,
    MoveEntry, Side,
};
use bugbridge_broadcast::{Hub, HubOptions, Update};

const A: &str = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQK2R/PPnp b KQkq - 165 171";
const B: &str = "r3k2r/ppp2ppp/2n5/3Q~4/8/5N2/PPP2PPP/R3K2R/BNpq w KQkq - 150 160";

fn mv(board: Board, side: Side, number: u32, san: &str, clock: f64) -> MoveEntry {
    MoveEntry {
        board,
        side,
        number,
        san: san.to_owned(),
        clock: Some(clock),
        flags: Vec::new(),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or("127.0.0.1:0".to_owned());
    let (hub, mut actions) = Hub::new(HubOptions::default());
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let sans = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "d3", "Nf6", "Nc3"];
    let mut moves = Vec::new();
    for (i, san) in sans.iter().enumerate() {
        let side = if i % 2 == 0 { Side::White } else { Side::Black };
        moves.push(mv(Board::A, side, i as u32 / 2 + 1, san, 178.0 - i as f64));
        if i < 7 {
            moves.push(mv(Board::B, side, i as u32 / 2 + 1, "d4", 176.0 - i as f64));
        }
    }
    let state = MatchState {
        bfen: format!("{A} | {B}"),
        boards: ByBoard {
            A: BoardState {
                white: Some("Ann Example".to_owned()),
                black: Some("Bob Sample".to_owned()),
                bfen: A.to_owned(),
                holdings: "PPnp".to_owned(),
                to_move: Side::Black,
                last_move: Some(LastMove {
                    from: Some("b1".to_owned()),
                    to: "c3".to_owned(),
                    drop: None,
                    san: "Nc3".to_owned(),
                    side: Side::White,
                    number: 5,
                    captured: None,
                    handoff: None,
                    grab: None,
                }),
                connected: true,
                configured: true,
                physical: None,
                must_drop_king: Vec::new(),
            },
            B: BoardState {
                white: Some("Cid Demo".to_owned()),
                black: Some("Dee Test".to_owned()),
                bfen: B.to_owned(),
                holdings: "BNpq".to_owned(),
                to_move: Side::White,
                last_move: Some(LastMove {
                    from: None,
                    to: "f3".to_owned(),
                    drop: Some("N".to_owned()),
                    san: "N@f3".to_owned(),
                    side: Side::White,
                    number: 4,
                    captured: None,
                    handoff: None,
                    grab: None,
                }),
                connected: true,
                configured: true,
                physical: None,
                must_drop_king: Vec::new(),
            },
        },
        clocks: Clocks {
            at: now,
            A: BoardClock {
                white: 165.0,
                black: 171.0,
                running: Some(Side::Black),
                unread: false,
            },
            B: BoardClock {
                white: 15.0,
                black: 160.0,
                running: Some(Side::White),
                unread: false,
            },
        },
        moves,
        tags: [("Event".to_owned(), "Club night".to_owned())].into(),
        result: None,
        end_reasons: Vec::new(),
        ..MatchState::default()
    };
    let alert = Event {
        board: Some(Board::B),
        side: Some(Side::Black),
        number: Some(3),
        san: Some("N@f3".to_owned()),
        code: Some("illegal-move".to_owned()),
        reason: Some("drop-not-in-hand".to_owned()),
        detail: Some("Black has no knight in hand".to_owned()),
        ..Event::new(EventKind::Alert, 61_000)
    };
    let update = Update {
        state,
        bpgn: "[Event \"Club night\"]\n\n1A. e4 1a. e5 *\n".to_owned(),
        events: vec![alert],
    };
    if let Err(e) = hub.publish("table-1", update) {
        eprintln!("{e}");
    }
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("http://{}/match/table-1", listener.local_addr()?);
    tokio::spawn(async move {
        while let Some(action) = actions.recv().await {
            println!("operator action: {action:?}");
        }
    });
    let opts = HttpOptions {
        arbiter_token: ArbiterToken::new("demo"),
        ..HttpOptions::default()
    };
    serve(listener, hub, opts, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
}
