//! The session XML of NZ Bridge's club scoring program "Scorer":
//!
//! ```xml
//! <session club="..." club_no="330" scoring_type="MP" event_name="..." event_date="28/12/2015" event_time="Afternoon">
//!   <sections><section sectid="A" tables="6" handicap="false"/></sections>
//!   <board_results><brsection id="A">
//!     <result tab="1" bd="1" rnd="1" ns="12" ew="1" dec="N" cont="4 S" lead="CT" res="+2" score="480" mp_ns="100" mp_ew="0"/>
//!   </brsection></board_results>
//!   <scores><scsection id="A">
//!     <pair no="5" dir="N" player_name_1="..." nzb_no_1="..." match_points="374/624" place="1" raw_score="59.94" res="59.94" handicap="0"/>
//!   </scsection></scores>
//! </session>
//! ```
//!
//! - `res` is the result against the contract (`=`, `+2`, `-1`): tricks = level + 6 + `res`.
//! - `mp_ns`/`mp_ew` are matchpoints x10 on the 2/1 (double) scale; `-9999` marks a sit-out or phantom
//!   table, or a board not played at that table (no result, no contract). `cont="N P"` with a score
//!   (`0`) and matchpoints is a hand passed out ("passed in"), which Scorer matchpoints with the rest of
//!   the board (scorer-to-usebio's commit ea4fb1d reads it so; see its `pairs-with-np-passed.xml`).
//!   `score="Adj"` is an artificial score whose percentages are read from its matchpoints and the
//!   board's top.
//! - Pairs with `dir="H"` are Howell pairs (one number, one pair); `N`/`E` are Mitchell pairs.
//! - Per pair, `match_points="374/624"` is the total and the most possible, `raw_score` the percentage
//!   and, in handicapped sections, `res` the percentage after the handicap.

use std::borrow::Cow;

use rustc_hash::FxHashMap;
use simpairs_scoring::{Contract, Direction, Value};

use crate::build::{self, At, FIELDS, Naming, RawLine};
use crate::error::{Error, Location, Problem, Problems, Result};
use crate::model::{
    EventInfo, Format, Imported, LineDetails, Official, OfficialLine, OfficialPair, PairInfo,
    Place, Player, SectionInfo,
};
use crate::row::is_not_played;
use crate::text::{non_empty, parse_decimal};
use crate::xml::{self, Node, Walker};

/// Scorer's matchpoints are written x10.
const MP_SCALE: i64 = 10;
/// Scorer's mark of a table without a result.
const NO_RESULT: &str = "-9999";

const NAMES: [(&str, &str); 11] = [
    ("board", "@bd"),
    ("section", "../@id"),
    ("ns_pair", "@ns"),
    ("ew_pair", "@ew"),
    ("contract", "@cont"),
    ("declarer", "@dec"),
    ("tricks", "@res"),
    ("ns_score", "@score"),
    ("ew_score", "@score"),
    ("adjusted", "@score"),
    ("movement", "../@id"),
];

/// A `<result>` as read.
#[derive(Debug, Default)]
struct ResultAcc<'a> {
    section: String,
    attrs: FxHashMap<String, Cow<'a, str>>,
    at: At,
}

impl<'a> ResultAcc<'a> {
    fn get(&self, name: &str) -> &str {
        self.attrs.get(name).map_or("", |v| v.trim())
    }

    fn cow(&self, name: &str) -> Cow<'a, str> {
        self.attrs.get(name).cloned().unwrap_or(Cow::Borrowed(""))
    }
}

#[derive(Debug, Default)]
struct PairAcc {
    section: String,
    number: String,
    dir: String,
    players: Vec<Player>,
    official: OfficialPair,
}

