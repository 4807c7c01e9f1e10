//! The director's page: every submission of the event with what became of it (applied,
//! superseded by a later one, set aside) and why, its warnings, every record set aside on its own
//! (dead letters), and the clubs not in yet. The listing is read from the log by the judge itself
//! (`simpairs_pipeline::submissions`) on the site's own thread, at most every few seconds.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use simpairs_pipeline::project::Projection;
use simpairs_pipeline::submissions::{State as Fate, SubmissionView, Submissions, counted};
use simpairs_pipeline::views::text::{MAX_TEXT, display_name, display_text};
use simpairs_pipeline::views::{Catalog, club_name};

use crate::health::State as Health;
use crate::pages::fmt;
use crate::pages::layout::{Frame, page, pager};
use crate::params::{MAX_LIMIT, Params};
use crate::site::Site;

/// Submissions listed per page.
const PAGE: usize = 200;

/// Whether to list only the submissions with a note (`notes=yes`).
fn noted(params: &Params) -> Result<bool, crate::params::BadParam> {
    Ok(params.choice("notes", &["yes"], "yes")?.is_some())
}

/// Which submissions to list.
fn wanted(params: &Params) -> Result<Option<Fate>, crate::params::BadParam> {
    let state = params.choice(
        "state",
        &["applied", "superseded", "set-aside"],
        "applied, superseded or set-aside",
    )?;
    Ok(state.map(|s| match s {
        "applied" => Fate::Applied,
        "superseded" => Fate::Superseded,
        _ => Fate::SetAside,
    }))
}

pub async fn director(State(site): State<Site>, params: Params) -> Response {
    let (state, offset, limit, club) = match (
        wanted(&params),
        params.number("offset", usize::MAX / 2),
        params.number("limit", MAX_LIMIT),
        params.text("club"),
    ) {
        (Ok(f), Ok(o), Ok(l), Ok(c)) => (f, o.unwrap_or(0), l.unwrap_or(PAGE).max(1), c),
        (Err(bad), ..) | (_, Err(bad), ..) | (_, _, Err(bad), _) | (.., Err(bad)) => {
            return crate::pages::errors::bad_param(&site, bad);
        }
    };
    let noted = match noted(&params) {
        Ok(noted) => noted,
        Err(bad) => return crate::pages::errors::bad_param(&site, bad),
    };
    let club = club.map(str::trim).filter(|c| !c.is_empty());
    let filter = Filter { state, club, noted };
    let listing = site.director();
    let p = site.projection();
    let catalog = site.catalog();
    let f = Frame::of(&site, &p, &catalog);
    let body = html! {
        div data-live="director" {
            @match &listing {
                None => p.note { "The list of submissions is read from the log once the results shown are up to date; it appears here shortly after." },
                Some(d) => {
                    p.meta { "Read from the log at " (fmt::time(d.read_at_ms)) "." }
                    (summary(&d.listing))
                    (club_form(club))
                    (submissions(&p, &d.listing, &filter, offset, limit))
                    (dead_letters(&d.listing))
                    (unsealed(&p, &d.listing))
                    (withdrawn(&p, &d.listing))
                    (amendments(&d.listing))
                },
            }
            (missing(&p, &catalog, listing.as_ref().map(|d| &d.listing), site.health.state() == Health::Reading))
        }
    };
    page(&f, "Director's page", None, body).into_response()
}

fn summary(s: &Submissions) -> Markup {
    html! {
        ul.links aria-label="Submissions by state" {
            li { a href="/director" { (counted(s.submissions.len(), "submission", "submissions")) } }
            li { a href="/director?state=applied" { (s.count(&Fate::Applied)) " applied" } }
            li { a href="/director?state=superseded" { (s.count(&Fate::Superseded)) " superseded" } }
            li { a href="/director?state=set-aside" { (s.count(&Fate::SetAside)) " set aside" } }
            @match s.with_notes() {
                0 => {},
                n => li { a href="/director?notes=yes" { (n) " with a note" } },
            }
            li { a href="#dead-letters" {
                (counted(s.dead_letters.len(), "record set aside on its own", "records set aside on their own"))
            } }
            @if !s.withdrawn.is_empty() {
                li { a href="#withdrawn" { (counted(s.withdrawn.len(), "club withdrawn", "clubs withdrawn")) } }
            }
        }
    }
}

/// The clubs a submission of which applied, in the listing.
fn applied(listing: Option<&Submissions>) -> std::collections::HashSet<&str> {
    let submissions = listing.into_iter().flat_map(|l| &l.submissions);
    (submissions.filter(|v| v.state != Fate::SetAside))
        .map(|v| v.club.as_str())
        .collect()
}

