//! The pages and their assets, embedded in the binary (`include_str!`): no build step.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::AppState;
use super::api::{error, unknown_match};

pub(crate) const INDEX_HTML: &str = include_str!("assets/index.html");
pub(crate) const VIEWER_HTML: &str = include_str!("assets/viewer.html");
pub(crate) const ARBITER_HTML: &str = include_str!("assets/arbiter.html");

/// `(name, content type, body)` of every asset under `/assets/`.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "viewer.css",
        "text/css; charset=utf-8",
        include_str!("assets/viewer.css"),
    ),
    (
        "pieces.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/pieces.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/board.js"),
    ),
    (
        "viewer.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/viewer.js"),
    ),
    (
        "index.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/index.js"),
    ),
    (
        "game.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/game.js"),
    ),
    (
        "health.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/health.js"),
    ),
    (
        "arbiter.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/arbiter.js"),
    ),
];

pub(crate) async fn index() -> Html<&'static str> {
    Html(INDEX_HTML)
}

pub(crate) async fn viewer(State(app): State<AppState>, Path(id): Path<String>) -> Response {
    if app.hub.entry(&id).is_none() {
        return unknown_match(&id);
    }
    Html(VIEWER_HTML).into_response()
}

/// The site's icon (16×16, two boards' squares), so that browsers asking for
/// `/favicon.ico` get one instead of a 404.
pub(crate) const FAVICON: &[u8] = include_bytes!("assets/favicon.ico");

pub(crate) async fn favicon() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("image/x-icon"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=86400"),
            ),
        ],
        FAVICON,
    )
        .into_response()
}

pub(crate) async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, content_type, body)) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            ],
            *body,
        )
            .into_response(),
        None => error(StatusCode::NOT_FOUND, format!("no asset {file:?}")),
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The body of a 401 on `/arbiter/{id}`: a form that asks for the token.
pub(crate) fn login_page(id: &str) -> String {
    let id = escape(id);
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Arbiter token needed · {id}</title><link rel="stylesheet" href="/assets/viewer.css"></head>
<body class="login"><main class="login-box"><h1>Arbiter · {id}</h1>
<p>This view needs the arbiter token (the contents of <code>arbiter_token_file</code>).</p>
<form method="get" action="/arbiter/{id}"><label>Token <input id="token" name="token" type="password" autocomplete="current-password" required autofocus></label>
<button type="submit">Open</button></form><p><a href="/match/{id}">Public viewer</a></p></main></body></html>"#
    )
}