/// What reading a session collects, element by element.
struct Session<'a, 'l> {
    file: &'a str,
    event: EventInfo,
    sections: Vec<SectionInfo>,
    /// Results are checked as they are read; artificial scores wait for their board's top.
    sink: build::Sink<'a, 'l>,
    adjusted: Vec<(usize, ResultAcc<'a>)>,
    /// By (section, board): how many results have each NS + EW matchpoints.
    tops: FxHashMap<(String, String), FxHashMap<i64, u32>>,
    pairs: Vec<PairAcc>,
    current_section: String,
}

impl<'a, 'l> Session<'a, 'l> {
    /// Reads every element of the file; returns whether it has a root element.
    fn walk(&mut self, walker: &mut Walker<'a>) -> Result<bool> {
        let file = self.file;
        let mut root_seen = false;
        loop {
            match walker.next()? {
                Node::Start { start, line } => {
                    let name = start.name().as_ref().to_string();
                    if !root_seen {
                        root_seen = true;
                        self.session(walker, &start, &name, line)?;
                        continue;
                    }
                    let parent = walker.ancestor(1).unwrap_or("").to_string();
                    match (parent.as_str(), name.as_str()) {
                        ("sections", "section") => {
                            self.sections.push(section_info(walker, &start)?);
                        }
                        ("board_results", "brsection") | ("scores", "scsection") => {
                            self.current_section = xml::attribute(&start, "id")
                                .unwrap_or_default()
                                .trim()
                                .to_string();
                        }
                        ("brsection", "result") => {
                            let more = self.result(walker, &start, line)?;
                            if !more {
                                break;
                            }
                        }
                        ("scsection", "pair") => {
                            let attrs = xml::attributes(walker, &start)?;
                            let path = walker.path();
                            self.pairs.push(pair_of(
                                file,
                                &self.current_section,
                                &attrs,
                                line,
                                &path,
                                &mut self.sink.problems,
                            ));
                        }
                        _ => {}
                    }
                }
                Node::End { .. } => {}
                Node::Eof => break,
            }
        }
        Ok(root_seen)
    }

    /// The root element: a `<session>`, whose attributes describe the event.
    fn session(
        &mut self,
        walker: &mut Walker<'a>,
        start: &quick_xml::events::BytesStart<'_>,
        name: &str,
        line: u64,
    ) -> Result<()> {
        if name != "session" {
            return Err(Error::at(
                self.file,
                line,
                Some(name),
                format!(
                    "the root element is <{name}>, not <session>: this is not a Scorer session file"
                ),
            ));
        }
        let event = &mut self.event;
        for (k, v) in xml::attributes(walker, start)? {
            let v = non_empty(&v);
            match k.as_str() {
                "club" => event.club_name = v,
                "club_no" => event.club_id = v,
                "scoring_type" => event.event_type = v,
                "event_name" => event.name = v,
                "event_date" => event.date = v,
                "event_time" => event.time = v,
                _ => {}
            }
        }
        Ok(())
    }

    /// A `<result>`: checked now, or kept for later when it is an artificial score. Returns
    /// whether reading goes on (false: too many problems).
    fn result(
        &mut self,
        walker: &mut Walker<'a>,
        start: &quick_xml::events::BytesStart<'_>,
        line: u64,
    ) -> Result<bool> {
        let attrs = xml::attributes(walker, start)?;
        let r = ResultAcc {
            section: self.current_section.clone(),
            attrs: attrs.into_iter().collect(),
            at: At {
                line,
                path: walker.path(),
                field_lines: [0; FIELDS.len()],
            },
        };
        let no_result = r.get("mp_ns") == NO_RESULT;
        if r.get("score").eq_ignore_ascii_case("adj") && !no_result {
            let placeholder = RawLine {
                at: r.at.clone(),
                ..RawLine::default()
            };
            self.adjusted.push((self.sink.lines.len(), r));
            self.sink.push(placeholder, false);
            return Ok(true);
        }
        if let (false, Ok(a), Ok(b)) = (
            no_result,
            r.get("mp_ns").parse::<i64>(),
            r.get("mp_ew").parse::<i64>(),
        ) {
            *self
                .tops
                .entry((r.section.clone(), r.get("bd").to_string()))
                .or_default()
                .entry(a + b)
                .or_default() += 1;
        }
        let raw = raw_line(&r, None, self.file, &mut self.sink.problems);
        Ok(self.sink.push(raw, true))
    }

