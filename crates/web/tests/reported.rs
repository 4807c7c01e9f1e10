//! What a tester reported using the site as a player and a director, each held here: places
//! say which list they are in, a board at a club's scope says which field each percentage is
//! of, "jump to my pair" finds a club by its whole name and a Howell pair asked for by
//! direction, search reads the words the site itself writes, and addresses typed a little off
//! (a club id in lower case, a slash at the end, a NUL, a long search, an unknown API path) are
//! answered helpfully.

use crate::common;

use axum::http::StatusCode;
use simpairs_pipeline::PairKey;

/// Clubs named as in the report: "Tauranga Bridge Club", then "Tauranga Bridge Club 2", ...
fn event() -> (common::Event, simpairs_web::Site) {
    let settings = common::settings(41, 10, 8);
    let sim = simpairs_sim::national_event(&settings);
    let first = sim.clubs[0].id.clone();
    let e = common::declared_as("reported", "Reported", &settings, |c| {
        if c.id == first {
            "Tauranga Bridge Club".to_string()
        } else {
            format!(
                "Tauranga Bridge Club {}",
                c.id.trim_start_matches(['C', '0'])
            )
        }
    });
    for i in 0..e.sim.clubs.len() {
        e.publish(i);
    }
    e.aggregate();
    let site = e.site();
    (e, site)
}

fn standing(site: &simpairs_web::Site, pair: &PairKey) -> simpairs_events::types::PairStanding {
    let p = site.projection();
    simpairs_pipeline::views::rankings::national_standing(&p, &site.catalog(), pair).unwrap()
}

fn ordinal(n: i32) -> String {
    simpairs_web::pages::fmt::ordinal(n)
}

/// The table row of `html` holding `needle`.
fn row_with<'a>(html: &'a str, needle: &str) -> &'a str {
    let at = html
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} in {html}"));
    let start = html[..at].rfind("<tr").unwrap();
    &html[start..at + html[at..].find("</tr>").unwrap()]
}

#[tokio::test]
async fn places_say_which_list_they_are_in() {
    let (e, site) = event();
    let club = e.sim.clubs.iter().find(|c| !c.howell).unwrap();
    let pair = PairKey::new(club.id.clone(), "A", "1", "NS");
    let s = standing(&site, &pair);
    let (_, _, html) = common::get(&site, &format!("/search?q={}+1+NS", club.id)).await;
    let row = row_with(&html, "dir=NS\"");
    assert!(
        row.contains(&format!("{} NS", ordinal(s.rank)))
            && row.contains(&format!("{} of all", ordinal(s.combined_rank))),
        "{row}"
    );
    // The club page names the list its national places are in.
    let (_, _, html) = common::get(&site, &format!("/club/{}", club.id)).await;
    assert!(html.contains("National place, NS"), "{html}");
    assert!(html.contains("National place, EW"), "{html}");
    // A Howell pair's place is among all pairs, and its number says Howell.
    if let Some(howell) = e.sim.clubs.iter().find(|c| c.howell) {
        let pair = PairKey::new(howell.id.clone(), "A", "1", "");
        let s = standing(&site, &pair);
        let (_, _, html) = common::get(&site, &format!("/search?q={}+1+howell", howell.id)).await;
        let row = row_with(&html, "1 Howell");
        assert!(
            row.contains(&format!("{} of all", ordinal(s.combined_rank))),
            "{row}"
        );
        let (_, _, html) = common::get(&site, &format!("/club/{}", howell.id)).await;
        assert!(html.contains("National place, all pairs"), "{html}");
    }
}

