//! One traveller line, checked and added to a field. Every reader ends here, so the rules for what a
//! valid result is live in one place.

use crate::lines::Lines;
use rustc_hash::FxHashMap;
use simpairs_scoring::field::{ClubId, SectionId};
use simpairs_scoring::{
    Contract, Direction, Field, LegalScores, Movement, Outcome, Pair, PairId, PairLabel, Seat,
    TableResult, Vulnerability, contract::ns_score,
};

/// The fields of one traveller line as text; an empty string is an absent field.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextRow<'a> {
    pub board: &'a str,
    pub club: &'a str,
    pub section: &'a str,
    pub ns_pair: &'a str,
    pub ew_pair: &'a str,
    pub contract: &'a str,
    pub declarer: &'a str,
    pub tricks: &'a str,
    pub ns_score: &'a str,
    pub ew_score: &'a str,
    pub adjusted: &'a str,
    pub arrow_switch: &'a str,
    pub group: &'a str,
    pub movement: &'a str,
}

/// One traveller line with its numbers already parsed, as events carry them.
#[derive(Clone, Copy, Debug)]
pub struct TypedRow<'a> {
    pub board: u16,
    pub club: &'a str,
    pub section: &'a str,
    pub ns_pair: &'a str,
    pub ew_pair: &'a str,
    /// Contract text (`3NT`, `PASS`), empty when the row gives a score or an adjustment.
    pub contract: &'a str,
    pub declarer: &'a str,
    pub tricks: Option<i64>,
    pub ns_score: Option<i32>,
    pub ew_score: Option<i32>,
    pub adjusted: Option<(u8, u8)>,
    pub arrow_switch: bool,
    pub group: &'a str,
    pub movement: Movement,
}

/// A problem with one field of a row: the field's name and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldProblem {
    pub field: &'static str,
    pub message: String,
}

fn problem(field: &'static str, message: impl Into<String>) -> FieldProblem {
    FieldProblem {
        field,
        message: message.into(),
    }
}

/// What became of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// The row is a result, now row `n` of the field.
    Result(usize),
    /// The row says the board was not played at that table (`NP`); nothing was added.
    NotPlayed,
}

/// The most IMPs a director's award gives one side (a board is worth at most 24 IMPs).
const MAX_AWARDED_IMPS: i64 = 24;

/// Parses a director's award in IMPs: `NS/EW IMP` (or `IMPS`, any case), each side a decimal with
/// an optional sign, such as `0/1.2 IMP` or `+3/-3imps` (JFR Pary's director lines). `Ok(None)` when
/// the text is not an IMP award (a percentage form, or empty).
pub(crate) fn parse_imp_award(
    text: &str,
) -> Result<Option<(simpairs_scoring::Value, simpairs_scoring::Value)>, String> {
    let t = text.trim().to_ascii_uppercase();
    let Some(body) = t.strip_suffix("IMPS").or_else(|| t.strip_suffix("IMP")) else {
        return Ok(None);
    };
    let bad = || {
        format!(
            "IMP award {text:?}: expected NS/EW IMP with each side a number of IMPs, such as 0/1.2 IMP \
             or 3/-3 IMP"
        )
    };
    let (ns, ew) = body.trim().split_once('/').ok_or_else(bad)?;
    let side = |s: &str| -> Result<simpairs_scoring::Value, String> {
        let s = s.trim();
        let v = crate::text::parse_decimal(s).ok_or_else(bad)?;
        let most = simpairs_scoring::Value::from_integer(MAX_AWARDED_IMPS);
        if v > most || v < -most {
            return Err(format!(
                "IMP award {text:?}: a side gets at most {MAX_AWARDED_IMPS} IMPs either way"
            ));
        }
        Ok(v)
    };
    Ok(Some((side(ns)?, side(ew)?)))
}

/// Parses an adjusted score: `AVE`, `AVE+`, `AVE-`, `A`, `60/40`, `60%/40%`, `A6040` (USEBIO).
pub(crate) fn parse_adjusted(text: &str) -> Result<(u8, u8), String> {
    let t = text.trim().to_ascii_uppercase();
    let named = match t.as_str() {
        "AVE" | "AVG" | "A" | "AVE/AVE" | "AVG/AVG" | "A=" => Some((50, 50)),
        "AVE+" | "AVG+" | "A+" => Some((60, 40)),
        "AVE-" | "AVG-" | "A-" => Some((40, 60)),
        _ => None,
    };
    if let Some(p) = named {
        return Ok(p);
    }
    let bad = || {
        format!(
            "unknown adjusted score {text:?}: expected AVE, AVE+, AVE- or NS%/EW% such as 60/40"
        )
    };
    let percent = |s: &str| -> Result<u8, String> {
        let v: u8 = s
            .trim()
            .trim_end_matches('%')
            .trim()
            .parse()
            .map_err(|_| bad())?;
        if v > 100 {
            return Err(format!("adjusted score {text:?}: a percentage is 0 to 100"));
        }
        Ok(v)
    };
    if let Some((a, b)) = t.split_once('/') {
        return Ok((percent(a)?, percent(b)?));
    }
    if let Some(digits) = t.strip_prefix('A')
        && digits.len() == 4
        && digits.bytes().all(|b| b.is_ascii_digit())
    {
        return Ok((percent(&digits[..2])?, percent(&digits[2..])?));
    }
    Err(bad())
}

fn parse_bool(text: &str, field: &'static str) -> Result<bool, FieldProblem> {
    match text.trim().to_ascii_lowercase().as_str() {
        "" | "false" | "no" | "n" | "0" => Ok(false),
        "true" | "yes" | "y" | "1" => Ok(true),
        other => Err(problem(
            field,
            format!("expected true or false, not {other:?}"),
        )),
    }
}

fn parse_int<T: std::str::FromStr>(
    text: &str,
    field: &'static str,
    what: &str,
) -> Result<T, FieldProblem> {
    text.trim()
        .parse()
        .map_err(|_| problem(field, format!("expected {what}, not {text:?}")))
}

/// Whether a contract field says "not played at this table".
pub(crate) fn is_not_played(contract: &str) -> bool {
    matches!(
        contract.trim().to_ascii_uppercase().as_str(),
        "NP" | "N P" | "DNP" | "NOT PLAYED" | "NOTPLAYED"
    )
}

/// Builds a [`Field`] from checked rows, remembering each result's source line.
pub struct FieldBuilder<'l> {
    pub field: Field,
    /// Source line of each result row of `field`.
    pub lines: Lines,
    legal: &'l LegalScores,
    /// Movement of each (club, section) and the line that set it.
    movements: FxHashMap<(ClubId, SectionId), (Movement, u64)>,
    last_club: Option<(Box<str>, ClubId)>,
    /// The packed name ([`PlainRow::club_packed`]) of a club a plain row named, and its id.
    last_club_packed: Option<(u64, ClubId)>,
    last_section: Option<(Box<str>, SectionId)>,
    last_movement_checked: Option<(ClubId, SectionId)>,
    /// Recently seen numbered pairs (direct-mapped): a club's pairs recur on every board it played.
    pair_cache: Vec<(u64, u32, PairId)>,
    pub not_played: usize,
    /// The tables of the not-played rows ([`NotPlayed::of`]).
    pub not_played_tables: Vec<NotPlayed>,
    /// What rows that were accepted say that a scorer should look at, in the order of the rows: a
    /// recorded score that disagrees with its contract, an assigned score no contract makes.
    pub warnings: Vec<RowWarning>,
}

