//! `?for=<reader>` on the BPGN routes: the BPGN rewritten for a reader that departs from the
//! standard (`bugbridge export --for`). The rewriting belongs to the daemon's BPGN code, which
//! this crate does not depend on: the daemon installs it once with [`set_bpgn_exporter`].

use std::sync::OnceLock;

use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use serde::Deserialize;

use super::api::error;

/// Rewrites a BPGN text for the reader named (`bughouse.pro`, `pychess`): the new text, or
/// why it cannot (an unknown reader, a game that reader cannot take).
pub type BpgnExporter = fn(&str, &str) -> Result<String, String>;

static EXPORTER: OnceLock<BpgnExporter> = OnceLock::new();

/// Installs the exporter of `?for=` (the first call wins).
pub fn set_bpgn_exporter(exporter: BpgnExporter) {
    let _ = EXPORTER.set(exporter);
}

/// The query string of the BPGN routes.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ForQuery {
    /// The reader to export for.
    #[serde(rename = "for")]
    pub(crate) reader: Option<String>,
}

/// The body for `query`: the text as it is, or exported for the reader asked for (400 when
/// it cannot be, 501 when no exporter is installed).
pub(crate) fn body_for(text: Bytes, query: &ForQuery) -> Result<Bytes, Box<Response>> {
    let Some(reader) = query.reader.as_deref().filter(|r| !r.is_empty()) else {
        return Ok(text);
    };
    let Some(export) = EXPORTER.get() else {
        return Err(Box::new(error(
            StatusCode::NOT_IMPLEMENTED,
            "no BPGN exporter in this server",
        )));
    };
    export(&String::from_utf8_lossy(&text), reader)
        .map(Bytes::from)
        .map_err(|e| Box::new(error(StatusCode::BAD_REQUEST, e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upper(text: &str, reader: &str) -> Result<String, String> {
        match reader {
            "pychess" => Ok(text.to_uppercase()),
            other => Err(format!("unknown reader {other:?}")),
        }
    }

    #[test]
    fn for_exports_through_the_installed_exporter() {
        let text = Bytes::from_static(b"1A. e4 *\n");
        let none = ForQuery::default();
        assert_eq!(body_for(text.clone(), &none).unwrap(), text);
        set_bpgn_exporter(upper);
        let pychess = ForQuery {
            reader: Some("pychess".into()),
        };
        assert_eq!(
            body_for(text.clone(), &pychess).unwrap(),
            Bytes::from_static(b"1A. E4 *\n")
        );
        let bad = ForQuery {
            reader: Some("lichess".into()),
        };
        let response = body_for(text, &bad).unwrap_err();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }
}
