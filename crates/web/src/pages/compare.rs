//! What if the event were scored another way (`/compare?a_factoring=neuberg&b_factoring=ratio`):
//! two scorings side by side and the pairs whose place or percentage changed, largest change
//! first, a page at a time. Each side is chosen with selects (method, factoring, conventions) and
//! "other options" in the grammar of `simpairs compare --a/--b` (`fouled=add-one,scale=single`);
//! the figures are `simpairs_analysis::compare::compare`'s.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_analysis::compare::{Change, Comparison};
use simpairs_analysis::figures::Figures;
use simpairs_analysis::variant::{Side, Variant};
use simpairs_pipeline::PairKey;
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::views::club_name;
use simpairs_pipeline::views::value::show_hundredths;
use simpairs_scoring::Preset;

use crate::analysts::Unavailable;
use crate::pages::fmt;
use crate::pages::layout::{Frame, page, pager};
use crate::params::{BadParam, MAX_LIMIT, Params, enc};
use crate::site::Site;

/// Rows a page shows unless asked otherwise.
const LIMIT: usize = 50;

/// The parameters naming one side.
struct Names {
    scoring: &'static str,
    factoring: &'static str,
    conventions: &'static str,
    other: &'static str,
}

const A: Names = Names {
    scoring: "a_scoring",
    factoring: "a_factoring",
    conventions: "a_conventions",
    other: "a",
};
const B: Names = Names {
    scoring: "b_scoring",
    factoring: "b_factoring",
    conventions: "b_conventions",
    other: "b",
};

const SCORINGS: [&str; 3] = ["mp", "butler", "cross-imps"];
const FACTORINGS: [&str; 2] = ["neuberg", "ratio"];
const OTHER: &str = "scoring options as simpairs compare reads them, such as fouled=add-one,scale=single \
                     (scoring, factoring, fouled, scale, butler-trim, conventions and each conventions choice)";

/// One side as the link gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideAsk {
    pub scoring: Option<&'static str>,
    pub factoring: Option<&'static str>,
    pub conventions: Option<&'static str>,
    pub other: Option<String>,
}

impl SideAsk {
    /// The side in the variant grammar: the selects first, then the other options (which win).
    pub fn spec(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(s) = self.scoring {
            parts.push(format!("scoring={s}"));
        }
        if let Some(f) = self.factoring {
            parts.push(format!("factoring={f}"));
        }
        if let Some(c) = self.conventions {
            parts.push(format!("conventions={c}"));
        }
        parts.extend(self.other.clone());
        parts.join(",")
    }

    fn is_empty(&self) -> bool {
        *self == SideAsk::default()
    }

    /// The side's parameters, for links (each value encoded).
    fn query(&self, n: &Names) -> String {
        let mut q = Vec::new();
        for (name, v) in [
            (n.scoring, self.scoring),
            (n.factoring, self.factoring),
            (n.conventions, self.conventions),
            (n.other, self.other.as_deref()),
        ] {
            if let Some(v) = v {
                q.push(format!("{name}={}", enc(v)));
            }
        }
        q.join("&")
    }
}

/// What a link asks for: both sides, checked, and the page of changes.
#[derive(Clone, Debug)]
pub struct Ask {
    pub a: SideAsk,
    pub b: SideAsk,
    pub variants: (Variant, Variant),
    pub offset: usize,
    pub limit: usize,
}

fn presets() -> Vec<&'static str> {
    Preset::ALL.iter().map(|p| p.name()).collect()
}

fn side(params: &Params, n: &Names) -> Result<(SideAsk, Variant), BadParam> {
    let conventions = presets();
    let ask = SideAsk {
        scoring: params.choice(n.scoring, &SCORINGS, "mp, butler or cross-imps")?,
        factoring: params.choice(n.factoring, &FACTORINGS, "neuberg or ratio")?,
        conventions: params.choice(
            n.conventions,
            &conventions,
            "a program's conventions: seeds, ebu, acbl, compscore, scorebridge, jfr or nz-scorer",
        )?,
        other: params.text(n.other)?.map(str::to_string),
    };
    // The other options are the reader's own text: a mistake names the parameter, never the text.
    let bad = BadParam {
        name: n.other,
        expected: OTHER,
    };
    if let Some(other) = &ask.other {
        other.parse::<Variant>().map_err(|_| bad)?;
    }
    let variant = ask.spec().parse::<Variant>().map_err(|_| bad)?;
    Ok((ask, variant))
}

