//! A result as players read it on a traveller: `4S+1 N`, `3NT= S`, `2HX-2 E`, `PASS`, `AVE+`,
//! and what kind of line it is (adjusted, split, arrow-switched, fouled), so that a page can label
//! the lines the field compares differently, and what a correction changed.

use simpairs_events::types::AppliedResult;
use simpairs_scoring::Contract;

use crate::results::SinceFirst;

/// A board's result a later submission of the club corrected (docs/rules.md, "Corrections").
#[derive(Clone, Debug, PartialEq)]
pub enum Correction {
    /// The club's first upload gave this instead: the result as a traveller writes it, its score
    /// to the pair's side, its marks (`adjusted AVE`, ...).
    Was {
        result: Option<String>,
        score: Option<i32>,
        marks: Vec<String>,
    },
    /// The club's first upload did not give this board.
    Added,
}

impl Correction {
    /// The correction of a result in force, with the first upload's score to one side.
    pub(crate) fn of(since: SinceFirst<'_>, ns: bool) -> Option<Correction> {
        match since {
            SinceFirst::Unchanged => None,
            SinceFirst::Added => Some(Correction::Added),
            SinceFirst::Corrected(was) => Some(Correction::Was {
                result: result_text(was),
                score: score_to(was, ns),
                marks: Marks::of(was).labels(),
            }),
        }
    }
}

/// The score to one side: NS's recorded score, or EW's (their own when split).
pub(crate) fn score_to(r: &AppliedResult, ns: bool) -> Option<i32> {
    if ns {
        r.ns_score
    } else {
        r.ew_score.or(r.ns_score.map(|s| -s))
    }
}

/// A line's result and score in words, as a traveller gives them: `3NT-3 E, NS -150`, `AVE`,
/// `NS 420, EW -400` (a split score).
pub(crate) fn line_words(r: &AppliedResult) -> String {
    let score = r
        .ns_score
        .map(|ns| match r.ew_score.filter(|&ew| ew != -ns) {
            Some(ew) => format!("NS {ns}, EW {ew}"),
            None => format!("NS {ns}"),
        });
    let words: Vec<String> = result_text(r).into_iter().chain(score).collect();
    match words.is_empty() {
        true => "no result".to_string(),
        false => words.join(", "),
    }
}

/// The kinds of line that are not an ordinary played result; several may hold at once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// An artificial adjusted score, as `AVE+`, `AVE` or `60/40`.
    pub adjusted: Option<String>,
    /// NS and EW were given different scores.
    pub split: bool,
    /// The pairs played the other direction's cards.
    pub arrow_switch: bool,
    /// The board was fouled; the group it is scored in.
    pub fouled: Option<String>,
}

impl Marks {
    pub fn of(r: &AppliedResult) -> Marks {
        Marks {
            adjusted: r
                .adjusted
                .map(|a| adjusted_text(a.ns_percent, a.ew_percent)),
            split: r.ew_score.is_some_and(|ew| Some(-ew) != r.ns_score),
            arrow_switch: r.arrow_switch,
            fouled: r.group.as_deref().map(str::to_string),
        }
    }

    /// Whether the line is an ordinary played result.
    pub fn is_plain(&self) -> bool {
        *self == Marks::default()
    }

    /// Words for each kind that holds: `adjusted AVE+`, `split score`, `arrow-switched`,
    /// `fouled (group B)`.
    pub fn labels(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(a) = &self.adjusted {
            out.push(format!("adjusted {a}"));
        }
        if self.split {
            out.push("split score".to_string());
        }
        if self.arrow_switch {
            out.push("arrow-switched".to_string());
        }
        if let Some(g) = &self.fouled {
            out.push(format!(
                "fouled (group {})",
                crate::views::text::display_name(g)
            ));
        }
        out
    }
}

