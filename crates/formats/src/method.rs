//! How a file names the scoring method of its event, and what simpairs makes of the name: a method it
//! scores, a method it cannot score (said in words, never replaced by a guess), or nothing said.
//!
//! Where the names come from:
//! - USEBIO 1.2 / 1.3 `EVENT_TYPE`: `MP_PAIRS`, `BUTLER_PAIRS`, `CROSS_IMP`, `AGGREGATE`, `SWISS_PAIRS`,
//!   `SWISS_PAIRS_CROSS_IMPS`, `SWISS_PAIRS_BUTLER_IMPS`, `SWISS_TEAMS`, `TEAMS_OF_FOUR`, `INDIVIDUAL`
//!   (the USEBIO 1.2 DTD's list, as github.com/duaneg/scorer-to-usebio `scorer_to_usebio/convert.py`
//!   `EVENT_TYPES` copies it), and the 1.3 additions `PAIRS`, `TEAMS`, `KO`, `LADDER`, `HEAD_TO_HEAD`
//!   and the spelling `CROSS_IMPS` (github.com/marcshearer/ImportUsebio `ImportUsebio/Shared/Score
//!   Data.swift`, `EventType`). `IMP_PAIRS` is read as IMP pairs (Butler, docs/rules.md section 5). Compscore
//!   writes `EVENT_TYPE="CROSS_IMP"` with `<SCORING_METHOD>IMPS` (github.com/abftech/cobalt reads
//!   `CROSS_IMP` as its own event type).
//! - USEBIO `SCORING_METHOD` / `BOARD_SCORING_METHOD`: `MATCH_POINTS`, `PERCENTAGE`, `IMPS`,
//!   `CROSS_IMPS`, `VPS`, `AGGREGATE` (ImportUsebio's `ScoringMethod`).
//! - PBN 2.1 `[Scoring]` (PBN standard 2.1, section 3.4.12 "The Scoring tag"): fields separated by `;`,
//!   basic systems `MP`, `MatchPoints`, `IMP`, `Cavendish`, `Chicago`, `Rubber`, `BAM`, `Instant`, and
//!   modifiers `Butler`, `Butler-2`, `Experts`, `Cross`, `Cross1`, `Cross2`, `Mean`, `Median`, `MP1`,
//!   `MP2`, `OldMP`, `Mitchell2`..`4`, `Ascherman`, `Bastille`, `EMP`, `IMP_1948`, `IMP_1961`; programs
//!   also write `Cross-IMPs`, `CrossImps` and `Total points`.
//!
//! The most specific word wins: a cross-IMP name before Butler, Butler before a bare IMP, and a named
//! method before a generic one (`CROSS_IMP` with `IMPS` is cross-IMPs; `PAIRS` with `IMPS` is Butler).
//! `Butler-2` (the two extreme scores left out of the datum) and `Cross`/`Cross1`/`Cross2` (summed or
//! averaged cross-IMPs) are scored as simpairs' Butler (`--butler-trim` sets the datum's trim) and
//! cross-IMPs (averaged over the comparisons, which ranks as the sum does when every board has the
//! same number of results).

use simpairs_scoring::Method;

/// What a file says about how its event is scored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    /// The file does not say.
    Nothing,
    /// A method simpairs scores.
    Method(Method),
    /// A method simpairs cannot score, in words a director understands.
    Unscorable(String),
}

/// One word of a file's description of its scoring.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Word {
    /// A method, with how specific the word is (a higher number wins).
    Method(Method, u8),
    /// Says nothing about the method (`PAIRS`, the `Mean` modifier).
    Generic,
    Unscorable(String),
    /// Not a pairs event at all.
    NotPairs(&'static str),
}

const MP: Word = Word::Method(Method::Matchpoints, 1);
const IMP: Word = Word::Method(Method::Butler, 1);
const BUTLER: Word = Word::Method(Method::Butler, 2);
const CROSS: Word = Word::Method(Method::CrossImps, 3);

fn unscorable(what: &str) -> Word {
    Word::Unscorable(what.to_string())
}