/// Reads and checks the link's parameters.
pub fn read(params: &Params) -> Result<Ask, BadParam> {
    let (a, va) = side(params, &A)?;
    let (b, vb) = side(params, &B)?;
    Ok(Ask {
        a,
        b,
        variants: (va, vb),
        offset: params.number("offset", usize::MAX / 2)?.unwrap_or(0),
        limit: params.number("limit", MAX_LIMIT)?.unwrap_or(LIMIT).max(1),
    })
}

/// The comparison the link asks for, from the analysts (kept per generation).
pub async fn comparison(site: &Site, ask: &Ask) -> Result<Arc<Comparison>, Unavailable> {
    let analysts = site.analysts().ok_or(Unavailable::NoLog)?;
    let generation = site.projection().generation();
    let key = format!("{}|{}", ask.a.spec(), ask.b.spec()).to_ascii_lowercase();
    let (a, b) = ask.variants.clone();
    let side = |variant| Side {
        variant,
        as_of: None,
    };
    analysts.compare(key, generation, side(a), side(b)).await
}

pub async fn compare(State(site): State<Site>, params: Params) -> Response {
    let ask = match read(&params) {
        Ok(ask) => ask,
        Err(bad) => return crate::pages::errors::bad_param(&site, bad),
    };
    if ask.a.is_empty() && ask.b.is_empty() {
        return show(&site, &ask, None);
    }
    match comparison(&site, &ask).await {
        Ok(c) => show(&site, &ask, Some(&c)),
        Err(why) => crate::pages::errors::unavailable(&site, &why),
    }
}

fn show(site: &Site, ask: &Ask, c: Option<&Comparison>) -> Response {
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(site, &p, &catalog);
    let body = html! {
        p { "The event scored two ways, side by side: the pairs whose place or percentage would change, largest change first. Leave a choice at \"as declared\" to keep the event's own." }
        (form(ask))
        @match c {
            None => { p { "For example: "
                a href="/compare?a_factoring=neuberg&b_factoring=ratio" { "Neuberg's factoring against ratio factoring" } ", or "
                a href="/compare?b_scoring=butler" { "matchpoints against Butler IMPs" } "." } }
            Some(c) => { (results(&p, ask, c)) }
        }
    };
    page(&f, "What if: another scoring", None, body).into_response()
}

fn select(
    id: &str,
    name: &str,
    label: &str,
    choices: &[&'static str],
    chosen: Option<&str>,
) -> Markup {
    html! {
        label for=(id) { (label) }
        select id=(id) name=(name) {
            option value="" selected[chosen.is_none()] { "as declared" }
            @for c in choices { option value=(c) selected[chosen == Some(*c)] { (c) } }
        }
    }
}

fn fieldset(legend: &str, n: &Names, s: &SideAsk) -> Markup {
    let id = |what: &str| format!("{}-{what}", n.other);
    html! {
        fieldset.side {
            legend { (legend) }
            (select(&id("scoring"), n.scoring, "Method", &SCORINGS, s.scoring))
            (select(&id("factoring"), n.factoring, "Factoring", &FACTORINGS, s.factoring))
            (select(&id("conventions"), n.conventions, "Conventions", &presets(), s.conventions))
            label for=(id("other")) { "Other options" }
            input id=(id("other")) type="text" name=(n.other) value=(s.other.as_deref().unwrap_or("")) placeholder="fouled=add-one" size="24";
        }
    }
}

fn form(ask: &Ask) -> Markup {
    html! {
        form.compare action="/compare" method="get" {
            (fieldset("Scoring A", &A, &ask.a))
            (fieldset("Scoring B", &B, &ask.b))
            div { button type="submit" { "Compare" } }
        }
    }
}

/// What a side's scores are: percentages (matchpoints) or IMPs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Percent,
    Imps,
}

impl Unit {
    fn word(self) -> &'static str {
        match self {
            Unit::Percent => "%",
            Unit::Imps => "IMPs",
        }
    }
}

/// The unit of side A's (`b == false`) or B's figures: IMPs when a figure of that side has no
/// percentage, else percentages (the side's options when no pair has figures on it).
fn unit(c: &Comparison, b: bool) -> Unit {
    let figures = || {
        c.changed
            .iter()
            .filter_map(move |x| if b { x.b.as_ref() } else { x.a.as_ref() })
    };
    if figures().next().is_none() {
        let options = if b { &c.b.options } else { &c.a.options };
        return if options.contains("scoring=mp") {
            Unit::Percent
        } else {
            Unit::Imps
        };
    }
    if figures().any(|f| f.percent_hundredths.is_none()) {
        Unit::Imps
    } else {
        Unit::Percent
    }
}

