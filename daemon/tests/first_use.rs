//! What a new user meets first, through the binary: a wrong cable or port (`listen`), a
//! configuration that refers to missing files or taken ports (`run` refuses before it
//! writes anything, naming the file and the key), the demo (stops after `--loops` once the
//! last move is recorded, cleans up, token readable by its owner only, names a bad `--game`
//! file), and the offline tools'
//! errors (`simulate` of an illegal game, an empty trace, `emulate --link`).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bugbridge"))
}

fn run(cmd: &mut Command) -> Output {
    cmd.stdin(Stdio::null()).output().expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bugbridge-first-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bpgn")
        .join(rel)
}

/// Bounds every wait on a child's output.
const LIMIT: Duration = Duration::from_secs(60);

/// A child process killed when the test ends, with its stderr lines on a channel.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Running {
    fn start(cmd: &mut Command) -> Running {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let (tx, lines) = mpsc::channel();
        let err = child.stderr.take().expect("piped stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Running { child, lines }
    }

    /// Waits for a stderr line containing `needle`; returns it.
    fn wait_for(&self, needle: &str) -> String {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(LIMIT) {
                Ok(line) if line.contains(needle) => return line,
                Ok(line) => seen.push(line),
                Err(_) => panic!(
                    "no line with {needle:?} on stderr; saw:\n{}",
                    seen.join("\n")
                ),
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn listen_says_why_a_port_cannot_be_used() {
    let l = Running::start(
        bin()
            .args(["listen", "--driver", "dgt", "--port", "/dev/no-such-board"])
            .env("RUST_LOG", "info,bugbridge_drivers=debug"),
    );
    let line = l.wait_for("cannot be used");
    assert!(line.contains("/dev/no-such-board"), "{line}");
    assert!(line.contains("is the board plugged in"), "{line}");
    assert!(
        !line.contains('\u{1b}'),
        "no colour codes into a pipe: {line:?}"
    );
    // RUST_LOG is honoured: the retries are debug lines.
    l.wait_for("reconnect failed");
}

#[test]
fn listen_asks_whether_a_silent_board_speaks_the_other_protocol() {
    let dir = temp("listen-millennium");
    let trace = dir.join("empty.trace.jsonl");
    std::fs::write(&trace, "").unwrap();
    // An emulated Millennium board: it ignores DGT commands, as a real one does.
    let mut emu = bin()
        .args(["emulate", "--driver", "millennium", "--trace"])
        .arg(&trace)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut path = String::new();
    BufReader::new(emu.stdout.take().unwrap())
        .read_line(&mut path)
        .unwrap();
    let path = path.trim().to_owned();
    assert!(path.starts_with("/dev/"), "{path:?}");
    let l = Running::start(bin().args(["listen", "--driver", "dgt", "--port", &path]));
    let line = l.wait_for("cannot be used");
    assert!(line.contains(&path), "{line}");
    assert!(line.contains("no DGT board answered"), "{line}");
    assert!(line.contains("is it a Millennium board"), "{line}");
    drop(l);
    let _ = emu.kill();
    let _ = emu.wait();
}

/// A configuration in `dir`, with relative paths, its HTTP port given.
fn write_config(dir: &Path, http: &str, extra: &str) -> PathBuf {
    let path = dir.join("table.toml");
    std::fs::write(
        &path,
        format!(
            r#"[match]
id = "first-use"

[[board]]
name = "A"
driver = "dgt"
port = "/dev/no-such-board-a"

[http]
listen = "{http}"
arbiter_token_file = "arbiter.token"

[record]
dir = "games"
{extra}
"#
        ),
    )
    .unwrap();
    path
}

#[test]
fn run_refuses_a_missing_token_file_before_writing_anything() {
    let dir = temp("run-token");
    let config = write_config(&dir, "127.0.0.1:0", "");
    // Started from another directory: the relative paths are the config file's.
    let out = run(bin()
        .arg("run")
        .arg("--config")
        .arg(&config)
        .current_dir(std::env::temp_dir()));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&config.display().to_string()),
        "names the file: {err}"
    );
    assert!(
        err.contains("key `http.arbiter_token_file`"),
        "names the key: {err}"
    );
    assert!(
        err.contains(&dir.join("arbiter.token").display().to_string()),
        "the token file is looked for beside the configuration: {err}"
    );
    assert!(
        !dir.join("games").exists(),
        "nothing written before the checks passed"
    );
}

#[test]
fn run_refuses_a_taken_port_and_an_unusable_record_dir() {
    let dir = temp("run-port");
    std::fs::write(dir.join("arbiter.token"), "s3cret\n").unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let config = write_config(&dir, &addr, "");
    let out = run(bin().arg("run").arg("--config").arg(&config));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("key `http.listen`"), "{err}");
    assert!(err.contains(&addr), "{err}");
    assert!(!dir.join("games").exists(), "{err}");

    // A record directory that cannot be made (a file is in the way): exit 2, its key.
    std::fs::write(dir.join("not-a-dir"), "").unwrap();
    let config = write_config(&dir, "127.0.0.1:0", "");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("dir = \"games\"", "dir = \"not-a-dir/games\"");
    std::fs::write(&config, text).unwrap();
    let out = run(bin().arg("run").arg("--config").arg(&config));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("key `record.dir`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_board_that_never_connected_raises_no_lost_connection() {
    // Board B's port never opened (link down before any snapshot); board A played.
    let trace = r#"{"t":0,"board":"B","ev":"link","up":false}
{"t":0,"board":"A","ev":"link","up":true}
{"t":0,"board":"A","ev":"board","fen":"RNBQKBNR/PPPPPPPP/8/8/8/8/pppppppp/rnbqkbnr"}
{"t":10,"board":"A","ev":"link","up":false}
"#;
    let replayed = bugbridge::cli::replay::replay_text(trace, None).unwrap();
    let lost: Vec<String> = replayed
        .decisions
        .iter()
        .filter_map(|d| match d {
            bugbridge::infer::Inference::Alert(a) => Some(a.detail.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        lost,
        ["board A: the device connection dropped"],
        "only the board that was connected lost its connection"
    );
}

#[test]
fn demo_stops_after_its_loops_and_cleans_up() {
    let out = run(bin().args([
        "demo",
        "--loops",
        "1",
        "--speed",
        "60",
        "--noise",
        "clean",
        "--http",
        "127.0.0.1:0",
        "--mqtt",
        "127.0.0.1:0",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let records = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("records"))
        .map(|r| PathBuf::from(r.split_whitespace().next().unwrap()))
        .expect("the banner names the records");
    let dir = records.parent().unwrap();
    assert!(dir.starts_with(std::env::temp_dir()), "{}", dir.display());
    assert!(
        !dir.exists(),
        "the temporary directory is removed: {}",
        dir.display()
    );
    // A normal run says nothing alarming, and no colour codes go into a pipe.
    let err = stderr(&out);
    assert!(!err.contains(" WARN ") && !err.contains("ERROR"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

#[cfg(unix)]
#[test]
fn demo_loops_twice_then_stops_and_its_token_is_the_owners_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp("demo-token");
    let out = run(bin()
        .args([
            "demo",
            "--loops",
            "2",
            "--speed",
            "60",
            "--noise",
            "clean",
            "--http",
            "127.0.0.1:0",
            "--mqtt",
            "127.0.0.1:0",
            "--dir",
        ])
        .arg(&dir));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mode = std::fs::metadata(dir.join("arbiter.token"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    assert!(dir.join("games").is_dir(), "--dir keeps the records");
    // Two games played, and no third one started by a last set-up.
    let games = dir.join("games");
    assert!(games.join("demo-1.bpgn").is_file());
    assert!(games.join("demo-2.bpgn").is_file());
    assert!(!games.join("demo-3.bpgn").exists());
    let second = std::fs::read_to_string(games.join("demo-2.bpgn")).unwrap();
    assert!(second.contains("arbiter showcase"), "labelled: {second}");
}

/// The demo stops once the boards' last events have been heard, not merely played: the
/// game's last move (the mate) and its result are in the record.
#[test]
fn demo_as_played_stops_with_the_games_last_move_recorded() {
    let dir = temp("demo-as-played");
    let out = run(bin()
        .args([
            "demo",
            "--loops",
            "1",
            "--speed",
            "60",
            "--noise",
            "clean",
            "--as-played",
            "--http",
            "127.0.0.1:0",
            "--mqtt",
            "127.0.0.1:0",
            "--dir",
        ])
        .arg(&dir));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains(" WARN ") && !err.contains("ERROR"), "{err}");
    let bpgn = std::fs::read_to_string(dir.join("games").join("demo-1.bpgn")).unwrap();
    assert!(bpgn.trim_end().ends_with("0-1"), "{bpgn}");
    let last = bpgn.rfind("B. ").map(|i| &bpgn[i..]).unwrap_or_default();
    assert!(last.starts_with("B. B@g7#"), "the mate is recorded: {bpgn}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn demo_and_emulate_name_the_file_they_cannot_use() {
    let dir = temp("names");
    let missing = dir.join("missing.bpgn");
    let out = run(bin().arg("demo").arg("--game").arg(&missing));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&missing.display().to_string()),
        "{}",
        stderr(&out)
    );

    let broken = dir.join("broken.bpgn");
    std::fs::write(&broken, "[Event \"x\"\n1A. e4 {unclosed").unwrap();
    let out = run(bin().arg("demo").arg("--game").arg(&broken));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&broken.display().to_string()),
        "{}",
        stderr(&out)
    );

    let out = run(bin()
        .arg("demo")
        .args(["--http", "127.0.0.1:0", "--mqtt", "127.0.0.1:0", "--dir"])
        .arg(dir.join("broken.bpgn").join("sub")));
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unusable --dir: {}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("broken.bpgn"), "{}", stderr(&out));

    let trace = dir.join("t.trace.jsonl");
    std::fs::write(&trace, "").unwrap();
    let link = dir.join("no-such-dir").join("board");
    let out = run(bin()
        .args(["emulate", "--driver", "dgt", "--trace"])
        .arg(&trace)
        .arg("--link")
        .arg(&link));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&link.display().to_string()),
        "{}",
        stderr(&out)
    );
}

#[test]
fn simulate_of_an_illegal_game_says_where_it_stopped() {
    let game = data("lwerdna-chess/nonexistent_pawn_drop_19A.bpgn");
    let out = run(bin().arg("simulate").arg(&game));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("nonexistent_pawn_drop_19A.bpgn #1"), "{err}");
    assert!(err.contains("19A. P@e7+"), "{err}");
    assert!(err.contains("drop-not-in-hand"), "{err}");
    // The trace up to there is still written, for replaying what was played.
    assert!(!out.stdout.is_empty());
}

#[test]
fn an_empty_trace_is_said_to_be_empty() {
    let dir = temp("empty-trace");
    for (name, text) in [
        ("empty.trace.jsonl", ""),
        ("meta-only.trace.jsonl", "{\"t\":0,\"ev\":\"meta\"}\n"),
    ] {
        let trace = dir.join(name);
        std::fs::write(&trace, text).unwrap();
        let out = run(bin().arg("replay").arg(&trace));
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("no sensor events"),
            "{}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty(), "no BPGN for an empty trace");
    }
}

#[test]
fn completions_and_manual_pages_come_from_the_command_line() {
    let out = run(bin().args(["completions", "bash"]));
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for word in ["bugbridge", "listen", "--white-side", "--json-logs"] {
        assert!(text.contains(word), "{word}");
    }
    let out = run(bin().arg("man"));
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains(".TH bugbridge 1"), "{page}");
    let out = run(bin().args(["man", "run"]));
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains("bugbridge\\-run"), "{page}");
    assert!(page.contains("\\-\\-config"), "{page}");
    let out = run(bin().args(["man", "nothing"]));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ports_prints_a_header_over_its_columns() {
    let out = run(bin().arg("ports"));
    assert_eq!(out.status.code(), Some(0));
    let mut text = String::new();
    out.stdout.as_slice().read_to_string(&mut text).unwrap();
    if let Some(first) = text.lines().next() {
        assert_eq!(first, bugbridge_drivers::PORTS_HEADER);
        for line in text.lines().skip(1) {
            assert_eq!(
                line.split('\t').count(),
                first.split('\t').count(),
                "{line}"
            );
        }
    } else {
        assert!(stderr(&out).contains("no serial ports found"));
    }
}

