//! The reference docs in `docs/` and the README against the code, both ways, so that they
//! cannot drift: every configuration key the reader accepts is documented and every
//! documented key is accepted; the same for event kinds, alert codes, illegal-move and end
//! reasons, operator actions, sensor-trace kinds, HTTP routes, metrics, MQTT topics, BPGN comments
//! and command-line flags. Each list is derived from the code: from the types' own serde
//! implementations (see [`schema`]), from the enums' published codes, or from the one place
//! in the source where the thing is defined (the router, the topic module).

#[path = "docs/schema.rs"]
mod schema;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use bugbridge::config::RawConfig;
use bugbridge::rules::IllegalReason;
use bugbridge_broadcast::wire::{ActionKind, Event, EventKind, MatchState};
use clap::CommandFactory;
use serde::de::DeserializeOwned;

use schema::{Shape, schema};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The section of `doc` under the heading `## <title>` (to the next `## `), or the whole
/// text for `None`.
fn section<'a>(doc: &'a str, title: Option<&str>) -> &'a str {
    let Some(title) = title else { return doc };
    let heading = format!("\n## {title}\n");
    let start = doc
        .find(&heading)
        .unwrap_or_else(|| panic!("no section `## {title}`"))
        + heading.len();
    let rest = &doc[start..];
    rest.find("\n## ").map_or(rest, |end| &rest[..end])
}

/// The first cell of every table row of `text` when it is in backticks: `| \`x\` | ...`
/// (header rows, the ones followed by `|---`, left out).
fn row_keys(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(i, _)| !lines.get(i + 1).is_some_and(|next| next.starts_with("|-")))
        .filter_map(|(_, l)| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`'))
        .map(|(key, _)| key.to_owned())
        .collect()
}

/// The row of `text` whose first cell is `` `key` ``.
fn row<'a>(text: &'a str, key: &str) -> &'a str {
    let start = format!("| `{key}` |");
    text.lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no row for `{key}`"))
}

/// Asserts that `documented` and `in_code` are the same set, naming what is missing where.
fn same(what: &str, doc: &str, documented: &[String], in_code: &BTreeSet<String>) {
    let documented: BTreeSet<String> = documented.iter().cloned().collect();
    let undocumented: Vec<_> = in_code.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(in_code).collect();
    assert!(
        undocumented.is_empty() && unknown.is_empty(),
        "{what}: in the code but not in {doc}: {undocumented:?}; in {doc} but not in the code: {unknown:?}"
    );
    assert!(!in_code.is_empty(), "{what}: nothing found in the code");
}

/// The published strings of `Enum::Variant => "code"` match arms in the `.rs` files under
/// `dir` (the `code()` of the daemon's enums).
fn codes(dir: &str, enum_name: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let prefix = format!("{enum_name}::");
    for file in rust_files(&root().join(dir)) {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix(&prefix)
                && let Some((_, code)) = rest.split_once("=> \"")
                && let Some((code, _)) = code.split_once('"')
            {
                out.insert(code.to_owned());
            }
        }
    }
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The variants of an enum as serde spells them, from its own error message for an
/// unknown one (`unknown variant ..., expected one of `a`, `b``).
fn serde_variants<T: DeserializeOwned + std::fmt::Debug>(json: &str) -> BTreeSet<String> {
    let e = serde_json::from_str::<T>(json).expect_err("an unknown variant");
    let msg = e.to_string();
    let list = msg
        .split_once("expected one of ")
        .or_else(|| msg.split_once("expected "))
        .unwrap_or_else(|| panic!("no variant list in {msg:?}"))
        .1;
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Every field path of `T` directly under `prefix` ("" for the top level).
fn fields_of<T: DeserializeOwned>() -> BTreeSet<String> {
    schema::<T>()
        .into_keys()
        .filter(|k| !k.contains('.'))
        .collect()
}

// --- configuration.md ---

#[test]
fn every_configuration_key_is_documented_and_every_documented_key_is_read() {
    let doc = read("docs/configuration.md");
    let schema = schema::<RawConfig>();
    let keys: BTreeSet<String> = schema
        .iter()
        .filter(|(_, shape)| !matches!(shape, Shape::Struct))
        .map(|(k, _)| k.clone())
        .collect();
    same(
        "configuration keys",
        "docs/configuration.md",
        &row_keys(&doc),
        &keys,
    );
    // Every value of an enum key is named in its row.
    for (key, shape) in &schema {
        if let Shape::Value(variants) = shape {
            let line = row(&doc, key);
            for v in variants {
                assert!(
                    line.contains(&format!("`{v}`")) || line.contains(&format!("`\"{v}\"`")),
                    "docs/configuration.md: `{key}` does not name the value `{v}`: {line}"
                );
            }
        }
    }
    // Every section of the file is a heading.
    for (key, shape) in &schema {
        if matches!(shape, Shape::Struct) {
            assert!(
                doc.contains(&format!("## `[{key}]`")) || doc.contains(&format!("## `[[{key}]]`")),
                "docs/configuration.md: no heading for the section [{key}]"
            );
        }
    }
}

