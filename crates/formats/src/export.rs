//! Writers: an imported event re-scored by simpairs, as USEBIO 1.2 results XML or as a traveller CSV.
//!
//! Both keep everything the import carried (names and national numbers, contracts, leads, tables and
//! rounds, the deals) and replace the official numbers with simpairs' own: per line the matchpoints
//! (or Butler / cross-IMPs) on the presentation scale, per pair the total, percentage and place. Read
//! back by this crate, either file gives the same field and scores to the same numbers.
//!
//! USEBIO details:
//! - One section and no club name: `PARTICIPANTS` and `BOARD` directly under `EVENT` (as Compscore
//!   writes). Otherwise `SESSION/SECTION` with `SECTION_ID`; when the field has several clubs each
//!   section also carries a `CLUB_NAME` element, and a `CLUB_ID_NUMBER` where the field knows the
//!   club by its id (a national event: [`crate::model::EventInfo::club_names`]); neither is in the
//!   1.2 DTD's `SECTION`, and both are read back by this crate.
//! - Mitchell pairs are numbered `1NS`/`1EW`; `WINNER_TYPE` is 1 for Howell-only fields and 2 for
//!   Mitchell-only fields; when sections differ, each `SECTION` carries its own `WINNER_TYPE` (read back
//!   by this crate).
//! - Adjusted scores are `A6040`; split scores are written as `NS_SCORE`/`EW_SCORE`, arrow-switches as
//!   `ARROW_SWITCH` and fouled-board groups as `FOULED_GROUP` (extensions USEBIO 1.2 has no element for).
//! - Butler events get `BOARD_AVERAGE` (the datum) and `NS/EW_BUTLER_POINTS`; cross-IMPs
//!   `NS/EW_CROSS_IMPS`; matchpoints `NS/EW_MATCH_POINTS`. Places are written `3=` when shared.

use std::borrow::Cow;
use std::io::{self, Write};

use simpairs_scoring::field::ClubId;
use simpairs_scoring::value::format_hundredths;
use simpairs_scoring::{Direction, Method, Outcome, PairId, Scoring, Value};

use crate::import::{Deal, Imported, LineDetails, PairInfo};
use crate::text::format_exact;

/// The formats simpairs writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExportFormat {
    /// USEBIO 1.2 results XML.
    Usebio,
    /// The traveller CSV with `ns_mp`/`ew_mp` (or `ns_imps`/`ew_imps`) columns.
    Csv,
}

impl ExportFormat {
    /// The format named on the command line (`usebio`, `csv`).
    pub fn from_name(name: &str) -> Option<ExportFormat> {
        match name.trim().to_ascii_lowercase().as_str() {
            "usebio" | "xml" => Some(ExportFormat::Usebio),
            "csv" => Some(ExportFormat::Csv),
            _ => None,
        }
    }
}

/// Writes `imported`, scored as `scoring`, in `format`.
pub fn write<W: Write>(
    out: W,
    format: ExportFormat,
    imported: &Imported,
    scoring: &Scoring<'_>,
) -> io::Result<()> {
    match format {
        ExportFormat::Usebio => write_usebio(out, imported, scoring),
        ExportFormat::Csv => write_csv(out, imported, scoring),
    }
}

