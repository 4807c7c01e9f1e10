//! [`PairKey`]: a pair of the event by its names, the one identity every role and view uses.

use std::fmt;

/// A pair of the event: club, section, number and direction (`NS`, `EW`, or `""` for a Howell
/// pair). Ordered by club, then section, number and direction; `Debug` shows it as the tuple it
/// replaced, `("C1", "A", "7", "NS")`.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PairKey {
    pub club: String,
    pub section: String,
    /// The pair's number (label) within its section.
    pub pair: String,
    /// `NS`, `EW`, or `""` for a Howell pair ([`crate::wire::direction_key`]).
    pub direction: &'static str,
}

impl PairKey {
    pub fn new(
        club: impl Into<String>,
        section: impl Into<String>,
        pair: impl Into<String>,
        direction: &'static str,
    ) -> PairKey {
        PairKey {
            club: club.into(),
            section: section.into(),
            pair: pair.into(),
            direction,
        }
    }

    /// A pair whose direction is given as text (a page's or an export's): `NS` and `EW` are kept,
    /// anything else is a Howell pair's `""`.
    pub fn from_text(
        club: impl Into<String>,
        section: impl Into<String>,
        pair: impl Into<String>,
        direction: &str,
    ) -> PairKey {
        PairKey::new(club, section, pair, PairKey::direction_key(direction))
    }

    /// The key form of a direction given as text: `NS`, `EW`, or `""` for anything else.
    pub fn direction_key(text: &str) -> &'static str {
        match text {
            "NS" => "NS",
            "EW" => "EW",
            _ => "",
        }
    }

    /// Whether this is a Howell pair (no direction).
    pub fn is_howell(&self) -> bool {
        self.direction.is_empty()
    }
}

impl fmt::Debug for PairKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("")
            .field(&self.club)
            .field(&self.section)
            .field(&self.pair)
            .field(&self.direction)
            .finish()
    }
}

/// The pair's number with its direction, as pages print it: `7 NS`, `3` (Howell).
impl fmt::Display for PairKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.direction.is_empty() {
            f.write_str(&self.pair)
        } else {
            write!(f, "{} {}", self.pair, self.direction)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_as_club_section_number_direction_and_shows_its_number() {
        let a = PairKey::new("C1", "A", "7", "NS");
        let b = PairKey::new("C1", "A", "7", "EW");
        let c = PairKey::new("C1", "B", "1", "");
        assert!(b < a && a < c);
        assert_eq!((a.to_string(), c.to_string()), ("7 NS".into(), "1".into()));
        let tuple = ("C1", "A", "7", "NS");
        assert_eq!(format!("{a:?}"), format!("{tuple:?}"));
        assert_eq!(format!("{a:#?}"), format!("{tuple:#?}"));
        assert_eq!(
            PairKey::from_text("C1", "A", "7", "ns"),
            PairKey::new("C1", "A", "7", "")
        );
    }
}