/// The first stderr line of `run` containing `needle`, with `JOURNAL_STREAM` naming its
/// stderr when `journal` (as systemd does).
#[cfg(target_os = "linux")]
fn run_log_line(dir: &Path, journal: bool, needle: &str) -> String {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;
    std::fs::write(dir.join("arbiter.token"), "s3cret\n").unwrap();
    let config = write_config(dir, "127.0.0.1:0", "");
    let (reader, writer) = std::io::pipe().unwrap();
    let meta = std::fs::metadata(format!("/proc/self/fd/{}", reader.as_raw_fd())).unwrap();
    let mut cmd = bin();
    cmd.arg("run")
        .arg("--config")
        .arg(&config)
        .env_remove("RUST_LOG")
        .env_remove("JOURNAL_STREAM")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(writer);
    if journal {
        cmd.env("JOURNAL_STREAM", format!("{}:{}", meta.dev(), meta.ino()));
    }
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    let mut lines = BufReader::new(reader).lines();
    let line = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains(needle))
        .expect("the daemon logs");
    let _ = child.kill();
    let _ = child.wait();
    line
}

#[cfg(target_os = "linux")]
#[test]
fn under_systemd_the_log_leaves_the_timestamps_to_the_journal() {
    let dir = temp("journal");
    let plain = run_log_line(&dir, false, "running");
    assert!(
        plain.starts_with(|c: char| c.is_ascii_digit()),
        "a timestamp first: {plain}"
    );
    let dir = temp("journal-2");
    let journal = run_log_line(&dir, true, "running");
    assert!(journal.trim_start().starts_with("INFO"), "{journal}");
    assert!(!journal.contains('\u{1b}'), "{journal:?}");
}