/// Escapes text for XML content and attribute values (borrowed when nothing needs escaping, as
/// numbers and most names do not).
fn escape(text: &str) -> Cow<'_, str> {
    let needs = |c: char| {
        matches!(c, '&' | '<' | '>' | '"' | '\'')
            || (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    };
    if !text.contains(needs) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 cannot carry other control characters, even escaped.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// An XML document being written with indentation.
struct Xml<W: Write> {
    out: io::BufWriter<W>,
    depth: usize,
}

impl<W: Write> Xml<W> {
    /// Writes the indentation of an element at the current depth.
    fn indent(&mut self) -> io::Result<()> {
        const SPACES: &[u8] = &[b' '; 64];
        let mut left = self.depth * 2;
        while left > 0 {
            let n = left.min(SPACES.len());
            self.out.write_all(&SPACES[..n])?;
            left -= n;
        }
        Ok(())
    }

    fn open(&mut self, tag: &str, attributes: &[(&str, &str)]) -> io::Result<()> {
        self.indent()?;
        self.write_all(&["<", tag])?;
        for (k, v) in attributes {
            self.write_all(&[" ", k, "=\"", &escape(v), "\""])?;
        }
        self.out.write_all(b">\n")?;
        self.depth += 1;
        Ok(())
    }

    fn close(&mut self, tag: &str) -> io::Result<()> {
        self.depth -= 1;
        self.indent()?;
        self.write_all(&["</", tag, ">\n"])
    }

    fn leaf(&mut self, tag: &str, text: &str) -> io::Result<()> {
        self.indent()?;
        self.write_all(&["<", tag, ">", &escape(text), "</", tag, ">\n"])
    }

    fn write_all(&mut self, parts: &[&str]) -> io::Result<()> {
        parts
            .iter()
            .try_for_each(|part| self.out.write_all(part.as_bytes()))
    }

    fn leaf_opt(&mut self, tag: &str, text: Option<&str>) -> io::Result<()> {
        match text {
            Some(t) => self.leaf(tag, t),
            None => Ok(()),
        }
    }
}

/// Element names of a line's two values for each method.
fn value_elements(method: Method) -> (&'static str, &'static str) {
    match method {
        Method::Butler => ("NS_BUTLER_POINTS", "EW_BUTLER_POINTS"),
        Method::CrossImps => ("NS_CROSS_IMPS", "EW_CROSS_IMPS"),
        _ => ("NS_MATCH_POINTS", "EW_MATCH_POINTS"),
    }
}

fn event_type(method: Method) -> &'static str {
    match method {
        Method::Butler => "BUTLER_PAIRS",
        Method::CrossImps => "CROSS_IMP",
        _ => "MP_PAIRS",
    }
}

/// A pair's number as written in USEBIO: `1NS`/`1EW` for Mitchell pairs, `1` for Howell pairs. A
/// label ending in a separator (`1-`) gets one more before the direction (`1--NS`): a reader takes
/// one separator with the direction, and would otherwise read pair `1`.
fn usebio_number(label: &str, direction: Option<Direction>) -> String {
    match direction {
        Some(d) if label.ends_with([' ', '-', '_']) => format!("{label}-{}", d.as_str()),
        Some(d) => format!("{label}{}", d.as_str()),
        None => label.to_string(),
    }
}

/// An adjusted score as USEBIO writes it: `A6040`, or `100/0` when a side has 100 per cent.
fn adjusted_text(ns: u8, ew: u8) -> String {
    if ns < 100 && ew < 100 {
        format!("A{ns:02}{ew:02}")
    } else {
        format!("{ns}/{ew}")
    }
}

/// The (club, section) units of a field in the order their pairs first appear, each with its pairs
/// and its lines, found in one pass over the pairs and one over the lines: a national field has
/// thousands of units.
struct Units {
    keys: Vec<(ClubId, u32)>,
    /// Each unit's pairs, in the field's order.
    pairs: Vec<Vec<PairId>>,
    /// Each unit's lines as (the board's index in the field's boards, row), board by board.
    lines: Vec<Vec<(u32, u32)>>,
}