/// The anchor of a submission's row.
fn row_id(submission: &str) -> String {
    format!("s-{submission}")
}

/// The row of the submission that corrected another, among its club's submissions.
fn correction_url(club: &str, by: &str) -> String {
    format!(
        "/director?club={}#{}",
        crate::params::enc(club),
        crate::params::enc(&row_id(by))
    )
}

fn fate(v: &SubmissionView) -> Markup {
    html! {
        strong { (v.state.words()) }
        @if let Some(by) = &v.superseded_by {
            @if v.state == Fate::Applied { ", corrected" }
            " by " a href=(correction_url(&v.club, by)) { (display_name(by)) }
            @match v.lines_in_force {
                Some(0) | None => {}
                Some(n) => { ": " (counted(n, "of its lines", "of its lines")) " still in force" }
            }
        }
        @if v.by_organiser { br; "signed by the organiser for the club" }
        @if let Some(why) = &v.reason { br; (with_flags(why, v)) }
        @for n in &v.notes { br; (with_flags(n, v)) }
        @if !v.warnings.is_empty() {
            ul { @for w in v.warnings.iter().take(10) { li { (display_text(w, MAX_TEXT)) } }
                 @if v.warnings.len() > 10 { li { "and " (v.warnings.len() - 10) " more warnings" } } }
        }
    }
}

/// A reason or a note of submission `of` in words: a command's flag in it (`--whole-session`) on
/// one line, as code; another submission it names (the correction a file took back), a link to
/// that submission's row.
fn with_flags(text: &str, of: &SubmissionView) -> Markup {
    let text = display_text(text, MAX_TEXT);
    let other = |word| submission_of(word).filter(|(id, _)| *id != of.submission);
    html! {
        @for (i, word) in text.split(' ').enumerate() {
            @if i > 0 { " " }
            @match (flag_of(word), other(word)) {
                (Some((flag, rest)), _) => { code.flag { (flag) } (rest) },
                (None, Some((id, rest))) => { a href=(correction_url(&of.club, id)) { (id) } (rest) },
                (None, None) => { (word) },
            }
        }
    }
}

/// A word that is a submission's id (`s` and 20 hexadecimal digits, as `club publish` makes
/// them): the id, then what follows it.
fn submission_of(word: &str) -> Option<(&str, &str)> {
    let (id, rest) = word.split_at_checked(21)?;
    let digits = id.strip_prefix('s')?;
    let id_ends = !rest.starts_with(|c: char| c.is_ascii_alphanumeric());
    (id_ends && digits.bytes().all(|b| b.is_ascii_hexdigit())).then_some((id, rest))
}

/// A word that is a flag (`--whole-session`, `--whole-session;`): the flag, then what follows it.
fn flag_of(word: &str) -> Option<(&str, &str)> {
    let name = word.strip_prefix("--")?;
    let end = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(name.len());
    (end > 0).then(|| word.split_at(end + 2))
}

/// Which submissions the list shows: of a state, of a club, with a note.
struct Filter<'a> {
    state: Option<Fate>,
    club: Option<&'a str>,
    noted: bool,
}

impl Filter<'_> {
    fn shows(&self, v: &SubmissionView) -> bool {
        self.state.as_ref().is_none_or(|f| v.state == *f)
            && self.club.is_none_or(|c| v.club.eq_ignore_ascii_case(c))
            && (!self.noted || !v.notes.is_empty())
    }

    /// The list's address with this filter, for its pages.
    fn base(&self, limit: usize) -> String {
        let mut base = format!("/director?limit={limit}&");
        if let Some(f) = &self.state {
            base.push_str(&format!("state={}&", f.words().replace(' ', "-")));
        }
        if let Some(c) = self.club {
            base.push_str(&format!("club={}&", crate::params::enc(c)));
        }
        if self.noted {
            base.push_str("notes=yes&");
        }
        base
    }
}

/// Narrows the list to one club's submissions.
fn club_form(club: Option<&str>) -> Markup {
    html! {
        form.inline method="get" action="/director" {
            label for="director-club" { "Club" }
            input #director-club type="text" name="club" value=(club.unwrap_or_default()) placeholder="club number";
            button type="submit" { "Show its submissions" }
            @if club.is_some() { " " a href="/director" { "Every club" } }
        }
    }
}