#[test]
fn the_configuration_example_of_the_docs_is_valid() {
    let doc = read("docs/configuration.md");
    let example = section(&doc, Some("Example"));
    let toml = example
        .split_once("```toml\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("a TOML block")
        .0;
    bugbridge::config::Config::parse(toml, Path::new("docs/configuration.md"))
        .unwrap_or_else(|e| panic!("{e}"));
}

// --- events.md ---

#[test]
fn every_event_kind_code_and_reason_is_documented_both_ways() {
    let doc = read("docs/events.md");
    let check = |title: &str, in_code: BTreeSet<String>| {
        same(
            title,
            "docs/events.md",
            &row_keys(section(&doc, Some(title))),
            &in_code,
        );
    };
    check("Fields", fields_of::<Event>());
    check(
        "Event kinds",
        serde_variants::<EventKind>("\"no-such-kind\""),
    );
    check("Alert codes", codes("daemon/src", "AlertCode"));
    check(
        "Illegal-move reasons",
        IllegalReason::ALL
            .iter()
            .map(|r| r.code().to_owned())
            .chain(codes("daemon/src", "IllegalReason"))
            .collect(),
    );
    check("End reasons", codes("daemon/src", "EndReason"));
    check(
        "Operator actions",
        serde_variants::<ActionKind>(r#"{"action":"no-such-action"}"#),
    );
}

// --- sensor-trace.md ---

#[test]
fn every_trace_kind_is_documented_and_the_example_replays_as_the_docs_say() {
    let doc = read("docs/sensor-trace.md");
    let kinds = codes("drivers/src/trace", "TraceEvent");
    same(
        "sensor trace kinds",
        "docs/sensor-trace.md",
        &row_keys(section(&doc, Some("Kinds (`ev`)"))),
        &kinds,
    );
    // Every JSON line of the page is a trace line the reader accepts.
    let mut lines = 0;
    for line in doc.lines().filter(|l| l.starts_with("{\"t\":")) {
        bugbridge_drivers::trace::parse_line(line, true)
            .unwrap_or_else(|e| panic!("docs/sensor-trace.md: {line}: {e}"));
        lines += 1;
    }
    assert!(lines >= 9, "example lines: {lines}");
    let example = section(&doc, Some("Example"))
        .split_once("```\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("the example block")
        .0;
    let replayed = bugbridge::cli::replay::replay_text(example, None).expect("the example");
    let bpgn = replayed.game.bpgn();
    assert!(doc.contains("records `1A. e4 {178}`"));
    assert!(
        bpgn.contains("\n1A. e4 {178} {game unfinished} *"),
        "{bpgn}"
    );
}

// --- http-api.md ---

/// `GET /path` of every `.route("/path", get(...).post(...))` of the router.
fn routes() -> BTreeSet<String> {
    let text = read("broadcast/src/http/mod.rs");
    let mut out = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix(".route(\"") else {
            continue;
        };
        let (path, handlers) = rest.split_once('"').expect("a quoted path");
        for method in ["get", "post", "put", "delete", "patch"] {
            if handlers.contains(&format!("{method}(")) {
                out.insert(format!("{} {path}", method.to_uppercase()));
            }
        }
    }
    out
}

#[test]
fn every_http_route_is_documented_and_every_documented_route_exists() {
    let doc = read("docs/http-api.md");
    same(
        "HTTP routes",
        "docs/http-api.md",
        &row_keys(section(&doc, Some("Routes"))),
        &routes(),
    );
}

/// The metrics `/metrics` serves, as their samples are named (`bugbridge_` prefix, `_total`
/// on counters): every `registry.register("name", "help", m.field…)` of
/// `broadcast/src/metrics.rs`, its type read from the field's declaration.
fn metrics() -> BTreeSet<String> {
    let text = read("broadcast/src/metrics.rs");
    text.split("registry.register(")
        .skip(1)
        .map(|call| {
            let name = call.split('"').nth(1).expect("a metric name");
            let field = call
                .split("m.")
                .nth(1)
                .and_then(|f| f.split('.').next())
                .expect("the metric's field");
            let decl = text
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("pub(crate) {field}:")))
                .unwrap_or_else(|| panic!("no field `{field}`"));
            let suffix = if decl.contains("Counter") {
                "_total"
            } else {
                ""
            };
            format!("bugbridge_{name}{suffix}")
        })
        .collect()
}