#[tokio::test]
async fn a_board_at_a_club_s_scope_says_which_field_each_percentage_is_of() {
    let (e, site) = event();
    let club = &e.sim.clubs[0].id;
    let (status, _, html) = common::get(&site, &format!("/board/1?scope=club&club={club}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains(">NS % club<") && html.contains(">EW % club<"),
        "{html}"
    );
    assert!(
        html.contains(">NS % national<") && !html.contains("nationally"),
        "{html}"
    );
    // On a phone (".wide" hidden) the club's NS % shows, not the national.
    assert!(
        html.contains("<th scope=\"col\">NS % club</th>")
            && html.contains("<th class=\"wide\" scope=\"col\">NS % national</th>"),
        "{html}"
    );
    let (_, _, html) = common::get(&site, "/board/1").await;
    assert!(
        html.contains("<th scope=\"col\">NS % national</th>"),
        "{html}"
    );
    assert!(!html.contains("line(s)"), "{html}");
}

#[tokio::test]
async fn jump_to_my_pair_finds_a_club_by_its_whole_name_and_a_howell_pair() {
    let (e, site) = event();
    let (_, _, html) = common::get(
        &site,
        "/rankings?list=ns&me_club=tauranga+bridge+club&me_pair=1",
    )
    .await;
    assert!(!html.contains("No single club"), "{html}");
    assert!(html.contains("id=\"me\""), "{html}");
    let row = row_with(&html, "id=\"me\"");
    assert!(
        row.contains(&format!("/pair/{}/1?", e.sim.clubs[0].id)),
        "{row}"
    );
    let howell = e
        .sim
        .clubs
        .iter()
        .find(|c| c.howell)
        .expect("a Howell club");
    let (_, _, html) = common::get(
        &site,
        &format!("/rankings?list=ns&me_club={}&me_pair=1", howell.id),
    )
    .await;
    assert!(
        !html.contains("no pair with that number") && html.contains("Howell"),
        "{html}"
    );
    assert!(
        html.contains("/rankings?list=combined&amp;me_club="),
        "{html}"
    );
}

#[tokio::test]
async fn search_reads_the_words_the_site_writes() {
    let (e, site) = event();
    let club = e.sim.clubs.iter().find(|c| !c.howell).unwrap();
    let name = {
        let p = site.projection();
        simpairs_pipeline::views::club_name(&p, &club.id)
    };
    let href = format!("/pair/{}/2?section=A&amp;dir=NS", club.id);
    for q in [
        format!("{name} pair 2"),
        format!("{name} 2 NS"),
        format!("{name} 2 N-S"),
        format!("{name}, pair 2 NS, section A"),
    ] {
        let (status, _, html) =
            common::get(&site, &format!("/search?q={}", simpairs_web_enc(&q))).await;
        assert_eq!(status, StatusCode::OK);
        assert!(html.contains(&href), "{q}: {html}");
        if q.contains("NS") {
            assert!(!html.contains("dir=EW"), "{q}: only North-South");
        }
    }
    // A club's pairs in number order.
    let (_, _, html) = common::get(&site, &format!("/search?q={}", club.id)).await;
    let numbers: Vec<u32> = html
        .match_indices(&format!("/pair/{}/", club.id))
        .map(|(at, m)| {
            let rest = &html[at + m.len()..];
            rest[..rest.find('?').unwrap()].parse().unwrap()
        })
        .collect();
    assert!(numbers.len() > 2, "{html}");
    assert!(numbers.windows(2).all(|w| w[0] <= w[1]), "{numbers:?}");
    // A name written without its spaces.
    let spaced = {
        let p = site.projection();
        p.players
            .values()
            .flatten()
            .any(|pl| pl.name.contains("Van der Berg"))
    };
    if spaced {
        let (_, _, with) = common::get(&site, "/search?q=van+der+berg").await;
        let (_, _, without) = common::get(&site, "/search?q=vanderberg").await;
        assert!(!without.contains("Nothing found"), "{without}");
        assert_eq!(
            with.matches("<tr>").count(),
            without.matches("<tr>").count()
        );
    }
}

fn simpairs_web_enc(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[tokio::test]
async fn addresses_typed_a_little_off_are_answered_helpfully() {
    let (e, site) = event();
    let club = e.sim.clubs.iter().find(|c| !c.howell).unwrap();
    let lower = club.id.to_lowercase();
    let (status, headers, _) =
        common::get(&site, &format!("/pair/{lower}/2?section=A&dir=NS")).await;
    assert!(status.is_redirection(), "{status}");
    assert_eq!(
        headers["location"],
        format!("/pair/{}/2?section=A&dir=NS", club.id)
    );
    let (status, headers, _) = common::get(&site, &format!("/club/{lower}")).await;
    assert!(status.is_redirection(), "{status}");
    assert_eq!(headers["location"], format!("/club/{}", club.id));
    let (status, _, html) = common::get(&site, "/pair/NOSUCH/2").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(html.contains("no club with that number"), "{html}");
    // A slash at the end.
    for (from, to) in [
        (format!("/club/{}/", club.id), format!("/club/{}", club.id)),
        (
            "/board/1/?club=x".to_string(),
            "/board/1?club=x".to_string(),
        ),
    ] {
        let (status, headers, _) = common::get(&site, &from).await;
        assert!(status.is_redirection(), "{from}: {status}");
        assert_eq!(headers["location"], to.as_str());
    }
    let (status, _, _) = common::get(&site, "//evil.example/").await;
    assert!(!status.is_redirection());
    // A NUL is not written back; a long search says it is too long.
    let (status, _, html) = common::get(&site, "/search?q=ab%00cd").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("value=\"abcd\""), "{html}");
    assert!(!html.contains('\0'));
    let (status, _, html) = common::get(&site, &format!("/search?q={}", "x".repeat(201))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        html.contains("too long") && !html.contains("This link"),
        "{html}"
    );
    // The API: JSON for an unknown path, `dir=` as the site writes it.
    let (status, headers, body) = common::get(&site, "/api/nothing").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(headers["content-type"].to_str().unwrap().contains("json"));
    assert!(
        serde_json::from_str::<serde_json::Value>(&body).is_ok(),
        "{body}"
    );
    let (status, _, dir) = common::get(
        &site,
        &format!("/api/pair?club={}&section=A&pair=2&dir=EW", club.id),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{dir}");
    let (_, _, direction) = common::get(
        &site,
        &format!("/api/pair?club={}&section=A&pair=2&direction=EW", club.id),
    )
    .await;
    assert_eq!(dir, direction);
}