/// A side's options as the analysts give them, and the conventions chosen for it (the options
/// do not name them).
fn side_words(options: &str, s: &SideAsk) -> Markup {
    html! {
        code { (options) }
        @if let Some(c) = s.conventions { ", with " code { "conventions=" (c) } }
    }
}

fn results(p: &Projection, ask: &Ask, c: &Comparison) -> Markup {
    let total = c.changed.len();
    let rows = c.changed.iter().skip(ask.offset).take(ask.limit);
    let base = format!(
        "/compare?{}&{}&limit={}&",
        ask.a.query(&A),
        ask.b.query(&B),
        ask.limit
    );
    let units = (unit(c, false), unit(c, true));
    let what = if units == (Unit::Percent, Unit::Percent) {
        "percentage"
    } else {
        "score"
    };
    html! {
        dl.sides {
            dt { "A" } dd { (side_words(&c.a.options, &ask.a)) }
            dt { "B" } dd { (side_words(&c.b.options, &ask.b)) }
        }
        p.meta { "A place is the pair's place in its own list (North-South, East-West, or every pair of a Howell), as the analysts' compare command gives it." }
        @if units.0 != units.1 {
            p.meta { "A is in " (units.0.word()) " and B in " (units.1.word()) ": the scores are not compared with each other, only the places." }
        }
        p { strong { (total) } " pairs change; " (c.unchanged) " keep their place and " (what) "." }
        @if total > 0 {
            (pager(&base, ask.offset, ask.limit, total))
            table.compare {
                caption { "Pairs whose place or " (what) " changes, largest change first" }
                thead { tr {
                    th.l scope="col" { "Pair" }
                    th.l.wide scope="col" { "Club, pair" }
                    th scope="col" { "Place A" }
                    th scope="col" { "Place B" }
                    th.wide scope="col" { "Places moved" }
                    th scope="col" { "A " (units.0.word()) }
                    th scope="col" { "B " (units.1.word()) }
                    th.wide scope="col" { "Change" @if units.0 == units.1 { " " (units.0.word()) } }
                } }
                tbody { @for x in rows { (row(x, &club_name(p, &x.club), units)) } }
            }
            (pager(&base, ask.offset, ask.limit, total))
        }
        p.meta { "The same figures as JSON: " a href=(format!("/api/compare?{}&{}", ask.a.query(&A), ask.b.query(&B))) { "/api/compare" } "." }
    }
}

fn pair_of(x: &Change) -> PairKey {
    PairKey::from_text(
        x.club.clone(),
        x.section.clone(),
        x.pair.clone(),
        &x.direction,
    )
}

fn place(f: Option<&Figures>) -> String {
    f.map_or_else(
        || "—".to_string(),
        |f| format!("{}{}", f.place, if f.tied { "=" } else { "" }),
    )
}

/// A side's score in its unit: the percentage, or the IMPs.
fn score(f: Option<&Figures>, unit: Unit) -> String {
    let h = f.and_then(|f| match unit {
        Unit::Percent => f.percent_hundredths,
        Unit::Imps => Some(f.total_hundredths),
    });
    h.map_or_else(|| "—".to_string(), show_hundredths)
}

fn signed(h: i64) -> String {
    if h > 0 {
        format!("+{}", show_hundredths(h))
    } else {
        show_hundredths(h)
    }
}

