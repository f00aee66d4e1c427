//! `bugbridge export --for bughouse.pro|pychess FILE`: a BPGN file rewritten for a reader
//! that departs from the standard (see `rules::notation::bpgn::export`), on stdout; what
//! was changed, one `changed <file> #<n>: ...` line each, on stderr.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::rules::notation::bpgn::export::{ExportFor, export};

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The reader: bughouse.pro or pychess.
    #[arg(long = "for", value_name = "bughouse.pro|pychess", value_parser = parse_reader)]
    pub reader: ExportFor,
    /// The BPGN file.
    pub file: PathBuf,
}

fn parse_reader(s: &str) -> Result<ExportFor, String> {
    s.parse()
}

pub(super) fn run(args: ExportArgs) -> u8 {
    let file = args.file.display().to_string();
    let text = match std::fs::read_to_string(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{file}: cannot read: {e}");
            return 2;
        }
    };
    match export(&text, args.reader) {
        Ok(exported) => {
            let mut err = std::io::stderr().lock();
            for c in &exported.changes {
                let _ = writeln!(err, "changed {file} {c}");
            }
            let mut out = std::io::stdout().lock();
            if out
                .write_all(exported.text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return 3;
            }
            0
        }
        Err(e) => {
            eprintln!("{file}: {e}");
            1
        }
    }
}

/// The export of `text` for the reader named `reader` (`bughouse.pro`, `pychess`) and what
/// was changed (`#<n>: ...`), as the HTTP routes' `?for=` gives them.
///
/// # Errors
///
/// An unknown reader, or a text the reader cannot take, said in words.
pub fn export_text(text: &str, reader: &str) -> Result<(String, Vec<String>), String> {
    let reader: ExportFor = reader.parse()?;
    export(text, reader)
        .map(|e| (e.text, e.changes))
        .map_err(|e| e.to_string())
}
