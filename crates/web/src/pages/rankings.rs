//! The national rankings: combined, North-South, East-West, each narrowed to one club's pairs if
//! asked; every row with both players' names, the club, and the pair's place in its club's own
//! ranking beside its national place. Pages of 100 with first, previous, next and last, and "jump
//! to my pair" (club and pair number).

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_pipeline::PairKey;
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::rankings::{List, Page, national_page, national_position};
use simpairs_pipeline::views::resolve::{Resolved, resolve};
use simpairs_pipeline::views::{Catalog, club_name, is_imps};

use crate::pages::fmt;
use crate::pages::layout::{Frame, page, pager};
use crate::params::{BadParam, MAX_LIMIT, Params, enc};
use crate::site::Site;

/// Rows per page unless the link asks for another number.
pub(crate) const PAGE: usize = 100;

/// What the link asks for.
struct Ask<'a> {
    list: List,
    club: Option<&'a str>,
    offset: usize,
    limit: usize,
    me_club: Option<&'a str>,
    me_section: Option<&'a str>,
    me_pair: Option<&'a str>,
    me_dir: Option<&'static str>,
}

fn ask(params: &Params) -> Result<Ask<'_>, BadParam> {
    let list = params.choice("list", &["combined", "ns", "ew"], "combined, ns or ew")?;
    Ok(Ask {
        list: list.and_then(List::parse).unwrap_or(List::Combined),
        club: params.text("club")?,
        offset: params.number("offset", usize::MAX / 2)?.unwrap_or(0),
        limit: params.number("limit", MAX_LIMIT)?.unwrap_or(PAGE).max(1),
        me_club: params.text("me_club")?,
        me_section: params.text("me_section")?,
        me_pair: params.text("me_pair")?,
        me_dir: params.choice("me_dir", &["NS", "EW"], "NS or EW")?,
    })
}

/// The reader's pair, found from what they typed: `Ok(None)` when they did not ask.
fn find_me(p: &Projection, catalog: &Catalog, a: &Ask<'_>) -> Result<Option<PairKey>, Markup> {
    let (Some(club), Some(number)) = (a.me_club, a.me_pair) else {
        return Ok(None);
    };
    // A club id, or a name that names one club.
    let Some(club_id) = crate::pages::clubs::club_named(p, catalog, club) else {
        return Err(
            html! { "No single club is called that; type its number as the club pages show it." },
        );
    };
    let dir = a.me_dir.or(match a.list {
        List::Ns => Some("NS"),
        List::Ew => Some("EW"),
        List::Combined => None,
    });
    match resolve(p, catalog, &club_id, a.me_section, number, dir) {
        Resolved::One(pair) => Ok(Some(pair)),
        Resolved::Several(pairs) => Err(html! {
            "More than one pair has that number: "
            @for pair in &pairs { a href=(jump_url(a, pair)) { "pair " (fmt::pair_number(pair)) @if !pair.section.is_empty() { ", section " (pair.section) } } " " }
        }),
        Resolved::None(_) => {
            // A Howell pair asked for on a direction's list: it is ranked among all pairs.
            if a.me_dir.is_none()
                && dir.is_some()
                && let Resolved::One(pair) =
                    resolve(p, catalog, &club_id, a.me_section, number, None)
                && pair.direction.is_empty()
            {
                let combined = Ask {
                    list: List::Combined,
                    ..*a
                };
                return Err(html! {
                    "Pair " (pair.pair) " of that club played a Howell: it is ranked in the "
                    a href=(jump_url(&combined, &pair)) { "combined list" } ", not by direction."
                });
            }
            Err(html! { "That club has no pair with that number in the results." })
        }
    }
}

fn list_url(list: List, club: Option<&str>) -> String {
    let mut url = format!("/rankings?list={}", list.key());
    if let Some(c) = club {
        url.push_str("&club=");
        url.push_str(&enc(c));
    }
    url
}

fn jump_url(a: &Ask<'_>, pair: &PairKey) -> String {
    format!(
        "{}&me_club={}&me_section={}&me_pair={}&me_dir={}#me",
        list_url(a.list, a.club),
        enc(&pair.club),
        enc(&pair.section),
        enc(&pair.pair),
        pair.direction
    )
}