impl Units {
    fn of(field: &simpairs_scoring::Field, by_board: &simpairs_scoring::BoardRows) -> Units {
        let mut index: std::collections::HashMap<(ClubId, u32), usize> = Default::default();
        let mut units = Units {
            keys: Vec::new(),
            pairs: Vec::new(),
            lines: Vec::new(),
        };
        let mut unit_of = Vec::with_capacity(field.pairs().len());
        for (id, p) in field.pairs().iter().enumerate() {
            let unit = *index.entry((p.club, p.section)).or_insert_with(|| {
                units.keys.push((p.club, p.section));
                units.pairs.push(Vec::new());
                units.lines.push(Vec::new());
                units.keys.len() - 1
            });
            units.pairs[unit].push(id as PairId);
            unit_of.push(unit);
        }
        for (board, rows) in by_board.iter().enumerate() {
            for &row in rows {
                let unit = unit_of[field.result(row as usize).ns as usize];
                units.lines[unit].push((board as u32, row));
            }
        }
        units
    }
}

/// Writes the event re-scored as USEBIO 1.2 results XML.
pub fn write_usebio<W: Write>(
    out: W,
    imported: &Imported,
    scoring: &Scoring<'_>,
) -> io::Result<()> {
    let field = &imported.field;
    let method = scoring.options().method;
    let mut x = Xml {
        out: io::BufWriter::new(out),
        depth: 0,
    };
    let (howell, mitchell) = write_event_header(&mut x, imported, method)?;

    let by_board = field.rows_by_board();
    let units = Units::of(field, &by_board);
    let several_clubs = field.clubs().count() > 1 || field.clubs().any(|c| !c.is_empty());
    let flat =
        units.keys.len() == 1 && field.section_name(units.keys[0].1).is_empty() && !several_clubs;
    if !flat {
        x.open("SESSION", &[("SESSION_ID", "1")])?;
    }
    for (unit, &(club, section)) in units.keys.iter().enumerate() {
        let pairs = &units.pairs[unit];
        if !flat {
            x.open("SECTION", &[("SECTION_ID", field.section_name(section))])?;
            if several_clubs {
                write_section_club(&mut x, &imported.event, field.club_name(club))?;
            }
            if !howell && !mitchell {
                // Movements differ between sections: each section says its own.
                let unit_howell = pairs
                    .iter()
                    .any(|&id| field.pairs()[id as usize].direction.is_none());
                x.leaf("WINNER_TYPE", if unit_howell { "1" } else { "2" })?;
            }
        }
        write_participants(&mut x, imported, scoring, (club, section), pairs)?;
        write_boards(&mut x, imported, scoring, &by_board, &units.lines[unit])?;
        if !flat {
            x.close("SECTION")?;
        }
    }
    if !flat {
        x.close("SESSION")?;
    }
    x.close("EVENT")?;
    write_handset(&mut x, &imported.deals)?;
    x.close("USEBIO")?;
    x.out.flush()
}

/// A section's club, in a field of several: its name, and the label the field knows it by as its
/// number when the two differ (a national event's clubs are known by their ids).
fn write_section_club<W: Write>(
    x: &mut Xml<W>,
    event: &crate::model::EventInfo,
    label: &str,
) -> io::Result<()> {
    match event.club_names.get(label) {
        Some(name) if name != label => {
            x.leaf("CLUB_NAME", name)?;
            x.leaf("CLUB_ID_NUMBER", label)
        }
        _ => x.leaf("CLUB_NAME", label),
    }
}