/// An adjusted score's usual name: `AVE` (50/50), `AVE+`/`AVE-` (60/40 either way), else `NS/EW`.
pub fn adjusted_text(ns: i32, ew: i32) -> String {
    match (ns, ew) {
        (50, 50) => "AVE".to_string(),
        (60, 40) => "AVE+/AVE-".to_string(),
        (40, 60) => "AVE-/AVE+".to_string(),
        (60, 60) => "AVE+/AVE+".to_string(),
        (40, 40) => "AVE-/AVE-".to_string(),
        _ => format!("{ns}%/{ew}%"),
    }
}

/// The result as a traveller writes it: contract, result against it, declarer (`4S+1 N`).
/// `None` for a line that gives only a score; an adjusted line gives its adjustment.
pub(crate) fn result_text(r: &AppliedResult) -> Option<String> {
    if let Some(a) = r.adjusted {
        return Some(adjusted_text(a.ns_percent, a.ew_percent));
    }
    let written = r.contract.as_deref()?;
    let contract = match written.parse::<Contract>() {
        Ok(c) => c,
        // Not a contract this program reads: shown as written.
        Err(_) => return Some(crate::views::text::display_name(written)),
    };
    let Contract::Bid { level, .. } = contract else {
        return Some("PASS".to_string());
    };
    let against = r.tricks.map(|t| t - (i32::from(level) + 6));
    let result = match against {
        Some(0) => "=".to_string(),
        Some(n) if n > 0 => format!("+{n}"),
        Some(n) => n.to_string(),
        None => String::new(),
    };
    let declarer = r
        .declarer
        .as_deref()
        .map(|d| format!(" {}", crate::views::text::truncate(d, 1)))
        .unwrap_or_default();
    Some(format!("{contract}{result}{declarer}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use simpairs_events::types::Adjusted;

    fn line(contract: Option<&str>, declarer: Option<&str>, tricks: Option<i32>) -> AppliedResult {
        AppliedResult {
            contract: contract.map(Into::into),
            declarer: declarer.map(Into::into),
            tricks,
            ..crate::test_result::table(1, "1", "2")
        }
    }

    #[test]
    fn results_read_as_on_a_traveller() {
        let t = |c, d, n| result_text(&line(Some(c), Some(d), Some(n)));
        assert_eq!(t("4S", "N", 11).as_deref(), Some("4S+1 N"));
        assert_eq!(t("3nt", "S", 9).as_deref(), Some("3NT= S"));
        assert_eq!(t("2HX", "E", 6).as_deref(), Some("2HX-2 E"));
        assert_eq!(
            result_text(&line(Some("PASS"), None, None)).as_deref(),
            Some("PASS")
        );
        assert_eq!(result_text(&line(None, None, None)), None);
        let mut adjusted = line(None, None, None);
        adjusted.adjusted = Some(Adjusted {
            ns_percent: 60,
            ew_percent: 40,
        });
        assert_eq!(result_text(&adjusted).as_deref(), Some("AVE+/AVE-"));
        assert_eq!(Marks::of(&adjusted).labels(), ["adjusted AVE+/AVE-"]);
    }

    #[test]
    fn a_line_in_words_gives_its_result_and_score() {
        let mut r = line(Some("3NT"), Some("E"), Some(6));
        r.ns_score = Some(150);
        assert_eq!(line_words(&r), "3NT-3 E, NS 150");
        r.ew_score = Some(-100);
        assert_eq!(line_words(&r), "3NT-3 E, NS 150, EW -100");
        let scored = AppliedResult {
            ns_score: Some(-420),
            ew_score: Some(420),
            ..line(None, None, None)
        };
        assert_eq!(line_words(&scored), "NS -420");
        assert_eq!(line_words(&line(None, None, None)), "no result");
    }

    #[test]
    fn kinds_of_line_are_told_apart() {
        let mut r = line(Some("4S"), Some("N"), Some(10));
        assert!(Marks::of(&r).is_plain());
        r.ns_score = Some(420);
        r.ew_score = Some(-300);
        r.arrow_switch = true;
        r.group = Some("B".into());
        assert_eq!(
            Marks::of(&r).labels(),
            ["split score", "arrow-switched", "fouled (group B)"]
        );
    }
}