/// A table a traveller line records as not played: club, section, board and pair numbers as the
/// file's results name them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotPlayed {
    pub club: String,
    pub section: String,
    pub board: u16,
    pub ns_pair: String,
    pub ew_pair: String,
}

impl NotPlayed {
    /// The table of a not-played line, if it names its board and both pairs. Pair numbers are
    /// written as the field writes its labels ([`simpairs_scoring::PairLabel`]).
    pub(crate) fn of(
        club: &str,
        section: &str,
        board: &str,
        ns: &str,
        ew: &str,
    ) -> Option<NotPlayed> {
        let label = |t: &str| simpairs_scoring::PairLabel::new(t).to_string();
        let (ns, ew) = (ns.trim(), ew.trim());
        let board = board.trim().parse::<u16>().ok().filter(|&b| b > 0)?;
        (!ns.is_empty() && !ew.is_empty()).then(|| NotPlayed {
            club: club.trim().to_string(),
            section: section.trim().to_string(),
            board,
            ns_pair: label(ns),
            ew_pair: label(ew),
        })
    }
}

/// A warning about one field of an accepted row: the row is scored, but not as it might seem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowWarning {
    /// The line number the caller passed to [`FieldBuilder::push`] or [`FieldBuilder::push_typed`].
    pub line: u64,
    /// The field's name, as in [`TextRow`] (`ns_score`, `ew_score`).
    pub field: &'static str,
    pub message: String,
}

/// Slots of [`FieldBuilder`]'s pair cache (a power of two).
const PAIR_CACHE_SLOTS: usize = 4096;

/// A plain-score row (see [`FieldBuilder::push_plain`]): its numbers parsed, its names as raw
/// bytes without the spaces about them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PlainRow<'a> {
    /// From 1.
    pub board: u16,
    pub club: &'a [u8],
    /// The club's name packed with its length ([`packed_name`]) when the reader had its bytes at
    /// hand: compared with the row before's in one comparison.
    pub club_packed: Option<u64>,
    pub section: &'a [u8],
    pub ns_pair: u32,
    pub ew_pair: u32,
    pub ns_score: i32,
}

impl<'a> PlainRow<'a> {
    /// The row whose fields are these texts, if each number is a plain one (spaces about it
    /// allowed): a board from 1 to 65535, pair numbers without a leading zero, a score of at most
    /// nine digits.
    pub(crate) fn parse(
        board: &[u8],
        club: &'a [u8],
        section: &'a [u8],
        ns_pair: &[u8],
        ew_pair: &[u8],
        ns_score: &[u8],
    ) -> Option<PlainRow<'a>> {
        Some(PlainRow {
            board: ascii_number(board)
                .and_then(|b| u16::try_from(b).ok())
                .filter(|&b| b > 0)?,
            club: trim(club),
            club_packed: None,
            section: trim(section),
            ns_pair: pair_number(ns_pair)?,
            ew_pair: pair_number(ew_pair)?,
            ns_score: ascii_score(ns_score)?,
        })
    }
}

/// String equality that never calls `memcmp` for empty names: an empty `Box<str>` points at an invalid
/// address, and glibc's AVX-512 `memcmp` loads from it under an all-zero mask, which costs a microcode
/// assist every time (it made reading a file without a section column three times slower).
#[inline]
fn same_name(a: &str, b: &str) -> bool {
    same_name_bytes(a.as_bytes(), b.as_bytes())
}

/// Compared byte by byte without stopping early: a club's name is a few bytes, and this is asked
/// of every row of a large file, where a call to the library's `memcmp` cost more than the bytes.
#[inline]
fn same_name_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |differ, (x, y)| differ | (x ^ y)) == 0
}

/// A name of at most seven bytes in one word: `eight`, the eight bytes it starts (the first in the
/// lowest byte), with those past its `len` cleared and its length in the top byte, so that two
/// names are the same bytes exactly when their words are equal.
#[inline(always)]
pub(crate) fn packed_name(eight: u64, len: usize) -> Option<u64> {
    (len <= 7).then(|| (eight & ((1u64 << (8 * len)) - 1)) | ((len as u64) << 56))
}

/// A name as text, if it is UTF-8 without control characters.
fn plain_name(bytes: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(bytes).ok()?;
    (!text.chars().any(char::is_control)).then_some(text)
}

fn trim(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

/// `text` as [`str::trim`] gives it, answered from its end bytes alone when neither is
/// whitespace (as a result's fields from an event are).
#[inline]
fn trim_text(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(a), Some(z)) if a.is_ascii_graphic() && z.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

/// Whether `text` holds a control character ([`char::is_control`]). Printable ASCII (space to
/// tilde), which is the whole of almost every text, is passed over in one pass of its bytes; at
/// any other byte (a control, or part of a character beyond ASCII, which may be one of the C1
/// controls) the text is looked at character by character.
#[inline]
fn has_control(text: &str) -> bool {
    if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return false;
    }
    text.chars().any(char::is_control)
}

/// A plain decimal number of at most 9 digits.
#[inline]
fn ascii_number(b: &[u8]) -> Option<u32> {
    let b = trim(b);
    if b.is_empty() || b.len() > 9 {
        return None;
    }
    let mut n = 0u32;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + u32::from(d);
    }
    Some(n)
}

/// A pair number stored compactly: digits without a leading zero (the rule of [`PairLabel::new`]).
#[inline]
fn pair_number(b: &[u8]) -> Option<u32> {
    let t = trim(b);
    if t.len() > 1 && t[0] == b'0' {
        return None;
    }
    ascii_number(t)
}

#[inline]
fn ascii_score(b: &[u8]) -> Option<i32> {
    let b = trim(b);
    match b.split_first() {
        Some((b'-', rest)) => ascii_number(rest).map(|n| -(n as i32)),
        _ => ascii_number(b).map(|n| n as i32),
    }
}

impl<'l> FieldBuilder<'l> {
    pub fn new(legal: &'l LegalScores) -> Self {
        FieldBuilder {
            field: Field::new(),
            lines: Lines::default(),
            legal,
            movements: FxHashMap::default(),
            last_club: None,
            last_club_packed: None,
            last_section: None,
            last_movement_checked: None,
            // Allocated on first use: only the plain-row fast path uses it.
            pair_cache: Vec::new(),
            not_played: 0,
            not_played_tables: Vec::new(),
            warnings: Vec::new(),
        }
    }