/// The start of the document, down to the event's own fields; whether every pair is a Howell
/// pair, and whether every pair is a Mitchell pair.
fn write_event_header<W: Write>(
    x: &mut Xml<W>,
    imported: &Imported,
    method: Method,
) -> io::Result<(bool, bool)> {
    let field = &imported.field;
    let e = &imported.event;
    writeln!(x.out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    let source = e
        .program
        .as_deref()
        .map_or(String::new(), |p| format!(" from a {p} file"));
    writeln!(
        x.out,
        "<!-- Re-scored by simpairs {}{} ({}): every value below is simpairs' own. -->",
        env!("CARGO_PKG_VERSION"),
        escape(&source),
        imported.format
    )?;
    x.open("USEBIO", &[("Version", "1.2")])?;
    if e.club_name.is_some() || e.club_id.is_some() {
        x.open("CLUB", &[])?;
        x.leaf_opt("CLUB_NAME", e.club_name.as_deref())?;
        x.leaf_opt("CLUB_ID_NUMBER", e.club_id.as_deref())?;
        x.close("CLUB")?;
    }
    x.open("EVENT", &[("EVENT_TYPE", event_type(method))])?;
    x.leaf_opt("EVENT_IDENTIFIER", e.event_id.as_deref())?;
    x.leaf_opt("EVENT_DESCRIPTION", e.name.as_deref())?;
    x.leaf("PROGRAM_NAME", "simpairs")?;
    x.leaf("PROGRAM_VERSION", env!("CARGO_PKG_VERSION"))?;
    let howell = field.pairs().iter().all(|p| p.direction.is_none());
    let mitchell = field.pairs().iter().all(|p| p.direction.is_some());
    if howell {
        x.leaf("WINNER_TYPE", "1")?;
    } else if mitchell {
        x.leaf("WINNER_TYPE", "2")?;
    }
    x.leaf_opt("TITLE", e.title.as_deref())?;
    x.leaf_opt("DATE", e.date.as_deref())?;
    x.leaf_opt("VENUE", e.venue.as_deref())?;
    if let Some(scorer) = &e.scorer {
        x.open("CONTACT", &[])?;
        x.leaf("FULL_NAME", scorer)?;
        x.close("CONTACT")?;
    }
    Ok((howell, mitchell))
}

/// The boards of one club's section, each with its lines (`lines`: the section's, as
/// [`Units`] lists them).
fn write_boards<W: Write>(
    x: &mut Xml<W>,
    imported: &Imported,
    scoring: &Scoring<'_>,
    by_board: &simpairs_scoring::BoardRows,
    lines: &[(u32, u32)],
) -> io::Result<()> {
    let method = scoring.options().method;
    for board_lines in lines.chunk_by(|a, b| a.0 == b.0) {
        let board = by_board.boards[board_lines[0].0 as usize];
        x.open("BOARD", &[])?;
        x.leaf("BOARD_NUMBER", &board.to_string())?;
        if method == Method::Butler
            && let Some(datum) = scoring.board(board).and_then(|b| b.datum)
        {
            x.leaf("BOARD_AVERAGE", &datum.to_string())?;
        }
        for &(_, row) in board_lines {
            write_line(x, imported, scoring, row as usize)?;
        }
        x.close("BOARD")?;
    }
    Ok(())
}

fn write_pair<W: Write>(
    x: &mut Xml<W>,
    info: &PairInfo,
    result: Option<(&simpairs_scoring::Standing, bool)>,
) -> io::Result<()> {
    x.open("PAIR", &[])?;
    x.leaf("PAIR_NUMBER", &usebio_number(&info.label, info.direction))?;
    if let Some(d) = info.direction {
        x.leaf("DIRECTION", d.as_str())?;
    }
    if let Some((s, mp)) = result {
        x.leaf("BOARDS_PLAYED", &s.boards.to_string())?;
        x.leaf("TOTAL_SCORE", &format_hundredths(s.total_hundredths))?;
        if mp && let Some(p) = s.percent_hundredths {
            x.leaf("PERCENTAGE", &format_hundredths(p))?;
        }
        x.leaf(
            "PLACE",
            &format!("{}{}", s.rank, if s.tied { "=" } else { "" }),
        )?;
    }
    for player in &info.players {
        x.open("PLAYER", &[])?;
        x.leaf("PLAYER_NAME", &player.name)?;
        x.leaf_opt("NATIONAL_ID_NUMBER", player.national_id.as_deref())?;
        x.leaf_opt("CLUB_ID_NUMBER", player.club_id.as_deref())?;
        x.close("PLAYER")?;
    }
    x.close("PAIR")
}

/// The pairs of one club's section (`pairs`: its pairs, as [`Units`] lists them), then those the
/// file lists that played no board.
fn write_participants<W: Write>(
    x: &mut Xml<W>,
    imported: &Imported,
    scoring: &Scoring<'_>,
    (club, section): (ClubId, u32),
    pairs: &[PairId],
) -> io::Result<()> {
    let field = &imported.field;
    let mp = scoring.options().method == Method::Matchpoints;
    let mut ids = pairs.to_vec();
    ids.sort_by(|&a, &b| {
        let (pa, pb) = (&field.pairs()[a as usize], &field.pairs()[b as usize]);
        (pa.direction, &pa.label).cmp(&(pb.direction, &pb.label))
    });
    let (club_name, section_name) = (field.club_name(club), field.section_name(section));
    let absent: Vec<&PairInfo> = imported
        .absent_pairs
        .iter()
        .filter(|p| p.club == club_name && p.section == section_name)
        .collect();
    if ids.is_empty() && absent.is_empty() {
        return Ok(());
    }
    x.open("PARTICIPANTS", &[])?;
    for id in ids {
        let standing = &scoring.standings()[id as usize];
        write_pair(x, &imported.pair_info(id), Some((standing, mp)))?;
    }
    for info in absent {
        write_pair(x, info, None)?;
    }
    x.close("PARTICIPANTS")
}

fn write_line<W: Write>(
    x: &mut Xml<W>,
    imported: &Imported,
    scoring: &Scoring<'_>,
    row: usize,
) -> io::Result<()> {
    let field = &imported.field;
    let r = field.result(row);
    let (ns, ew) = (&field.pairs()[r.ns as usize], &field.pairs()[r.ew as usize]);
    x.open("TRAVELLER_LINE", &[])?;
    x.leaf(
        "NS_PAIR_NUMBER",
        &usebio_number(&ns.label.to_string(), ns.direction),
    )?;
    x.leaf(
        "EW_PAIR_NUMBER",
        &usebio_number(&ew.label.to_string(), ew.direction),
    )?;
    let details = imported.details(row);
    let adjusted = matches!(r.outcome, Outcome::Adjusted { .. });
    if let Some(d) = details {
        let contract_ok = d
            .contract
            .as_deref()
            .is_some_and(|c| c.parse::<simpairs_scoring::Contract>().is_ok());
        if !adjusted && contract_ok {
            x.leaf_opt("CONTRACT", d.contract.as_deref())?;
            x.leaf_opt(
                "PLAYED_BY",
                d.declarer.map(|s| s.letter().to_string()).as_deref(),
            )?;
        }
        x.leaf_opt("LEAD", d.lead.as_deref())?;
        if !adjusted && contract_ok {
            let tricks = if d.contract.as_deref() == Some("PASS") {
                Some(0)
            } else {
                d.tricks
            };
            x.leaf_opt("TRICKS", tricks.map(|t| t.to_string()).as_deref())?;
        }
        x.leaf_opt("TABLE_NUMBER", d.table.map(|t| t.to_string()).as_deref())?;
        x.leaf_opt("ROUND_NUMBER", d.round.map(|t| t.to_string()).as_deref())?;
    }
    match r.outcome {
        Outcome::Played(s) => x.leaf("SCORE", &s.to_string())?,
        Outcome::Split { ns, ew } => {
            x.leaf("NS_SCORE", &ns.to_string())?;
            x.leaf("EW_SCORE", &ew.to_string())?;
        }
        Outcome::Adjusted {
            ns_percent,
            ew_percent,
        } => x.leaf("SCORE", &adjusted_text(ns_percent, ew_percent))?,
    }
    if r.arrow_switch {
        x.leaf("ARROW_SWITCH", "true")?;
    }
    if let Some(g) = r.group {
        x.leaf("FOULED_GROUP", field.group_name(g).1)?;
    }
    let (ns_v, ew_v): (Value, Value) = scoring.result_values(row);
    let (ns_tag, ew_tag) = value_elements(scoring.options().method);
    x.leaf(ns_tag, &format_exact(ns_v))?;
    x.leaf(ew_tag, &format_exact(ew_v))?;
    x.close("TRAVELLER_LINE")
}

fn write_handset<W: Write>(x: &mut Xml<W>, deals: &[Deal]) -> io::Result<()> {
    let with_hands: Vec<&Deal> = deals
        .iter()
        .filter(|d| d.hands.iter().any(Option::is_some))
        .collect();
    if with_hands.is_empty() {
        return Ok(());
    }
    x.open("HANDSET", &[])?;
    for deal in with_hands {
        x.open("BOARD", &[])?;
        x.leaf("BOARD_NUMBER", &deal.board.to_string())?;
        for (hand, seat) in deal.hands.iter().zip(Deal::SEATS) {
            let Some(hand) = hand else { continue };
            x.open("HAND", &[])?;
            let name = match seat {
                simpairs_scoring::Seat::North => "North",
                simpairs_scoring::Seat::East => "East",
                simpairs_scoring::Seat::South => "South",
                simpairs_scoring::Seat::West => "West",
            };
            x.leaf("DIRECTION", name)?;
            x.leaf("SPADES", &hand.spades)?;
            x.leaf("HEARTS", &hand.hearts)?;
            x.leaf("DIAMONDS", &hand.diamonds)?;
            x.leaf("CLUBS", &hand.clubs)?;
            x.close("HAND")?;
        }
        x.close("BOARD")?;
    }
    x.close("HANDSET")
}

/// Columns of the written traveller CSV; the last two are `ns_mp`/`ew_mp` or `ns_imps`/`ew_imps`.
const CSV_COLUMNS: [&str; 21] = [
    "board",
    "club",
    "section",
    "ns_pair",
    "ew_pair",
    "contract",
    "declarer",
    "tricks",
    "ns_score",
    "ew_score",
    "adjusted",
    "arrow_switch",
    "group",
    "movement",
    "lead",
    "table",
    "round",
    "ns_names",
    "ew_names",
    "ns_mp",
    "ew_mp",
];

/// Writes the event re-scored as a traveller CSV, one row per result in board order, with simpairs'
/// values in `ns_mp`/`ew_mp` (`ns_imps`/`ew_imps` for IMP scoring), which the CSV reader skips.
pub(crate) fn write_csv<W: Write>(
    out: W,
    imported: &Imported,
    scoring: &Scoring<'_>,
) -> io::Result<()> {
    let field = &imported.field;
    let mut w = csv::WriterBuilder::new().from_writer(io::BufWriter::new(out));
    let mut header = CSV_COLUMNS;
    if scoring.options().method != Method::Matchpoints {
        header[19] = "ns_imps";
        header[20] = "ew_imps";
    }
    w.write_record(header)?;
    let by_board = field.rows_by_board();
    for (i, rows) in by_board.iter().enumerate() {
        let board = by_board.boards[i].to_string();
        for &row in rows {
            let record = csv_record(imported, scoring, &board, row as usize);
            w.write_record(record.iter().map(|field| field.as_bytes()))?;
        }
    }
    w.flush()
}

/// One result's row of [`write_csv`], in the order of [`CSV_COLUMNS`]: its texts borrowed from
/// the field where they are there (a national export has millions of rows).
fn csv_record<'a>(
    imported: &'a Imported,
    scoring: &Scoring<'_>,
    board: &'a str,
    row: usize,
) -> [Cow<'a, str>; 21] {
    let field = &imported.field;
    let names = |id: PairId| -> Cow<'a, str> {
        match imported.pairs.get(id as usize) {
            Some(pair) if !pair.players.is_empty() => Cow::Owned(pair.names()),
            _ => Cow::Borrowed(""),
        }
    };
    let r = field.result(row);
    let (ns, ew) = (&field.pairs()[r.ns as usize], &field.pairs()[r.ew as usize]);
    static NO_DETAILS: LineDetails = LineDetails {
        contract: None,
        declarer: None,
        tricks: None,
        lead: None,
        table: None,
        round: None,
    };
    let d = imported.details(row).unwrap_or(&NO_DETAILS);
    let (ns_score, ew_score, adjusted): (Cow<'a, str>, Cow<'a, str>, Cow<'a, str>) = match r.outcome
    {
        Outcome::Played(s) => (s.to_string().into(), "".into(), "".into()),
        Outcome::Split { ns, ew } => (ns.to_string().into(), ew.to_string().into(), "".into()),
        Outcome::Adjusted {
            ns_percent,
            ew_percent,
        } => (
            "".into(),
            "".into(),
            format!("{ns_percent}/{ew_percent}").into(),
        ),
    };
    let [contract, declarer, tricks] = contract_columns(d, adjusted.is_empty());
    let (ns_v, ew_v) = scoring.result_values(row);
    let number = |n: Option<u32>| n.map_or(Cow::Borrowed(""), |n| Cow::Owned(n.to_string()));
    [
        board.into(),
        field.club_name(ns.club).into(),
        field.section_name(ns.section).into(),
        label(&ns.label),
        label(&ew.label),
        contract,
        declarer,
        tricks,
        ns_score,
        ew_score,
        adjusted,
        if r.arrow_switch { "true" } else { "" }.into(),
        r.group.map_or("", |g| field.group_name(g).1).into(),
        if ns.direction.is_none() {
            "howell"
        } else {
            "mitchell"
        }
        .into(),
        d.lead.as_deref().unwrap_or("").into(),
        number(d.table),
        number(d.round),
        names(r.ns),
        names(r.ew),
        format_exact(ns_v).into(),
        format_exact(ew_v).into(),
    ]
}

