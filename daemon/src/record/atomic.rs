//! Whole-file rewrites that a crash cannot tear.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// Writes `contents` to `path` through `path.tmp`: write, sync, rename, sync the directory.
/// A reader (or a restart after a crash) sees the old file or the new one, never a mix.
///
/// # Errors
///
/// The I/O error of the step that failed; the old file is then untouched.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = Path::new(&tmp);
    {
        let mut f = File::create(tmp)?;
        f.write_all(contents)?;
        f.sync_data()?;
    }
    fs::rename(tmp, path)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Make the rename itself durable; some filesystems refuse to sync a directory.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("bugbridge-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.bpgn");
        write_atomic(&path, b"first version, long").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        assert!(!dir.join("game.bpgn.tmp").exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