    fn club(&mut self, name: &str) -> ClubId {
        match &self.last_club {
            Some((n, id)) if same_name(n, name) => *id,
            _ => {
                let id = self.field.club(name);
                self.last_club = Some((name.into(), id));
                id
            }
        }
    }

    fn section(&mut self, name: &str) -> SectionId {
        match &self.last_section {
            Some((n, id)) if same_name(n, name) => *id,
            _ => {
                let id = self.field.section(name);
                self.last_section = Some((name.into(), id));
                id
            }
        }
    }

    /// The club named by raw bytes, checked (UTF-8, no control characters) only when it differs from
    /// the previous row's. A name `packed` is looked up by its packed form first: ids never
    /// change, so a packed name kept is its club's whatever rows came between.
    #[inline(always)]
    fn club_bytes(&mut self, name: &[u8], packed: Option<u64>) -> Option<ClubId> {
        if let (Some(k), Some((last, id))) = (packed, self.last_club_packed)
            && k == last
        {
            return Some(id);
        }
        let id = match &self.last_club {
            Some((n, id)) if same_name_bytes(n.as_bytes(), name) => *id,
            _ => self.club(plain_name(name)?),
        };
        if let Some(k) = packed {
            self.last_club_packed = Some((k, id));
        }
        Some(id)
    }

    #[inline(always)]
    fn section_bytes(&mut self, name: &[u8]) -> Option<SectionId> {
        match &self.last_section {
            Some((n, id)) if same_name_bytes(n.as_bytes(), name) => Some(*id),
            _ => Some(self.section(plain_name(name)?)),
        }
    }

    /// Gives a club's section the movement an earlier part of the file gave it on `line`, so that
    /// rows here are checked against it.
    pub(crate) fn set_movement(
        &mut self,
        club: &str,
        section: &str,
        movement: Movement,
        line: u64,
    ) {
        let (club, section) = (self.club(club), self.section(section));
        self.movements.insert((club, section), (movement, line));
    }

    /// The movement each (club, section) was given, with the line that gave it.
    pub(crate) fn movements(&self) -> impl Iterator<Item = (&str, &str, Movement, u64)> {
        self.movements.iter().map(|(&(c, s), &(m, line))| {
            (self.field.club_name(c), self.field.section_name(s), m, line)
        })
    }

    /// Adds a row that is only a plain score (board, club, section, numbered pairs, NS score), the
    /// common shape of large files. Returns `false`, having added nothing, if the row is anything else
    /// or has any problem: the caller then passes it to [`FieldBuilder::push`], which says what is wrong.
    #[inline(always)]
    pub(crate) fn push_plain(&mut self, row: &PlainRow<'_>, line: u64) -> bool {
        let board = row.board;
        if !self
            .legal
            .contains(Vulnerability::of_board(u32::from(board)), row.ns_score)
        {
            return false;
        }
        let (Some(club), Some(section)) = (
            self.club_bytes(row.club, row.club_packed),
            self.section_bytes(row.section),
        ) else {
            return false;
        };
        if self.last_movement_checked != Some((club, section)) {
            match self.movements.get(&(club, section)) {
                Some(&(Movement::Mitchell, _)) => {}
                Some(_) => return false,
                None => {
                    self.movements
                        .insert((club, section), (Movement::Mitchell, line));
                }
            }
            self.last_movement_checked = Some((club, section));
        }
        let ns = self.cached_pair(club, section, row.ns_pair, Direction::NS);
        let ew = self.cached_pair(club, section, row.ew_pair, Direction::EW);
        self.field.push_played(board, ns, ew, row.ns_score);
        self.lines.push(line);
        true
    }

    #[inline(always)]
    fn cached_pair(
        &mut self,
        club: ClubId,
        section: SectionId,
        number: u32,
        direction: Direction,
    ) -> PairId {
        let d = match direction {
            Direction::NS => 1u64,
            Direction::EW => 2,
        };
        let place = (u64::from(club) << 34) | (u64::from(section) << 2) | d;
        if self.pair_cache.is_empty() {
            self.pair_cache = vec![(u64::MAX, 0, 0); PAIR_CACHE_SLOTS];
        }
        let slot =
            (number as usize ^ (club as usize).wrapping_mul(0x9e37)) & (PAIR_CACHE_SLOTS - 1);
        let (p, n, id) = self.pair_cache[slot];
        if p == place && n == number {
            return id;
        }
        let id = self
            .field
            .pair_numbered(club, section, number, Some(direction));
        self.pair_cache[slot] = (place, number, id);
        id
    }

    /// Reserves room for about `rows` more rows.
    pub fn reserve(&mut self, rows: usize) {
        self.field.reserve(rows);
    }

