//! `bugbridge run --config FILE`: the daemon for a real table.

use std::path::PathBuf;

use clap::Args;

use crate::app::{self, RunOptions};
use crate::config::Config;

/// Arguments of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The configuration file (TOML; see `config/` for commented examples).
    #[arg(long)]
    pub config: PathBuf,
    /// Log as JSON lines (overrides the configuration's `[log] format`).
    #[arg(long)]
    pub json_logs: bool,
    /// The match id, instead of the configuration's `[match] id` (so that one file serves
    /// every table of a round).
    #[arg(long, value_name = "ID")]
    pub match_id: Option<String>,
    /// A BPGN tag, added to or replacing the configuration's `[match.tags]` (repeatable):
    /// `--tag Table=12 --tag Round=3 --tag WhiteA="Ann Smith"`.
    #[arg(long = "tag", value_name = "KEY=VALUE")]
    pub tags: Vec<String>,
}

/// Applies `--match-id` and `--tag` to `config`.
fn apply_overrides(config: &mut Config, args: &RunArgs) -> Result<(), String> {
    if let Some(id) = &args.match_id {
        if !crate::config::valid_match_id(id) {
            return Err(format!(
                "--match-id {id:?}: use 1 to 64 of A-Z a-z 0-9 . _ -"
            ));
        }
        config.match_id.clone_from(id);
    }
    for tag in &args.tags {
        let Some((key, value)) = tag.split_once('=') else {
            return Err(format!("--tag {tag:?}: expected KEY=VALUE"));
        };
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(format!(
                "--tag {tag:?}: a tag name is letters, digits and _"
            ));
        }
        if value.contains(['"', '\n', '\r']) {
            return Err(format!(
                "--tag {tag:?}: a tag value cannot hold a quote or a line break"
            ));
        }
        config.tags.insert(key.to_owned(), value.to_owned());
    }
    Ok(())
}

pub(super) fn run(args: RunArgs) -> u8 {
    let mut config = match Config::load(&args.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    if let Err(e) = apply_overrides(&mut config, &args) {
        eprintln!("run: {e}");
        return 2;
    }
    let json = args.json_logs || config.log_format == crate::config::LogFormat::Json;
    super::init_logging(&config.log_level, json);
    super::runtime(async move {
        let options = RunOptions {
            config_file: Some(args.config.clone()),
            ..RunOptions::default()
        };
        match app::run(config, options, super::signals::terminated()).await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{e}");
                e.exit_status()
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const CONFIG: &str = r#"
[match]
id = "table-1"
[match.tags]
Event = "Spring Open"
Round = "1"
[[board]]
name = "A"
driver = "dgt"
port = "/dev/ttyUSB0"
[[board]]
name = "B"
driver = "dgt"
port = "/dev/ttyUSB1"
"#;

    fn args(match_id: Option<&str>, tags: &[&str]) -> RunArgs {
        RunArgs {
            config: "table.toml".into(),
            json_logs: false,
            match_id: match_id.map(str::to_owned),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    fn config() -> Config {
        Config::parse(CONFIG, Path::new("table.toml")).expect("a valid configuration")
    }

    #[test]
    fn one_file_serves_every_table_with_its_id_and_tags_from_the_command_line() {
        let mut c = config();
        let a = args(
            Some("open-r2-t12"),
            &["Round=2", "Table=12", "WhiteA=Ann Smith"],
        );
        apply_overrides(&mut c, &a).unwrap();
        assert_eq!(c.match_id, "open-r2-t12");
        assert_eq!(c.tags["Event"], "Spring Open");
        assert_eq!(c.tags["Round"], "2");
        assert_eq!(c.tags["Table"], "12");
        assert_eq!(c.tags["WhiteA"], "Ann Smith");
    }

    #[test]
    fn bad_overrides_are_refused_naming_the_flag() {
        for (id, tags, wanted) in [
            (Some("bad id"), &[][..], "--match-id"),
            (None, &["Table"][..], "KEY=VALUE"),
            (None, &["Ta ble=1"][..], "tag name"),
            (None, &["Event=a\"b"][..], "quote"),
        ] {
            let mut c = config();
            let e = apply_overrides(&mut c, &args(id, tags)).unwrap_err();
            assert!(e.contains(wanted), "{e}");
            assert_eq!(c, config(), "nothing applied");
        }
    }
}