/// A pair's label as text: borrowed unless it is kept as a number.
fn label(label: &simpairs_scoring::field::PairLabel) -> Cow<'_, str> {
    match label {
        simpairs_scoring::field::PairLabel::Text(text) => Cow::Borrowed(text),
        number => Cow::Owned(number.to_string()),
    }
}

/// The contract, declarer and tricks columns: empty unless the contract reads as one and the
/// result was played (`played`); a passed-out board has no declarer or tricks.
fn contract_columns(d: &LineDetails, played: bool) -> [Cow<'_, str>; 3] {
    const TRICKS: [&str; 14] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13",
    ];
    let contract_ok = d
        .contract
        .as_deref()
        .is_some_and(|c| c.parse::<simpairs_scoring::Contract>().is_ok())
        && played;
    if !contract_ok {
        return Default::default();
    }
    let passed = d.contract.as_deref() == Some("PASS");
    let declarer: Cow<'static, str> = match (passed, d.declarer) {
        (false, Some(s)) => s.letter().to_string().into(),
        _ => "".into(),
    };
    let tricks: Cow<'static, str> = match (passed, d.tricks) {
        (false, Some(t)) => TRICKS
            .get(usize::from(t))
            .map_or_else(|| t.to_string().into(), |&t| t.into()),
        _ => "".into(),
    };
    [d.contract.as_deref().unwrap_or("").into(), declarer, tricks]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_pieces() {
        assert_eq!(escape("A & <B> \"c\""), "A &amp; &lt;B&gt; &quot;c&quot;");
        assert_eq!(escape("it's\u{7}\tok"), "it&apos;s\u{FFFD}\tok");
        assert!(matches!(escape("Auckland Bridge Club"), Cow::Borrowed(_)));
        assert_eq!(adjusted_text(60, 40), "A6040");
        assert_eq!(adjusted_text(100, 0), "100/0");
        assert_eq!(usebio_number("3", Some(Direction::EW)), "3EW");
        assert_eq!(
            ExportFormat::from_name("USEBIO"),
            Some(ExportFormat::Usebio)
        );
    }
}