    /// Howell or Mitchell, section by section (Scorer marks Howell pairs `dir="H"`; sections
    /// without pairs are told by their results); sets the event's movement and sections.
    fn movements(&mut self) -> FxHashMap<String, bool> {
        let mut howell_of: FxHashMap<String, bool> = FxHashMap::default();
        for p in &self.pairs {
            let h = p.dir.eq_ignore_ascii_case("H");
            howell_of
                .entry(p.section.clone())
                .and_modify(|v| *v &= h)
                .or_insert(h);
        }
        let lines = &self.sink.lines;
        let section_names: Vec<String> = {
            let mut v: Vec<String> = lines.iter().map(|r| r.section.to_string()).collect();
            v.sort();
            v.dedup();
            v
        };
        for s in &section_names {
            if !howell_of.contains_key(s) {
                let guess = build::looks_like_howell(
                    lines
                        .iter()
                        .filter(|r| &*r.section == s && !r.not_played)
                        .map(|r| (&*r.board, &*r.ns, &*r.ew)),
                );
                howell_of.insert(s.clone(), guess);
            }
        }
        let all_howell = howell_of.values().all(|h| *h);
        let any_howell = howell_of.values().any(|h| *h);
        if all_howell || !any_howell {
            self.event.movement = Some(build::movement_of(all_howell));
        }
        let mut sections = std::mem::take(&mut self.sections);
        if sections.is_empty() {
            sections = section_names
                .iter()
                .map(|n| SectionInfo {
                    name: n.clone(),
                    ..SectionInfo::default()
                })
                .collect();
        }
        self.event.sections = sections;
        howell_of
    }

    /// Reads the artificial scores, now that every board's top is known: the most common NS + EW
    /// among its results.
    fn read_adjusted(&mut self) {
        let tops = &self.tops;
        let top_of = |section: &str, board: &str| -> Option<i64> {
            let counts = tops.get(&(section.to_string(), board.to_string()))?;
            counts
                .iter()
                .max_by_key(|(sum, n)| (**n, **sum))
                .map(|(sum, _)| *sum)
        };
        for (at, r) in &self.adjusted {
            let line = raw_line(
                r,
                top_of(&r.section, r.get("bd")),
                self.file,
                &mut self.sink.problems,
            );
            self.sink.lines[*at] = line;
        }
    }
}

/// A `<section>` of the `<sections>` list.
fn section_info(
    walker: &mut Walker<'_>,
    start: &quick_xml::events::BytesStart<'_>,
) -> Result<SectionInfo> {
    let a = xml::attributes(walker, start)?;
    let get = |k: &str| {
        a.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.trim().to_string())
    };
    Ok(SectionInfo {
        name: get("sectid").unwrap_or_default(),
        tables: get("tables").and_then(|t| t.parse().ok()),
        handicapped: get("handicap").is_some_and(|h| h.eq_ignore_ascii_case("true")),
    })
}

/// The pairs of the scores, as the field's pairs are described.
fn pair_infos(pairs: &[PairAcc], howell_of: &FxHashMap<String, bool>) -> Vec<PairInfo> {
    pairs
        .iter()
        .map(|p| {
            let howell = howell_of.get(&p.section).copied().unwrap_or(false);
            let direction = match p.dir.to_ascii_uppercase().as_str() {
                _ if howell => None,
                "N" | "NS" => Some(Direction::NS),
                "E" | "EW" => Some(Direction::EW),
                _ => None,
            };
            PairInfo {
                club: String::new(),
                section: p.section.clone(),
                label: p.number.clone(),
                direction,
                players: p.players.clone(),
            }
        })
        .collect()
}

/// Reads a Scorer session file.
pub fn read(file: &str, bytes: &[u8]) -> Result<Imported> {
    let (text, encoding) = xml::decode(file, bytes)?;
    let mut imported = read_text(file, &text)?;
    crate::error::warn_in_line_order(&mut imported.warnings, encoding);
    Ok(imported)
}

