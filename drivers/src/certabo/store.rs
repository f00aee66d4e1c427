//! The table's calibration file: read at start, rewritten whenever a board learns a set.
//!
//! The file is [`Calibration::to_json`]'s form; it is written to a temporary file next to it
//! and renamed, so a crash leaves the old or the new file, never half of one.

use std::path::{Path, PathBuf};

use super::{Calibration, CalibrationError};
use crate::session::SharedCalibration;

/// Reads `path`; a missing file is an empty calibration (nothing learnt yet).
///
/// # Errors
/// The file exists but cannot be read or is not a calibration: the error names the file.
pub fn load(path: &Path) -> Result<SharedCalibration, CalibrationError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Calibration::from_json(&text)
            .map(SharedCalibration::new)
            .map_err(|e| CalibrationError::File(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SharedCalibration::default()),
        Err(e) => Err(CalibrationError::File(format!("{}: {e}", path.display()))),
    }
}

/// Writes `cal` to `path` (through a temporary file and a rename).
///
/// # Errors
/// The file cannot be written.
pub fn save(cal: &Calibration, path: &Path) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, cal.to_json())?;
    std::fs::rename(&tmp, path)
}

/// Saves `shared` to `path` each time a board adds to it, until every holder is gone.
pub async fn keep_saved(shared: SharedCalibration, path: PathBuf) {
    let mut rx = shared.subscribe();
    drop(shared);
    while rx.changed().await.is_ok() {
        let cal = rx.borrow_and_update().clone();
        match save(&cal, &path) {
            Ok(()) => tracing::info!(
                "calibration saved to {} ({} tags: {})",
                path.display(),
                cal.len(),
                cal.summary()
            ),
            Err(e) => tracing::warn!("calibration not saved to {}: {e}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certabo::TagId;
    use crate::trace::SensorPiece;

    #[test]
    fn saved_and_read_back_and_bad_files_are_named() {
        let dir = std::env::temp_dir().join(format!("bugbridge-cal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("table.calibration.json");
        assert_eq!(load(&path).expect("missing is empty").get().len(), 0);
        let mut cal = Calibration::new();
        let q = SensorPiece::from_ascii(b'Q').expect("Q");
        cal.insert(TagId([1, 2, 3, 4, 5]), q).expect("insert");
        save(&cal, &path).expect("save");
        assert_eq!(load(&path).expect("load").get(), cal);
        std::fs::write(&path, "{\"format\":1,\"pieces\":{\"X\":[]}}").expect("write");
        let err = load(&path).expect_err("bad letter").to_string();
        assert!(
            err.contains("table.calibration.json") && err.contains("\"X\""),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
