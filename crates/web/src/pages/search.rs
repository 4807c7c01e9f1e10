//! Search: a player's name (accents and case ignored), a national id, a club's name or id, a pair
//! number with its club. Answers come from the catalog's index, not from reading every pair.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::rankings::national_standing;
use simpairs_pipeline::views::search::{MAX_HITS, SearchResults};
use simpairs_pipeline::views::{Catalog, club_name};

use crate::pages::fmt;
use crate::pages::layout::{Frame, page};
use crate::params::Params;
use crate::site::Site;

/// A query as the reader typed it, read for the words the site itself writes: `pair`, `section
/// A`, `NS`, `N-S`, `E-W`, `Howell` and punctuation (`Tauranga Bridge Club, pair 29 NS, section
/// A`, copied from a page) are not names to look for but which pair.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Query {
    /// The words to look for.
    pub words: String,
    /// `NS`, `EW`, or `""` (Howell) when the query names a direction.
    pub direction: Option<&'static str>,
    /// The section the query names (`section A`).
    pub section: Option<String>,
}

impl Query {
    pub(crate) fn read(q: &str) -> Query {
        let mut out = Query::default();
        let mut words: Vec<&str> = Vec::new();
        let mut tokens = q
            .split(|c: char| c.is_whitespace() || ",;:()[]\"".contains(c))
            .map(|t| t.trim_matches(|c: char| c == '.' || c == '#'))
            .filter(|t| !t.is_empty());
        while let Some(t) = tokens.next() {
            let key = crate::pages::clubs::name_key(t);
            match key.as_str() {
                "pair" | "pairs" => {}
                "section" | "sec" => out.section = tokens.next().map(str::to_string),
                "ns" | "northsouth" => out.direction = Some("NS"),
                "ew" | "eastwest" => out.direction = Some("EW"),
                "howell" => out.direction = Some(""),
                _ => words.push(t),
            }
        }
        out.words = words.join(" ");
        out
    }

    fn narrows(&self) -> bool {
        self.direction.is_some() || self.section.is_some()
    }

    fn keeps(&self, pair: &simpairs_pipeline::PairKey) -> bool {
        self.direction.is_none_or(|d| d == pair.direction)
            && self
                .section
                .as_deref()
                .is_none_or(|s| s.eq_ignore_ascii_case(&pair.section))
    }
}

/// `words` with each word that finds nothing on its own but is a name written without its spaces
/// (`vanderberg`) spelt as the name spells it (`van der berg`): the index keeps a name's words.
fn spaced(p: &Projection, catalog: &Catalog, words: &str) -> Option<String> {
    let mut changed = false;
    let mut out: Vec<String> = Vec::new();
    for w in words.split_whitespace() {
        let key = crate::pages::clubs::name_key(w);
        let found = catalog.search().search(w);
        if key.len() < 4 || !found.pairs.is_empty() || !found.clubs.is_empty() {
            out.push(w.to_string());
            continue;
        }
        match spelt(p, &key) {
            Some(words) => {
                changed = true;
                out.push(words);
            }
            None => out.push(w.to_string()),
        }
    }
    changed.then(|| out.join(" "))
}

/// The words of a player's name that, written together, begin with `key` (`van der berg` for
/// `vanderberg`, the last word cut where `key` ends).
fn spelt(p: &Projection, key: &str) -> Option<String> {
    for players in p.players.values() {
        for player in players {
            let words: Vec<String> = simpairs_pipeline::views::fold::fold(&player.name)
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect();
            for start in 0..words.len() {
                let mut joined = String::new();
                let mut used: Vec<&str> = Vec::new();
                for w in &words[start..] {
                    let need = key.len() - joined.len();
                    let part = &w[..w.len().min(need)];
                    if !key[joined.len()..].starts_with(part) {
                        break;
                    }
                    joined.push_str(part);
                    used.push(part);
                    if joined.len() == key.len() {
                        if used.len() > 1 {
                            return Some(used.join(" "));
                        }
                        break;
                    }
                }
            }
        }
    }
    None
}