#[test]
fn every_metric_is_documented_and_every_documented_metric_exists() {
    let doc = read("docs/http-api.md");
    same(
        "metrics",
        "docs/http-api.md",
        &row_keys(section(&doc, Some("Metrics"))),
        &metrics(),
    );
}

// --- mqtt.md ---

/// The leaves of `wire::topic`: `pub const NAME: &str = "leaf";` in `pub mod topic`.
fn topics() -> BTreeSet<String> {
    let text = read("broadcast/src/wire.rs");
    let module = text
        .split_once("pub mod topic {")
        .expect("the topic module")
        .1;
    let module = module.split_once("\n}").map_or(module, |(m, _)| m);
    module
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("pub const ") && l.contains(": &str = \""))
        .filter_map(|l| l.split_once('"'))
        .filter_map(|(_, rest)| rest.split_once('"'))
        .map(|(leaf, _)| format!("<prefix>/<match>/{leaf}"))
        .collect()
}

#[test]
fn every_mqtt_topic_and_state_field_is_documented_both_ways() {
    let doc = read("docs/mqtt.md");
    let rows: Vec<String> = row_keys(&doc)
        .into_iter()
        .filter(|k| k.starts_with("<prefix>/"))
        .collect();
    same("MQTT topics", "docs/mqtt.md", &rows, &topics());
    same(
        "state fields",
        "docs/mqtt.md",
        &row_keys(section(&doc, Some("The `state` document"))),
        &fields_of::<MatchState>(),
    );
}

// --- bpgn.md ---

#[test]
fn every_comment_the_recorder_writes_is_documented() {
    let doc = read("docs/bpgn.md");
    let text = read("daemon/src/record/bpgn.rs");
    let notes: Vec<&str> = text
        .split("notes.push(\"")
        .skip(1)
        .filter_map(|s| s.split_once('"').map(|(n, _)| n))
        .collect();
    assert!(notes.len() >= 3, "{notes:?}");
    for note in notes {
        assert!(
            doc.contains(&format!("`{{{note}}}`")),
            "docs/bpgn.md does not show the comment {{{note}}}"
        );
    }
}

// --- README and the command line ---

/// `(subcommand, --long)` of every long flag of every subcommand.
fn long_flags() -> Vec<(String, String)> {
    let cli = bugbridge::cli::Cli::command();
    let mut out = Vec::new();
    for sub in cli.get_subcommands() {
        for arg in sub.get_arguments() {
            if let Some(long) = arg.get_long()
                && long != "help"
            {
                out.push((sub.get_name().to_owned(), format!("--{long}")));
            }
        }
    }
    out
}

