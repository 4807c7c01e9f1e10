//! A pair's scorecard, from a club and a pair number alone (`/pair/C0042/7`): section and
//! direction are found from the club's pairs, and where two pairs share the number (7 North-South
//! and 7 East-West) the page offers the choice. The old address (`/pair?club=&section=&pair=
//! &direction=`) still works.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_pipeline::PairKey;
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::resolve::{Resolved, resolve};
use simpairs_pipeline::views::scorecard::{Line, RankingPlace, Scorecard, scorecard};
use simpairs_pipeline::views::{club_name, text};

use crate::pages::fmt;
use crate::pages::layout::{Frame, Mine, page};
use crate::params::{BadParam, Params, enc};
use crate::site::Site;

/// What the link names: club, number, and section and direction if it gives them.
struct Named<'a> {
    club: &'a str,
    number: &'a str,
    section: Option<&'a str>,
    direction: Option<&'static str>,
}

pub(crate) async fn by_path(
    State(site): State<Site>,
    Path((club, number)): Path<(String, String)>,
    uri: axum::http::Uri,
    params: Params,
) -> Response {
    // A club id typed in another case (`c0005`): the address as the site writes it.
    let known = {
        let (p, catalog) = (site.projection(), site.catalog());
        crate::pages::clubs::club_id_any_case(&p, &catalog, &club)
    };
    if let Some(id) = known
        && id != club
    {
        let mut to = format!("/pair/{}/{}", enc(&id), enc(&number));
        if let Some(q) = uri.query() {
            to.push('?');
            to.push_str(q);
        }
        return axum::response::Redirect::permanent(&to).into_response();
    }
    let named = (|| -> Result<Named<'_>, BadParam> {
        Ok(Named {
            club: &club,
            number: &number,
            section: params.text("section")?,
            direction: params.choice("dir", &["NS", "EW"], "NS or EW")?,
        })
    })();
    match named {
        Ok(n) => show(&site, &n),
        Err(bad) => crate::pages::errors::bad_param(&site, bad),
    }
}

/// The old address: `/pair?club=&section=&pair=&direction=`.
pub(crate) async fn by_query(State(site): State<Site>, params: Params) -> Response {
    let named = (|| -> Result<Option<Named<'_>>, BadParam> {
        let (Some(club), Some(number)) = (params.text("club")?, params.text("pair")?) else {
            return Ok(None);
        };
        Ok(Some(Named {
            club,
            number,
            section: params.text("section")?,
            direction: params.choice("direction", &["NS", "EW"], "NS or EW")?,
        }))
    })();
    match named {
        Ok(Some(n)) => show(&site, &n),
        Ok(None) => crate::pages::errors::not_found(
            &site,
            "Which pair?",
            html! {
                "Find a pair by " a href="/search" { "searching" } " for a player's name, or from its " a href="/clubs" { "club" } "."
            },
        ),
        Err(bad) => crate::pages::errors::bad_param(&site, bad),
    }
}

fn show(site: &Site, n: &Named<'_>) -> Response {
    let p = site.projection();
    let catalog = site.catalog();
    if catalog.clubs().get(n.club).is_some_and(|c| c.withdrawn()) {
        drop((p, catalog));
        return crate::pages::errors::not_found(
            site,
            "Results withdrawn",
            html! {
                "This club's results were withdrawn: they count in no ranking. The "
                a href=(fmt::club_url(n.club)) { "club's page" } " says when."
            },
        );
    }
    let f = Frame::of(site, &p, &catalog);
    match resolve(&p, &catalog, n.club, n.section, n.number, n.direction) {
        Resolved::One(pair) => match scorecard(&p, &catalog, &pair) {
            Some(card) => card_page(&f, &card).into_response(),
            None => choice_page(
                &f,
                &p,
                n.club,
                "None of this pair's results is in force.",
                &[],
            )
            .into_response(),
        },
        Resolved::Several(pairs) => choice_page(
            &f,
            &p,
            n.club,
            "More than one pair has this number: which is yours?",
            &pairs,
        )
        .into_response(),
        Resolved::None(pairs) => {
            let why = if !simpairs_pipeline::views::resolve::is_club(&p, n.club) {
                "This event has no club with that number: the list of clubs gives each club's number."
            } else if pairs.is_empty() {
                fmt::no_results(&p)
            } else {
                "This club has no pair with that number. Its pairs are:"
            };
            let body = choice_body(&p, why, &pairs);
            drop((p, catalog));
            crate::pages::errors::not_found(site, "No such pair", body)
        }
    }
}

fn choice_body(p: &Projection, why: &str, pairs: &[PairKey]) -> Markup {
    html! {
        (why)
        ul {
            @for pair in pairs {
                li { a href=(fmt::pair_url(pair)) {
                    "Pair " (fmt::pair_number(pair)) @if !pair.section.is_empty() { ", section " (pair.section) }
                    @if let Some(n) = fmt::names(&simpairs_pipeline::views::players_of(p, pair)) { ": " (n) }
                } }
            }
        }
    }
}

fn choice_page(f: &Frame, p: &Projection, club: &str, why: &str, pairs: &[PairKey]) -> Markup {
    let title = format!("Pairs of {}", club_name(p, club));
    page(
        f,
        &title,
        None,
        html! { p { (choice_body(p, why, pairs)) } },
    )
}

fn mine(card: &Scorecard) -> Mine {
    let pair = &card.pair;
    Mine {
        query: format!(
            "me_club={}&me_section={}&me_pair={}&me_dir={}",
            enc(&pair.club),
            enc(&pair.section),
            enc(&pair.pair),
            pair.direction
        ),
        label: fmt::pair_label(pair, &card.players),
    }
}

