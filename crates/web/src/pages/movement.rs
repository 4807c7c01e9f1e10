//! How the field moved (`/movement?club=&pair=&section=&dir=&top=`): the leading pairs' places
//! after each club's results were applied, as a chart drawn on the server, and a reader's own
//! pair with them. The figures are `simpairs_analysis::movement::field_history`'s; the same
//! history is served as JSON at `/api/movement`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_analysis::movement::{FieldHistory, HistoryOptions, PairPath, Pairs, Point};
use simpairs_analysis::timeline::{Every, Step};
use simpairs_pipeline::PairKey;
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::club_name;
use simpairs_pipeline::views::resolve::{Resolved, resolve};

use crate::analysts::Unavailable;
use crate::pages::chart::{PHONE, Series, WIDE, colour, places_chart};
use crate::pages::fmt;
use crate::pages::layout::{Frame, page};
use crate::params::{BadParam, Params, enc};
use crate::site::Site;

/// Leading pairs followed unless asked otherwise, and the most a link may ask for.
pub(crate) const TOP: usize = 10;
pub(crate) const MAX_TOP: usize = 20;
/// The most generations scored for a chart: a national event has thousands, and each scoring
/// ranks the whole field; beyond this every n-th is scored (and always the last).
pub(crate) const MAX_POINTS: usize = 120;

/// What a link asks for.
#[derive(Clone, Debug)]
pub struct Ask {
    pub top: usize,
    pub pair: Option<PairKey>,
}

/// Why a link cannot be answered.
pub enum Refused {
    Bad(BadParam),
    /// The link names a pair this event does not have (or names it ambiguously).
    NoPair,
}

impl From<BadParam> for Refused {
    fn from(b: BadParam) -> Self {
        Refused::Bad(b)
    }
}

/// Reads and checks the link's parameters; a pair is found as its scorecard finds it.
pub fn read(site: &Site, params: &Params) -> Result<Ask, Refused> {
    let top = params.number("top", MAX_TOP)?.unwrap_or(TOP);
    let club = params.text("club")?;
    let number = params.text("pair")?;
    let section = params.text("section")?;
    let dir = params.choice("dir", &["NS", "EW"], "NS or EW")?;
    let pair = match (club, number) {
        (Some(club), Some(number)) => {
            let p = site.projection();
            let catalog = site.catalog();
            match resolve(&p, &catalog, club, section, number, dir) {
                Resolved::One(pair) => Some(pair),
                _ => return Err(Refused::NoPair),
            }
        }
        (None, None) => None,
        (None, Some(_)) => {
            return Err(Refused::Bad(BadParam {
                name: "club",
                expected: "the pair's club, with its number",
            }));
        }
        (Some(_), None) => {
            return Err(Refused::Bad(BadParam {
                name: "pair",
                expected: "the pair's number, with its club",
            }));
        }
    };
    Ok(Ask { top, pair })
}

/// The history the link asks for, from the analysts (kept per generation).
pub async fn history(site: &Site, ask: &Ask) -> Result<Arc<FieldHistory>, Unavailable> {
    let analysts = site.analysts().ok_or(Unavailable::NoLog)?;
    let generation = site.projection().generation();
    let step = (generation.max(1) as usize).div_ceil(MAX_POINTS);
    let options = HistoryOptions {
        every: if step <= 1 {
            Every::Each
        } else {
            Every::Step(step as u32)
        },
        pairs: Pairs::TopAnd(ask.top, ask.pair.iter().cloned().collect()),
        ..HistoryOptions::default()
    };
    // The step follows from the generation, which the cache keys by: a history of an earlier
    // generation is the same chart, shorter, and is shown while this one is computed.
    let key = format!("{}|{:?}", ask.top, ask.pair);
    analysts.movement(key, generation, options).await
}

pub async fn movement(State(site): State<Site>, params: Params) -> Response {
    let ask = match read(&site, &params) {
        Ok(ask) => ask,
        Err(Refused::Bad(bad)) => return crate::pages::errors::bad_param(&site, bad),
        Err(Refused::NoPair) => return no_pair(&site),
    };
    match history(&site, &ask).await {
        Ok(h) => show(&site, &ask, &h),
        Err(why) => crate::pages::errors::unavailable(&site, &why),
    }
}