pub async fn rankings(State(site): State<Site>, params: Params) -> Response {
    let mut a = match ask(&params) {
        Ok(a) => a,
        Err(bad) => return crate::pages::errors::bad_param(&site, bad),
    };
    let p = site.projection();
    if let Some(c) = a.club
        && !simpairs_pipeline::views::resolve::is_club(&p, c)
    {
        drop(p);
        return crate::pages::errors::not_found(
            &site,
            "No such club",
            html! {
                "This event has no club with that number. The " a href="/clubs" { "list of clubs" } " has them all."
            },
        );
    }
    let catalog = site.catalog();
    let f = Frame::of(&site, &p, &catalog);
    let me = find_me(&p, &catalog, &a);
    if let Ok(Some(pair)) = &me
        && let Some(at) = national_position(&p, &catalog, a.list, a.club, pair)
    {
        a.offset = at / a.limit * a.limit;
    }
    let shown = national_page(&p, a.list, a.club, a.offset, a.limit);
    let title = match a.club {
        Some(c) => format!(
            "National ranking, {}: pairs of {}",
            a.list.title(),
            club_name(&p, c)
        ),
        None => format!("National ranking, {}", a.list.title()),
    };
    let mine = me.as_ref().ok().and_then(Option::as_ref);
    let body = html! {
        nav aria-label="Rankings" {
            ul.links {
                @for list in List::ALL {
                    li { @if list == a.list { strong aria-current="page" { (list.title()) } }
                         @else { a href=(list_url(list, a.club)) { (list.title()) } } }
                }
                @if a.club.is_some() { li { a href=(list_url(a.list, None)) { "All clubs" } } }
            }
        }
        (jump_form(&a))
        @if let Err(why) = &me { p.alert role="alert" { (why) } }
        p #my-pair hidden { a href="#" { "Jump to my pair" } }
        div data-live="ranking" {
            @if shown.total == 0 {
                p { "No pair is ranked yet." }
            } @else {
                (table(&p, &shown, a.list, mine))
                (pager(&format!("{}&limit={}&", list_url(a.list, a.club), a.limit), shown.offset, a.limit, shown.total))
            }
        }
    };
    page(&f, &title, None, body).into_response()
}

fn jump_form(a: &Ask<'_>) -> Markup {
    html! {
        form.inline action="/rankings" method="get" aria-label="Jump to my pair" {
            input type="hidden" name="list" value=(a.list.key());
            @if let Some(c) = a.club { input type="hidden" name="club" value=(c); }
            label { "Club (name or number)" input type="text" name="me_club" size="14" value=[a.me_club]; }
            label { "Pair number" input type="text" name="me_pair" size="4" inputmode="numeric" value=[a.me_pair]; }
            button type="submit" { "Jump to my pair" }
        }
    }
}

fn table(p: &Projection, shown: &Page, list: List, mine: Option<&PairKey>) -> Markup {
    let imps = is_imps(p);
    html! {
        table {
            caption { (list.title()) ": places " (shown.offset + 1) " to " (shown.offset + shown.rows.len()) " of " (shown.total) }
            thead { tr {
                th scope="col" { "Place" }
                th.l scope="col" { "Pair" }
                th.l.wide scope="col" { "Club" }
                th.wide scope="col" { "Club place" }
                th.wide scope="col" { "Boards" }
                th.wide[!imps] scope="col" { @if imps { "IMPs" } @else { "Total" } }
                @if !imps { th scope="col" { "%" } }
            } }
            tbody {
                @for r in &shown.rows {
                    @let is_me = mine == Some(&r.pair);
                    tr.mine[is_me] id=[is_me.then_some("me")] {
                        td.num { (fmt::place(r.place)) }
                        td.l.names {
                            a href=(fmt::pair_url(&r.pair)) { (fmt::pair_label(&r.pair, &r.players)) }
                            " " span.meta { (fmt::pair_number(&r.pair)) }
                            span.fold { (r.club_name) @if let Some(c) = r.other { " · club place " (fmt::place(c)) } }
                        }
                        td.l.wide { a href=(fmt::club_url(&r.pair.club)) { (r.club_name) } }
                        td.num.wide { @if let Some(c) = r.other { (fmt::place(c)) } }
                        td.num.wide { (r.boards) }
                        td.num.wide[!imps] { (simpairs_pipeline::views::value::show_hundredths(r.total_hundredths)) }
                        @if !imps { td.num { (fmt::pct(r.percent_hundredths)) } }
                    }
                }
            }
        }
    }
}
