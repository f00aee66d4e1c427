//! `bugbridge check` on a whole database export: games per second and peak memory of the
//! real binary on a generated 50 MB BPGN file (the legal games of `tests/data/bpgn`,
//! repeated), the size of a full bughousedb export. The figure that matters on a
//! Raspberry Pi with 1 GB is the peak resident memory, which must not grow with the file.
//!
//! Run: `cargo bench -p bugbridge --bench check_stream` (a size in MB as
//! `BUGBRIDGE_CHECK_MB=200` instead of 50).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The corpus's legal games, each file's text once.
fn legal_games() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bpgn");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus")
        .flatten()
        .filter(|e| e.path().is_dir())
        .flat_map(|d| {
            std::fs::read_dir(d.path())
                .expect("a corpus directory")
                .flatten()
        })
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "bpgn"))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name != "534.bpgn" && name != "nonexistent_pawn_drop_19A.bpgn"
        })
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text =
                String::from_utf8_lossy(&std::fs::read(p).expect("a corpus file")).into_owned();
            format!("{}\n\n", text.trim())
        })
        .collect()
}

/// Writes about `bytes` of games to `path`; returns how many games.
fn generate(path: &Path, bytes: usize) -> usize {
    let games = legal_games();
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let (mut written, mut count) = (0, 0);
    while written < bytes {
        for g in &games {
            out.write_all(g.as_bytes()).expect("write");
            written += g.len();
            count += 1;
        }
    }
    out.flush().expect("flush");
    count
}

/// Runs the command to its end: exit status and this child's peak resident memory (bytes).
fn run_measured(cmd: &mut Command) -> (Option<i32>, u64) {
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: `rusage` is plain data, zeroed is valid; `wait4` fills it for our own child,
    // which is reaped here (the `Child` is not waited on again).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    assert_eq!(waited, pid, "wait4");
    std::mem::forget(child);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too, on a small file.
    let quick = !std::env::args().any(|a| a == "--bench");
    let mb: usize = std::env::var("BUGBRIDGE_CHECK_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 1 } else { 50 });
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("check-{mb}mb.bpgn"));
    let games = generate(&path, mb << 20);
    let size = std::fs::metadata(&path).expect("the file").len();
    let start = Instant::now();
    let (code, peak) = run_measured(
        Command::new(env!("CARGO_BIN_EXE_bugbridge"))
            .arg("check")
            .arg(&path),
    );
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(code, Some(0), "every game of the file is legal");
    println!(
        "bugbridge check: {:.1} MB, {games} games in {seconds:.2} s: {:.0} games/s, {:.1} MB/s; \
         peak RSS {:.1} MB",
        size as f64 / 1e6,
        games as f64 / seconds,
        size as f64 / 1e6 / seconds,
        peak as f64 / f64::from(1 << 20),
    );
    let _ = std::fs::remove_file(&path);
}