    /// Checks one row and adds it. On error nothing is added.
    pub fn push(&mut self, row: &TextRow<'_>, line: u64) -> Result<Added, FieldProblem> {
        let board_text = row.board.trim();
        if board_text.is_empty() {
            return Err(problem("board", "missing board number"));
        }
        let board: u16 = parse_int(board_text, "board", "a board number 1 to 65535")?;
        if board == 0 {
            return Err(problem("board", "board numbers start at 1"));
        }
        let contract = row.contract.trim();
        if is_not_played(contract) {
            self.not_played += 1;
            let table = NotPlayed::of(row.club, row.section, board_text, row.ns_pair, row.ew_pair);
            self.not_played_tables.extend(table);
            return Ok(Added::NotPlayed);
        }
        let movement = match row.movement.trim().to_ascii_lowercase().as_str() {
            "" | "mitchell" => Movement::Mitchell,
            "howell" => Movement::Howell,
            other => {
                return Err(problem(
                    "movement",
                    format!("unknown movement {other:?}: expected mitchell or howell"),
                ));
            }
        };
        let number =
            |text: &str, field: &'static str, what: &str| -> Result<Option<i64>, FieldProblem> {
                let t = text.trim();
                if t.is_empty() {
                    Ok(None)
                } else {
                    parse_int(t, field, what).map(Some)
                }
            };
        let tricks = tricks_taken(row.tricks, contract)?;
        let ns_score = number(row.ns_score, "ns_score", "a whole-number score")?;
        let ew_score = number(row.ew_score, "ew_score", "a whole-number score")?;
        let score = |v: Option<i64>, field: &'static str| -> Result<Option<i32>, FieldProblem> {
            v.map(|v| {
                i32::try_from(v).map_err(|_| problem(field, format!("{v} is not a bridge score")))
            })
            .transpose()
        };
        let award = parse_imp_award(row.adjusted).map_err(|m| problem("adjusted", m))?;
        let adjusted = match row.adjusted.trim() {
            "" => None,
            // An award in IMPs is an average to matchpoint scoring.
            _ if award.is_some() => Some((50, 50)),
            text => Some(parse_adjusted(text).map_err(|m| problem("adjusted", m))?),
        };
        let added = self.push_typed(
            &TypedRow {
                board,
                club: row.club,
                section: row.section,
                ns_pair: row.ns_pair,
                ew_pair: row.ew_pair,
                contract,
                declarer: row.declarer,
                tricks,
                ns_score: score(ns_score, "ns_score")?,
                ew_score: score(ew_score, "ew_score")?,
                adjusted,
                arrow_switch: parse_bool(row.arrow_switch, "arrow_switch")?,
                group: row.group,
                movement,
            },
            line,
        )?;
        if let (Some((ns, ew)), Added::Result(at)) = (award, added) {
            self.field
                .award_imps(at, ns, ew)
                .map_err(|e| problem("adjusted", e.to_string()))?;
        }
        Ok(added)
    }

    /// Checks one row whose numbers are already numbers (as events carry them) and adds it. The same
    /// checks as [`FieldBuilder::push`], without printing numbers to parse them back. On error nothing
    /// is added.
    pub fn push_typed(&mut self, row: &TypedRow<'_>, line: u64) -> Result<Added, FieldProblem> {
        let board = row.board;
        if board == 0 {
            return Err(problem("board", "board numbers start at 1"));
        }
        let ns_label = trim_text(row.ns_pair);
        let ew_label = trim_text(row.ew_pair);
        for (field, text) in [
            ("club", row.club),
            ("section", row.section),
            ("ns_pair", ns_label),
            ("ew_pair", ew_label),
        ] {
            if has_control(text) {
                return Err(problem(
                    field,
                    format!("{text:?} holds a control character"),
                ));
            }
        }
        if ns_label.is_empty() {
            return Err(problem("ns_pair", "missing NS pair number"));
        }
        if ew_label.is_empty() {
            return Err(problem("ew_pair", "missing EW pair number"));
        }
        let movement = row.movement;
        if movement == Movement::Howell && ns_label == ew_label {
            return Err(problem(
                "ew_pair",
                format!("pair {ns_label} cannot play against itself in a Howell"),
            ));
        }
        let vulnerability = Vulnerability::of_board(u32::from(board));
        let mut warnings = Vec::new();
        let outcome = self.outcome(row, vulnerability, &mut warnings)?;

        let club = self.club(trim_text(row.club));
        let section = self.section(trim_text(row.section));
        self.check_movement(club, section, movement, line)?;
        let ns = self.typed_pair(club, section, ns_label, movement, Direction::NS);
        let ew = self.typed_pair(club, section, ew_label, movement, Direction::EW);
        let group = match trim_text(row.group) {
            "" => None,
            label => Some(self.field.group(club, label)),
        };
        let at = self.field.len();
        let arrow_switch = row.arrow_switch;
        match (outcome, arrow_switch, group) {
            (Outcome::Played(s), false, None) => self.field.push_played(board, ns, ew, s),
            _ => self
                .field
                .push(TableResult {
                    board,
                    ns,
                    ew,
                    outcome,
                    arrow_switch,
                    group,
                })
                .map_err(|e| problem("board", e.to_string()))?,
        }
        self.lines.push(line);
        self.warnings
            .extend(warnings.into_iter().map(|(field, message)| RowWarning {
                line,
                field,
                message,
            }));
        Ok(Added::Result(at))
    }

    /// The pair of a typed row, its label read as [`PairLabel::new`] reads it. (Not through the
    /// cache of [`FieldBuilder::push_plain`]: a club's own field is a few hundred rows, and
    /// the cache is larger than that.)
    fn typed_pair(
        &mut self,
        club: ClubId,
        section: SectionId,
        label: &str,
        movement: Movement,
        direction: Direction,
    ) -> PairId {
        let direction = (movement != Movement::Howell).then_some(direction);
        match pair_number(label.as_bytes()) {
            Some(n) => self.field.pair_numbered(club, section, n, direction),
            None => self.field.pair(Pair {
                club,
                section,
                label: PairLabel::new(label),
                direction,
            }),
        }
    }

    /// A section has one movement: the first line of a section sets it.
    fn check_movement(
        &mut self,
        club: ClubId,
        section: SectionId,
        movement: Movement,
        line: u64,
    ) -> Result<(), FieldProblem> {
        // The section of the row before, known to be a Mitchell (see `push_plain`).
        if movement == Movement::Mitchell && self.last_movement_checked == Some((club, section)) {
            return Ok(());
        }
        match self.movements.get(&(club, section)) {
            Some(&(m, first)) if m != movement => {
                return Err(problem(
                    "movement",
                    format!(
                        "section is {} here but {} on line {first}",
                        movement_name(movement),
                        movement_name(m)
                    ),
                ));
            }
            Some(_) => {}
            None => {
                self.movements.insert((club, section), (movement, line));
            }
        }
        if movement == Movement::Mitchell {
            self.last_movement_checked = Some((club, section));
        }
        Ok(())
    }

    fn outcome(
        &mut self,
        row: &TypedRow<'_>,
        vulnerability: Vulnerability,
        warnings: &mut Vec<(&'static str, String)>,
    ) -> Result<Outcome, FieldProblem> {
        if let Some(percents) = row.adjusted {
            return adjusted_outcome(row, percents);
        }
        let played = self.played(row, vulnerability)?;
        let recorded = recorded_outcome(row.ns_score, row.ew_score)?;
        match (played, recorded) {
            (None, None) => Err(problem(
                "contract",
                "no result: give a contract, a score or an adjusted score (or NP if the board was not played)",
            )),
            (Some(played), None) => Ok(Outcome::Played(played.ns)),
            (Some(played), Some(recorded)) => {
                played.disagreements(row, warnings);
                Ok(recorded)
            }
            (None, Some(recorded)) => {
                self.unmakeable(recorded, row, vulnerability, warnings);
                Ok(recorded)
            }
        }
    }

    /// [`contract_result`], from this thread's [`PLAYED`] when the same contract, declarer and
    /// tricks were scored before at this vulnerability.
    fn played(
        &mut self,
        row: &TypedRow<'_>,
        vulnerability: Vulnerability,
    ) -> Result<Option<Played>, FieldProblem> {
        let Some(key) = played_key(row, vulnerability) else {
            return contract_result(row, vulnerability);
        };
        if let Some(played) = PLAYED.with_borrow(|known| known.get(&key).copied()) {
            return Ok(Some(played));
        }
        let played = contract_result(row, vulnerability)?;
        if let Some(played) = played {
            PLAYED.with_borrow_mut(|known| {
                if known.len() >= PLAYED_KEPT {
                    known.clear();
                }
                known.insert(key, played);
            });
        }
        Ok(played)
    }

    /// Warns of each recorded score no contract makes at the board's vulnerability: a possible bridge
    /// score is accepted as an assigned score (docs/rules.md section 3), but a scorer should look at it.
    fn unmakeable(
        &self,
        recorded: Outcome,
        row: &TypedRow<'_>,
        vulnerability: Vulnerability,
        warnings: &mut Vec<(&'static str, String)>,
    ) {
        let (ns, ew) = match recorded {
            Outcome::Played(s) if row.ns_score.is_some() => (Some(s), None),
            Outcome::Played(s) => (None, Some(-s)),
            Outcome::Split { ns, ew } => (Some(ns), Some(ew)),
            Outcome::Adjusted { .. } => (None, None),
        };
        let board = row.board;
        for (field, side, score, ns_view) in [
            ("ns_score", "NS", ns, ns),
            ("ew_score", "EW", ew, ew.map(|e| -e)),
        ] {
            if let (Some(score), Some(ns_view)) = (score, ns_view)
                && !self.legal.contains(vulnerability, ns_view)
            {
                warnings.push((
                    field,
                    format!(
                        "{side} {score:+} is not a score any contract makes on board {board} (vulnerable: \
                         {vulnerability}); it is scored as given, as an assigned score"
                    ),
                ));
            }
        }
    }
}

/// An artificial adjusted score: percentages of the top, with no table score beside them.
fn adjusted_outcome(
    row: &TypedRow<'_>,
    (ns_percent, ew_percent): (u8, u8),
) -> Result<Outcome, FieldProblem> {
    if !trim_text(row.contract).is_empty() {
        return Err(problem(
            "adjusted",
            "a row has either a contract or an adjusted score, not both",
        ));
    }
    if row.ns_score.is_some() || row.ew_score.is_some() {
        return Err(problem(
            "adjusted",
            "an artificial adjusted score has no table score; give a split score in ns_score and ew_score instead",
        ));
    }
    if ns_percent > 100 || ew_percent > 100 {
        return Err(problem("adjusted", "a percentage is 0 to 100"));
    }
    Ok(Outcome::Adjusted {
        ns_percent,
        ew_percent,
    })
}

/// The largest score, for either side, that any contract scores (Law 77, as
/// [`simpairs_scoring::contract::legal_ns_scores`] computes it: 7NTXX vulnerable down 13, 7600).
pub(crate) fn highest_possible_score() -> i32 {
    static HIGHEST: std::sync::LazyLock<i32> = std::sync::LazyLock::new(|| {
        [(false, false), (true, false), (false, true), (true, true)]
            .into_iter()
            .flat_map(|(ns, ew)| {
                simpairs_scoring::contract::legal_ns_scores(Vulnerability { ns, ew })
            })
            .map(i32::abs)
            .max()
            .unwrap_or(0)
    });
    *HIGHEST
}

/// Whether a score is a possible bridge score: a multiple of 10 no larger than any contract scores.
/// It need not be makeable at a given vulnerability (an assigned score need not be).
pub(crate) fn is_possible_score(score: i32) -> bool {
    score % 10 == 0
        && score
            .checked_abs()
            .is_some_and(|a| a <= highest_possible_score())
}

fn check_possible(score: i32, field: &'static str) -> Result<(), FieldProblem> {
    if is_possible_score(score) {
        return Ok(());
    }
    let high = highest_possible_score();
    Err(problem(
        field,
        format!(
            "{score} is not a possible bridge score: scores are multiples of 10 from -{high} to {high}"
        ),
    ))
}

/// The recorded scores as an outcome: one score (NS, or EW's negated), or a split score when both are
/// given and are not each other's negation. Each must be a possible bridge score.
fn recorded_outcome(ns: Option<i32>, ew: Option<i32>) -> Result<Option<Outcome>, FieldProblem> {
    if let Some(ns) = ns {
        check_possible(ns, "ns_score")?;
    }
    if let Some(ew) = ew {
        check_possible(ew, "ew_score")?;
    }
    Ok(match (ns, ew) {
        (None, None) => None,
        (Some(ns), None) => Some(Outcome::Played(ns)),
        (None, Some(ew)) => Some(Outcome::Played(-ew)),
        (Some(ns), Some(ew)) if ew == -ns => Some(Outcome::Played(ns)),
        (Some(ns), Some(ew)) => Some(Outcome::Split { ns, ew }),
    })
}

/// A row's contract text (at most 5 bytes), declarer (one byte), tricks (0 to 13) and
/// vulnerability in one number; `None` for any other row, which is scored afresh.
fn played_key(row: &TypedRow<'_>, vulnerability: Vulnerability) -> Option<u64> {
    let contract = row.contract.as_bytes();
    let &[declarer] = row.declarer.as_bytes() else {
        return None;
    };
    let tricks = u8::try_from(row.tricks?).ok().filter(|&t| t <= 13)?;
    if contract.is_empty() || contract.len() > 5 {
        return None;
    }
    let text = contract
        .iter()
        .fold(0u64, |key, &b| (key << 8) | u64::from(b));
    // The length too: "4S" and "\04S" are different texts.
    let key = (text << 3) | contract.len() as u64;
    let key = (key << 8) | u64::from(declarer);
    let key = (key << 4) | u64::from(tricks);
    Some((key << 2) | (u64::from(vulnerability.ns) << 1) | u64::from(vulnerability.ew))
}

/// At most this many contracts scored are kept by a thread ([`PLAYED`]); more are forgotten and
/// scored again. Real contracts, declarers, tricks and vulnerabilities make a few thousand.
const PLAYED_KEPT: usize = 1 << 16;

thread_local! {
    /// What each contract, declarer and tricks make at each vulnerability, by [`played_key`],
    /// kept from field to field: an event is thousands of clubs' small fields, judged one after
    /// the other on a few threads, each meeting the contracts the last one met, and scoring them
    /// again for every field took about a tenth of the judge's time.
    static PLAYED: std::cell::RefCell<FxHashMap<u64, Played>> =
        std::cell::RefCell::new(FxHashMap::default());
}

/// A contract played, as the row gives it, and what it scores for NS.
#[derive(Clone, Copy)]
struct Played {
    contract: Contract,
    declarer: Option<Seat>,
    tricks: Option<u8>,
    ns: i32,
}

impl Played {
    /// Warns of each recorded score that disagrees with the contract: the recorded score is what the
    /// director ruled (docs/rules-input.md), so it is the one scored.
    fn disagreements(&self, row: &TypedRow<'_>, warnings: &mut Vec<(&'static str, String)>) {
        // Written out only for a disagreement: most rows agree, and a file has millions.
        let played = || result_notation(self.contract, self.declarer, self.tricks);
        for (field, side, recorded, computed) in [
            ("ns_score", "NS", row.ns_score, self.ns),
            ("ew_score", "EW", row.ew_score, -self.ns),
        ] {
            if let Some(recorded) = recorded
                && recorded != computed
            {
                warnings.push((
                    field,
                    format!(
                        "{field} {recorded} disagrees with {}, which scores {computed} for {side}; the \
                         recorded score is used",
                        played()
                    ),
                ));
            }
        }
    }
}