fn card_page(f: &Frame, card: &Scorecard) -> Markup {
    let title = fmt::pair_label(&card.pair, &card.players);
    let direction = match card.pair.direction {
        "NS" => "North-South",
        "EW" => "East-West",
        _ => "Howell",
    };
    let body = html! {
        p.meta {
            "Pair " (card.pair.pair) " " (direction)
            @if !card.pair.section.is_empty() { ", section " (text::display_name(&card.pair.section)) }
            ", " a href=(fmt::club_url(&card.pair.club)) { (card.club_name) } "."
            @for pl in &card.players { @if let Some(id) = &pl.national_id {
                " " a href=(crate::pages::player::player_url(id)) aria-label={ (pl.name) "'s season, national ID " (id) } { (pl.name) ": " (id) } "."
            } }
        }
        p { a href=(crate::pages::movement::movement_url(&card.pair)) { "How this pair moved as the clubs arrived" } }
        div data-live="places" { (places(card)) }
        div data-live="card" { (lines(card)) }
    };
    page(f, &title, Some(&mine(card)), body)
}

fn places(card: &Scorecard) -> Markup {
    html! {
        @if !card.places.is_empty() {
            table.places {
                caption { "Places in each ranking" }
                thead { tr {
                    th.l scope="col" { "Ranking" }
                    th scope="col" { "Place" }
                    th scope="col" { @if card.imps { "IMPs" } @else { "%" } }
                } }
                tbody { @for r in &card.places { (place(card, r)) } }
            }
        }
    }
}

fn place(card: &Scorecard, r: &RankingPlace) -> Markup {
    let key = r.ranking.to_lowercase().replace([',', ' '], "-");
    let link = match r.national_list {
        Some(list) => format!("/rankings?list={}&{}#me", list.key(), mine(card).query),
        None => fmt::club_url(&card.pair.club),
    };
    html! {
        tr {
            th.l scope="row" { a href=(link) { (r.ranking) } }
            td.num data-place-key=(key) data-rank=(r.place.rank) data-label=(r.ranking.to_lowercase()) {
                strong { (fmt::ordinal(r.place.rank)) @if r.place.tied { "=" } } " of " (r.of)
            }
            td.num {
                @if card.imps { (simpairs_pipeline::views::value::show_hundredths(r.total_hundredths)) }
                @else { (fmt::pct(r.percent_hundredths)) }
            }
        }
    }
}

fn opponents(l: &Line) -> Markup {
    html! {
        a href=(fmt::pair_url(&l.opponents)) { (fmt::pair_label(&l.opponents, &l.opponent_players)) }
        @if !l.opponent_players.is_empty() { " (" (fmt::pair_number(&l.opponents)) ")" }
    }
}

fn result_cell(l: &Line) -> Markup {
    html! {
        (l.result.as_deref().unwrap_or("—"))
        @for k in l.marks.labels() { " " span.kind { (k) } }
        @if let Some(c) = &l.correction { " " span.kind.corrected { (fmt::correction(c)) } }
    }
}

/// A value cell: the percentage (matchpoints) or the IMPs.
fn value_cell(v: Option<&simpairs_pipeline::views::Value>, imps: bool) -> String {
    match v {
        None => String::new(),
        Some(v) if imps => fmt::mp(v),
        Some(v) => fmt::pct(v.percent_hundredths()),
    }
}

fn lines(card: &Scorecard) -> Markup {
    let imps = card.imps;
    let club = card.pair.club.as_str();
    let unit = if imps { "IMPs" } else { "%" };
    // Clubs do not all record leads: no column of blanks.
    let leads = card.lines.iter().any(|l| l.lead.is_some());
    html! {
        h2 { "Boards" }
        table.card {
            caption { "Scorecard: each board with its result and what it earned in the club and nationally" }
            thead { tr {
                th scope="col" { "Board" }
                th.l scope="col" { "Result" }
                @if leads { th.l.wide scope="col" { "Lead" } }
                th scope="col" { "Score" }
                th.l.wide scope="col" { "Opponents" }
                @if !imps { th.wide scope="col" { "Club MP" } }
                th scope="col" { "Club " (unit) }
                @if !imps { th.wide scope="col" { "National MP" } }
                th scope="col" { "National " (unit) }
                @if !imps { th.wide scope="col" { "Running %" } }
            } }
            tbody {
                @for l in &card.lines {
                    tr {
                        th scope="row" class="num" {
                            a href=(fmt::board_url(l.board, Some(club), false)) aria-label={ "Board " (l.board) ", national field" } { (l.board) }
                            br;
                            a.small href=(fmt::board_url(l.board, Some(club), true)) aria-label={ "Board " (l.board) ", club field" } { "club" }
                        }
                        td.l {
                            (result_cell(l))
                            @if card.pair.direction.is_empty() { " " span.meta { "(" (l.sat) ")" } }
                            span.fold { "v " (opponents(l)) @if let Some(lead) = &l.lead { " · lead " (lead) } }
                        }
                        @if leads { td.l.wide { (l.lead.as_deref().unwrap_or("")) } }
                        td.num { (fmt::score(l.score)) }
                        td.l.wide { (opponents(l)) }
                        @if !imps { td.num.wide { @if let Some(v) = &l.club { (fmt::mp(v)) " of " (simpairs_pipeline::views::value::show_hundredths(v.top_hundredths())) } } }
                        td.num { (value_cell(l.club.as_ref(), imps)) }
                        @if !imps { td.num.wide { @if let Some(v) = &l.national { (fmt::mp(v)) " of " (simpairs_pipeline::views::value::show_hundredths(v.top_hundredths())) } } }
                        td.num { (value_cell(l.national.as_ref(), imps)) }
                        @if !imps { td.num.wide { (fmt::pct(l.running_national)) } }
                    }
                }
            }
        }
    }
}