/// A USEBIO `EVENT_TYPE`.
fn usebio_event_type(text: &str) -> Word {
    match text
        .trim()
        .to_ascii_uppercase()
        .replace([' ', '-'], "_")
        .as_str()
    {
        "MP_PAIRS" => Word::Method(Method::Matchpoints, 2),
        "BUTLER_PAIRS" => BUTLER,
        "CROSS_IMP" | "CROSS_IMPS" | "CROSS_IMP_PAIRS" => CROSS,
        "IMP_PAIRS" => IMP,
        // A pairs event's usual method, unless a scoring method beside it says otherwise
        // (scorer-to-usebio writes Scorer's MP sessions as PAIRS).
        "PAIRS" => Word::Method(Method::Matchpoints, 0),
        "" => Word::Generic,
        "AGGREGATE" => unscorable("aggregate scoring (total points)"),
        "SWISS_PAIRS" | "SWISS_PAIRS_CROSS_IMPS" | "SWISS_PAIRS_BUTLER_IMPS" => {
            unscorable("Swiss pairs (matches scored in victory points)")
        }
        "LADDER" => unscorable("a ladder competition"),
        "SWISS_TEAMS" | "TEAMS_OF_FOUR" | "TEAMS" | "KO" | "HEAD_TO_HEAD" => {
            Word::NotPairs("a teams event")
        }
        "INDIVIDUAL" => Word::NotPairs("an individual event"),
        other => Word::Unscorable(format!("an event type simpairs does not know ({other})")),
    }
}

/// A USEBIO `SCORING_METHOD` or `BOARD_SCORING_METHOD`.
fn usebio_scoring_method(text: &str) -> Word {
    match text
        .trim()
        .to_ascii_uppercase()
        .replace([' ', '-'], "_")
        .as_str()
    {
        "MATCH_POINTS" | "MATCHPOINTS" | "MP" | "PERCENTAGE" => MP,
        "IMPS" | "IMP" => IMP,
        "BUTLER" | "BUTLER_IMPS" => BUTLER,
        "CROSS_IMPS" | "CROSS_IMP" => CROSS,
        "" => Word::Generic,
        "VPS" => unscorable("victory points"),
        "AGGREGATE" => unscorable("aggregate scoring (total points)"),
        other => Word::Unscorable(format!("a scoring method simpairs does not know ({other})")),
    }
}

/// One field of a PBN `[Scoring]` value.
fn pbn_field(text: &str) -> Word {
    let t: String = text
        .trim()
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .collect();
    match t.as_str() {
        "mp" | "matchpoints" | "mp1" | "mp2" => MP,
        "imp" | "imps" => IMP,
        "butler" | "butler2" => BUTLER,
        "cross" | "cross1" | "cross2" | "crossimp" | "crossimps" => CROSS,
        "mean" | "" => Word::Generic,
        "bam" | "boardamatch" => unscorable("board-a-match"),
        "totalpoints" | "total" => unscorable("total points"),
        "cavendish" | "chicago" | "rubber" => Word::Unscorable(format!("{} scoring", text.trim())),
        "instant" => unscorable("instant scoring (an InstantScoreTable)"),
        "experts" => unscorable("IMPs against a datum set by experts"),
        "median" => unscorable("IMPs against the median score"),
        "oldmp" => unscorable("the undertrick scores of before 1987 (OldMP)"),
        "mitchell2" | "mitchell3" | "mitchell4" | "ascherman" | "bastille" => {
            Word::Unscorable(format!("{} matchpoints", text.trim()))
        }
        "emp" => unscorable("European matchpoints"),
        "imp1948" | "imp1961" => Word::Unscorable(format!("the IMP scale of {}", text.trim())),
        _ => Word::Unscorable(format!(
            "{:?}, a scoring method simpairs does not know",
            text.trim()
        )),
    }
}