/// A contract, its result against the contract and its declarer in bridge notation: `4S+1 by N`,
/// `3NTX-2 by E`, `2H= by S`, `PASS`.
pub(crate) fn result_notation(
    contract: Contract,
    declarer: Option<Seat>,
    tricks: Option<u8>,
) -> String {
    let Contract::Bid { level, .. } = contract else {
        return contract.to_string();
    };
    let result = match tricks.map(|t| i32::from(t) - i32::from(level) - 6) {
        None => String::new(),
        Some(0) => "=".to_string(),
        Some(d) => format!("{d:+}"),
    };
    match declarer {
        Some(d) => format!("{contract}{result} by {d}"),
        None => format!("{contract}{result}"),
    }
}

/// The contract of a row, checked and scored; `None` when the row gives none.
fn contract_result(
    row: &TypedRow<'_>,
    vulnerability: Vulnerability,
) -> Result<Option<Played>, FieldProblem> {
    let contract_text = trim_text(row.contract);
    let declarer_text = trim_text(row.declarer);
    if contract_text.is_empty() {
        if !declarer_text.is_empty() || row.tricks.is_some() {
            return Err(problem(
                "contract",
                "declarer and tricks are given but the contract is missing",
            ));
        }
        return Ok(None);
    }
    let contract: Contract = contract_text
        .parse()
        .map_err(|e: simpairs_scoring::Error| problem("contract", e.to_string()))?;
    if contract == Contract::PassedOut {
        return Ok(Some(Played {
            contract,
            declarer: None,
            tricks: None,
            ns: 0,
        }));
    }
    if declarer_text.is_empty() {
        return Err(problem(
            "declarer",
            format!("contract {contract} needs a declarer"),
        ));
    }
    let declarer: Seat = declarer_text
        .parse()
        .map_err(|e: simpairs_scoring::Error| problem("declarer", e.to_string()))?;
    let Some(tricks) = row.tricks else {
        return Err(problem(
            "tricks",
            format!("contract {contract} needs the tricks taken"),
        ));
    };
    let tricks = match u8::try_from(tricks) {
        Ok(t) if t <= 13 => t,
        _ => {
            return Err(problem(
                "tricks",
                format!("impossible number of tricks {tricks}: declarer takes 0 to 13"),
            ));
        }
    };
    let ns = ns_score(contract, declarer, tricks, vulnerability)
        .map_err(|e| problem("tricks", e.to_string()))?;
    Ok(Some(Played {
        contract,
        declarer: Some(declarer),
        tricks: Some(tricks),
        ns,
    }))
}