fn no_pair(site: &Site) -> Response {
    crate::pages::errors::not_found(
        site,
        "No such pair",
        html! {
            "This event has no single pair with that club and number. Find the pair by "
            a href="/search" { "searching" } " for a player's name, then follow "
            "\"How this pair moved\" on its scorecard."
        },
    )
}

/// The pairs followed, best final place first and the pairs no longer ranked last, the reader's
/// own pair (if any) first of all.
fn ordered<'a>(h: &'a FieldHistory, mine: Option<&PairKey>) -> Vec<(&'a PairPath, bool)> {
    let mut paths: Vec<(&PairPath, bool)> = h
        .pairs
        .iter()
        .map(|p| (p, mine.is_some_and(|m| is(p, m))))
        .collect();
    let place = |p: &PairPath| match now(h, p) {
        Some(x) => x.combined_place,
        None => u32::MAX,
    };
    paths.sort_by_key(|(p, own)| (!own, place(p)));
    paths
}

/// The pair's figures at the chart's last generation: none when it is no longer ranked (its
/// club's results withdrawn, or its results taken out by a correction).
fn now<'a>(h: &FieldHistory, path: &'a PairPath) -> Option<&'a Point> {
    let last = path.points.last()?;
    (h.scored.last() == Some(&last.generation)).then_some(last)
}

/// Why a pair ranked on the way is no longer ranked, in words.
fn out_words(h: &FieldHistory, p: &Projection, path: &PairPath) -> Option<String> {
    if now(h, path).is_some() {
        return None;
    }
    let last = path.points.last()?.generation;
    let withdrawn =
        (h.generations.iter()).find(|s| s.generation > last && s.club == path.club && s.withdrawn);
    Some(match withdrawn {
        Some(s) => format!(
            "This pair is no longer ranked: {}'s results were withdrawn at generation {}.",
            club_name(p, &path.club),
            s.generation
        ),
        None => format!(
            "This pair is no longer ranked: a correction of {} after generation {last} took its results out.",
            club_name(p, &path.club)
        ),
    })
}

fn is(path: &PairPath, pair: &PairKey) -> bool {
    path.club == pair.club
        && path.section == pair.section
        && path.pair == pair.pair
        && path.direction == pair.direction
}

pub fn pair_ref(path: &PairPath) -> PairKey {
    PairKey::from_text(
        path.club.clone(),
        path.section.clone(),
        path.pair.clone(),
        &path.direction,
    )
}

/// A pair's line on the chart and in the table: its players, or its number and club (a national
/// chart holds many clubs' pair 1).
fn label(p: &Projection, path: &PairPath) -> String {
    if path.players.is_empty() {
        let pair = pair_ref(path);
        return format!(
            "{} ({})",
            fmt::pair_label(&pair, &[]),
            club_name(p, &path.club)
        );
    }
    let pair = pair_ref(path);
    let players: Vec<simpairs_events::types::Player> = path
        .players
        .iter()
        .map(|n| simpairs_events::types::Player {
            name: simpairs_pipeline::views::text::display_name(n),
            national_id: None,
        })
        .collect();
    fmt::pair_label(&pair, &players)
}

/// A percentage the analysis gives as a number (hundredths exactly) as the site writes it.
fn pct(p: Option<f64>) -> String {
    fmt::pct(p.map(|p| (p * 100.0).round() as i64))
}

/// What the reader is told when the chart stops short of the results shown elsewhere (its
/// generation's is being computed: [`crate::analysts::Analysts::movement`]).
fn behind(h: &FieldHistory, now: i64) -> Option<String> {
    let last = h.generations.last().map_or(0, |s| s.generation);
    let since = now - last;
    (since > 0).then(|| {
        let since = if since == 1 {
            "the submission applied since is".to_string()
        } else {
            format!("the {since} submissions applied since are")
        };
        format!(
            "The chart runs to generation {last}; {since} being added. Reload in a few seconds to see them."
        )
    })
}