fn submissions(
    p: &Projection,
    s: &Submissions,
    filter: &Filter<'_>,
    offset: usize,
    limit: usize,
) -> Markup {
    let shown: Vec<&SubmissionView> = s
        .submissions
        .iter()
        .rev()
        .filter(|v| filter.shows(v))
        .collect();
    let base = filter.base(limit);
    html! {
        h2 { "Submissions" }
        @if shown.is_empty() { p { "None." } } @else {
            table {
                caption { "Submissions" @if filter.noted { " with a note" } ", latest first: " (offset.min(shown.len()) + 1) " to " ((offset + limit).min(shown.len())) " of " (shown.len()) }
                thead { tr {
                    th.l scope="col" { "Sealed" }
                    th.l scope="col" { "Club" }
                    th.l.wide scope="col" { "File" }
                    th.wide scope="col" { "Records" }
                    th.l scope="col" { "What became of it" }
                } }
                tbody {
                    @for v in shown.iter().skip(offset).take(limit) {
                        tr id=(row_id(&v.submission)) {
                            td.l { (fmt::time_to_second(v.sealed_at_ms)) span.fold { "offset " (v.offset) } }
                            td.l.names { a href=(fmt::club_url(&v.club)) { (club_name(p, &v.club)) } }
                            td.l.wide.names { (v.source.as_deref().map(display_name).unwrap_or_default()) " (offset " (v.offset) ")" }
                            td.num.wide { (v.records) }
                            td.l { (fate(v)) }
                        }
                    }
                }
            }
            (pager(&base, offset, limit, shown.len()))
        }
    }
}

fn dead_letters(s: &Submissions) -> Markup {
    html! {
        h2 #dead-letters { "Records set aside on their own" }
        @if s.dead_letters.is_empty() { p { "None." } } @else {
            table {
                caption { "Dead letters: records of the results stream set aside, with the reason" }
                thead { tr { th scope="col" { "Offset" } th.l scope="col" { "Why" } } }
                tbody {
                    @for d in s.dead_letters.iter().take(MAX_LIMIT) {
                        tr { td.num { (d.offset) } td.l.names { (display_text(&d.reason, MAX_TEXT)) } }
                    }
                }
            }
            @if s.dead_letters.len() > MAX_LIMIT { p.meta { "The first " (MAX_LIMIT) " of " (s.dead_letters.len()) "; " code { "simpairs submissions" } " lists them all." } }
        }
    }
}

/// The submissions that cannot apply yet: records with no seal that applies, or a seal waiting for
/// its records. Shown only when there are some: a submission is there for an instant as it comes.
fn unsealed(p: &Projection, s: &Submissions) -> Markup {
    html! {
        @if !s.unsealed.is_empty() {
            h2 #unsealed { "Submissions not complete" }
            p.note {
                "Nothing of these applies until it is complete: an upload still under way or cut short, or a seal set aside. "
                @if p.closed_ms().is_some() { "The event is closed: a club cannot publish its file again." }
                @else { "A club whose upload was cut short publishes its file again." }
            }
            table {
                caption { "Submissions not complete, by club" }
                thead { tr {
                    th.l scope="col" { "Club" }
                    th.l.wide scope="col" { "Submission" }
                    th scope="col" { "Records received" }
                    th.l scope="col" { "Seal" }
                } }
                tbody {
                    @for u in s.unsealed.iter().take(MAX_LIMIT) {
                        tr {
                            td.l.names { a href=(fmt::club_url(&u.club)) { (club_name(p, &u.club)) } }
                            td.l.wide.names { (display_name(&u.submission)) }
                            td.num { (u.records) }
                            td.l { @match &u.seal {
                                None => "none that applies",
                                Some(seal) => { "at offset " (seal.offset) ", covering " (seal.covers) " records" },
                            } }
                        }
                    }
                }
            }
        }
    }
}

/// The clubs whose results were withdrawn, and why. Shown only when there are some.
fn withdrawn(p: &Projection, s: &Submissions) -> Markup {
    html! {
        @if !s.withdrawn.is_empty() {
            h2 #withdrawn { "Clubs withdrawn" }
            p.note {
                "Their results were withdrawn (by the club or the organiser) and count nowhere. "
                @if p.closed_ms().is_some() { "The event is closed: nothing more is taken." }
                @else { "A club may publish again unless its key is revoked." }
            }
            ul { @for c in s.withdrawn.iter().take(MAX_LIMIT) {
                li {
                    a href=(fmt::club_url(&c.club)) { (club_name(p, &c.club)) } " (" (display_name(&c.club)) "): "
                    (display_text(c.source.as_deref().unwrap_or("no reason given"), MAX_TEXT))
                }
            } }
        }
    }
}