fn row(x: &Change, club: &str, units: (Unit, Unit)) -> Markup {
    let pair = pair_of(x);
    let players: Vec<simpairs_events::types::Player> = x
        .players
        .iter()
        .map(|n| simpairs_events::types::Player {
            name: simpairs_pipeline::views::text::display_name(n),
            national_id: None,
        })
        .collect();
    // Only a change within one unit: B's IMPs less A's percentage is no number.
    let change = match units {
        (Unit::Percent, Unit::Percent) => x.percent_change_hundredths,
        (Unit::Imps, Unit::Imps) => x.total_change_hundredths,
        _ => None,
    };
    html! {
        tr {
            th.l scope="row" {
                a href=(fmt::pair_url(&pair)) { (fmt::pair_label(&pair, &players)) }
                span.fold { (club) ", pair " (fmt::pair_number(&pair)) }
            }
            td.l.wide { (club) ", pair " (fmt::pair_number(&pair)) @if !x.section.is_empty() { ", section " (simpairs_pipeline::views::text::display_name(&x.section)) } }
            td.num { (place(x.a.as_ref())) }
            td.num { (place(x.b.as_ref())) }
            // Up the rankings reads as a gain, as `simpairs compare` shows it.
            td.num.wide { @match x.places_gained() {
                Some(m) if m > 0 => { "▲" (m) }
                Some(m) if m < 0 => { "▼" (-m) }
                Some(_) => "0",
                None => {}
            } }
            td.num { (score(x.a.as_ref(), units.0)) }
            td.num { (score(x.b.as_ref(), units.1)) }
            td.num.wide { @match change { Some(h) => (signed(h)), None => "—" } }
        }
    }
}

#[cfg(test)]
mod tests {
    use simpairs_analysis::compare::{Change, Comparison, SideSummary};
    use simpairs_analysis::figures::Figures;
    use simpairs_pipeline::project::Projection;

    use super::*;

    fn figures(place: u32, percent: Option<i64>, total: i64) -> Figures {
        Figures {
            place,
            tied: false,
            combined_place: place,
            combined_tied: false,
            boards: 27,
            total: total as f64 / 100.0,
            total_hundredths: total,
            percent: percent.map(|h| h as f64 / 100.0),
            percent_hundredths: percent,
        }
    }

    fn side(options: &str) -> SideSummary {
        SideSummary {
            options: options.to_string(),
            as_of: None,
            generation: 1,
            pairs: 2,
        }
    }

    fn comparison(a: Figures, b: Figures, b_options: &str) -> Comparison {
        Comparison {
            event: "e".to_string(),
            a: side("scoring=mp,factoring=neuberg"),
            b: side(b_options),
            changed: vec![Change {
                club: "C0232".to_string(),
                section: "A".to_string(),
                pair: "12".to_string(),
                direction: String::new(),
                players: Vec::new(),
                place_change: Some(b.place as i64 - a.place as i64),
                percent_change_hundredths: None,
                total_change_hundredths: Some(b.total_hundredths - a.total_hundredths),
                a: Some(a),
                b: Some(b),
            }],
            unchanged: 0,
        }
    }

    fn row_of(html: &str) -> &str {
        let at = html.find("<tbody>").unwrap();
        &html[at..at + html[at..].find("</tr>").unwrap()]
    }

    #[test]
    fn matchpoints_against_imps_show_each_side_in_its_own_unit_and_no_difference() {
        let ask = read(&Params::from_pairs(&[
            ("b_scoring", "butler"),
            ("b_conventions", "ebu"),
        ]))
        .unwrap();
        let c = comparison(
            figures(837, Some(5618), 9866370),
            figures(4862, None, -2200),
            "scoring=butler,factoring=neuberg",
        );
        let html = results(&Projection::new("t"), &ask, &c).into_string();
        assert!(
            html.contains(">A %<") && html.contains(">B IMPs<"),
            "{html}"
        );
        let row = row_of(&html);
        assert!(row.contains(">56.18<") && row.contains(">-22.00<"), "{row}");
        assert!(
            !row.contains("98685.70") && !row.contains("98663.70"),
            "{row}"
        );
        assert!(row.contains(">—<"), "{row}");
        // A Howell pair says so; the conventions chosen are echoed.
        assert!(row.contains("pair 12 Howell"), "{row}");
        assert!(html.contains("conventions=ebu"), "{html}");
    }

    #[test]
    fn two_imp_scorings_show_the_change_in_imps() {
        let ask = read(&Params::from_pairs(&[
            ("a_scoring", "butler"),
            ("b_scoring", "cross-imps"),
        ]))
        .unwrap();
        let mut c = comparison(
            figures(3, None, 1500),
            figures(5, None, 1250),
            "scoring=cross-imps",
        );
        c.a.options = "scoring=butler".to_string();
        let html = results(&Projection::new("t"), &ask, &c).into_string();
        assert!(
            html.contains(">A IMPs<") && html.contains(">B IMPs<"),
            "{html}"
        );
        assert!(row_of(&html).contains(">-2.50<"), "{html}");
        // From 3rd to 5th: two places down, as a loss.
        assert!(row_of(&html).contains(">▼2<"), "{html}");
    }
}