/// [`read`] of the file's text.
fn read_text(file: &str, text: &str) -> Result<Imported> {
    if text.trim().is_empty() {
        return Err(Error::at(
            file,
            1,
            None,
            "the file is empty: expected a Scorer session",
        ));
    }
    let mut walker = Walker::new(file, text);
    let legal = simpairs_scoring::LegalScores::new();
    let naming = Naming {
        names: &NAMES,
        separator: "/",
    };
    let mut session = Session {
        file,
        event: EventInfo {
            program: Some("Scorer".into()),
            ..EventInfo::default()
        },
        sections: Vec::new(),
        sink: build::Sink::new(file, naming, &legal),
        adjusted: Vec::new(),
        tops: FxHashMap::default(),
        pairs: Vec::new(),
        current_section: String::new(),
    };
    if !session.walk(&mut walker)? {
        return Err(Error::at(
            file,
            1,
            None,
            "the file has no XML elements: expected a Scorer session",
        ));
    }
    if session.sink.lines.is_empty() && session.sink.problems.is_empty() {
        return Err(Error::at(
            file,
            1,
            Some("board_results"),
            "the session has no results to score",
        ));
    }
    if let Some(scoring_type) = session.event.event_type.clone() {
        crate::method::set(&mut session.event, crate::method::scorer(&scoring_type));
    }
    let howell_of = session.movements();
    session.read_adjusted();
    let mut raw = std::mem::take(&mut session.sink.lines);
    for line in raw.iter_mut() {
        line.howell = howell_of.get(&*line.section).copied().unwrap_or(false);
    }
    let problems = std::mem::take(&mut session.sink.problems);
    let built = build::build(file, raw, &naming, problems)?;

    let pairs = session.pairs;
    let (pair_infos, absent_pairs, placed) =
        build::place_pairs(&built.field, pair_infos(&pairs, &howell_of));
    let mut official_pairs: Vec<_> = placed
        .iter()
        .zip(&pairs)
        .filter_map(|(id, p)| id.map(|id| (id as u32, p.official.clone())))
        .collect();
    official_pairs.sort_by_key(|(id, _)| *id);
    official_pairs.dedup_by_key(|(id, _)| *id);

    Ok(Imported {
        format: Format::Scorer,
        field: built.field,
        lines: built.lines,
        not_played: built.not_played,
        not_played_tables: built.not_played_tables,
        event: session.event,
        pairs: pair_infos,
        absent_pairs,
        deals: Vec::new(),
        details: built.details,
        warnings: built.warnings,
        official: Official {
            lines: built.official,
            pairs: official_pairs,
            datums: Vec::new(),
        },
    })
}

