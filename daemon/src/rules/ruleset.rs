//! Rulesets as data: where the rule documents disagree, a field says which way a match goes.
//!
//! See `docs/rules.md`: the project does not pick one document; the match configuration does.

use std::fmt;
use std::str::FromStr;

use super::Role;

/// The named rulesets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RulesetName {
    /// Bughouse extension to the FIDE Laws (document 000). The default.
    #[default]
    Fide,
    /// Complete ruleset for a bughouse tournament, 3-minute games (document 001).
    Tournament,
    /// 2006 USA club/tournament rules, game in 5 (document 002).
    Uscf2006,
    /// Laws of OTB bughouse, WBN document 1.00 (document 003).
    Wbn,
    /// Koedem: kings can be captured and passed (document 004).
    Koedem,
}

impl RulesetName {
    /// All names, in the order of the seeds.
    pub const ALL: [RulesetName; 5] = [
        RulesetName::Fide,
        RulesetName::Tournament,
        RulesetName::Uscf2006,
        RulesetName::Wbn,
        RulesetName::Koedem,
    ];

    /// The name as written in configurations and on the command line.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            RulesetName::Fide => "fide",
            RulesetName::Tournament => "tournament",
            RulesetName::Uscf2006 => "uscf2006",
            RulesetName::Wbn => "wbn",
            RulesetName::Koedem => "koedem",
        }
    }

    /// The rules of this name.
    #[must_use]
    pub const fn ruleset(self) -> Ruleset {
        Ruleset::named(self)
    }
}

impl fmt::Display for RulesetName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RulesetName {
    type Err = UnknownRuleset;
    fn from_str(s: &str) -> Result<RulesetName, UnknownRuleset> {
        RulesetName::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRuleset(s.to_owned()))
    }
}

/// A ruleset name that is not one of `fide`, `tournament`, `uscf2006`, `wbn`, `koedem`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRuleset(pub String);

impl fmt::Display for UnknownRuleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown ruleset {:?}: expected one of fide, tournament, uscf2006, wbn, koedem",
            self.0
        )
    }
}

impl std::error::Error for UnknownRuleset {}

/// The pieces a pawn may be promoted to, as a small set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RoleSet(u8);

impl RoleSet {
    /// Queen, rook, bishop, knight.
    pub const ALL_PROMOTIONS: RoleSet =
        RoleSet::of(&[Role::Queen, Role::Rook, Role::Bishop, Role::Knight]);
    /// Queen and knight only (WBN 5.7).
    pub const QUEEN_KNIGHT: RoleSet = RoleSet::of(&[Role::Queen, Role::Knight]);

    /// The set of the given roles.
    #[must_use]
    pub const fn of(roles: &[Role]) -> RoleSet {
        let mut bits = 0;
        let mut i = 0;
        while i < roles.len() {
            bits |= 1 << roles[i] as u8;
            i += 1;
        }
        RoleSet(bits)
    }

    /// Whether `role` is in the set.
    #[must_use]
    pub const fn contains(self, role: Role) -> bool {
        self.0 & (1 << role as u8) != 0
    }

    /// The roles in the set, strongest first.
    pub fn iter(self) -> impl Iterator<Item = Role> {
        [
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
            Role::King,
        ]
        .into_iter()
        .filter(move |&r| self.contains(r))
    }
}

