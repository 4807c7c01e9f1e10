//! Small pieces of text every page writes the same way: places, percentages, scores, names,
//! times, links.

use maud::{Markup, html};
use simpairs_events::types::Player;
use simpairs_pipeline::PairKey;
use simpairs_pipeline::views::value::show_hundredths;
use simpairs_pipeline::views::{Place, Value};

use crate::params::enc;

/// `14th`, `1st`, `22nd`.
pub fn ordinal(n: i32) -> String {
    let suffix = match (n % 100, n % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A place: `3` or `3=`.
pub fn place(p: Place) -> String {
    p.to_string()
}

/// A percentage in hundredths: `55.21`; empty when there is none.
pub fn pct(h: Option<i64>) -> String {
    h.map(show_hundredths).unwrap_or_default()
}

/// A value's matchpoints: `12.50`.
pub fn mp(v: &Value) -> String {
    show_hundredths(v.value_hundredths())
}

/// A score: `420`, `-50`, or a dash when the line gives none.
pub fn score(s: Option<i32>) -> String {
    s.map_or_else(|| "—".to_string(), |s| s.to_string())
}

/// Players' names joined: `Ann Lee & Bob Smith`; `None` when the club gave none.
pub fn names(players: &[Player]) -> Option<String> {
    let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
    (!names.is_empty()).then(|| names.join(" & "))
}

/// A pair's number with its direction: `7 NS`, `3 Howell` (a Howell pair's number alone would
/// not say it is neither 3 North-South nor 3 East-West).
pub fn pair_number(pair: &PairKey) -> String {
    if pair.direction.is_empty() {
        format!("{} Howell", pair.pair)
    } else {
        pair.to_string()
    }
}

/// A pair's national places, each naming its list as the scorecard does: `26th NS · 55th of
/// all` for a North-South or East-West pair (its place in its direction's list, then among every
/// pair), `55th of all` for a Howell pair (only the list of every pair ranks it).
pub fn national_places(direction: &str, standing: &simpairs_events::types::PairStanding) -> Markup {
    let of_all = html! {
        (ordinal(standing.combined_rank)) @if standing.combined_tied { "=" } " of all"
    };
    html! {
        @if direction.is_empty() {
            (of_all)
        } @else {
            (ordinal(standing.rank)) @if standing.tied { "=" } " " (direction)
            " · " span.meta { (of_all) }
        }
    }
}

/// `1 line`, `2 lines`: a count with its noun, singular or plural.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A pair as a link line: names when known, else `Pair 7 NS`.
pub(crate) fn pair_label(pair: &PairKey, players: &[Player]) -> String {
    names(players).unwrap_or_else(|| format!("Pair {}", pair_number(pair)))
}

/// The link to a pair's scorecard.
pub fn pair_url(pair: &PairKey) -> String {
    let mut url = format!(
        "/pair/{}/{}?section={}",
        enc(&pair.club),
        enc(&pair.pair),
        enc(&pair.section)
    );
    if !pair.direction.is_empty() {
        url.push_str("&dir=");
        url.push_str(pair.direction);
    }
    url
}

/// The link to a club's page.
pub(crate) fn club_url(club: &str) -> String {
    format!("/club/{}", enc(club))
}

/// The link to a board: nationally, or in a club's field; `club` narrows the traveller.
pub(crate) fn board_url(board: i32, club: Option<&str>, club_scope: bool) -> String {
    match (club, club_scope) {
        (Some(c), true) => format!("/board/{board}?scope=club&club={}", enc(c)),
        (Some(c), false) => format!("/board/{board}?club={}", enc(c)),
        (None, _) => format!("/board/{board}"),
    }
}

/// A time (ms since the epoch) as `20:41 UTC`, in a `<time>` the page's script shows in the
/// reader's own time.
/// A result the club corrected after its first upload, and what that upload gave.
pub(crate) fn correction(c: &simpairs_pipeline::views::result::Correction) -> String {
    use simpairs_pipeline::views::result::Correction;
    match c {
        Correction::Added => "added by a correction".to_string(),
        Correction::Was {
            result,
            score,
            marks,
        } => {
            let played = [result.clone(), score.map(|s| s.to_string())];
            let was = (played.into_iter().flatten())
                .chain(marks.iter().cloned())
                .collect::<Vec<_>>()
                .join(", ");
            match was.is_empty() {
                true => "corrected, was —".to_string(),
                false => format!("corrected, was {was}"),
            }
        }
    }
}

/// What a page says of a club with no results: not in yet, or never, once the event is closed.
pub(crate) fn no_results(p: &simpairs_pipeline::project::Projection) -> &'static str {
    match p.closed_ms() {
        Some(_) => {
            "This club has no results in this event, which the organiser closed without them."
        }
        None => "This club's results are not in yet.",
    }
}

pub fn time(ms: i64) -> Markup {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64);
    let iso = humantime::format_rfc3339_seconds(at).to_string();
    let hm = iso.get(11..16).unwrap_or("").to_string();
    html! { time datetime=(iso) data-local="" title=(iso) { (hm) " UTC" } }
}

/// [`time`] to the second, for the director's list: clubs sealed within one minute are told
/// apart.
pub fn time_to_second(ms: i64) -> Markup {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64);
    let iso = humantime::format_rfc3339_seconds(at).to_string();
    let hms = iso.get(11..19).unwrap_or("").to_string();
    html! { time datetime=(iso) data-local="seconds" title=(iso) { (hms) " UTC" } }
}

/// A day (ms since the epoch) as `2026-11-25` (UTC).
pub(crate) fn time_date(ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64);
    let iso = humantime::format_rfc3339_seconds(at).to_string();
    iso.get(..10).unwrap_or("").to_string()
}

/// Suit symbols with their names for screen readers.
pub fn suit(index: usize) -> Markup {
    let (symbol, name, red) = match index {
        0 => ("♠", "spades", false),
        1 => ("♥", "hearts", true),
        2 => ("♦", "diamonds", true),
        _ => ("♣", "clubs", false),
    };
    html! { span.suit-r[red] aria-hidden="true" { (symbol) } span.vh { (name) } }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111]
            .map(ordinal)
            .to_vec();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }

    #[test]
    fn a_howell_pair_says_so_and_counts_are_singular_or_plural() {
        assert_eq!(pair_number(&PairKey::new("C1", "A", "12", "")), "12 Howell");
        assert_eq!(pair_number(&PairKey::new("C1", "A", "12", "NS")), "12 NS");
        assert_eq!(count(1, "line is", "lines are"), "1 line is");
        assert_eq!(count(0, "line is", "lines are"), "0 lines are");
        assert_eq!(count(3, "line is", "lines are"), "3 lines are");
    }

    #[test]
    fn links_encode_what_clubs_wrote() {
        let pair = PairKey::new("C<1>", "A B", "7", "NS");
        assert_eq!(pair_url(&pair), "/pair/C%3C1%3E/7?section=A%20B&dir=NS");
    }
}