/// A `<pair>` of the scores.
fn pair_of(
    file: &str,
    section: &str,
    attrs: &[(String, Cow<'_, str>)],
    line: u64,
    path: &str,
    problems: &mut Problems,
) -> PairAcc {
    let get = |k: &str| {
        attrs
            .iter()
            .find(|(n, _)| n == k)
            .map_or("", |(_, v)| v.trim())
    };
    let mut bad = |name: &str, message: String| {
        problems.push(Problem {
            at: Location {
                file: file.to_string(),
                line,
                field: Some(format!("{path}/@{name}")),
            },
            message,
        })
    };
    let mut official = OfficialPair::default();
    let mp = get("match_points");
    if !mp.is_empty() {
        let parts = mp
            .split_once('/')
            .map(|(a, b)| (parse_decimal(a), parse_decimal(b)));
        match parts {
            Some((Some(total), Some(max))) => {
                official.total = Some(total);
                official.max = Some(max);
            }
            _ => bad(
                "match_points",
                format!("{mp:?} is not matchpoints out of a maximum such as 374/624"),
            ),
        }
    }
    let mut decimal = |name: &str| -> Option<Value> {
        let t = get(name);
        if t.is_empty() {
            return None;
        }
        let v = parse_decimal(t);
        if v.is_none() {
            bad(name, format!("{t:?} is not a number"));
        }
        v
    };
    official.percent = decimal("raw_score");
    let res = decimal("res");
    official.handicap = decimal("handicap").filter(|h| *h != Value::from_integer(0));
    if official.percent.is_none() {
        official.percent = res;
    } else if official.handicap.is_some() {
        official.handicapped_percent = res;
    }
    official.place = Place::parse(get("place"));
    official.master_points = non_empty(get("cpoints")).filter(|c| c != "0");
    let players = [1, 2]
        .iter()
        .filter_map(|k| {
            let name = get(&format!("player_name_{k}")).to_string();
            let id = non_empty(get(&format!("nzb_no_{k}")));
            (!name.is_empty() || id.is_some()).then_some(Player {
                name,
                national_id: id,
                club_id: None,
            })
        })
        .collect();
    PairAcc {
        section: section.to_string(),
        number: get("no").to_string(),
        dir: get("dir").to_string(),
        players,
        official,
    }
}

/// Tricks taken from a contract and a result against it (`=`, `+2`, `-1`).
fn tricks_of(contract: &str, res: &str) -> std::result::Result<Option<u8>, String> {
    let Ok(Contract::Bid { level, .. }) = contract.parse::<Contract>() else {
        return Ok(None);
    };
    let r = res.trim();
    let delta: i32 = match r {
        "=" | "" if r == "=" => 0,
        "" => return Ok(None),
        _ => r
            .trim_start_matches('+')
            .parse()
            .map_err(|_| format!("the result {res:?} is not =, +n or -n"))?,
    };
    let tricks = i32::from(level) + 6 + delta;
    u8::try_from(tricks)
        .ok()
        .filter(|t| *t <= 13)
        .map(Some)
        .ok_or_else(|| format!("{contract} {res} is {tricks} tricks: declarer takes 0 to 13"))
}

/// The contract, declarer, tricks and score the field builder reads of a result that was `played`
/// (none for an artificial score or a table without a result).
fn played_fields<'a>(
    r: &ResultAcc<'a>,
    played: bool,
    passed_out: bool,
    tricks: Option<u8>,
) -> [Cow<'a, str>; 4] {
    let none = || Cow::Borrowed("");
    match (played, passed_out) {
        (false, _) => [none(), none(), none(), none()],
        (true, true) => [Cow::Borrowed("PASS"), none(), none(), r.cow("score")],
        (true, false) => [
            r.cow("cont"),
            r.cow("dec"),
            Cow::Owned(tricks.map(|t| t.to_string()).unwrap_or_default()),
            r.cow("score"),
        ],
    }
}

/// The matchpoints Scorer gave a line (x10 in the file).
fn official_values(mp_ns: &str, mp_ew: &str, bad: &mut dyn FnMut(&str, String)) -> OfficialLine {
    let mut official = OfficialLine::default();
    for (name, text, slot) in [
        ("mp_ns", mp_ns, &mut official.ns),
        ("mp_ew", mp_ew, &mut official.ew),
    ] {
        if text.is_empty() {
            continue;
        }
        match parse_decimal(text) {
            Some(v) => *slot = Some(v / Value::from_integer(MP_SCALE)),
            None => bad(name, format!("{text:?} is not matchpoints")),
        }
    }
    official
}

/// An adjusted score's percentages of the board's top (`60/40`), read back from the matchpoints
/// given.
fn adjusted_percentages(
    top: Option<i64>,
    mp_ns: &str,
    mp_ew: &str,
    bad: &mut dyn FnMut(&str, String),
) -> Cow<'static, str> {
    match (top, mp_ns.parse::<i64>(), mp_ew.parse::<i64>()) {
        (Some(top), Ok(a), Ok(b)) if top > 0 => {
            let pct = |x: i64| (x * 200 + top) / (2 * top);
            Cow::Owned(format!("{}/{}", pct(a), pct(b)))
        }
        _ => {
            bad(
                "score",
                "an adjusted score (Adj) whose percentages cannot be read from its matchpoints"
                    .into(),
            );
            Cow::Borrowed("")
        }
    }
}

