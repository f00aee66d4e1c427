//! A minimal HTTP/1.1 client over a raw `TcpStream`: `GET` for the JSON API and the BPGN,
//! and a reader of the Server-Sent Events stream. Enough for the daemon's own server
//! (axum/hyper): a status line, headers, then a body that is either chunked or runs to the
//! end of the connection.

use std::net::SocketAddr;

use bugbridge_broadcast::wire;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::within;

/// A response body being read: de-chunked when the server chunks it.
#[derive(Debug)]
struct Body {
    reader: BufReader<TcpStream>,
    chunked: bool,
    /// Decoded bytes not yet consumed.
    pending: Vec<u8>,
    /// The body has ended.
    done: bool,
    /// The response's headers, names in lower case, in order.
    headers: Vec<(String, String)>,
}

impl Body {
    /// Sends `GET path` and reads the status line and headers.
    async fn get(addr: SocketAddr, path: &str, extra: &str) -> (u16, Body) {
        let mut stream = TcpStream::connect(addr)
            .await
            .unwrap_or_else(|e| panic!("connect to {addr}: {e}"));
        let _ = stream.set_nodelay(true);
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .expect("send the request");
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).await.expect("a status line");
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("GET {path}: bad status line {line:?}"));
        let mut chunked = false;
        let mut headers = Vec::new();
        loop {
            line.clear();
            reader.read_line(&mut line).await.expect("a header line");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let lower = l.to_ascii_lowercase();
            if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                chunked = true;
            }
            if let Some((name, value)) = l.split_once(':') {
                headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
            }
        }
        (
            status,
            Body {
                reader,
                chunked,
                pending: Vec::new(),
                done: false,
                headers,
            },
        )
    }

    /// Reads more of the body into `pending`; `false` at its end.
    async fn fill(&mut self) -> bool {
        if self.done {
            return false;
        }
        if self.chunked {
            let mut size = String::new();
            if self.reader.read_line(&mut size).await.unwrap_or(0) == 0 {
                self.done = true;
                return false;
            }
            let size = size.trim();
            let n = usize::from_str_radix(size.split(';').next().unwrap_or(""), 16)
                .unwrap_or_else(|_| panic!("bad chunk size {size:?}"));
            if n == 0 {
                self.done = true;
                return false;
            }
            let mut chunk = vec![0; n + 2];
            self.reader
                .read_exact(&mut chunk)
                .await
                .expect("a whole chunk");
            chunk.truncate(n);
            self.pending.extend_from_slice(&chunk);
        } else {
            let mut buf = [0u8; 4096];
            let n = self.reader.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                self.done = true;
                return false;
            }
            self.pending.extend_from_slice(&buf[..n]);
        }
        true
    }

    /// The next line of the body (without its line end), `None` at its end.
    async fn line(&mut self) -> Option<String> {
        loop {
            if let Some(i) = self.pending.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.pending.drain(..=i).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Some(String::from_utf8_lossy(&line).into_owned());
            }
            if !self.fill().await {
                return None;
            }
        }
    }

    /// The rest of the body.
    async fn rest(mut self) -> String {
        while self.fill().await {}
        String::from_utf8_lossy(&self.pending).into_owned()
    }
}

/// `GET path` on the daemon's HTTP server: the status and the body.
///
/// # Panics
///
/// When the server cannot be reached or answers something that is not HTTP.
pub async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    within(&format!("GET {path}"), async {
        let (status, body) = Body::get(addr, path, "Connection: close\r\n").await;
        (status, body.rest().await)
    })
    .await
}

/// `GET path`: the status, the headers (names in lower case, in order) and the body.
///
/// # Panics
///
/// When the server cannot be reached or answers something that is not HTTP.
pub async fn get_with_headers(
    addr: SocketAddr,
    path: &str,
) -> (u16, Vec<(String, String)>, String) {
    within(&format!("GET {path}"), async {
        let (status, mut body) = Body::get(addr, path, "Connection: close\r\n").await;
        let headers = std::mem::take(&mut body.headers);
        (status, headers, body.rest().await)
    })
    .await
}