/// The words, read together: anything unscorable is said; otherwise the most specific method wins,
/// the earlier word on a tie.
fn resolve(words: impl IntoIterator<Item = Word>) -> Named {
    let mut best: Option<(Method, u8)> = None;
    let mut unscorable: Vec<String> = Vec::new();
    for word in words {
        match word {
            Word::Method(m, rank) if best.is_none_or(|(_, r)| rank > r) => best = Some((m, rank)),
            Word::Unscorable(what) if !unscorable.contains(&what) => unscorable.push(what),
            Word::NotPairs(what) => unscorable.push(what.to_string()),
            _ => {}
        }
    }
    match (unscorable.is_empty(), best) {
        (false, _) => Named::Unscorable(unscorable.join(", ")),
        (true, Some((m, _))) => Named::Method(m),
        (true, None) => Named::Nothing,
    }
}

/// Records what a file says about its method in its event.
pub(crate) fn set(event: &mut crate::model::EventInfo, named: Named) {
    match named {
        Named::Nothing => {}
        Named::Method(m) => event.method = Some(m),
        Named::Unscorable(what) => {
            event.method = None;
            event.unscorable_method = Some(what);
        }
    }
}

/// A USEBIO file's event type and scoring method. `Err` says why the file is not a pairs event.
pub(crate) fn usebio(
    event_type: Option<&str>,
    scoring_method: Option<&str>,
) -> Result<Named, &'static str> {
    let kind = event_type.map_or(Word::Generic, usebio_event_type);
    if let Word::NotPairs(what) = kind {
        return Err(what);
    }
    // An event type that names what it cannot be scored by is not saved by a method beside it.
    if let Word::Unscorable(what) = kind {
        return Ok(Named::Unscorable(what));
    }
    let method = scoring_method.map_or(Word::Generic, usebio_scoring_method);
    Ok(resolve([kind, method]))
}

/// Whether a USEBIO event type is not a pairs event, and what it is.
pub(crate) fn usebio_not_pairs(event_type: &str) -> Option<&'static str> {
    match usebio_event_type(event_type) {
        Word::NotPairs(what) => Some(what),
        _ => None,
    }
}

/// A PBN `[Scoring]` value.
pub(crate) fn pbn(scoring: &str) -> Named {
    resolve(scoring.split(';').map(pbn_field))
}