/// The tricks declarer took as a row writes them: a number from 0 to 13 (`0` too is a number of
/// tricks), or the result against the contract as many traveller exports write it, `=`, `+1`,
/// `-2`, counted from the contract's level (4S `+1` is 11 tricks). `None` when the field is empty.
/// A result against no contract (none given, or passed out), or one no contract level can make,
/// is refused: read as a number it would score a wrong contract without a word.
pub(crate) fn tricks_taken(text: &str, contract: &str) -> Result<Option<i64>, FieldProblem> {
    let t = text.trim();
    let relative = t == "=" || t.starts_with(['+', '-']);
    if !relative {
        let what =
            "the tricks declarer took, 0 to 13, or the result against the contract (=, +1, -2)";
        return match t {
            "" => Ok(None),
            _ => parse_int(t, "tricks", what).map(Some),
        };
    }
    let over = over_the_contract(t)?;
    let contract = contract.trim();
    let level = match contract.parse::<Contract>() {
        Ok(Contract::Bid { level, .. }) => i64::from(level),
        Ok(Contract::PassedOut) => {
            return Err(problem(
                "tricks",
                format!(
                    "tricks {t} is a result against the contract, but the board was passed out"
                ),
            ));
        }
        // The contract's own problem is told by its field.
        Err(_) if !contract.is_empty() => return Ok(None),
        Err(_) => {
            return Err(problem(
                "tricks",
                format!("tricks {t} is a result against the contract, but the row has no contract"),
            ));
        }
    };
    let tricks = level + 6 + over;
    if !(0..=13).contains(&tricks) {
        // Never `=`: every level's contract is 7 to 13 tricks.
        return Err(problem(
            "tricks",
            format!(
                "{contract}{over:+} would be {tricks} tricks: declarer takes 0 to 13; give the tricks \
                 taken or the result against the contract"
            ),
        ));
    }
    Ok(Some(tricks))
}

/// The tricks over (or under) the contract of a result written `=`, `+1` or `-2`.
fn over_the_contract(t: &str) -> Result<i64, FieldProblem> {
    let (sign, digits) = t.split_at(1);
    if sign == "=" && digits.is_empty() {
        return Ok(0);
    }
    if (1..=2).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
        let n: i64 = digits.parse().unwrap_or_default();
        return Ok(if sign == "-" { -n } else { n });
    }
    Err(problem(
        "tricks",
        format!(
            "{t:?} is neither the tricks declarer took (0 to 13) nor a result against the \
             contract (=, +1, -2)"
        ),
    ))
}