/// `GET /api/matches/<id>`: the match's current state.
///
/// # Panics
///
/// When the answer is not 200 with a state.
pub async fn state(addr: SocketAddr, id: &str) -> wire::MatchState {
    let (status, body) = get(addr, &format!("/api/matches/{id}")).await;
    assert_eq!(status, 200, "GET /api/matches/{id}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("not a state ({e}): {body}"))
}

/// One Server-Sent Events message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseMessage {
    /// The `event:` name (`None` for the unnamed messages, the events).
    pub event: Option<String>,
    /// The `id:`.
    pub id: Option<String>,
    /// The `data:` lines, joined by `\n`.
    pub data: String,
}

/// A reader of `GET /api/matches/<id>/stream`.
#[derive(Debug)]
pub struct Sse {
    body: Body,
    /// The latest `state` message.
    pub state: Option<wire::MatchState>,
    /// The events (unnamed messages) received, in order.
    pub events: Vec<wire::Event>,
}

impl Sse {
    /// Opens the match's event stream.
    ///
    /// # Panics
    ///
    /// When the server refuses it.
    pub async fn open(addr: SocketAddr, id: &str) -> Sse {
        Sse::open_path(addr, &format!("/api/matches/{id}/stream")).await
    }

    /// Opens another event stream of the server (the relay's `/api/tournament/stream`).
    ///
    /// # Panics
    ///
    /// When the server refuses it.
    pub async fn open_path(addr: SocketAddr, path: &str) -> Sse {
        let (status, body) = within(
            "the event stream",
            Body::get(addr, path, "Accept: text/event-stream\r\n"),
        )
        .await;
        assert_eq!(status, 200, "GET {path}");
        Sse {
            body,
            state: None,
            events: Vec::new(),
        }
    }

    /// The next message (comments and `retry:` skipped), `None` when the stream ends.
    pub async fn next(&mut self) -> Option<SseMessage> {
        let mut msg = SseMessage::default();
        let mut data: Vec<String> = Vec::new();
        loop {
            let line = within("a line of the event stream", self.body.line()).await?;
            if line.is_empty() {
                if data.is_empty() {
                    msg = SseMessage::default();
                    continue;
                }
                msg.data = data.join("\n");
                break;
            }
            let (field, value) = line.split_once(':').unwrap_or((line.as_str(), ""));
            let value = value.strip_prefix(' ').unwrap_or(value).to_owned();
            match field {
                "event" => msg.event = Some(value),
                "id" => msg.id = Some(value),
                "data" => data.push(value),
                _ => {}
            }
        }
        match msg.event.as_deref() {
            Some("state") => {
                self.state = Some(
                    serde_json::from_str(&msg.data)
                        .unwrap_or_else(|e| panic!("not a state ({e}): {}", msg.data)),
                );
            }
            None => self.events.push(
                serde_json::from_str(&msg.data)
                    .unwrap_or_else(|e| panic!("not an event ({e}): {}", msg.data)),
            ),
            Some(_) => {}
        }
        Some(msg)
    }

    /// Reads until the latest state satisfies `f`.
    ///
    /// # Panics
    ///
    /// When the stream ends first.
    pub async fn until_state(&mut self, mut f: impl FnMut(&wire::MatchState) -> bool) {
        while !self.state.as_ref().is_some_and(&mut f) {
            assert!(self.next().await.is_some(), "the event stream ended first");
        }
    }

    /// Reads until the state holds at least `n` moves.
    ///
    /// # Panics
    ///
    /// When the stream ends first.
    pub async fn wait_moves(&mut self, n: usize) {
        while self.state.as_ref().is_none_or(|s| s.moves.len() < n) {
            assert!(
                self.next().await.is_some(),
                "the event stream ended before move {n}"
            );
        }
    }
}