/// The organiser's hand records and revoked keys, and where each holds from. Shown only when there
/// are some.
fn amendments(s: &Submissions) -> Markup {
    html! {
        @if !s.amendments.is_empty() {
            h2 #amendments { "The organiser's amendments" }
            p.note { "Each holds from its line in the results stream: a submission whose seal came before the line was judged without it." }
            ul { @for a in &s.amendments {
                li { "Amendment " (a.amendment) ": " (a.what) ", " (a.from) }
            } }
        }
    }
}

/// The declared clubs with no results shown. While the log is still being read (a restart on a
/// national event takes seconds), a club listed may be in already: the list says so. A club whose
/// submission the listing read as applied is shown apart: its scores wait for the aggregator.
fn missing(
    p: &Projection,
    catalog: &Catalog,
    listing: Option<&Submissions>,
    reading: bool,
) -> Markup {
    let applied = applied(listing);
    let (waiting, missing): (Vec<&String>, Vec<&String>) = p
        .club_names
        .keys()
        .filter(|c| !catalog.clubs().contains_key(*c))
        .partition(|c| applied.contains(c.as_str()));
    html! {
        @if !waiting.is_empty() {
            h2 #waiting { "Applied, not shown yet" }
            p.note { "These clubs' submissions applied in the log, but the aggregator has not published their scores yet. If this lasts more than a few seconds, check that the aggregator is running." }
            ul { @for c in waiting.iter().take(MAX_LIMIT) { li { (club_name(p, c)) " (" (display_name(c)) ")" } } }
        }
        @if reading && !missing.is_empty() {
            h2 { "Clubs not read yet" }
            p.note { "The results are still being read from the log: a club listed here may be in already." }
        } @else if p.closed_ms().is_some() {
            h2 { "Clubs with no results (the event is closed)" }
        } @else {
            h2 { "Clubs not in yet" }
        }
        @if missing.is_empty() {
            @if listing.is_some_and(|l| !l.withdrawn.is_empty()) { p { "Every declared club not withdrawn is in." } }
            @else { p { "Every declared club is in." } }
        } @else {
            ul { @for c in missing.iter().take(MAX_LIMIT) { li { (club_name(p, c)) " (" (display_name(c)) ")" } } }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{flag_of, submission_of, with_flags};
    use simpairs_pipeline::submissions::{State, SubmissionView};

    fn view(club: &str, submission: &str) -> SubmissionView {
        SubmissionView {
            club: club.to_string(),
            submission: submission.to_string(),
            offset: 0,
            sealed_at_ms: 0,
            source: None,
            records: 0,
            state: State::Applied,
            superseded_by: None,
            lines_in_force: None,
            by_organiser: false,
            reason: None,
            warnings: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_flag_in_a_note_is_code_kept_on_one_line() {
        assert_eq!(flag_of("--whole-session;"), Some(("--whole-session", ";")));
        assert_eq!(flag_of("--whole-session"), Some(("--whole-session", "")));
        assert_eq!(flag_of("--"), None);
        assert_eq!(flag_of("-3"), None);
        assert_eq!(flag_of("board"), None);
        let note = "publish it again with --whole-session to take <it> out";
        assert_eq!(
            with_flags(note, &view("A", "s0")).into_string(),
            "publish it again with <code class=\"flag\">--whole-session</code> to take &lt;it&gt; out"
        );
    }

    #[test]
    fn another_submission_a_note_names_links_to_its_row() {
        let id = "sbf145585a865cf570534";
        assert_eq!(submission_of("sbf145585a865cf570534"), Some((id, "")));
        assert_eq!(submission_of("sbf145585a865cf570534)."), Some((id, ").")));
        assert_eq!(submission_of("sbf145585a865cf5705341"), None);
        assert_eq!(submission_of("superseded-by-a-correct"), None);
        assert_eq!(submission_of("s"), None);
        let note = format!("(submission {id} had corrected it to 4S= N, NS 420)");
        assert_eq!(
            with_flags(&note, &view("Club & Co", "s0")).into_string(),
            format!(
                "(submission <a href=\"/director?club=Club%20%26%20Co#s-{id}\">{id}</a> had corrected it to 4S= N, NS 420)"
            )
        );
        // Its own id is not a link.
        assert_eq!(
            with_flags(&format!("submission {id} of club A"), &view("A", id)).into_string(),
            format!("submission {id} of club A")
        );
    }
}