/// Whether `text` has `flag` as a whole word (`--game` is not found in `--games`).
fn has_flag(text: &str, flag: &str) -> bool {
    text.match_indices(flag).any(|(i, _)| {
        !text[i + flag.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

#[test]
fn the_readme_names_every_subcommand_and_every_flag() {
    let readme = read("README.md");
    let cli = bugbridge::cli::Cli::command();
    for sub in cli.get_subcommands() {
        let name = format!("bugbridge {}", sub.get_name());
        assert!(readme.contains(&name), "README.md does not name `{name}`");
    }
    let flags = long_flags();
    assert!(flags.len() > 15, "{flags:?}");
    for (sub, flag) in flags {
        // In the row of its subcommand's table or in the prose about it.
        let documented = readme
            .lines()
            .filter(|l| l.contains(&format!("bugbridge {sub}")) || l.contains(&format!("`{sub}`")))
            .any(|l| has_flag(l, &flag));
        assert!(
            documented,
            "README.md: `bugbridge {sub} {flag}` is not documented on a line about `{sub}`"
        );
    }
}

#[test]
fn the_readme_says_how_to_install_which_rust_and_links_every_doc() {
    let readme = read("README.md");
    assert!(readme.contains("cargo install --path daemon"));
    let manifest = read("Cargo.toml");
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|v| v.split_once('"'))
        .expect("rust-version in the workspace manifest")
        .0;
    assert!(
        readme.contains(&format!("Rust {version}")),
        "README.md does not say the Rust version the workspace needs ({version})"
    );
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            readme.contains(&format!("(docs/{name})")),
            "README.md does not link docs/{name}"
        );
    }
}

// --- references ---

/// Every Markdown page a source file, the README or a doc cites exists in the repository
/// (in `docs/` or at the path written), so no comment points at a page nobody can open.
#[test]
fn every_cited_page_exists() {
    let mut files = Vec::new();
    for dir in ["daemon", "drivers", "broadcast", "tests", "config", "docs"] {
        files.extend(all_files(&root().join(dir)));
    }
    files.push(root().join("README.md"));
    let mut missing = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for cited in cited_pages(&text) {
            // From the repository, from docs/, from the file's crate, or beside the file.
            let crate_dir = file
                .strip_prefix(root())
                .ok()
                .and_then(|rel| rel.components().next())
                .map(|c| root().join(c));
            let exists = root().join(&cited).is_file()
                || root().join("docs").join(&cited).is_file()
                || crate_dir.is_some_and(|d| d.join(&cited).is_file())
                || file.parent().is_some_and(|d| d.join(&cited).is_file());
            if !exists {
                missing.push(format!("{}: {cited}", file.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "pages cited but not in the repository: {missing:#?}"
    );
}

fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if path.is_dir() {
            // Test data holds third-party files with their own references.
            if name != "data" && name != "target" {
                out.extend(all_files(&path));
            }
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("rs" | "md" | "toml" | "js" | "html")
        ) {
            out.push(path);
        }
    }
    out
}

/// The `.md` pages cited in `text`: in backticks (`` `docs/perft.md` ``) or as a Markdown
/// link target (`(events.md#fields)`).
fn cited_pages(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices(".md") {
        let after = text[i + 3..].chars().next();
        if !matches!(after, Some('`' | ')' | '#')) {
            continue;
        }
        let start = text[..i]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "-_/.".contains(c)))
            .map_or(0, |s| s + 1);
        let opener = text[..start].chars().last();
        if !matches!(opener, Some('`' | '(')) {
            continue;
        }
        let page = &text[start..i + 3];
        if !page.starts_with("http") && page.len() > 3 {
            out.push(page.to_owned());
        }
    }
    out
}

// --- The example configurations ---

/// Every `config/*.toml` runs from the repository root as written (`bugbridge run --config
/// config/<name>.toml`): it loads, its record directory (when relative) is one `.gitignore`
/// covers, a token recipe in its comments writes the file the daemon reads, and no two
/// examples share a match id (two run side by side would publish on the same topics).
#[test]
fn the_example_configurations_run_from_the_repository_root_as_written() {
    let gitignore = read(".gitignore");
    let ignored: Vec<&str> = gitignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let covered = |path: &Path| {
        let path = path.to_string_lossy();
        ignored.iter().any(|pattern| {
            let pattern = pattern.trim_start_matches('/').trim_end_matches('/');
            path == pattern || path.starts_with(&format!("{pattern}/"))
        })
    };
    let mut ids = BTreeSet::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(root().join("config"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    for path in names {
        let rel = Path::new("config").join(path.file_name().unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        let config = bugbridge::config::Config::parse(&text, &rel)
            .unwrap_or_else(|e| panic!("{}: {e}", rel.display()));
        assert!(
            ids.insert(config.match_id.clone()),
            "{}: match id {:?} already used by another example",
            rel.display(),
            config.match_id
        );
        if config.record_dir.is_relative() {
            assert!(
                covered(&config.record_dir),
                "{}: records go to {} which .gitignore does not cover",
                rel.display(),
                config.record_dir.display()
            );
        }
        let token = config
            .http
            .as_ref()
            .and_then(|h| h.arbiter_token_file.clone());
        for line in text
            .lines()
            .filter(|l| l.starts_with('#') && l.contains("> "))
        {
            let Some(target) = line.rsplit("> ").next().map(str::trim) else {
                continue;
            };
            if !target.ends_with(".token") {
                continue;
            }
            assert_eq!(
                Some(Path::new(target)),
                token.as_deref(),
                "{}: the recipe writes {target}, the daemon reads {token:?}",
                rel.display()
            );
            if Path::new(target).is_relative() {
                assert!(
                    covered(Path::new(target)) || ignored.contains(&"/config/*.token"),
                    "{}: {target} is not ignored",
                    rel.display()
                );
            }
        }
    }
}

/// The README's manual-page recipe creates the directory it writes into (Debian 12 has no
/// `/usr/local/share/man/man1` until something makes it).
#[test]
fn the_readme_makes_the_man_directory_before_writing_into_it() {
    let readme = read("README.md");
    let tee = readme
        .find("tee /usr/local/share/man/man1/")
        .expect("the README installs the manual pages");
    let mkdir = readme
        .find("mkdir -p /usr/local/share/man/man1")
        .expect("the README makes the man1 directory");
    assert!(
        mkdir < tee,
        "the man1 directory is made after it is written into"
    );
}