/// The pairs and clubs found for `q`: its words looked up, a name written without spaces
/// spelt with them, the pairs narrowed to the direction and section it names, a club's pairs in
/// number order.
pub(crate) fn find(p: &Projection, catalog: &Catalog, q: &str) -> SearchResults {
    let query = Query::read(q);
    let mut found = catalog.search().search(&query.words);
    if found.pairs.is_empty()
        && let Some(words) = spaced(p, catalog, &query.words)
    {
        found = catalog.search().search(&words);
    }
    if query.narrows() {
        found.pairs.retain(|h| query.keeps(&h.pair));
        if !found.too_wide {
            found.pairs_matched = found.pairs.len();
        }
    }
    // The search ranks by how well the names match; a club's pairs, one after another, read
    // in number order (1, 2, 10, not 1, 10, 2).
    for run in found.pairs.chunk_by_mut(|a, b| a.pair.club == b.pair.club) {
        run.sort_by(|a, b| {
            let key = |h: &simpairs_pipeline::views::search::PairHit| {
                (
                    h.pair.section.clone(),
                    simpairs_scoring::PairLabel::new(&h.pair.pair),
                    h.pair.direction,
                )
            };
            key(a).cmp(&key(b))
        });
    }
    found
}

/// `text` without control characters (a NUL pasted into the box is not written back).
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

pub async fn search(State(site): State<Site>, params: Params) -> Response {
    let q = match params.text("q") {
        Ok(q) => printable(q.unwrap_or("")).trim().to_string(),
        Err(_) => return too_long(&site),
    };
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(&site, &p, &catalog);
    let found = find(&p, &catalog, &q);
    let body = html! {
        (form(&q))
        @if q.is_empty() {
            p { "Type part of a name (\"smi\" finds Smith and Smithers), a national ID, a club's name or number, or a club and a pair number (\"Auckland 7\", \"Auckland pair 7 NS\")." }
        } @else {
            (results(&p, &catalog, &found))
        }
    };
    page(&f, "Search", None, body).into_response()
}

fn form(q: &str) -> Markup {
    html! {
        form.inline role="search" action="/search" method="get" {
            label { "Player, national ID, club or pair number"
                input #q type="search" name="q" value=(q) size="30" maxlength=(crate::params::MAX_VALUE); }
            button type="submit" { "Search" }
        }
    }
}

/// A search longer than any name: a 400 that says so, with the box to search again.
fn too_long(site: &Site) -> Response {
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(site, &p, &catalog);
    let body = html! {
        p { "That search is too long: type at most " (crate::params::MAX_VALUE) " characters, such as a name, a club or a pair number." }
        (form(""))
    };
    (
        axum::http::StatusCode::BAD_REQUEST,
        page(&f, "Search too long", None, body),
    )
        .into_response()
}

fn results(p: &Projection, catalog: &Catalog, found: &SearchResults) -> Markup {
    html! {
        @if found.clubs.is_empty() && found.pairs.is_empty() {
            p { "Nothing found. Try fewer letters, or a club's name." }
        }
        @if !found.clubs.is_empty() {
            h2 { "Clubs" }
            ul { @for c in &found.clubs { li { a href=(fmt::club_url(&c.club)) { (club_name(p, &c.club)) } " (" (c.club) ")" } } }
        }
        @if !found.pairs.is_empty() {
            h2 { "Pairs" }
            @if found.too_wide || found.pairs_matched > MAX_HITS {
                p.meta { "The first " (found.pairs.len()) " of " @if found.too_wide { "more than " } (found.pairs_matched) " pairs; add a word (a first name, a club) to narrow the search." }
            }
            table {
                caption { "Pairs found" }
                thead { tr {
                    th.l scope="col" { "Players" }
                    th.l scope="col" { "Club, pair" }
                    th.wide scope="col" { "National place" }
                    th scope="col" { "%" }
                } }
                tbody {
                    @for hit in &found.pairs {
                        @let standing = national_standing(p, catalog, &hit.pair);
                        tr {
                            td.l { a href=(fmt::pair_url(&hit.pair)) { (fmt::pair_label(&hit.pair, &simpairs_pipeline::views::players_of(p, &hit.pair))) } }
                            td.l { (club_name(p, &hit.pair.club)) ", pair " (fmt::pair_number(&hit.pair))
                                @if !hit.pair.section.is_empty() { ", section " (hit.pair.section) }
                                @if catalog.clubs().get(&hit.pair.club).is_some_and(|c| c.withdrawn()) {
                                    br; span.meta { "the club's results withdrawn" } } }
                            td.num.wide { @if let Some(s) = &standing { (fmt::national_places(hit.pair.direction, s)) } }
                            td.num { @if let Some(s) = &standing { (fmt::pct(s.percent_hundredths)) } }
                        }
                    }
                }
            }
        }
    }
}