/// A `<result>` as a traveller line (its movement is set once the whole file is read); `top` is its
/// board's top (x10), needed for an artificial score.
fn raw_line<'a>(
    r: &ResultAcc<'a>,
    top: Option<i64>,
    file: &str,
    problems: &mut Problems,
) -> RawLine<'a> {
    let mut bad = |name: &str, message: String| {
        problems.push(Problem {
            at: Location {
                file: file.to_string(),
                line: r.at.line,
                field: Some(format!("{}/@{name}", r.at.path)),
            },
            message,
        })
    };
    let (mp_ns, mp_ew) = (r.get("mp_ns"), r.get("mp_ew"));
    let not_played = mp_ns == NO_RESULT || mp_ew == NO_RESULT;
    // Scorer writes a hand passed out as `cont="N P"` with its score (0) and matchpoints; a table that
    // did not play the board is a -9999 line, with no contract.
    let passed_out = !not_played && is_not_played(r.get("cont"));
    let cont = if passed_out { "PASS" } else { r.get("cont") };
    let official = if not_played {
        OfficialLine::default()
    } else {
        official_values(mp_ns, mp_ew, &mut bad)
    };
    let score = r.get("score");
    let adjusted_score = score.eq_ignore_ascii_case("adj");
    let adjusted = if adjusted_score && !not_played {
        adjusted_percentages(top, mp_ns, mp_ew, &mut bad)
    } else {
        Cow::Borrowed("")
    };
    let tricks = if adjusted_score || not_played {
        None
    } else {
        match tricks_of(cont, r.get("res")) {
            Ok(t) => t,
            Err(m) => {
                bad("res", m);
                None
            }
        }
    };
    let contract_canonical =
        non_empty(cont).map(|c| c.parse::<Contract>().map_or(c, |k| k.to_string()));
    let passed = contract_canonical.as_deref() == Some("PASS");
    let details = LineDetails {
        contract: contract_canonical,
        declarer: if passed {
            None
        } else {
            r.get("dec").parse().ok()
        },
        tricks: if passed { None } else { tricks },
        lead: non_empty(r.get("lead")),
        table: r.get("tab").parse().ok(),
        round: r.get("rnd").parse().ok(),
    };
    let [contract, declarer, tricks_text, ns_score] =
        played_fields(r, !(adjusted_score || not_played), passed_out, tricks);
    RawLine {
        club: Cow::Borrowed(""),
        section: Cow::Owned(r.section.clone()),
        board: r.cow("bd"),
        ns: r.cow("ns"),
        ew: r.cow("ew"),
        contract,
        declarer,
        tricks: tricks_text,
        ns_score,
        ew_score: Cow::Borrowed(""),
        adjusted,
        arrow_switch: Cow::Borrowed(""),
        group: Cow::Borrowed(""),
        howell: false,
        not_played,
        details,
        official,
        origin: 0,
        at: r.at.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"<?xml version="1.0"?>
<session club="Club" club_no="330" scoring_type="MP" event_name="Pairs" event_date="1/1/2020" event_time="Evening">
  <sections><section sectid="A" tables="2" handicap="false"/></sections>
  <board_results><brsection id="A">
    <result tab="1" bd="1" rnd="1" ns="1" ew="1" dec="N" cont="4 S" lead="CT" res="+2" score="480" mp_ns="20" mp_ew="0"/>
    <result tab="2" bd="1" rnd="1" ns="2" ew="2" dec="S" cont="3 C x" lead="" res="-1" score="-100" mp_ns="0" mp_ew="20"/>
    <result tab="3" bd="1" rnd="1" ns="3" ew="3" dec="" cont="" lead="" res="" mp_ns="-9999" mp_ew="-9999"/>
    <result tab="1" bd="2" rnd="1" ns="1" ew="1" dec="" cont="" lead="" res="" score="Adj" mp_ns="12" mp_ew="8"/>
    <result tab="2" bd="2" rnd="1" ns="2" ew="2" dec="N" cont="PASS" lead="" res="" score="0" mp_ns="10" mp_ew="10"/>
  </brsection></board_results>
  <scores><scsection id="A">
    <pair player_name_1="Ann" player_name_2="Bob" match_points="3/4" place="1" dir="N" no="1" nzb_no_1="7" nzb_no_2="8" cpoints="40" res="75" raw_score="75" handicap="0"/>
  </scsection></scores>
</session>"#;

    #[test]
    fn a_small_session() {
        let got = read("s.xml", SMALL.as_bytes()).unwrap();
        assert_eq!(got.field.len(), 4);
        assert_eq!(got.not_played, 1);
        assert_eq!(got.event.club_name.as_deref(), Some("Club"));
        assert_eq!(got.details(1).unwrap().contract.as_deref(), Some("3CX"));
        assert_eq!(got.details(1).unwrap().tricks, Some(8));
        assert!(matches!(
            got.field.result(2).outcome,
            simpairs_scoring::Outcome::Adjusted {
                ns_percent: 60,
                ew_percent: 40
            }
        ));
        assert_eq!(
            got.official.line(0).unwrap().ns,
            Some(Value::from_integer(2))
        );
        let ns1 = got.field.result(0).ns;
        let o = got.official.pair(ns1).unwrap();
        assert_eq!(
            (o.total, o.max),
            (Some(Value::from_integer(3)), Some(Value::from_integer(4)))
        );
        assert_eq!(
            got.pairs[ns1 as usize].players[1].national_id.as_deref(),
            Some("8")
        );
    }

    #[test]
    fn bad_results_are_located() {
        let bad = SMALL.replace("res=\"+2\" score=\"480\"", "res=\"+2\" score=\"455\"");
        let err = read("s.xml", bad.as_bytes()).unwrap_err();
        let p = &err.problems()[0];
        assert_eq!(
            p.at.field.as_deref(),
            Some("board_results/brsection[1]/result[1]/@score")
        );
        assert_eq!(p.at.line, 5);
        // A score that disagrees with its contract stands, with a warning located the same way.
        let ruled = SMALL.replace("res=\"+2\" score=\"480\"", "res=\"+2\" score=\"450\"");
        let got = read("s.xml", ruled.as_bytes()).unwrap();
        assert_eq!(
            got.field.result(0).outcome,
            simpairs_scoring::Outcome::Played(450)
        );
        let w = &got.warnings[0];
        assert_eq!(
            (w.at.line, w.at.field.as_deref()),
            (5, Some("board_results/brsection[1]/result[1]/@score"))
        );
        assert!(
            w.message.contains("4S+2 by N, which scores 480"),
            "{}",
            w.message
        );
        let bad = SMALL.replace("res=\"+2\"", "res=\"+9\"");
        let err = read("s.xml", bad.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("@res"), "{err}");
    }

    /// A board passed out at one table (Scorer's `cont="N P"`) and played at two others: three results,
    /// matchpointed together (top 4 on the double scale); a -9999 line stays not played.
    #[test]
    fn a_hand_passed_out_is_a_result() {
        let session = r#"<session club="C" scoring_type="MP" event_name="E">
  <board_results><brsection id="A">
    <result tab="1" bd="1" rnd="1" ns="1" ew="1" dec="N" cont="N P" lead="" res=" " score="0" mp_ns="20" mp_ew="20"/>
    <result tab="2" bd="1" rnd="1" ns="2" ew="2" dec="S" cont="2 S" lead="" res="=" score="110" mp_ns="40" mp_ew="0"/>
    <result tab="3" bd="1" rnd="1" ns="3" ew="3" dec="N" cont="3 S" lead="" res="-1" score="-50" mp_ns="0" mp_ew="40"/>
    <result tab="4" bd="1" rnd="1" ns="4" ew="4" dec="" cont="" lead="" res="" mp_ns="-9999" mp_ew="-9999"/>
  </brsection></board_results>
</session>"#;
        let got = read("p.xml", session.as_bytes()).unwrap();
        assert_eq!((got.field.len(), got.not_played), (3, 1));
        assert_eq!(
            got.field.result(0).outcome,
            simpairs_scoring::Outcome::Played(0)
        );
        assert_eq!(got.details(0).unwrap().contract.as_deref(), Some("PASS"));
        assert!(got.warnings.is_empty(), "{:?}", got.warnings);
        let scoring =
            simpairs_scoring::score(&got.field, &simpairs_scoring::Options::default()).unwrap();
        let board = scoring.board(1).unwrap();
        assert_eq!(scoring.top(board), Value::from_integer(4));
        // As Scorer gave them (x10): 20/20, 40/0, 0/40.
        for (row, ns) in [(0, 2), (1, 4), (2, 0)] {
            assert_eq!(
                scoring.result_values(row).0,
                Value::from_integer(ns),
                "row {row}"
            );
        }
    }

    #[test]
    fn tricks_from_results() {
        assert_eq!(tricks_of("4 S", "+2"), Ok(Some(12)));
        assert_eq!(tricks_of("3 NT", "="), Ok(Some(9)));
        assert_eq!(tricks_of("6 D x", "-4"), Ok(Some(8)));
        assert_eq!(tricks_of("PASS", ""), Ok(None));
        assert!(tricks_of("7 NT", "+1").is_err());
        assert!(tricks_of("1 C", "x").is_err());
    }
}