fn movement_name(m: Movement) -> &'static str {
    match m {
        Movement::Howell => "howell",
        _ => "mitchell",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The quick answers give what the standard library's do, whitespace and control
        /// characters of every kind included.
        #[test]
        fn quick_trim_and_control_check_agree_with_str(
            text in "[ \\t\\u{0}\\u{1f}\\u{7f}\\u{85}\\u{a0}\\u{2028}\\u{3000}a7Zé-]{0,6}"
        ) {
            proptest::prop_assert_eq!(trim_text(&text), text.trim());
            proptest::prop_assert_eq!(has_control(&text), text.chars().any(char::is_control));
        }
    }

    fn typed<'a>(section: &'a str, ns: &'a str, ew: &'a str, movement: Movement) -> TypedRow<'a> {
        TypedRow {
            board: 1,
            club: "C1",
            section,
            ns_pair: ns,
            ew_pair: ew,
            contract: "",
            declarer: "",
            tricks: None,
            ns_score: Some(100),
            ew_score: None,
            adjusted: None,
            arrow_switch: false,
            group: "",
            movement,
        }
    }

    /// A section keeps the movement its first row gave it, also when the row before was of the
    /// same section (the check the typed rows skip then).
    #[test]
    fn a_typed_row_cannot_change_its_sections_movement() {
        let legal = LegalScores::new();
        let mut b = FieldBuilder::new(&legal);
        assert!(
            b.push_typed(&typed("A", "1", "2", Movement::Mitchell), 1)
                .is_ok()
        );
        assert!(
            b.push_typed(&typed("A", "3", "4", Movement::Mitchell), 2)
                .is_ok()
        );
        let wrong = b.push_typed(&typed("A", "5", "6", Movement::Howell), 3);
        assert_eq!(
            wrong.map_err(|p| (p.field, p.message)),
            Err((
                "movement",
                "section is howell here but mitchell on line 1".to_string()
            ))
        );
        assert!(
            b.push_typed(&typed("B", "5", "6", Movement::Howell), 4)
                .is_ok()
        );
        let wrong = b.push_typed(&typed("B", "7", "8", Movement::Mitchell), 5);
        assert_eq!(wrong.map_err(|p| p.field), Err("movement"));
        assert_eq!(b.field.len(), 3);
    }

    /// A contract scored before is scored again from memory only with the same text, declarer,
    /// tricks and vulnerability; a recorded score that disagrees is still warned of each time.
    #[test]
    fn contracts_scored_once_score_as_before() {
        let legal = LegalScores::new();
        let mut b = FieldBuilder::new(&legal);
        let played =
            |board: u16, contract: &'static str, tricks: i64, recorded: Option<i32>| TypedRow {
                board,
                contract,
                declarer: "N",
                tricks: Some(tricks),
                ns_score: recorded,
                ..typed("A", "1", "2", Movement::Mitchell)
            };
        let rows = [
            played(1, "4S", 10, None),
            played(2, "4S", 10, None),
            played(1, "4S", 10, None),
            played(1, "4S", 11, None),
            played(1, " 4S", 10, None),
            played(1, "4S", 10, Some(450)),
            played(1, "4S", 10, Some(450)),
        ];
        for (line, row) in rows.iter().enumerate() {
            assert!(b.push_typed(row, line as u64).is_ok(), "line {line}");
        }
        let scores: Vec<Outcome> = (0..rows.len()).map(|r| b.field.result(r).outcome).collect();
        assert_eq!(
            scores,
            [420, 620, 420, 450, 420, 450, 450]
                .map(Outcome::Played)
                .to_vec()
        );
        let warned: Vec<u64> = b.warnings.iter().map(|w| w.line).collect();
        assert_eq!(warned, [5, 6]);
    }

    /// Pair labels of typed rows read as a file's do: a plain number whatever the spaces around
    /// it, a label with a leading zero as text, a Howell pair with no direction.
    #[test]
    fn typed_pair_labels() {
        let legal = LegalScores::new();
        let mut b = FieldBuilder::new(&legal);
        let rows = [
            typed("A", "7", "8", Movement::Mitchell),
            typed("A", " 7 ", "08", Movement::Mitchell),
            typed("H", "7", "8", Movement::Howell),
        ];
        for (line, row) in rows.iter().enumerate() {
            let mut row = *row;
            row.board = line as u16 + 1;
            assert!(b.push_typed(&row, line as u64).is_ok());
        }
        let pair = |row: usize, ns: bool| {
            let r = b.field.result(row);
            b.field.pairs()[if ns { r.ns } else { r.ew } as usize].clone()
        };
        assert_eq!(pair(0, true), pair(1, true));
        assert_eq!(pair(0, true).label, PairLabel::Number(7));
        assert_eq!(pair(1, false).label, PairLabel::Text("08".into()));
        assert_ne!(pair(0, false), pair(1, false));
        assert_eq!(pair(2, true).direction, None);
        assert_eq!(pair(0, true).direction, Some(Direction::NS));
    }

    #[test]
    fn imp_awards() {
        use simpairs_scoring::Value;
        assert_eq!(
            parse_imp_award("0/1.2 IMP"),
            Ok(Some((Value::from_integer(0), Value::new(6, 5))))
        );
        assert_eq!(
            parse_imp_award(" +3/-3imps "),
            Ok(Some((Value::from_integer(3), Value::from_integer(-3))))
        );
        assert_eq!(parse_imp_award("60/40"), Ok(None));
        assert_eq!(parse_imp_award(""), Ok(None));
        assert!(
            parse_imp_award("x/1 IMP")
                .unwrap_err()
                .contains("0/1.2 IMP")
        );
        assert!(parse_imp_award("30/0 IMP").unwrap_err().contains("24"));
        assert!(parse_imp_award("3 IMP").is_err());
    }

    #[test]
    fn adjusted_spellings() {
        assert_eq!(parse_adjusted("AVE"), Ok((50, 50)));
        assert_eq!(parse_adjusted("ave+"), Ok((60, 40)));
        assert_eq!(parse_adjusted("AVE-"), Ok((40, 60)));
        assert_eq!(parse_adjusted("60/40"), Ok((60, 40)));
        assert_eq!(parse_adjusted("60%/60%"), Ok((60, 60)));
        assert_eq!(parse_adjusted("A6040"), Ok((60, 40)));
        assert!(parse_adjusted("150/40").is_err());
        assert!(parse_adjusted("nonsense").is_err());
    }

    fn row<'a>(
        board: &'a str,
        contract: &'a str,
        declarer: &'a str,
        tricks: &'a str,
        ns: &'a str,
    ) -> TextRow<'a> {
        TextRow {
            board,
            ns_pair: "1",
            ew_pair: "2",
            contract,
            declarer,
            tricks,
            ns_score: ns,
            ..TextRow::default()
        }
    }

    /// The bounds of a possible score follow from Law 77 as `contract.rs` computes it: 7NTXX made
    /// vulnerable is the most a declarer scores, 7NTXX vulnerable down 13 the most a defender does.
    #[test]
    fn possible_scores_are_the_law_77_range_in_tens() {
        assert_eq!(highest_possible_score(), 7600);
        let vul = Vulnerability { ns: true, ew: true };
        let grand: Contract = "7NTXX".parse().unwrap();
        assert_eq!(ns_score(grand, Seat::North, 13, vul).unwrap(), 2980);
        assert_eq!(ns_score(grand, Seat::North, 0, vul).unwrap(), -7600);
        for (score, possible) in [
            (7600, true),
            (-7600, true),
            (50, true),
            (0, true),
            (7610, false),
            (-7610, false),
            (425, false),
            (5, false),
        ] {
            assert_eq!(is_possible_score(score), possible, "{score}");
        }
    }

    fn split<'a>(board: &'a str, ns: &'a str, ew: &'a str) -> TextRow<'a> {
        TextRow {
            board,
            ns_pair: "6",
            ew_pair: "1",
            ns_score: ns,
            ew_score: ew,
            ..TextRow::default()
        }
    }

    /// Seed 002 slides 21-22: table 6 on board 4 (all vulnerable) is given NS -150 and EW +50. No
    /// contract makes +50 for EW at that vulnerability: it is scored, with a warning.
    #[test]
    fn an_assigned_score_need_only_be_possible() {
        let legal = LegalScores::new();
        let mut b = FieldBuilder::new(&legal);
        assert_eq!(b.push(&split("4", "-150", "50"), 7), Ok(Added::Result(0)));
        assert_eq!(
            b.field.result(0).outcome,
            Outcome::Split { ns: -150, ew: 50 }
        );
        assert_eq!(b.warnings.len(), 1, "{:?}", b.warnings);
        let w = &b.warnings[0];
        assert_eq!((w.line, w.field), (7, "ew_score"));
        assert!(
            w.message.contains("50") && w.message.contains("All"),
            "{}",
            w.message
        );
        // A score alone that no contract makes at the board's vulnerability: scored, with a warning.
        assert_eq!(
            b.push(&row("4", "", "", "", "420"), 8),
            Ok(Added::Result(1))
        );
        assert_eq!(b.field.result(1).outcome, Outcome::Played(420));
        assert_eq!(b.warnings.len(), 2);
        assert_eq!((b.warnings[1].line, b.warnings[1].field), (8, "ns_score"));
        // Makeable scores bring no warning.
        assert_eq!(
            b.push(&row("5", "", "", "", "-100"), 9),
            Ok(Added::Result(2))
        );
        assert_eq!(b.warnings.len(), 2);
        // What is not a bridge score at all is refused.
        for (ns, ew, field) in [
            ("425", "", "ns_score"),
            ("7610", "", "ns_score"),
            ("-150", "55", "ew_score"),
            ("", "-9000", "ew_score"),
        ] {
            let err = b.push(&split("4", ns, ew), 10).unwrap_err();
            assert_eq!(err.field, field, "{ns}/{ew}: {}", err.message);
            assert!(err.message.contains("7600"), "{}", err.message);
        }
        assert_eq!(b.field.len(), 3, "refused rows add nothing");
        assert_eq!(b.warnings.len(), 2, "refused rows warn of nothing");
    }

    /// A contract with a score that disagrees: the recorded score is what the director ruled.
    #[test]
    fn the_recorded_score_stands() {
        let legal = LegalScores::new();
        let mut b = FieldBuilder::new(&legal);
        assert_eq!(
            b.push(&row("1", "3NT", "N", "8", "100"), 14),
            Ok(Added::Result(0))
        );
        assert_eq!(b.field.result(0).outcome, Outcome::Played(100));
        let w = &b.warnings[0];
        assert_eq!((w.line, w.field), (14, "ns_score"));
        assert_eq!(
            w.message,
            "ns_score 100 disagrees with 3NT-1 by N, which scores -50 for NS; the recorded score is used"
        );
        // A passed-out board with a score (the CRLF report's row read right).
        assert_eq!(
            b.push(&row("22", "PASS", "", "", "110"), 15),
            Ok(Added::Result(1))
        );
        assert_eq!(b.field.result(1).outcome, Outcome::Played(110));
        assert!(
            b.warnings[1].message.contains("PASS"),
            "{}",
            b.warnings[1].message
        );
        // Both sides recorded, EW against the contract: a split score, warned of on the EW side.
        let mut both = row("2", "4S", "E", "10", "-420");
        both.ew_score = "500";
        assert_eq!(b.push(&both, 16), Ok(Added::Result(2)));
        assert_eq!(
            b.field.result(2).outcome,
            Outcome::Split { ns: -420, ew: 500 }
        );
        assert_eq!(b.warnings.len(), 3, "{:?}", b.warnings);
        assert_eq!(b.warnings[2].field, "ew_score");
        // Agreeing figures bring nothing.
        assert_eq!(
            b.push(&row("3", "3NT", "S", "9", "400"), 17),
            Ok(Added::Result(3))
        );
        assert_eq!(b.warnings.len(), 3);
        // The same rules for rows whose numbers are already numbers.
        let typed = TypedRow {
            board: 1,
            club: "",
            section: "",
            ns_pair: "9",
            ew_pair: "9",
            contract: "3NT",
            declarer: "N",
            tricks: Some(8),
            ns_score: Some(100),
            ew_score: None,
            adjusted: None,
            arrow_switch: false,
            group: "",
            movement: Movement::Mitchell,
        };
        assert_eq!(b.push_typed(&typed, 99), Ok(Added::Result(4)));
        assert_eq!(b.field.result(4).outcome, Outcome::Played(100));
        assert_eq!((b.warnings[3].line, b.warnings[3].field), (99, "ns_score"));
    }

    #[test]
    fn rows_are_checked_field_by_field() {
        let legal = LegalScores::new();
        let mut b = FieldBuilder::new(&legal);
        assert_eq!(
            b.push(&row("1", "3NT", "S", "10", "430"), 2),
            Ok(Added::Result(0))
        );
        let cases = [
            (row("1", "8NT", "S", "10", ""), "contract"),
            (row("1", "3NT", "S", "14", ""), "tricks"),
            (row("1", "3NT", "Q", "9", ""), "declarer"),
            (row("x", "3NT", "S", "9", ""), "board"),
            (row("1", "", "", "", "425"), "ns_score"),
            (row("1", "", "", "", ""), "contract"),
        ];
        for (r, field) in cases {
            let err = b.push(&r, 3).unwrap_err();
            assert_eq!(err.field, field, "{r:?}: {}", err.message);
        }
        assert_eq!(b.field.len(), 1, "rejected rows add nothing");
        assert_eq!(b.push(&row("2", "NP", "", "", ""), 4), Ok(Added::NotPlayed));
    }

    /// Tricks written against the contract, as many traveller exports write them: `+1`, `-2`, `=`
    /// count from the contract's level (4S `+1` is 11 tricks); a plain number is the tricks taken,
    /// `0` included.
    #[test]
    fn tricks_against_the_contract() {
        let legal = LegalScores::new();
        let mut b = FieldBuilder::new(&legal);
        // Board 1: nobody vulnerable.
        for (contract, tricks, ns) in [
            ("4S", "+1", 450),
            ("4S", "=", 420),
            ("4S", " = ", 420),
            ("4S", "-2", -100),
            ("3NT", "+0", 400),
            ("4S", "10", 420),
            ("4S", "0", -500),
            ("1C", "-7", -350),
            ("7NT", "=", 1520),
        ] {
            let r = b.push(&row("1", contract, "N", tricks, ""), 2).unwrap();
            let Added::Result(at) = r else { panic!() };
            assert_eq!(
                b.field.result(at).outcome,
                Outcome::Played(ns),
                "{contract} {tricks}"
            );
        }
        let refused = |contract: &str, tricks: &str| {
            let mut b = FieldBuilder::new(&legal);
            let e = b.push(&row("1", contract, "N", tricks, ""), 2).unwrap_err();
            (e.field, e.message)
        };
        let (field, message) = refused("7NT", "+1");
        assert_eq!(field, "tricks");
        assert!(
            message.contains("7NT+1") && message.contains("14 tricks"),
            "{message}"
        );
        let (field, message) = refused("1C", "-8");
        assert_eq!(field, "tricks");
        assert!(message.contains("-1 tricks"), "{message}");
        let (field, message) = refused("", "+1");
        assert_eq!(field, "tricks");
        assert!(message.contains("no contract"), "{message}");
        let (field, message) = refused("PASS", "=");
        assert_eq!(field, "tricks");
        assert!(message.contains("passed out"), "{message}");
        let (field, message) = refused("4S", "+x");
        assert_eq!(field, "tricks");
        assert!(message.contains("+x"), "{message}");
    }
}
