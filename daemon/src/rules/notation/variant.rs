//! The `Variant` tag: which rules a BPGN game was played under.
//!
//! bughouse.pro tags its Koedem games `[Variant "Bughouse Koedem"]`; bugbridge writes the
//! same tag for a Koedem match and reads it to pick the ruleset when none is given. Games
//! without the tag (every FICS export) are plain bughouse.
//!
//! A Koedem game played with the "announce piece" alternative (promotion as in bughouse)
//! also carries `[Promotion "announce"]`: its promotions are not grabs, and a reader that
//! took them for grabs would check, replay and score it wrongly. Without the tag a Koedem
//! game is played with grab promotion, the official rule.

use crate::rules::{Ruleset, RulesetName};

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

/// The tag naming a Koedem game's promotion rule when it is not the official grab.
pub const PROMOTION_TAG: &str = "Promotion";

/// The `Promotion` value of the "announce piece" alternative.
pub const ANNOUNCE_PROMOTION: &str = "announce";

/// The `Promotion` value of grab promotion (the default, not written).
pub const GRAB_PROMOTION: &str = "grab";

/// How a `Promotion` value reads: `Some(true)` grab, `Some(false)` announce, `None` a value
/// bugbridge does not know (case and spacing ignored).
#[must_use]
pub fn promotion_by_grab_of(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        // bughouse.pro's `Steal` is the grab; its `Upgrade`, a promotion as in bughouse.
        GRAB_PROMOTION | "steal" => Some(true),
        ANNOUNCE_PROMOTION | "upgrade" => Some(false),
        _ => None,
    }
}

/// The rules of a game under `ruleset`, with the promotion rule a `Promotion` tag (or an
/// explicit choice, which wins) states: only a Koedem game's promotion changes.
#[must_use]
pub fn rules_with_promotion(ruleset: RulesetName, promotion_by_grab: Option<bool>) -> Ruleset {
    let mut rules = ruleset.ruleset();
    if let (true, Some(grab)) = (ruleset == RulesetName::Koedem, promotion_by_grab) {
        rules.promotion_by_grab = grab;
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_promotion_tag_changes_only_koedem() {
        assert_eq!(promotion_by_grab_of(" Announce "), Some(false));
        assert_eq!(promotion_by_grab_of("grab"), Some(true));
        assert_eq!(promotion_by_grab_of("queen"), None);
        assert!(rules_with_promotion(RulesetName::Koedem, None).promotion_by_grab);
        assert!(!rules_with_promotion(RulesetName::Koedem, Some(false)).promotion_by_grab);
        assert!(!rules_with_promotion(RulesetName::Fide, Some(true)).promotion_by_grab);
    }

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
