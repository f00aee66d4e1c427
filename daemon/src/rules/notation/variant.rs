//! The `Variant` tag: which rules a BPGN game was played under.
//!
//! bughouse.pro tags its Koedem games `[Variant "Bughouse Koedem"]`; bugbridge writes the
//! same tag for a Koedem match and reads it to pick the ruleset when none is given. Games
//! without the tag (every FICS export) are plain bughouse.

use crate::rules::RulesetName;

/// The tag's name.
pub const VARIANT_TAG: &str = "Variant";

/// The tag's value for Koedem games, as bughouse.pro writes it.
pub const KOEDEM_VARIANT: &str = "Bughouse Koedem";

/// The `Variant` value to write for a ruleset (`None`: plain bughouse, no tag).
#[must_use]
pub const fn variant_of(ruleset: RulesetName) -> Option<&'static str> {
    match ruleset {
        RulesetName::Koedem => Some(KOEDEM_VARIANT),
        _ => None,
    }
}

/// The ruleset a `Variant` value names, if it names one bugbridge knows apart from plain
/// bughouse (case and spacing ignored: `bughouse koedem`, `Koedem`).
#[must_use]
pub fn ruleset_of_variant(value: &str) -> Option<RulesetName> {
    let words: Vec<String> = value
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["bughouse", "koedem"] | ["koedem"] => Some(RulesetName::Koedem),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn koedem_variant_is_read_as_written() {
        assert_eq!(
            ruleset_of_variant(KOEDEM_VARIANT),
            Some(RulesetName::Koedem)
        );
        assert_eq!(
            ruleset_of_variant("  bughouse   KOEDEM "),
            Some(RulesetName::Koedem)
        );
        assert_eq!(ruleset_of_variant("Bughouse"), None);
        assert_eq!(variant_of(RulesetName::Koedem), Some(KOEDEM_VARIANT));
        assert_eq!(variant_of(RulesetName::Fide), None);
    }
}
