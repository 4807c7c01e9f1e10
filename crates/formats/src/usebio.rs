//! USEBIO 1.2 and 1.3 results XML (the EBU's Universal Scoring Program Exchange of Bridge Information
//! Objects), as club scoring programs write it.
//!
//! - `PARTICIPANTS` and `BOARD` may sit directly under `EVENT` (Compscore) or under `SESSION/SECTION`
//!   (other programs); a section's name is its `SECTION_ID` (attribute or element).
//! - The movement follows `WINNER_TYPE`: 2 winners is a Mitchell (NS and EW numbers are different
//!   pairs); 1 winner is Howell-style numbering (a number is one pair whichever way it sits) unless the
//!   pair numbers carry a direction (`1NS`), which only a Mitchell has. Without a winner type, numbers
//!   and `DIRECTION`s decide, then the travellers themselves.
//! - Pair numbers may be written `1NS`, `1 NS` or `1`; `SCORE` holds a score, an artificial adjusted
//!   score `A6040` (NS% then EW%), `AVE`/`AVE+`/`AVE-`, or `NP` (not played).
//! - `EVENT_TYPE` (`MP_PAIRS`, `PAIRS`, `BUTLER_PAIRS`, `CROSS_IMP`, ...) with `BOARD_SCORING_METHOD` /
//!   `SCORING_METHOD` say how the event is scored, the most specific word winning (`crate::method`
//!   lists every event type of USEBIO 1.2 and 1.3). Team and individual events are refused; a method
//!   simpairs cannot score (aggregate, Swiss pairs) is reported, never replaced by a guess.
//! - The official values are kept: per line `NS/EW_MATCH_POINTS` or `NS/EW_BUTLER_POINTS` (or
//!   cross-IMPs), per board `BOARD_AVERAGE` (the Butler datum), per pair `TOTAL_SCORE`, `PERCENTAGE`,
//!   `PLACE`, `BOARDS_PLAYED`; and the hand records of `HANDSET`.

use std::borrow::Cow;

use simpairs_scoring::{Contract, Direction, Seat, Value};

use crate::build::{self, At, FIELDS, Naming, RawLine, field_index};
use crate::error::{Error, Location, Problem, Problems, Result};
use crate::model::{
    Deal, EventInfo, Format, Hand, Imported, LineDetails, Official, OfficialLine, OfficialPair,
    PairInfo, Place, Player, SectionInfo,
};
use crate::row::is_not_played;
use crate::text::{non_empty, parse_decimal};
use crate::xml::{self, Node, Walker};

/// Element names of a traveller line's fields, for messages.
const NAMES: [(&str, &str); 11] = [
    ("board", "../BOARD_NUMBER"),
    ("section", "SECTION_ID"),
    ("ns_pair", "NS_PAIR_NUMBER"),
    ("ew_pair", "EW_PAIR_NUMBER"),
    ("contract", "CONTRACT"),
    ("declarer", "PLAYED_BY"),
    ("tricks", "TRICKS"),
    ("ns_score", "SCORE"),
    ("ew_score", "EW_SCORE"),
    ("adjusted", "SCORE"),
    ("movement", "WINNER_TYPE"),
];

/// A section (or the event itself when there are no sections). Its texts borrow from the file
/// where they can: every traveller line of the section carries them.
#[derive(Debug, Default)]
struct SectionCtx<'a> {
    name: Cow<'a, str>,
    /// `WINNER_TYPE` given for this section alone (as this crate writes files mixing movements).
    winner_type: Option<u8>,
    /// The club of a section, in files of several clubs (as this crate writes them): its name,
    /// and its number where the file gives one (a national event's, whose field knows its clubs
    /// by their ids).
    club: Cow<'a, str>,
    club_id: Cow<'a, str>,
    tables: Option<u32>,
}

impl<'a> SectionCtx<'a> {
    /// The label the field knows the section's club by: its number where there is one.
    fn club_label(&self) -> &Cow<'a, str> {
        if self.club_id.is_empty() {
            &self.club
        } else {
            &self.club_id
        }
    }
}

/// A pair being read from `PARTICIPANTS`.
#[derive(Debug, Default)]
struct PairAcc {
    section: usize,
    number: String,
    direction: Option<String>,
    players: Vec<Player>,
    official: OfficialPair,
    path: String,
}

/// A board of results.
#[derive(Debug, Default)]
struct BoardAcc<'a> {
    number: Cow<'a, str>,
    number_line: u64,
    section: usize,
    session: u32,
    average: Option<(String, u64, String)>,
}

/// A traveller line being read.
#[derive(Debug, Default)]
struct LineAcc<'a> {
    board: usize,
    ns: Cow<'a, str>,
    ew: Cow<'a, str>,
    contract: Cow<'a, str>,
    declarer: Cow<'a, str>,
    tricks: Cow<'a, str>,
    score: Cow<'a, str>,
    ns_score: Cow<'a, str>,
    ew_score: Cow<'a, str>,
    lead: Cow<'a, str>,
    table: Cow<'a, str>,
    round: Cow<'a, str>,
    arrow_switch: Cow<'a, str>,
    group: Cow<'a, str>,
    official_ns: Option<(Cow<'a, str>, u64, &'static str)>,
    official_ew: Option<(Cow<'a, str>, u64, &'static str)>,
    at: At,
}

/// A deal being read from `HANDSET`.
#[derive(Debug, Default)]
struct DealAcc {
    deal: Deal,
    number: String,
    line: u64,
    path: String,
}

/// A hand being read.
#[derive(Debug, Default)]
struct HandAcc {
    seat: Option<Seat>,
    suits: [String; 4],
    line: u64,
    path: String,
}

struct Reader<'a, 'l> {
    file: &'a str,
    walker: Walker<'a>,
    event: EventInfo,
    events_seen: u32,
    sessions: u32,
    sections: Vec<SectionCtx<'a>>,
    section: usize,
    pairs: Vec<PairAcc>,
    pair: Option<PairAcc>,
    player: Option<Player>,
    boards: Vec<BoardAcc<'a>>,
    board: Option<usize>,
    /// The traveller lines read, checked as they closed.
    sink: build::Sink<'a, 'l>,
    /// Sections whose pair numbers carry a direction (`1NS`).
    suffixed: Vec<bool>,
    line: Option<LineAcc<'a>>,
    deals: Vec<Deal>,
    deal: Option<DealAcc>,
    hand: Option<HandAcc>,
    contact_scorer: Option<String>,
    contact_name: Option<String>,
    scoring_method: Option<String>,
}

