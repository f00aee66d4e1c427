//! The files that install bugbridge on a table computer agree with the program: the
//! systemd unit runs a command line that parses, as an unprivileged user in `dialout`,
//! restarts on failure but not on a configuration error, and keeps its records in its
//! state directory; the udev example names the devices the service configuration opens.

use std::path::{Path, PathBuf};

use bugbridge::cli::Cli;
use bugbridge::config::Config;
use clap::Parser;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `key=value` lines of a unit file, comments left out.
fn unit_values(text: &str, key: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim().to_owned())
        .collect()
}

#[test]
fn the_systemd_unit_runs_the_daemon_unprivileged_and_restarts_it() {
    let unit = read("packaging/bugbridge.service");
    let exec = unit_values(&unit, "ExecStart");
    assert_eq!(exec.len(), 1, "{exec:?}");
    let argv: Vec<&str> = exec[0].split_whitespace().collect();
    assert!(argv[0].ends_with("/bugbridge"), "{argv:?}");
    let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{}: {e}", exec[0]));
    assert!(
        matches!(cli.command, bugbridge::cli::Command::Run(_)),
        "{argv:?}"
    );

    let user = unit_values(&unit, "User");
    assert_eq!(user.len(), 1);
    assert_ne!(user[0], "root");
    assert_eq!(unit_values(&unit, "SupplementaryGroups"), ["dialout"]);
    assert_eq!(unit_values(&unit, "Restart"), ["on-failure"]);
    // Exit status 2 is a configuration error (README): restarting cannot fix it.
    assert_eq!(unit_values(&unit, "RestartPreventExitStatus"), ["2"]);
    assert_eq!(unit_values(&unit, "StateDirectory"), ["bugbridge"]);
    assert_eq!(unit_values(&unit, "KillSignal"), ["SIGTERM"]);
    for section in ["[Unit]", "[Service]", "[Install]"] {
        assert!(unit.contains(section), "{section}");
    }

    // The configuration it is installed with records into the state directory.
    let config = Config::load(&repo("config/service.toml")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        config.record_dir.starts_with("/var/lib/bugbridge"),
        "{}",
        config.record_dir.display()
    );
}

#[test]
fn the_udev_example_names_the_ports_of_the_service_configuration() {
    let rules = read("packaging/99-bugbridge.rules");
    let mut names = Vec::new();
    for line in rules.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        assert!(line.starts_with("SUBSYSTEM==\"tty\""), "{line}");
        for part in line.split(", ") {
            assert!(
                part.contains("==") || part.contains("+=") || part.contains('='),
                "{line}: {part}"
            );
            if let Some(name) = part.strip_prefix("SYMLINK+=") {
                names.push(format!("/dev/{}", name.trim_matches('"')));
            }
        }
    }
    let config = Config::load(&repo("config/service.toml")).unwrap_or_else(|e| panic!("{e}"));
    for board in &config.boards {
        let port = board.port.clone().unwrap_or_default();
        assert!(
            names.contains(&port),
            "{port} is not named by the udev rules: {names:?}"
        );
    }
}
