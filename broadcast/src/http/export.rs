//! `?for=<reader>` on the BPGN routes: the BPGN rewritten for a reader that departs from the
//! standard (`bugbridge export --for`). The rewriting belongs to the daemon's BPGN code, which
//! this crate does not depend on: the daemon installs it once with [`set_bpgn_exporter`].
//!
//! What the export changed goes with the response, one `X-Bugbridge-Changed` header per
//! change, as `bugbridge export` says it on stderr.

use std::sync::OnceLock;

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde::Deserialize;

use super::api::error;

/// Rewrites a BPGN text for the reader named (`bughouse.pro`, `pychess`): the new text and
/// what was changed to make it (one line each, games numbered from 1: `#1: ...`), or why it
/// cannot be done (an unknown reader, a game that reader cannot take). The empty text (no
/// game) must export to the empty text for every reader it knows: that is how a reader's
/// name is checked before a whole round is exported game by game.
pub type BpgnExporter = fn(&str, &str) -> Result<(String, Vec<String>), String>;

static EXPORTER: OnceLock<BpgnExporter> = OnceLock::new();

/// Installs the exporter of `?for=` (the first call wins).
pub fn set_bpgn_exporter(exporter: BpgnExporter) {
    let _ = EXPORTER.set(exporter);
}

/// The header saying, one value each, what an export changed.
pub const CHANGED_HEADER: &str = "x-bugbridge-changed";

/// The query string of the BPGN routes.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ForQuery {
    /// The reader to export for.
    #[serde(rename = "for")]
    pub(crate) reader: Option<String>,
}

fn installed() -> Result<BpgnExporter, Box<Response>> {
    EXPORTER.get().copied().ok_or_else(|| {
        Box::new(error(
            StatusCode::NOT_IMPLEMENTED,
            "no BPGN exporter in this server",
        ))
    })
}

/// The body for `query`: the text as it is, or exported for the reader asked for, with what
/// was changed (400 when it cannot be, 501 when no exporter is installed).
pub(crate) fn body_for(
    text: Bytes,
    query: &ForQuery,
) -> Result<(Bytes, Vec<String>), Box<Response>> {
    let Some(reader) = query.reader.as_deref().filter(|r| !r.is_empty()) else {
        return Ok((text, Vec::new()));
    };
    installed()?(&String::from_utf8_lossy(&text), reader)
        .map(|(text, changed)| (Bytes::from(text), changed))
        .map_err(|e| Box::new(error(StatusCode::BAD_REQUEST, e)))
}

/// Appends one `name` header per line, made visible ASCII (`?` for anything else).
pub(crate) fn append_lines(headers: &mut HeaderMap, name: &'static str, lines: &[String]) {
    let name = HeaderName::from_static(name);
    for line in lines {
        let visible: String = line
            .chars()
            .map(|c| {
                if c.is_ascii_graphic() || c == ' ' {
                    c
                } else {
                    '?'
                }
            })
            .collect();
        if let Ok(v) = HeaderValue::from_str(&visible) {
            headers.append(name.clone(), v);
        }
    }
}

/// Several tables' games exported for one reader, each on its own.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct GamesFor {
    /// The exported texts, in the order given.
    pub(crate) texts: Vec<String>,
    /// What was changed: `<match id> #<n>: <change>`.
    pub(crate) changed: Vec<String>,
    /// The games the reader cannot take: `<match id>: <why>`, in the order given.
    pub(crate) left_out: Vec<String>,
}

/// Exports each `(match id, BPGN)` for `reader`: one game the reader cannot take (a Koedem
/// game for pychess) is left out and named rather than failing the others. 400 for a reader
/// the exporter does not know, 501 without an exporter.
pub(crate) fn games_for<'a>(
    games: impl IntoIterator<Item = (&'a str, &'a str)>,
    reader: &str,
) -> Result<GamesFor, Box<Response>> {
    let export = installed()?;
    export("", reader).map_err(|e| Box::new(error(StatusCode::BAD_REQUEST, e)))?;
    let mut out = GamesFor::default();
    for (id, text) in games {
        match export(text, reader) {
            Ok((t, changed)) => {
                out.texts.push(t);
                out.changed
                    .extend(changed.into_iter().map(|c| format!("{id} {c}")));
            }
            Err(e) => out.left_out.push(format!("{id}: {e}")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upper(text: &str, reader: &str) -> Result<(String, Vec<String>), String> {
        match reader {
            "pychess" if text.contains("Koedem") => Err("a Koedem game".into()),
            "pychess" if text.is_empty() => Ok((String::new(), Vec::new())),
            "pychess" => Ok((text.to_uppercase(), vec!["#1: upper case".into()])),
            other => Err(format!("unknown reader {other:?}")),
        }
    }

    #[test]
    fn for_exports_through_the_installed_exporter() {
        let text = Bytes::from_static(b"1A. e4 *\n");
        let none = ForQuery::default();
        assert_eq!(
            body_for(text.clone(), &none).unwrap(),
            (text.clone(), vec![])
        );
        set_bpgn_exporter(upper);
        let pychess = ForQuery {
            reader: Some("pychess".into()),
        };
        assert_eq!(
            body_for(text.clone(), &pychess).unwrap(),
            (
                Bytes::from_static(b"1A. E4 *\n"),
                vec!["#1: upper case".to_owned()]
            )
        );
        let bad = ForQuery {
            reader: Some("lichess".into()),
        };
        let response = body_for(text, &bad).unwrap_err();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn a_round_is_exported_game_by_game_leaving_out_what_the_reader_cannot_take() {
        set_bpgn_exporter(upper);
        let games = [
            ("t1", "1A. e4 *\n"),
            ("t2", "[Variant \"Bughouse Koedem\"]\n1A. d4 *\n"),
            ("t3", "1B. c4 *\n"),
        ];
        let out = games_for(games, "pychess").unwrap();
        assert_eq!(out.texts, ["1A. E4 *\n", "1B. C4 *\n"]);
        assert_eq!(out.changed, ["t1 #1: upper case", "t3 #1: upper case"]);
        assert_eq!(out.left_out, ["t2: a Koedem game"]);
        let unknown = games_for(games, "lichess").unwrap_err();
        assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    }

    #[test]
    fn header_lines_are_made_visible() {
        let mut headers = HeaderMap::new();
        append_lines(
            &mut headers,
            CHANGED_HEADER,
            &["#1: [WhiteA] \"Санёк\"".into(), "#2: ok".into()],
        );
        let values: Vec<&str> = headers
            .get_all(CHANGED_HEADER)
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(values, ["#1: [WhiteA] \"?????\"", "#2: ok"]);
    }
}