const NAMING: Naming<'static> = Naming {
    names: &NAMES,
    separator: "/",
};

/// Reads a USEBIO file.
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
            "the file is empty: expected a USEBIO results file",
        ));
    }
    let legal = simpairs_scoring::LegalScores::new();
    let mut reader = Reader::new(file, text, &legal);
    reader.walk()?;
    reader.finish()
}

impl<'a, 'l> Reader<'a, 'l> {
    fn new(file: &'a str, text: &'a str, legal: &'l simpairs_scoring::LegalScores) -> Self {
        Reader {
            file,
            walker: Walker::new(file, text),
            event: EventInfo::default(),
            events_seen: 0,
            sessions: 0,
            sections: vec![SectionCtx::default()],
            section: 0,
            pairs: Vec::new(),
            pair: None,
            player: None,
            boards: Vec::new(),
            board: None,
            sink: build::Sink::new(file, NAMING, legal),
            suffixed: Vec::new(),
            line: None,
            deals: Vec::new(),
            deal: None,
            hand: None,
            contact_scorer: None,
            contact_name: None,
            scoring_method: None,
        }
    }
}

impl<'a> Reader<'a, '_> {
    fn walk(&mut self) -> Result<()> {
        let mut root_seen = false;
        loop {
            match self.walker.next()? {
                Node::Start { start, line } => {
                    let name = self.walker.ancestor_name(0);
                    if !root_seen {
                        root_seen = true;
                        if name != "USEBIO" {
                            let hint = if name == "session" {
                                " (this looks like an NZ Scorer session: use --format scorer)"
                            } else {
                                ""
                            };
                            return Err(Error::at(
                                self.file,
                                line,
                                Some(&name),
                                format!(
                                    "the root element is <{name}>, not <USEBIO>: this is not a USEBIO results file{hint}"
                                ),
                            ));
                        }
                        self.event.format_version = xml::attribute(&start, "Version");
                        continue;
                    }
                    self.start(&name, &start, line)?;
                }
                Node::End { name, text, line } => {
                    self.end(&name, text, line)?;
                    if self.sink.full() {
                        // Enough to reject the file: the rest is not read.
                        return Ok(());
                    }
                }
                Node::Eof => break,
            }
        }
        if !root_seen {
            return Err(Error::at(
                self.file,
                1,
                None,
                "the file has no XML elements: expected a USEBIO results file",
            ));
        }
        Ok(())
    }

    fn parent(&self) -> &str {
        self.walker.ancestor(1).unwrap_or("")
    }

    fn in_handset(&self) -> bool {
        self.walker.stack().iter().any(|f| f.name == "HANDSET")
    }

    fn start(
        &mut self,
        name: &str,
        start: &quick_xml::events::BytesStart<'_>,
        line: u64,
    ) -> Result<()> {
        match name {
            "EVENT" if self.parent() == "USEBIO" => self.start_event(start)?,
            "MATCH" => {
                return Err(self.walker.error(
                    None,
                    "the file holds matches (a teams or Swiss event): simpairs scores pairs events only",
                ));
            }
            "SESSION" => {
                self.sessions += 1;
            }
            "SECTION" if !self.in_handset() => {
                let name = xml::attribute_in(&self.walker, start, "SECTION_ID")
                    .or_else(|| xml::attribute_in(&self.walker, start, "SECTION_NAME"))
                    .unwrap_or_default();
                let outer = &self.sections[self.section];
                let (club, club_id) = (outer.club.clone(), outer.club_id.clone());
                self.sections.push(SectionCtx {
                    name: trimmed(&name),
                    winner_type: None,
                    club,
                    club_id,
                    tables: None,
                });
                self.section = self.sections.len() - 1;
            }
            "PAIR" if self.parent() == "PARTICIPANTS" => {
                self.pair = Some(PairAcc {
                    section: self.section,
                    path: self.walker.path(),
                    ..PairAcc::default()
                });
            }
            "PLAYER" if self.parent() == "PAIR" => self.player = Some(Player::default()),
            "PLAYER" if self.parent() == "PARTICIPANTS" => {
                return Err(self.walker.error(
                    None,
                    "the participants are single players (an individual event): simpairs scores pairs events only",
                ));
            }
            "BOARD" if self.in_handset() => {
                self.deal = Some(DealAcc {
                    line,
                    path: self.walker.path(),
                    ..DealAcc::default()
                });
            }
            "BOARD" => {
                self.boards.push(BoardAcc {
                    section: self.section,
                    session: self.sessions,
                    number_line: line,
                    ..BoardAcc::default()
                });
                self.board = Some(self.boards.len() - 1);
            }
            "TRAVELLER_LINE" => {
                let Some(board) = self.board else {
                    return Err(self
                        .walker
                        .error(None, "a TRAVELLER_LINE outside any BOARD"));
                };
                self.line = Some(LineAcc {
                    board,
                    at: At {
                        line,
                        path: self.walker.path(),
                        field_lines: [0; FIELDS.len()],
                    },
                    ..LineAcc::default()
                });
            }
            "HAND" if self.deal.is_some() => {
                self.hand = Some(HandAcc {
                    line,
                    path: self.walker.path(),
                    ..HandAcc::default()
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// The event: one a file, and a pairs event.
    fn start_event(&mut self, start: &quick_xml::events::BytesStart<'_>) -> Result<()> {
        self.events_seen += 1;
        if self.events_seen > 1 {
            return Err(self.walker.error(
                None,
                "the file holds more than one EVENT: simpairs scores one event at a time",
            ));
        }
        self.event.event_type = xml::attribute(start, "EVENT_TYPE");
        if let Some(t) = &self.event.event_type
            && let Some(what) = crate::method::usebio_not_pairs(t)
        {
            return Err(self.walker.error(
                None,
                format!("the event is of type {t} ({what}): simpairs scores pairs events only"),
            ));
        }
        Ok(())
    }

    fn end(&mut self, name: &str, text: Cow<'a, str>, line: u64) -> Result<()> {
        // The element that just closed is no longer on the stack: its parent is ancestor 0.
        let parent = self.walker.ancestor_name(0);
        if self.line.is_some() && parent == "TRAVELLER_LINE" {
            self.traveller_field(name, text, line);
            return Ok(());
        }
        match (&*parent, name) {
            (_, "TRAVELLER_LINE") => self.end_traveller_line(),
            ("CLUB", "CLUB_NAME") if self.event.club_name.is_none() => {
                self.event.club_name = non_empty(&text)
            }
            ("CLUB", "CLUB_ID_NUMBER") if self.event.club_id.is_none() => {
                self.event.club_id = non_empty(&text)
            }
            ("EVENT", "EVENT_IDENTIFIER") => self.event.event_id = non_empty(&text),
            ("EVENT", "EVENT_DESCRIPTION") => self.event.name = non_empty(&text),
            ("EVENT", "PROGRAM_NAME") => self.event.program = non_empty(&text),
            ("EVENT", "PROGRAM_VERSION") => self.event.program_version = non_empty(&text),
            ("EVENT", "TITLE") => self.event.title = non_empty(&text),
            ("EVENT", "DATE") => self.event.date = non_empty(&text),
            ("EVENT", "VENUE") => self.event.venue = non_empty(&text),
            ("EVENT", "WINNER_TYPE") => self.winner_type(&text)?,
            ("EVENT", "BOARD_SCORING_METHOD") | ("EVENT", "SCORING_METHOD") => {
                self.scoring_method = non_empty(&text);
            }
            ("CONTACT", "SCORER") => self.contact_scorer = non_empty(&text),
            ("CONTACT", "FULL_NAME") => self.contact_name = non_empty(&text),
            ("SECTION", "SECTION_ID") | ("SECTION", "SECTION_NAME")
                if self.sections[self.section].name.is_empty() =>
            {
                self.sections[self.section].name = trimmed(&text);
            }
            ("SECTION", "CLUB_NAME") => self.sections[self.section].club = trimmed(&text),
            ("SECTION", "CLUB_ID_NUMBER") => self.sections[self.section].club_id = trimmed(&text),
            ("SECTION", "WINNER_TYPE") => {
                self.sections[self.section].winner_type = text.trim().parse().ok()
            }
            ("SECTION", "TABLES") | ("SECTION", "NUMBER_OF_TABLES") => {
                self.sections[self.section].tables = text.trim().parse().ok();
            }
            (_, "SECTION") if !self.in_handset() => {
                // Back to the event level: anything after belongs to no section.
                self.section = 0;
            }
            ("PLAYER", _) => self.player_field(name, &text),
            ("PAIR", "PLAYER") => {
                if let (Some(pair), Some(player)) = (self.pair.as_mut(), self.player.take()) {
                    pair.players.push(player);
                }
            }
            ("PAIR", _) | ("MASTER_POINTS", _) => self.pair_field(name, &text, line),
            ("PARTICIPANTS", "PAIR") => {
                if let Some(pair) = self.pair.take() {
                    self.pairs.push(pair);
                }
            }
            ("HAND", _) => self.hand_field(name, &text, line),
            (_, "HAND") => self.finish_hand(),
            ("BOARD", _) if self.deal.is_some() => {
                if let Some(deal) = self.deal.as_mut() {
                    match name {
                        "BOARD_NUMBER" => deal.number = text.trim().to_string(),
                        "DEALER" => deal.deal.dealer = text.parse().ok(),
                        _ => {}
                    }
                }
            }
            (_, "BOARD") if self.deal.is_some() => self.finish_deal(),
            ("BOARD", _) => self.board_field(name, text, line),
            (_, "BOARD") => self.board = None,
            _ => {}
        }
        Ok(())
    }

    /// A field of the open traveller line.
    fn traveller_field(&mut self, name: &str, text: Cow<'a, str>, line: u64) {
        let Some(acc) = self.line.as_mut() else {
            return;
        };
        let line32 = u32::try_from(line).unwrap_or(u32::MAX);
        let (field, slot): (&str, &mut Cow<'a, str>) = match name {
            "NS_PAIR_NUMBER" => ("ns_pair", &mut acc.ns),
            "EW_PAIR_NUMBER" => ("ew_pair", &mut acc.ew),
            "CONTRACT" => ("contract", &mut acc.contract),
            "PLAYED_BY" | "DECLARER" => ("declarer", &mut acc.declarer),
            "TRICKS" => ("tricks", &mut acc.tricks),
            "SCORE" => {
                acc.at.field_lines[field_index("adjusted")] = line32;
                ("ns_score", &mut acc.score)
            }
            "NS_SCORE" => ("ns_score", &mut acc.ns_score),
            "EW_SCORE" => ("ew_score", &mut acc.ew_score),
            "LEAD" => ("", &mut acc.lead),
            "TABLE_NUMBER" | "TABLE" => ("", &mut acc.table),
            "ROUND_NUMBER" | "ROUND" => ("", &mut acc.round),
            "ARROW_SWITCH" => ("", &mut acc.arrow_switch),
            "FOULED_GROUP" => ("", &mut acc.group),
            "NS_MATCH_POINTS"
            | "NS_BUTLER_POINTS"
            | "NS_CROSS_IMPS"
            | "NS_CROSS_IMP_POINTS"
            | "NS_IMPS"
            | "NS_POINTS" => {
                acc.official_ns = Some((text, line, official_name(name)));
                return;
            }
            "EW_MATCH_POINTS"
            | "EW_BUTLER_POINTS"
            | "EW_CROSS_IMPS"
            | "EW_CROSS_IMP_POINTS"
            | "EW_IMPS"
            | "EW_POINTS" => {
                acc.official_ew = Some((text, line, official_name(name)));
                return;
            }
            _ => return,
        };
        if !field.is_empty() {
            acc.at.field_lines[field_index(field)] = line32;
        }
        *slot = text;
    }

    /// A traveller line closed: it joins the results.
    fn end_traveller_line(&mut self) {
        if let Some(acc) = self.line.take() {
            let board = acc.board;
            let section = self.boards[board].section;
            if self.suffixed.len() <= section {
                self.suffixed.resize(section + 1, false);
            }
            self.suffixed[section] |= build::split_pair_number(&acc.ns).1.is_some()
                || build::split_pair_number(&acc.ew).1.is_some();
            let checkable = !self.boards[board].number.trim().is_empty();
            let raw = self.raw_line(acc);
            self.sink.push(raw, checkable);
        }
    }

    /// The event's WINNER_TYPE: 1 (one winner) or 2 (NS and EW winners).
    fn winner_type(&mut self, text: &str) -> Result<()> {
        let t = text.trim();
        match t {
            "" => {}
            "1" => self.event.winner_type = Some(1),
            "2" => self.event.winner_type = Some(2),
            other => {
                return Err(self.walker.error(
                    Some(format!("{}/WINNER_TYPE", self.walker.path())),
                    format!(
                        "WINNER_TYPE is {other:?}: expected 1 (one winner) or 2 (NS and EW winners)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A field of the open player.
    fn player_field(&mut self, name: &str, text: &str) {
        if let Some(p) = self.player.as_mut() {
            match name {
                "PLAYER_NAME" => p.name = text.trim().to_string(),
                "NATIONAL_ID_NUMBER" => p.national_id = non_empty(text),
                "CLUB_ID_NUMBER" => p.club_id = non_empty(text),
                _ => {}
            }
        }
    }

    /// A field of the open hand: a suit's cards or its seat.
    fn hand_field(&mut self, name: &str, text: &str, line: u64) {
        let mut bad_seat = None;
        if let Some(hand) = self.hand.as_mut() {
            let suit = match name {
                "SPADES" => Some(0),
                "HEARTS" => Some(1),
                "DIAMONDS" => Some(2),
                "CLUBS" => Some(3),
                "DIRECTION" => {
                    hand.seat = text.parse().ok();
                    if hand.seat.is_none() {
                        bad_seat = Some(format!("{}/DIRECTION", hand.path));
                    }
                    None
                }
                _ => None,
            };
            if let Some(k) = suit {
                hand.suits[k] = text.to_string();
            }
        }
        if let Some(at) = bad_seat {
            self.problem(
                line,
                at,
                format!("unknown seat {text:?}: expected North, East, South or West"),
            );
        }
    }

    /// A field of the open board: its number, or its datum.
    fn board_field(&mut self, name: &str, text: Cow<'a, str>, line: u64) {
        if let Some(b) = self.board {
            match name {
                "BOARD_NUMBER" => {
                    self.boards[b].number = text;
                    self.boards[b].number_line = line;
                }
                "BOARD_AVERAGE" | "DATUM" => {
                    let path = format!("{}/{name}", self.walker.path());
                    self.boards[b].average = Some((text.into_owned(), line, path));
                }
                _ => {}
            }
        }
    }

    fn problem(&mut self, line: u64, field: String, message: String) {
        self.sink.problem(line, Some(field), message);
    }

    fn pair_field(&mut self, name: &str, text: &str, line: u64) {
        let Some(pair) = self.pair.as_mut() else {
            return;
        };
        let path = format!("{}/{name}", pair.path);
        let mut bad = None;
        match name {
            "PAIR_NUMBER" => pair.number = text.trim().to_string(),
            "DIRECTION" => pair.direction = non_empty(text),
            "TOTAL_SCORE" => bad = set_decimal(&mut pair.official.total, text),
            "PERCENTAGE" => bad = set_decimal(&mut pair.official.percent, text),
            "HANDICAP" => bad = set_decimal(&mut pair.official.handicap, text),
            "PLACE" if !text.trim().is_empty() => {
                pair.official.place = Place::parse(text);
                if pair.official.place.is_none() {
                    bad = Some(format!("{text:?} is not a place such as 3 or 3="));
                }
            }
            "BOARDS_PLAYED" if !text.trim().is_empty() => {
                pair.official.boards = text.trim().parse().ok();
                if pair.official.boards.is_none() {
                    bad = Some(format!("{text:?} is not a number of boards"));
                }
            }
            "MASTER_POINTS_AWARDED" => pair.official.master_points = non_empty(text),
            _ => {}
        }
        if let Some(message) = bad {
            self.problem(line, path, message);
        }
    }

    fn finish_hand(&mut self) {
        let Some(hand) = self.hand.take() else { return };
        let mut parsed = Hand::default();
        for (k, suit) in hand.suits.iter().enumerate() {
            match Hand::parse_suit(suit) {
                Ok(cards) => match k {
                    0 => parsed.spades = cards,
                    1 => parsed.hearts = cards,
                    2 => parsed.diamonds = cards,
                    _ => parsed.clubs = cards,
                },
                Err(m) => {
                    let name = ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"][k];
                    self.problem(hand.line, format!("{}/{name}", hand.path), m);
                }
            }
        }
        match (hand.seat, self.deal.as_mut()) {
            (Some(seat), Some(deal)) => {
                let k = Deal::SEATS.iter().position(|s| *s == seat).unwrap_or(0);
                deal.deal.hands[k] = Some(parsed);
            }
            (None, Some(_)) => {
                self.problem(
                    hand.line,
                    format!("{}/DIRECTION", hand.path),
                    "the hand names no seat".into(),
                );
            }
            _ => {}
        }
    }

    fn finish_deal(&mut self) {
        let Some(mut acc) = self.deal.take() else {
            return;
        };
        match acc.number.parse::<u16>() {
            Ok(n) if n > 0 => {
                acc.deal.board = n;
                if let Err(m) = crate::model::check_deal(&acc.deal) {
                    self.problem(acc.line, acc.path, m);
                } else {
                    self.deals.push(acc.deal);
                }
            }
            _ => self.problem(
                acc.line,
                format!("{}/BOARD_NUMBER", acc.path),
                format!("{:?} is not a board number", acc.number),
            ),
        }
    }

    fn finish(mut self) -> Result<Imported> {
        if self.events_seen == 0 {
            return Err(Error::at(
                self.file,
                1,
                Some("EVENT"),
                "the file has no EVENT: there are no results in it",
            ));
        }
        if self.sink.lines.is_empty() && self.sink.problems.is_empty() {
            return Err(Error::at(
                self.file,
                1,
                Some("EVENT"),
                "the file has no TRAVELLER_LINE: there are no results to score",
            ));
        }
        self.event.scorer = self.contact_scorer.take().or(self.contact_name.take());
        let named = crate::method::usebio(
            self.event.event_type.as_deref(),
            self.scoring_method.as_deref(),
        )
        .unwrap_or_else(|what| crate::method::Named::Unscorable(what.to_string()));
        crate::method::set(&mut self.event, named);
        self.check_sessions();

        let howell_of = self.movements();

        // Now that the movement and the sections' names are known, complete every line.
        let mut raw = std::mem::take(&mut self.sink.lines);
        for line in raw.iter_mut() {
            let board = &self.boards[line.origin];
            let section = &self.sections[board.section];
            line.howell = howell_of[board.section];
            if !section.name.is_empty() {
                line.section = section.name.clone();
            }
            if !section.club_label().is_empty() {
                line.club = section.club_label().clone();
            }
            line.board = board.number.clone();
        }
        let problems = std::mem::take(&mut self.sink.problems);
        let naming = NAMING;
        let built = build::build(self.file, raw, &naming, problems)?;

        // Pairs and their official results.
        let infos = self.pair_infos(&howell_of);
        let (pairs, absent_pairs, placed) = build::place_pairs(&built.field, infos);
        let mut official_pairs: Vec<_> = placed
            .iter()
            .zip(&self.pairs)
            .filter_map(|(id, p)| id.map(|id| (id as u32, p.official.clone())))
            .filter(|(_, o)| o != &OfficialPair::default())
            .collect();
        official_pairs.sort_by_key(|(id, _)| *id);
        official_pairs.dedup_by_key(|(id, _)| *id);

        let datums = self.datums()?;
        self.deals.sort_by_key(|d| d.board);
        self.deals.dedup_by_key(|d| d.board);

        Ok(Imported {
            format: Format::Usebio,
            field: built.field,
            lines: built.lines,
            not_played: built.not_played,
            not_played_tables: built.not_played_tables,
            event: self.event,
            pairs,
            absent_pairs,
            deals: self.deals,
            details: built.details,
            warnings: built.warnings,
            official: Official {
                lines: built.official,
                pairs: official_pairs,
                datums,
            },
        })
    }

    /// The movement of each section (Howell: true), and the event's movement, sections and
    /// clubs' names.
    fn movements(&mut self) -> Vec<bool> {
        // Numbers with a direction (`1NS`) are a Mitchell; otherwise the winner type; otherwise the
        // pairs' directions; otherwise the travellers. Each is gathered by section in one pass: a
        // national file has thousands of sections.
        let sections = self.sections.len();
        let mut howell_of = vec![false; sections];
        let mut suffixed = std::mem::take(&mut self.suffixed);
        suffixed.resize(sections, false);
        let (mut has_pairs, mut directed) = (vec![false; sections], vec![true; sections]);
        for p in &self.pairs {
            has_pairs[p.section] = true;
            suffixed[p.section] |= build::split_pair_number(&p.number).1.is_some();
            directed[p.section] &= p.direction.as_deref().and_then(direction_from).is_some();
        }
        let mut lines_of: Option<Vec<Vec<usize>>> = None;
        for (k, slot) in howell_of.iter_mut().enumerate() {
            *slot = match self.sections[k].winner_type.or(self.event.winner_type) {
                _ if suffixed[k] => false,
                Some(2) => false,
                Some(_) => true,
                None if has_pairs[k] && directed[k] => false,
                None => {
                    let lines_of = lines_of.get_or_insert_with(|| self.lines_by_section());
                    build::looks_like_howell(lines_of[k].iter().map(|&at| {
                        let l = &self.sink.lines[at];
                        (&*self.boards[l.origin].number, &*l.ns, &*l.ew)
                    }))
                }
            };
        }
        let mut used = vec![false; sections];
        for b in &self.boards {
            used[b.section] = true;
        }
        let mut movements = howell_of
            .iter()
            .zip(&used)
            .filter(|(_, u)| **u)
            .map(|(h, _)| *h);
        let first = movements.next().unwrap_or(false);
        if movements.all(|h| h == first) {
            self.event.movement = Some(build::movement_of(first));
        }
        let top_level_used = self.boards.iter().any(|b| b.section == 0);
        self.event.sections = self
            .sections
            .iter()
            .enumerate()
            .filter(|(k, _)| *k > 0 || top_level_used)
            .map(|(_, s)| SectionInfo {
                name: s.name.to_string(),
                tables: s.tables,
                handicapped: false,
            })
            .collect();
        self.event.club_names = (self.sections.iter())
            .filter(|s| !s.club_id.is_empty() && !s.club.is_empty())
            .map(|s| (s.club_id.to_string(), s.club.to_string()))
            .collect();
        howell_of
    }

    /// The places of the traveller lines of each section.
    fn lines_by_section(&self) -> Vec<Vec<usize>> {
        let mut of = vec![Vec::new(); self.sections.len()];
        for (at, line) in self.sink.lines.iter().enumerate() {
            of[self.boards[line.origin].section].push(at);
        }
        of
    }

    /// The pairs of the participants, as the field's pairs are described.
    fn pair_infos(&self, howell_of: &[bool]) -> Vec<PairInfo> {
        self.pairs
            .iter()
            .map(|p| {
                let (label, suffix) = build::split_pair_number(&p.number);
                let direction = if howell_of[p.section] {
                    None
                } else {
                    suffix.or_else(|| p.direction.as_deref().and_then(direction_from))
                };
                PairInfo {
                    club: self.sections[p.section].club_label().to_string(),
                    section: self.sections[p.section].name.to_string(),
                    label: label.to_string(),
                    direction,
                    players: p.players.clone(),
                }
            })
            .collect()
    }

    /// The boards' datums (BOARD_AVERAGE), by board.
    fn datums(&self) -> Result<Vec<(u16, i32)>> {
        let mut datums = Vec::new();
        let mut problems = Problems::default();
        for b in &self.boards {
            if let (Some((text, line, path)), Ok(board)) =
                (&b.average, b.number.trim().parse::<u16>())
            {
                if text.trim().is_empty() {
                    continue;
                }
                match text.trim().parse::<i32>() {
                    Ok(d) => datums.push((board, d)),
                    Err(_) => problems.push(Problem {
                        at: Location {
                            file: self.file.to_string(),
                            line: *line,
                            field: Some(path.clone()),
                        },
                        message: format!("{text:?} is not a datum (a whole number of points)"),
                    }),
                }
            }
        }
        problems.into_result()?;
        datums.sort_by_key(|(b, _)| *b);
        datums.dedup_by_key(|(b, _)| *b);
        Ok(datums)
    }

    /// Boards of different sessions are different deals: a board number may not be used by two.
    fn check_sessions(&mut self) {
        let mut first: rustc_hash::FxHashMap<&str, (u32, u64)> = rustc_hash::FxHashMap::default();
        let mut clashes = Vec::new();
        for b in &self.boards {
            let number = b.number.trim();
            match first.get(number) {
                Some(&(session, line)) if session != b.session => clashes.push((
                    b.number_line,
                    format!(
                        "board {number} is in two sessions (also on line {line}): boards of different sessions are \
                         different deals; score each session on its own"
                    ),
                )),
                Some(_) => {}
                None => {
                    first.insert(number, (b.session, b.number_line));
                }
            }
        }
        for (line, message) in clashes {
            self.problem(line, "SESSION/BOARD/BOARD_NUMBER".into(), message);
        }
    }

    /// The traveller line as text for the field builder (its movement, section and club are set when the
    /// whole file has been read).
    fn raw_line(&mut self, mut acc: LineAcc<'a>) -> RawLine<'a> {
        let (board_number, board_line, section, club) = {
            let b = &self.boards[acc.board];
            let s = &self.sections[b.section];
            (
                b.number.clone(),
                b.number_line,
                s.name.clone(),
                s.club_label().clone(),
            )
        };
        let mut at = std::mem::take(&mut acc.at);
        at.field_lines[field_index("board")] = u32::try_from(board_line).unwrap_or(0);
        let (ns, ew) = self.pair_numbers(&acc, &at);
        let score = ScoreText::of(&acc);
        let details = line_details(&acc, score.passed_out);
        // An adjusted score stands alone: a contract written beside it is kept as a detail only.
        let (contract, declarer, tricks) = if score.passed_out {
            (Cow::Borrowed("PASS"), Cow::Borrowed(""), Cow::Borrowed(""))
        } else if score.adjusted.is_empty() {
            (acc.contract, acc.declarer, acc.tricks)
        } else {
            (Cow::Borrowed(""), Cow::Borrowed(""), Cow::Borrowed(""))
        };
        let official = OfficialLine {
            ns: self.official_value(&acc.official_ns, &at.path),
            ew: self.official_value(&acc.official_ew, &at.path),
        };
        RawLine {
            club,
            section,
            board: board_number,
            ns,
            ew,
            contract,
            declarer,
            tricks,
            ns_score: score.ns_score,
            ew_score: acc.ew_score,
            adjusted: score.adjusted,
            arrow_switch: acc.arrow_switch,
            group: acc.group,
            howell: false,
            not_played: score.not_played,
            details,
            official,
            origin: acc.board,
            at,
        }
    }

    /// The pair numbers without the direction they may carry (`1NS`); a direction naming the other
    /// side is a problem.
    fn pair_numbers(&mut self, acc: &LineAcc<'a>, at: &At) -> (Cow<'a, str>, Cow<'a, str>) {
        let (ns, ns_dir) = build::split_pair_number(&acc.ns);
        let (ew, ew_dir) = build::split_pair_number(&acc.ew);
        if ns_dir == Some(Direction::EW) || ew_dir == Some(Direction::NS) {
            let (field, name, text) = if ns_dir == Some(Direction::EW) {
                ("ns_pair", "NS_PAIR_NUMBER", &acc.ns)
            } else {
                ("ew_pair", "EW_PAIR_NUMBER", &acc.ew)
            };
            let line = at.field_lines[field_index(field)];
            self.problem(
                if line > 0 { u64::from(line) } else { at.line },
                format!("{}/{name}", at.path),
                format!("{name} is {text:?}: the pair number names the other direction"),
            );
        }
        (sub_cow(&acc.ns, ns), sub_cow(&acc.ew, ew))
    }

    fn official_value(
        &mut self,
        value: &Option<(Cow<'a, str>, u64, &'static str)>,
        path: &str,
    ) -> Option<Value> {
        let (text, line, name) = value.as_ref()?;
        let t = text.trim();
        if t.is_empty() || t == "-" {
            return None;
        }
        let parsed = parse_decimal(t);
        if parsed.is_none() {
            self.problem(
                *line,
                format!("{path}/{name}"),
                format!("{t:?} is not a number"),
            );
        }
        parsed
    }
}

/// The element's name as a static string, for messages.
fn official_name(name: &str) -> &'static str {
    match name {
        "NS_MATCH_POINTS" => "NS_MATCH_POINTS",
        "EW_MATCH_POINTS" => "EW_MATCH_POINTS",
        "NS_BUTLER_POINTS" => "NS_BUTLER_POINTS",
        "EW_BUTLER_POINTS" => "EW_BUTLER_POINTS",
        n if n.starts_with("NS") => "NS_POINTS",
        _ => "EW_POINTS",
    }
}

/// What a line's `SCORE` (or `NS_SCORE`) says.
struct ScoreText<'a> {
    ns_score: Cow<'a, str>,
    /// An artificial adjusted score (`A6040`, `AVE+`).
    adjusted: Cow<'a, str>,
    /// `SCORE` is `NP`: the board was not played at this table.
    not_played: bool,
    /// `CONTRACT` is `NP` beside a numeric `SCORE`: scorer-to-usebio's converter writes a hand Scorer
    /// recorded as passed out ("N P") so, and the line has its matchpoints.
    passed_out: bool,
}

impl<'a> ScoreText<'a> {
    /// `SCORE` holds a score, an adjusted score (A6040, AVE+) or NP.
    fn of(acc: &LineAcc<'a>) -> ScoreText<'a> {
        let score = acc.score.trim();
        let numeric = score.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
        let mut out = ScoreText {
            ns_score: Cow::Borrowed(""),
            adjusted: Cow::Borrowed(""),
            not_played: false,
            passed_out: false,
        };
        if score.is_empty() {
            out.ns_score = acc.ns_score.clone();
        } else if numeric {
            out.ns_score = acc.score.clone();
            out.passed_out = is_not_played(&acc.contract);
        } else if is_not_played(score) {
            out.not_played = true;
        } else {
            out.adjusted = acc.score.clone();
        }
        out
    }
}

/// What a line says beyond its result: the contract as written, lead, table and round.
fn line_details(acc: &LineAcc<'_>, passed_out: bool) -> LineDetails {
    let contract_text = if passed_out {
        "PASS"
    } else {
        acc.contract.trim()
    };
    let mut details = LineDetails {
        contract: non_empty(contract_text).map(|c| match c.parse::<Contract>() {
            Ok(parsed) => parsed.to_string(),
            Err(_) => c,
        }),
        declarer: acc.declarer.parse().ok(),
        // As the line was read: a result against the contract (`+1`) counts from its level.
        tricks: crate::row::tricks_taken(&acc.tricks, contract_text)
            .ok()
            .flatten()
            .and_then(|t| u8::try_from(t).ok()),
        lead: non_empty(&acc.lead),
        table: acc.table.trim().parse().ok(),
        round: acc.round.trim().parse().ok(),
    };
    // Tricks and a declarer mean nothing without a contract played (the converter of Scorer files
    // writes TRICKS 0 beside an adjusted score).
    if matches!(details.contract.as_deref(), Some("PASS") | None) {
        details.tricks = None;
        details.declarer = None;
    }
    details
}

/// `text` trimmed, borrowing as it does.
fn trimmed<'a>(text: &Cow<'a, str>) -> Cow<'a, str> {
    sub_cow(text, text.trim())
}

/// `part` (a slice of `whole`'s text) as a `Cow` borrowing like `whole`.
fn sub_cow<'a>(whole: &Cow<'a, str>, part: &str) -> Cow<'a, str> {
    match whole {
        Cow::Borrowed(s) => {
            let start = part.as_ptr() as usize - s.as_ptr() as usize;
            Cow::Borrowed(&s[start..start + part.len()])
        }
        Cow::Owned(_) => Cow::Owned(part.to_string()),
    }
}

fn set_decimal(slot: &mut Option<Value>, text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    *slot = parse_decimal(t);
    slot.is_none().then(|| format!("{t:?} is not a number"))
}

fn direction_from(text: &str) -> Option<Direction> {
    match text.trim().to_ascii_uppercase().as_str() {
        "NS" | "N" | "N-S" | "N/S" => Some(Direction::NS),
        "EW" | "E" | "E-W" | "E/W" => Some(Direction::EW),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simpairs_scoring::Method;

    const SMALL: &str = r#"<?xml version="1.0"?>
<USEBIO Version="1.2">
<CLUB><CLUB_NAME>Lindfield</CLUB_NAME><CLUB_ID_NUMBER>2074</CLUB_ID_NUMBER></CLUB>
<EVENT EVENT_TYPE="MP_PAIRS">
  <EVENT_DESCRIPTION>Thursday &amp; friends</EVENT_DESCRIPTION>
  <WINNER_TYPE>2</WINNER_TYPE>
  <PARTICIPANTS>
    <PAIR><PAIR_NUMBER>1NS</PAIR_NUMBER><DIRECTION>NS</DIRECTION><TOTAL_SCORE>2.00</TOTAL_SCORE>
      <PERCENTAGE>100.00</PERCENTAGE><PLACE>1</PLACE>
      <PLAYER><PLAYER_NAME>Ann</PLAYER_NAME><NATIONAL_ID_NUMBER>11</NATIONAL_ID_NUMBER></PLAYER>
      <PLAYER><PLAYER_NAME>Bob</PLAYER_NAME></PLAYER></PAIR>
  </PARTICIPANTS>
  <BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
    <TRAVELLER_LINE><NS_PAIR_NUMBER>1NS</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1EW</EW_PAIR_NUMBER>
      <CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><LEAD>AH</LEAD><TRICKS>10</TRICKS><SCORE>420</SCORE>
      <NS_MATCH_POINTS>2</NS_MATCH_POINTS><EW_MATCH_POINTS>0</EW_MATCH_POINTS></TRAVELLER_LINE>
    <TRAVELLER_LINE><NS_PAIR_NUMBER>2NS</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2EW</EW_PAIR_NUMBER>
      <SCORE>A6040</SCORE><NS_MATCH_POINTS>1.2</NS_MATCH_POINTS><EW_MATCH_POINTS>0.8</EW_MATCH_POINTS></TRAVELLER_LINE>
  </BOARD>
</EVENT>
<HANDSET><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
  <HAND><DIRECTION>North</DIRECTION><SPADES>AKQJ</SPADES><HEARTS>AKQ</HEARTS><DIAMONDS>AKQ</DIAMONDS><CLUBS>AKQ</CLUBS></HAND>
</BOARD></HANDSET>
</USEBIO>"#;

    #[test]
    fn a_small_file_is_read_whole() {
        let got = read("small.xml", SMALL.as_bytes()).unwrap();
        assert_eq!(got.field.len(), 2);
        assert_eq!(got.event.club_name.as_deref(), Some("Lindfield"));
        assert_eq!(got.event.name.as_deref(), Some("Thursday & friends"));
        assert_eq!(got.event.method, Some(Method::Matchpoints));
        assert_eq!(
            got.event.movement,
            Some(simpairs_scoring::field::Movement::Mitchell)
        );
        let r = got.field.result(1);
        assert!(matches!(
            r.outcome,
            simpairs_scoring::Outcome::Adjusted {
                ns_percent: 60,
                ew_percent: 40
            }
        ));
        assert_eq!(got.details(0).unwrap().lead.as_deref(), Some("AH"));
        assert_eq!(got.official.line(1).unwrap().ns, Some(Value::new(6, 5)));
        let ns1 = got.field.result(0).ns;
        assert_eq!(got.pairs[ns1 as usize].names(), "Ann & Bob");
        assert_eq!(
            got.official.pair(ns1).unwrap().place,
            Some(Place {
                rank: 1,
                tied: false
            })
        );
        assert_eq!(got.deals.len(), 1);
        assert_eq!(got.deals[0].hands[0].as_ref().unwrap().spades, "AKQJ");
        assert_eq!(got.lines.line_of(0), 14);
    }

    #[test]
    fn a_bad_line_is_located_by_element() {
        let bad = SMALL.replace("<SCORE>420</SCORE>", "<SCORE>435</SCORE>");
        let err = read("bad.xml", bad.as_bytes()).unwrap_err();
        let p = &err.problems()[0];
        assert_eq!(
            p.at.field.as_deref(),
            Some("EVENT/BOARD[1]/TRAVELLER_LINE[1]/SCORE")
        );
        assert_eq!(p.at.line, 15);
        // A score that disagrees with its contract stands, with a warning located the same way.
        let ruled = SMALL.replace("<SCORE>420</SCORE>", "<SCORE>430</SCORE>");
        let got = read("ruled.xml", ruled.as_bytes()).unwrap();
        let w = &got.warnings[0];
        assert_eq!(
            (w.at.line, w.at.field.as_deref()),
            (15, Some("EVENT/BOARD[1]/TRAVELLER_LINE[1]/SCORE"))
        );
        let bad = SMALL.replace("<CONTRACT>4S</CONTRACT>", "<CONTRACT>9S</CONTRACT>");
        let err = read("bad.xml", bad.as_bytes()).unwrap_err();
        assert_eq!(
            err.problems()[0].at.field.as_deref(),
            Some("EVENT/BOARD[1]/TRAVELLER_LINE[1]/CONTRACT")
        );
    }

    /// Each line kept after a refused one still belongs to its own board: lines refused on the way
    /// (here the first of board 1) must not shift the lines after them onto the board before.
    #[test]
    fn a_refused_line_leaves_the_next_lines_on_their_boards() {
        let board = |n: u32, first: &str| {
            format!(
                "<BOARD><BOARD_NUMBER>{n}</BOARD_NUMBER>\
                 <TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><SCORE>{first}</SCORE></TRAVELLER_LINE>\
                 <TRAVELLER_LINE><NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><SCORE>100</SCORE></TRAVELLER_LINE></BOARD>"
            )
        };
        let text = format!(
            "<USEBIO><EVENT EVENT_TYPE=\"MP_PAIRS\"><WINNER_TYPE>2</WINNER_TYPE>{}{}{}</EVENT></USEBIO>",
            board(1, "425"),
            board(2, "110"),
            board(3, "110")
        );
        let legal = simpairs_scoring::LegalScores::new();
        let mut reader = Reader::new("l.xml", &text, &legal);
        reader.walk().unwrap();
        assert_eq!(reader.sink.lines.len(), 5, "the refused line is not kept");
        for (k, line) in reader.sink.lines.iter().enumerate() {
            let number = &reader.boards[line.origin].number;
            assert!(
                line.at.path.starts_with(&format!("EVENT/BOARD[{number}]/")),
                "line {k} at {} is read as board {number}",
                line.at.path
            );
        }
    }

    #[test]
    fn nested_sections_are_read() {
        let nested = r#"<USEBIO Version="1.3"><EVENT EVENT_TYPE="PAIRS"><WINNER_TYPE>1</WINNER_TYPE>
<SESSION SESSION_ID="1"><SECTION SECTION_ID="A">
<PARTICIPANTS><PAIR><PAIR_NUMBER>1</PAIR_NUMBER><PLAYER><PLAYER_NAME>X</PLAYER_NAME></PLAYER></PAIR></PARTICIPANTS>
<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><SCORE>-50</SCORE></TRAVELLER_LINE>
<TRAVELLER_LINE><NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>4</EW_PAIR_NUMBER><SCORE>NP</SCORE></TRAVELLER_LINE>
</BOARD></SECTION>
<SECTION><SECTION_ID>B</SECTION_ID><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><SCORE>100</SCORE></TRAVELLER_LINE>
</BOARD></SECTION></SESSION></EVENT></USEBIO>"#;
        let got = read("n.xml", nested.as_bytes()).unwrap();
        assert_eq!(got.field.len(), 2);
        assert_eq!(got.not_played, 1);
        let sections: Vec<&str> = got
            .field
            .pairs()
            .iter()
            .map(|p| got.field.section_name(p.section))
            .collect();
        assert_eq!(sections, ["A", "A", "B", "B"]);
        assert!(got.field.pairs().iter().all(|p| p.direction.is_none()));
        assert_eq!(got.pairs[0].names(), "X");
    }

    #[test]
    fn each_section_s_movement_is_read_from_its_own_travellers() {
        // No WINNER_TYPE and no directions: the lines say it. In A pairs 1 and 2 meet on two boards
        // sitting both ways (a Howell); in B NS pair 1 meets EW pair 1 (only a Mitchell has two
        // pairs numbered 1).
        let line = |ns: u32, ew: u32| {
            format!(
                "<TRAVELLER_LINE><NS_PAIR_NUMBER>{ns}</NS_PAIR_NUMBER>\
                 <EW_PAIR_NUMBER>{ew}</EW_PAIR_NUMBER><SCORE>100</SCORE></TRAVELLER_LINE>"
            )
        };
        let board = |n: u32, lines: &[(u32, u32)]| {
            let lines: String = lines.iter().map(|&(ns, ew)| line(ns, ew)).collect();
            format!("<BOARD><BOARD_NUMBER>{n}</BOARD_NUMBER>{lines}</BOARD>")
        };
        let file = format!(
            r#"<USEBIO Version="1.2"><EVENT EVENT_TYPE="PAIRS"><SESSION>
<SECTION SECTION_ID="A">{}{}</SECTION>
<SECTION SECTION_ID="B">{}{}</SECTION></SESSION></EVENT></USEBIO>"#,
            board(1, &[(1, 2), (3, 4)]),
            board(2, &[(2, 1), (4, 3)]),
            board(1, &[(1, 1), (2, 2)]),
            board(2, &[(1, 2), (2, 1)]),
        );
        let got = read("m.xml", file.as_bytes()).unwrap();
        let directions = |section: &str| -> Vec<Option<Direction>> {
            (got.field.pairs().iter())
                .filter(|p| got.field.section_name(p.section) == section)
                .map(|p| p.direction)
                .collect()
        };
        assert_eq!(directions("A"), [None; 4]);
        let b = directions("B");
        assert_eq!(b.len(), 4);
        assert!(b.iter().all(Option::is_some), "{b:?}");
        assert_eq!(got.event.movement, None, "the sections' movements differ");
    }

    #[test]
    fn wrong_roots_and_events_are_refused() {
        let err = read("s.xml", b"<session club=\"x\"/>").unwrap_err();
        assert!(err.to_string().contains("--format scorer"), "{err}");
        let err = read(
            "t.xml",
            b"<USEBIO><EVENT EVENT_TYPE=\"TEAMS\"></EVENT></USEBIO>",
        )
        .unwrap_err();
        assert!(err.to_string().contains("pairs events only"), "{err}");
        let err = read("e.xml", b"<USEBIO><EVENT></EVENT></USEBIO>").unwrap_err();
        assert!(err.to_string().contains("no TRAVELLER_LINE"), "{err}");
    }

    /// Compscore writes a cross-IMP event as `EVENT_TYPE="CROSS_IMP"` with `<SCORING_METHOD>IMPS`:
    /// the specific event type wins over the generic method name.
    #[test]
    fn compscore_cross_imps_are_cross_imps() {
        let text = SMALL
            .replace("EVENT_TYPE=\"MP_PAIRS\"", "EVENT_TYPE=\"CROSS_IMP\"")
            .replace(
                "<WINNER_TYPE>2</WINNER_TYPE>",
                "<WINNER_TYPE>2</WINNER_TYPE><SCORING_METHOD>IMPS</SCORING_METHOD>",
            );
        let got = read("x.xml", text.as_bytes()).unwrap();
        assert_eq!(got.event.method, Some(Method::CrossImps));
        let aggregate = SMALL.replace("EVENT_TYPE=\"MP_PAIRS\"", "EVENT_TYPE=\"AGGREGATE\"");
        let got = read("a.xml", aggregate.as_bytes()).unwrap();
        assert_eq!(got.event.method, None);
        assert_eq!(
            got.event.unscorable_method.as_deref(),
            Some("aggregate scoring (total points)")
        );
    }
}