/// A Scorer session's `scoring_type` (`MP`; other values are read as USEBIO event types, which is
/// what scorer-to-usebio's converter writes them as).
pub(crate) fn scorer(scoring_type: &str) -> Named {
    match scoring_type.trim().to_ascii_uppercase().as_str() {
        "MP" => Named::Method(Method::Matchpoints),
        other => usebio(Some(other), None).unwrap_or_else(|what| Named::Unscorable(what.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test per USEBIO 1.2 / 1.3 event type: what it is scored by (with no SCORING_METHOD).
    macro_rules! usebio_event_types {
        ($($test:ident: $name:literal => $expected:expr;)*) => {$(
            #[test]
            fn $test() {
                assert_eq!(usebio(Some($name), None), $expected, "{}", $name);
            }
        )*};
    }

    fn m(method: Method) -> Result<Named, &'static str> {
        Ok(Named::Method(method))
    }

    fn cannot(what: &str) -> Result<Named, &'static str> {
        Ok(Named::Unscorable(what.to_string()))
    }

    usebio_event_types! {
        event_type_mp_pairs: "MP_PAIRS" => m(Method::Matchpoints);
        event_type_butler_pairs: "BUTLER_PAIRS" => m(Method::Butler);
        event_type_cross_imp: "CROSS_IMP" => m(Method::CrossImps);
        event_type_cross_imps: "CROSS_IMPS" => m(Method::CrossImps);
        event_type_imp_pairs: "IMP_PAIRS" => m(Method::Butler);
        event_type_pairs: "PAIRS" => m(Method::Matchpoints);
        event_type_aggregate: "AGGREGATE" => cannot("aggregate scoring (total points)");
        event_type_swiss_pairs: "SWISS_PAIRS" => cannot("Swiss pairs (matches scored in victory points)");
        event_type_swiss_pairs_cross_imps: "SWISS_PAIRS_CROSS_IMPS" => cannot("Swiss pairs (matches scored in victory points)");
        event_type_swiss_pairs_butler_imps: "SWISS_PAIRS_BUTLER_IMPS" => cannot("Swiss pairs (matches scored in victory points)");
        event_type_ladder: "LADDER" => cannot("a ladder competition");
        event_type_swiss_teams: "SWISS_TEAMS" => Err("a teams event");
        event_type_teams_of_four: "TEAMS_OF_FOUR" => Err("a teams event");
        event_type_teams: "TEAMS" => Err("a teams event");
        event_type_ko: "KO" => Err("a teams event");
        event_type_head_to_head: "HEAD_TO_HEAD" => Err("a teams event");
        event_type_individual: "INDIVIDUAL" => Err("an individual event");
        event_type_unknown: "MYSTERY" => cannot("an event type simpairs does not know (MYSTERY)");
    }

    /// The method beside the event type: the more specific word wins.
    #[test]
    fn the_most_specific_word_wins() {
        let both = |t: &str, s: &str| usebio(Some(t), Some(s));
        assert_eq!(both("CROSS_IMP", "IMPS"), m(Method::CrossImps), "Compscore");
        assert_eq!(both("BUTLER_PAIRS", "IMPS"), m(Method::Butler), "Compscore");
        assert_eq!(both("PAIRS", "IMPS"), m(Method::Butler));
        assert_eq!(both("PAIRS", "CROSS_IMPS"), m(Method::CrossImps));
        assert_eq!(both("PAIRS", "MATCH_POINTS"), m(Method::Matchpoints));
        assert_eq!(both("PAIRS", "PERCENTAGE"), m(Method::Matchpoints));
        assert_eq!(both("MP_PAIRS", "IMPS"), m(Method::Matchpoints));
        assert_eq!(both("PAIRS", "VPS"), cannot("victory points"));
        assert_eq!(
            both("AGGREGATE", "IMPS"),
            cannot("aggregate scoring (total points)")
        );
        assert_eq!(usebio(None, Some("CROSS_IMPS")), m(Method::CrossImps));
        assert_eq!(usebio(None, None), Ok(Named::Nothing));
        assert_eq!(usebio(Some(" mp_pairs "), None), m(Method::Matchpoints));
    }

    /// PBN 2.1's documented `[Scoring]` values, and the spellings programs write.
    #[test]
    fn pbn_scoring_values() {
        let method = |m: Method| Named::Method(m);
        for (value, expected) in [
            ("MP", method(Method::Matchpoints)),
            ("MatchPoints", method(Method::Matchpoints)),
            ("MP;MP2", method(Method::Matchpoints)),
            ("IMP", method(Method::Butler)),
            ("IMP;Butler", method(Method::Butler)),
            ("Butler-2", method(Method::Butler)),
            ("IMP;Cross", method(Method::CrossImps)),
            ("IMP;Cross2", method(Method::CrossImps)),
            ("Cross-IMPs", method(Method::CrossImps)),
            ("CrossImps", method(Method::CrossImps)),
            ("IMP;Butler;Mean", method(Method::Butler)),
            ("", Named::Nothing),
        ] {
            assert_eq!(pbn(value), expected, "{value}");
        }
        for (value, words) in [
            ("BAM", "board-a-match"),
            ("Total points", "total points"),
            ("Rubber", "Rubber scoring"),
            ("Chicago", "Chicago scoring"),
            ("Cavendish", "Cavendish scoring"),
            ("Instant", "instant scoring"),
            ("IMP;Experts", "experts"),
            ("IMP;Median", "median"),
            ("MP;OldMP", "1987"),
            ("MP;Mitchell2", "Mitchell2 matchpoints"),
            ("EMP", "European matchpoints"),
            ("IMP_1948", "IMP scale of IMP_1948"),
            ("Teams of eight", "does not know"),
        ] {
            match pbn(value) {
                Named::Unscorable(what) => assert!(what.contains(words), "{value}: {what}"),
                other => panic!("{value}: {other:?}"),
            }
        }
    }

    #[test]
    fn scorer_scoring_types() {
        assert_eq!(scorer("MP"), Named::Method(Method::Matchpoints));
        assert_eq!(scorer("BUTLER_PAIRS"), Named::Method(Method::Butler));
        assert!(matches!(scorer("SWISS_TEAMS"), Named::Unscorable(_)));
    }
}
