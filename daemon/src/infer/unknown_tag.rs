//! A tag no calibration knows on an RFID board (Certabo): the driver reads the square as
//! empty and says so once; the arbiter hears it as an `unknown-tag` alert naming the
//! square. No piece is invented for it: which piece it is, is the arbiter's to say (or
//! a calibration's).

use crate::rules::{BoardId, Square};

use super::output::{Alert, AlertCode, Inference};

/// The alert for an unknown tag on `board`'s square `sq` (in the game's frame).
#[must_use]
pub fn unknown_tag_alert(t: u64, board: BoardId, sq: Square, tag: &str) -> Inference {
    let id = if tag.is_empty() {
        String::new()
    } else {
        format!(" (tag {tag})")
    };
    Inference::Alert(Alert::about_board(
        t,
        board,
        AlertCode::UnknownTag,
        format!(
            "board {board}: the piece on {sq} carries a tag no calibration knows{id}; the \
             square reads empty until it is calibrated (docs/eboards.md)"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_board_and_the_square_and_no_piece() {
        let sq: Square = "e4".parse().expect("square");
        let Inference::Alert(a) = unknown_tag_alert(7, BoardId::B, sq, "99 1 2 3 4") else {
            panic!("an alert");
        };
        assert_eq!(
            (a.t, a.board, a.code),
            (7, Some(BoardId::B), AlertCode::UnknownTag)
        );
        assert_eq!(a.code.code(), "unknown-tag");
        assert!(
            a.detail.contains("e4") && a.detail.contains("board B"),
            "{}",
            a.detail
        );
        assert!(a.san.is_none() && a.number.is_none());
    }
}