/// What a match's rules say where the documents differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ruleset {
    /// Which named ruleset this is.
    pub name: RulesetName,
    /// A rook dropped on its original square may castle if the king never moved (000 §8);
    /// WBN 5.8 forbids it.
    pub castle_with_dropped_rook: bool,
    /// The pieces a pawn may be promoted to (WBN: queen or knight).
    pub promotion_pieces: RoleSet,
    /// A draw may be claimed when a position occurred this many times (holdings not part of
    /// the position); `None`: no repetition rule.
    pub repetition_count: Option<u8>,
    /// A drop restarts the repetition count (tournament §19).
    pub repetition_resets_on_drop: bool,
    /// Kings can be captured and passed; the game ends when a team holds all four (Koedem).
    pub kings_capturable: bool,
    /// Promotion by grabbing a piece of one's colour from the other board (Koedem); the
    /// promoted pawn goes to the opposing team.
    pub promotion_by_grab: bool,
    /// Whether any draw exists (by agreement, repetition, both flags). Koedem: none.
    pub draws: bool,
    /// A fallen flag ends the game only when a player (or his partner) claims it: USCF 2006
    /// §15.a.3 ("provided he/she points it out") and WBN 7.8 ("a flag is considered to have
    /// fallen when either player or his partner has made a valid claim"). The daemon then
    /// alerts the arbiter, who confirms the claim; under the other rulesets the clock's flag
    /// ends the game by itself (FIDE blitz: the arbiter observes it; tournament §12: the
    /// referee neutralizes at once; Koedem: "that team loses the game instantly").
    pub flag_needs_claim: bool,
}

impl Ruleset {
    /// The rules of a named ruleset.
    #[must_use]
    pub const fn named(name: RulesetName) -> Ruleset {
        let base = Ruleset {
            name,
            castle_with_dropped_rook: true,
            promotion_pieces: RoleSet::ALL_PROMOTIONS,
            repetition_count: Some(4),
            repetition_resets_on_drop: false,
            kings_capturable: false,
            promotion_by_grab: false,
            draws: true,
            flag_needs_claim: false,
        };
        match name {
            RulesetName::Fide => base,
            RulesetName::Tournament => Ruleset {
                repetition_count: Some(5),
                repetition_resets_on_drop: true,
                ..base
            },
            RulesetName::Uscf2006 => Ruleset {
                repetition_count: None,
                flag_needs_claim: true,
                ..base
            },
            RulesetName::Wbn => Ruleset {
                castle_with_dropped_rook: false,
                promotion_pieces: RoleSet::QUEEN_KNIGHT,
                repetition_count: Some(3),
                flag_needs_claim: true,
                ..base
            },
            RulesetName::Koedem => Ruleset {
                repetition_count: None,
                kings_capturable: true,
                promotion_by_grab: true,
                draws: false,
                ..base
            },
        }
    }
}

impl Default for Ruleset {
    fn default() -> Ruleset {
        Ruleset::named(RulesetName::Fide)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rulesets_differ_where_the_documents_do() {
        let fide = RulesetName::Fide.ruleset();
        let wbn = RulesetName::Wbn.ruleset();
        assert!(fide.castle_with_dropped_rook && !wbn.castle_with_dropped_rook);
        assert!(fide.promotion_pieces.contains(Role::Rook));
        assert!(!wbn.promotion_pieces.contains(Role::Rook));
        assert!(wbn.promotion_pieces.contains(Role::Knight));
        assert_eq!(RulesetName::Tournament.ruleset().repetition_count, Some(5));
        assert!(RulesetName::Tournament.ruleset().repetition_resets_on_drop);
        assert_eq!(wbn.repetition_count, Some(3));
        assert_eq!(RulesetName::Uscf2006.ruleset().repetition_count, None);
        let koedem = RulesetName::Koedem.ruleset();
        assert!(koedem.kings_capturable && koedem.promotion_by_grab && !koedem.draws);
        assert!(wbn.flag_needs_claim && RulesetName::Uscf2006.ruleset().flag_needs_claim);
        assert!(!fide.flag_needs_claim && !koedem.flag_needs_claim);
        assert!(!RulesetName::Tournament.ruleset().flag_needs_claim);
    }

    #[test]
    fn names_parse() {
        for name in RulesetName::ALL {
            assert_eq!(name.as_str().parse(), Ok(name));
        }
        let err = "chess960".parse::<RulesetName>().unwrap_err();
        assert!(err.to_string().contains("chess960"));
    }
}