fn show(site: &Site, ask: &Ask, h: &FieldHistory) -> Response {
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(site, &p, &catalog);
    let paths = ordered(h, ask.pair.as_ref());
    let column: HashMap<i64, usize> = h.scored.iter().enumerate().map(|(i, g)| (*g, i)).collect();
    let series: Vec<Series> = paths
        .iter()
        .map(|(path, own)| Series {
            label: label(&p, path),
            points: path
                .points
                .iter()
                .filter_map(|x| Some((*column.get(&x.generation)?, x.combined_place)))
                .collect(),
            highlight: *own,
        })
        .collect();
    let arrived: HashMap<i64, (String, &'static str)> = h
        .generations
        .iter()
        .map(|s| (s.generation, (club_name(&p, &s.club), step_words(s))))
        .collect();
    let mine = paths.iter().find(|(_, own)| *own).map(|(path, _)| *path);
    let title = match mine {
        Some(m) => format!("How {} moved", label(&p, m)),
        None => "How the field moved".to_string(),
    };
    let body = html! {
        p { "Each pair's place in the national ranking (combined: every pair of every club) after each club's results were applied. Place 1 is at the top; the scale widens near the top so that the leaders' moves show." }
        @if let Some(out) = mine.and_then(|m| out_words(h, &p, m)) { p.note role="status" { (out) } }
        @if let Some(behind) = behind(h, p.generation()) {
            p.meta role="status" { (behind) }
        }
        @if h.scored.len() < h.generations.len() {
            p.meta { "Every " (fmt::ordinal(h.generations.len().div_ceil(h.scored.len().max(1)) as i32)) " generation is shown (and the last), of " (h.generations.len()) "." }
        }
        (chooser(ask))
        @if series.is_empty() {
            p { "No club's results are in yet." }
        } @else {
            figure.chart {
                @for size in [WIDE, PHONE] {
                    (places_chart(size, &title, &series, &h.scored, &describe(&paths, ask.top)))
                }
                figcaption { (legend(&series)) }
            }
            (summary(&p, h, &paths))
            @if let Some(m) = mine { (path_table(m, &arrived)) }
        }
        p.meta { "Scoring: " code { (h.options) } ". The same figures as JSON: "
            a href=(api_link(ask)) { "/api/movement" } "." }
    };
    page(&f, &title, None, body).into_response()
}

fn api_link(ask: &Ask) -> String {
    let mut link = format!("/api/movement?top={}", ask.top);
    if let Some(pair) = &ask.pair {
        link.push_str(&format!(
            "&club={}&pair={}&section={}",
            enc(&pair.club),
            enc(&pair.pair),
            enc(&pair.section)
        ));
        if !pair.direction.is_empty() {
            link.push_str(&format!("&dir={}", pair.direction));
        }
    }
    link
}

fn describe(paths: &[(&PairPath, bool)], top: usize) -> String {
    let own = paths.iter().any(|(_, own)| *own);
    format!(
        "Lines of the {top} leading pairs{}; the table below gives each pair's places.",
        if own {
            " and of your pair (thick, black)"
        } else {
            ""
        }
    )
}

/// The form that asks for a pair by club and number.
fn chooser(ask: &Ask) -> Markup {
    let (club, number) = ask
        .pair
        .as_ref()
        .map_or((String::new(), String::new()), |p| {
            (p.club.clone(), p.pair.clone())
        });
    html! {
        form.inline action="/movement" method="get" {
            label { "Club (id)" input #mv-club type="text" name="club" value=(club) size="10"; }
            label { "Pair number" input #mv-pair type="text" name="pair" value=(number) size="5"; }
            button type="submit" { "Show this pair" }
        }
    }
}

fn legend(series: &[Series]) -> Markup {
    html! {
        ul.legend {
            @for (i, s) in series.iter().enumerate() {
                li {
                    svg.swatch width="22" height="10" viewBox="0 0 22 10" aria-hidden="true" {
                        line x1="0" y1="5" x2="22" y2="5" stroke=(colour(i, s.highlight)) stroke-width=(if s.highlight { "4" } else { "3" }) {}
                    }
                    @if s.highlight { strong { (s.label) } } @else { (s.label) }
                }
            }
        }
    }
}

fn summary(p: &Projection, h: &FieldHistory, paths: &[(&PairPath, bool)]) -> Markup {
    html! {
        table {
            caption { "The pairs followed: place now, best and worst place on the way" }
            thead { tr {
                th.l scope="col" { "Pair" }
                th scope="col" { "Place" }
                th.wide scope="col" { "Best" }
                th.wide scope="col" { "Worst" }
                th scope="col" { "%" }
                th.l.wide scope="col" { "Moves" }
            } }
            tbody { @for (path, own) in paths { (summary_row(p, h, path, *own)) } }
        }
    }
}

fn summary_row(p: &Projection, h: &FieldHistory, path: &PairPath, own: bool) -> Markup {
    let last = now(h, path);
    let best = path.points.iter().map(|x| x.combined_place).min();
    let worst = path.points.iter().map(|x| x.combined_place).max();
    let pair = pair_ref(path);
    html! {
        tr.mine[own] {
            th.l scope="row" { a href=(fmt::pair_url(&pair)) { (label(p, path)) } }
            td.num { @if let Some(l) = last { (l.combined_place) } @else { "out" } }
            td.num.wide { @if let Some(b) = best { (b) } }
            td.num.wide { @if let Some(w) = worst { (w) } }
            td.num { (pct(last.and_then(|l| l.percent))) }
            td.l.wide { a href=(movement_url(&pair)) { "How it moved" } }
        }
    }
}

/// The page of one pair's moves.
pub(crate) fn movement_url(pair: &PairKey) -> String {
    let mut url = format!(
        "/movement?club={}&pair={}&section={}",
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

/// What a generation was, beside its club's name: an arrival says nothing more.
fn step_words(s: &Step) -> &'static str {
    match (s.withdrawn, s.correction) {
        (true, _) => " (its results withdrawn)",
        (false, true) => " (a correction)",
        (false, false) => "",
    }
}

fn path_table(path: &PairPath, arrived: &HashMap<i64, (String, &'static str)>) -> Markup {
    html! {
        h2 { "After each club" }
        table {
            caption { "Your pair after each generation shown: the club whose results were applied, your place and percentage" }
            thead { tr {
                th scope="col" { "Generation" }
                th.l scope="col" { "Club applied" }
                th scope="col" { "Place" }
                th.wide scope="col" { "In direction" }
                th scope="col" { "%" }
            } }
            tbody {
                @for x in &path.points {
                    tr {
                        td.num { (x.generation) }
                        td.l { @if let Some((club, what)) = arrived.get(&x.generation) {
                            (club) (what) } }
                        td.num { (x.combined_place) }
                        td.num.wide { (x.place) @if x.tied { "=" } }
                        td.num { (pct(x.percent)) }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use simpairs_analysis::movement::FieldHistory;
    use simpairs_analysis::timeline::Step;

    fn history_to(last: i64) -> FieldHistory {
        let step = |generation| Step {
            generation,
            club: "C1".into(),
            submission: "s".into(),
            applied_at_ms: 0,
            sealed_at_ms: 0,
            correction: false,
            withdrawn: false,
            results: 0,
            clubs: 1,
        };
        FieldHistory {
            event: "e".into(),
            name: "e".into(),
            options: String::new(),
            generations: (1..=last).map(step).collect(),
            scored: (1..=last).collect(),
            pairs: Vec::new(),
        }
    }

    #[test]
    fn a_chart_that_stops_short_says_how_far_it_runs() {
        assert_eq!(super::behind(&history_to(5), 5), None);
        let told = super::behind(&history_to(5), 7).expect("behind");
        assert!(
            told.contains("generation 5") && told.contains("the 2 submissions"),
            "{told}"
        );
        let one = super::behind(&history_to(5), 6).expect("behind");
        assert!(one.contains("the submission applied since is"), "{one}");
    }
}
