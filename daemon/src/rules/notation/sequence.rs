//! A sequence of SAN moves, as someone who saw them enters them (the arbiter's `fill`):
//! each resolved on the position the ones before it leave, and legal there.

use std::fmt;
use std::str::FromStr;

use crate::rules::{Move, Position};

use super::San;

/// The first move of a sequence that is not SAN, fits no move, or is illegal there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceError {
    /// Its place in the sequence (0: the first).
    pub index: usize,
    /// The text as given.
    pub text: String,
    /// Why.
    pub reason: String,
}

impl fmt::Display for SequenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "move {} ({:?}): {}",
            self.index + 1,
            self.text,
            self.reason
        )
    }
}

impl std::error::Error for SequenceError {}

/// The moves of `sans` played in turn from `position`, each legal where it is played.
///
/// # Errors
///
/// [`SequenceError`] naming the first move that is not SAN, fits no move of its position
/// (or several), or is illegal there.
pub fn legal_sequence(mut position: Position, sans: &[String]) -> Result<Vec<Move>, SequenceError> {
    let mut seq = Vec::with_capacity(sans.len());
    for (index, text) in sans.iter().enumerate() {
        let error = |reason: String| SequenceError {
            index,
            text: text.clone(),
            reason,
        };
        let san = San::from_str(text.trim()).map_err(|e| error(e.to_string()))?;
        let mv = san
            .to_move_for(&position, position.turn())
            .map_err(|e| error(e.to_string()))?;
        if !position.classify(&mv).is_legal() {
            return Err(error("illegal there".to_owned()));
        }
        let mv = position.normalize(&mv);
        position.play(&mv);
        seq.push(mv);
    }
    Ok(seq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RulesetName;
    use crate::rules::notation::parse_bfen;

    fn start() -> Position {
        let rules = RulesetName::Fide.ruleset();
        let boards = parse_bfen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            rules,
        )
        .expect("bfen");
        boards.a.position
    }

    fn sans(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn each_move_is_read_on_the_position_the_ones_before_leave() {
        let seq = legal_sequence(start(), &sans(&["e4", "e5", "Nf3"])).expect("legal");
        assert_eq!(seq.len(), 3);
        assert_eq!(seq[2].to().to_string(), "f3");
    }

    #[test]
    fn the_first_move_that_does_not_fit_is_named() {
        let error = legal_sequence(start(), &sans(&["e4", "Qxd5"])).expect_err("no such move");
        assert_eq!(error.index, 1);
        assert_eq!(error.text, "Qxd5");
        let error = legal_sequence(start(), &sans(&["e4", "e5", "!!"])).expect_err("not SAN");
        assert_eq!(error.index, 2);
        assert!(error.to_string().starts_with("move 3 (\"!!\")"), "{error}");
    }
}
