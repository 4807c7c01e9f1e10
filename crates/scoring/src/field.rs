//! The field: every result to be compared, stored column-wise so that a national event of tens of
//! millions of results stays small and is scanned at memory speed.

use std::fmt;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::value::Value;
use crate::{Direction, Error, Result};

mod join;

pub use join::{Joined, Joiner, Part};

/// Index of a pair in [`Field::pairs`].
pub type PairId = u32;
/// Index of a club name in [`Field::clubs`].
pub type ClubId = u32;
/// Index of a section name in [`Field::sections`].
pub type SectionId = u32;
/// Index of a fouled-board group in [`Field::group`].
pub(crate) type GroupId = u32;

/// How pairs are numbered in a section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[non_exhaustive]
pub enum Movement {
    /// NS and EW numbers are different pairs (pair 1 NS is not pair 1 EW); two winners.
    #[default]
    Mitchell,
    /// A number is one pair whichever way it sits; one winner.
    Howell,
}

/// A pair's number as written on the traveller: a plain number is kept compactly.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PairLabel {
    Number(u32),
    Text(Box<str>),
}

impl PairLabel {
    /// The label for a traveller's pair field; plain numbers without leading zeros are stored as numbers.
    pub fn new(text: &str) -> PairLabel {
        let t = text.trim();
        let numeric = !t.is_empty()
            && t.len() <= 9
            && t.bytes().all(|b| b.is_ascii_digit())
            && (t == "0" || !t.starts_with('0'));
        match numeric.then(|| t.parse::<u32>().ok()).flatten() {
            Some(n) => PairLabel::Number(n),
            None => PairLabel::Text(t.into()),
        }
    }
}

impl fmt::Display for PairLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairLabel::Number(n) => write!(f, "{n}"),
            PairLabel::Text(t) => f.write_str(t),
        }
    }
}

/// A pair of players: identified by club, section, number and, in a Mitchell, direction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pair {
    pub club: ClubId,
    pub section: SectionId,
    pub label: PairLabel,
    /// `Some` for Mitchell pairs (they always sit this way), `None` for Howell pairs.
    pub direction: Option<Direction>,
}

/// What happened at a table on a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// A score from North-South's point of view (East-West scored the opposite).
    Played(i32),
    /// A split score: North-South's and East-West's scores each from their own point of view.
    Split { ns: i32, ew: i32 },
    /// An artificial adjusted score: a percentage of the top to each side (AVE = 50/50, AVE+ = 60).
    Adjusted { ns_percent: u8, ew_percent: u8 },
}

/// One table's result on one board, as added to a [`Field`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableResult {
    pub board: u16,
    pub ns: PairId,
    pub ew: PairId,
    pub outcome: Outcome,
    /// The pairs played the other direction's cards (arrow-switch): each joins the other field.
    pub arrow_switch: bool,
    /// The fouled-board group this table played in; `None` is the board as dealt.
    pub group: Option<GroupId>,
}

/// Rows grouped by board, from [`Field::rows_by_board`].
#[derive(Clone, Debug)]
pub struct BoardRows {
    /// Board numbers, ascending.
    pub boards: Vec<u16>,
    /// `rows[starts[i]..starts[i + 1]]` are the rows of `boards[i]`.
    pub starts: Vec<usize>,
    pub rows: Vec<u32>,
}

impl BoardRows {
    /// Each board's rows, in board order.
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> {
        self.starts.windows(2).map(|w| &self.rows[w[0]..w[1]])
    }
}

/// The rare parts of a result that is not a plain score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Special {
    pub outcome: Outcome,
    pub arrow_switch: bool,
    pub group: Option<GroupId>,
    /// IMPs a director awarded each side of an artificial score (JFR Pary's `0/1.2`), which IMP
    /// scoring uses instead of the percentages.
    pub imps: Option<(Value, Value)>,
}

/// A plain score as a field's column holds it. Every bridge score fits in 16 bits (the largest,
/// 7NTXX vulnerable down 13, is 7,600), and a column half as wide is half the memory that scoring
/// reads, twice over, for every result; a score that does not fit is kept as a special.
pub(crate) type ColumnScore = i16;

/// Marks a row whose result lives in [`Field::specials`]; no real score is this low.
pub(crate) const SPECIAL_SCORE: ColumnScore = ColumnScore::MIN;

/// `score` as the column holds it, or `None` when it must be kept as a special.
#[inline]
fn column_score(score: i32) -> Option<ColumnScore> {
    ColumnScore::try_from(score)
        .ok()
        .filter(|&s| s != SPECIAL_SCORE)
}

/// Interns names (clubs, sections) into dense ids.
#[derive(Clone, Debug, Default)]
struct Names {
    names: Vec<Box<str>>,
    index: FxHashMap<Box<str>, u32>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.into());
        self.index.insert(name.into(), id);
        id
    }

    fn find(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }
}

/// Numbered pairs below this number (every number of up to nine digits) are found in a table per
/// (club, section, direction) indexed by number rather than by hashing: large files number their
/// pairs, and readers look up two pairs for every result. Larger numbers, and numbers too far
/// from the rest of their unit's for a table, go to the hash index like text labels.
const DENSE_NUMBERS: u32 = 1 << 30;

/// The tables of [`DENSE_NUMBERS`]: for each unit (club, section, direction), pair id + 1 by number
/// from the unit's lowest number (0: no such pair yet). A table grows only while it stays dense;
/// numbers it would not cover go to the hash index.
#[derive(Clone, Debug, Default)]
struct NumberTables {
    units: Vec<NumberTable>,
    /// Unit key (as [`Field::pair_key`] with label 0) to its index in `units`.
    index: FxHashMap<u128, usize>,
    /// The unit looked up last, per direction: rows of one club and section come together.
    last: [Option<(u128, usize)>; 3],
}

#[derive(Clone, Debug, Default)]
struct NumberTable {
    base: u32,
    ids: Vec<PairId>,
    pairs: usize,
    /// Whether a number of the unit went to the hash index because the table did not cover it:
    /// only then may a number missing from the table be there.
    hashed: bool,
}

impl NumberTables {
    #[inline]
    fn unit(&mut self, unit: u128) -> &mut NumberTable {
        let d = ((unit >> 62) & 3) as usize % 3;
        let i = match self.last[d] {
            Some((key, i)) if key == unit => i,
            _ => {
                let next = self.units.len();
                let i = *self.index.entry(unit).or_insert(next);
                if i == next {
                    self.units.push(NumberTable::default());
                }
                self.last[d] = Some((unit, i));
                i
            }
        };
        &mut self.units[i]
    }

    /// The slot of `number` in `unit` (holding 0 if no pair has it yet), or `None` if the unit's
    /// table does not cover it and would be too sparse if it did.
    #[inline]
    fn slot(&mut self, unit: u128, number: u32) -> Option<&mut PairId> {
        let table = self.unit(unit);
        let end = table.base as usize + table.ids.len();
        let n = number as usize;
        if table.ids.is_empty() || n < table.base as usize || n >= end {
            let (low, high) = if table.ids.is_empty() {
                (n, n + 1)
            } else {
                ((table.base as usize).min(n), end.max(n + 1))
            };
            // Room for as many again on the growing side, so that growth costs amortised copies.
            let room = (high - low).max(16);
            if room > 4 * table.pairs + 1024 {
                return None;
            }
            let (low, high) = if n < table.base as usize && !table.ids.is_empty() {
                (low.saturating_sub(room), high)
            } else {
                (low, low + 2 * room)
            };
            // Written, not lazily zeroed: every slot of a dense table is soon used, and a page first
            // read then written faults twice.
            let mut grown = Vec::with_capacity(high - low);
            if !table.ids.is_empty() {
                grown.resize(table.base as usize - low, 0);
                grown.extend_from_slice(&table.ids);
            }
            grown.resize(high - low, 0);
            table.base = low as u32;
            table.ids = grown;
        }
        let base = table.base as usize;
        Some(&mut table.ids[n - base])
    }

    /// Gives `number`'s slot in `unit`, which covers it, to a new pair.
    fn claim(&mut self, unit: u128, number: u32, id: PairId) {
        if let Some(slot) = self.slot(unit, number) {
            *slot = id + 1;
            self.unit(unit).pairs += 1;
        }
    }

    fn get(&self, unit: u128, number: u32) -> Option<PairId> {
        let table = &self.units[*self.index.get(&unit)?];
        let at = (number as usize).checked_sub(table.base as usize)?;
        table.ids.get(at).and_then(|&id| id.checked_sub(1))
    }

    /// For each of `part`'s units, whether it is new here and can be taken over whole: these
    /// tables lack its key (`rekey` of the part's key) and the part's table holds every number of
    /// it below [`DENSE_NUMBERS`]. Then each such pair of the part is new here. Each such unit is
    /// given its index and an empty table at once, in the part's order, so that the joined index
    /// is probed once for it; [`Self::adopt`] fills the table in once the pairs have their ids.
    fn fresh_units(&mut self, part: &NumberTables, rekey: impl Fn(u128) -> u128) -> Vec<bool> {
        let mut keys = vec![0u128; part.units.len()];
        for (&key, &i) in &part.index {
            keys[i] = key;
        }
        let mut fresh = vec![false; part.units.len()];
        for (i, key) in keys.into_iter().enumerate() {
            if part.units[i].hashed {
                continue;
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = self.index.entry(rekey(key)) {
                slot.insert(self.units.len());
                self.units.push(NumberTable::default());
                fresh[i] = true;
            }
        }
        fresh
    }

    /// Fills the table [`Self::fresh_units`] set aside for `part`'s unit `i` with a copy of the
    /// part's, each pair id `p` in it now `ids[p]`. A copy, not the part's own: made on this
    /// thread, it does not keep the part's memory (from the thread that read it) from being used
    /// again once the part is dropped.
    fn adopt(&mut self, part: &NumberTables, i: usize, at: usize, ids: &[PairId]) {
        let theirs = &part.units[i];
        self.units[at] = NumberTable {
            base: theirs.base,
            ids: theirs
                .ids
                .iter()
                .map(|&slot| slot.checked_sub(1).map_or(0, |p| ids[p as usize] + 1))
                .collect(),
            pairs: theirs.pairs,
            hashed: false,
        };
    }
}

/// Every result of the field to be scored, with the pairs, clubs and sections they name.
///
/// Rows are kept column-wise: board, NS pair, EW pair and score take 12 bytes per result; adjusted,
/// split, arrow-switched and fouled results keep their details in a side list.
#[derive(Clone, Debug, Default)]
pub struct Field {
    clubs: Names,
    sections: Names,
    groups: Vec<(ClubId, Box<str>)>,
    group_index: FxHashMap<(ClubId, Box<str>), GroupId>,
    pairs: Vec<Pair>,
    /// Each pair's direction, by id, beside `pairs`: ranking a national field reads the list of
    /// each of its millions of pairs, a byte each here rather than a whole [`Pair`] each.
    directions: Vec<Option<Direction>>,
    /// Pair lookup by packed key (club, section, direction, label code); see [`Field::pair_key`].
    /// Pairs numbered below [`DENSE_NUMBERS`] are in `numbered` instead.
    pair_index: FxHashMap<u128, PairId>,
    numbered: NumberTables,
    /// Text pair labels, interned so that every label packs into the key.
    labels: Names,
    pub(crate) boards: Vec<u16>,
    /// The largest board number in `boards` (0 when empty), kept as rows are added so that
    /// scoring need not scan the column to size its tables.
    pub(crate) max_board: u16,
    pub(crate) ns: Vec<PairId>,
    pub(crate) ew: Vec<PairId>,
    pub(crate) scores: Vec<ColumnScore>,
    /// (row, details), in row order.
    pub(crate) specials: Vec<(u32, Special)>,
    /// Which field this is, for [`crate::BoardCounts`]: rows are only ever appended, so two fields
    /// of one lineage agree on every row both have.
    pub(crate) lineage: Lineage,
}

/// A field's identity: new for every field made, including clones (a clone may then grow apart
/// from its original), kept by appends.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Lineage(u64);

impl Default for Lineage {
    fn default() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Lineage(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl Lineage {
    pub(crate) fn id(&self) -> u64 {
        self.0
    }
}

impl Clone for Lineage {
    fn clone(&self) -> Self {
        Lineage::default()
    }
}

impl Field {
    pub fn new() -> Field {
        Field::default()
    }

    /// Reserves room for `results` more results.
    pub fn reserve(&mut self, results: usize) {
        self.boards.reserve(results);
        self.ns.reserve(results);
        self.ew.reserve(results);
        self.scores.reserve(results);
    }

    /// Reserves room for `pairs` more pairs.
    pub fn reserve_pairs(&mut self, pairs: usize) {
        self.pairs.reserve(pairs);
        self.directions.reserve(pairs);
    }

    /// The id of a club, added if new.
    pub fn club(&mut self, name: &str) -> ClubId {
        self.clubs.id(name)
    }

    /// The id of a section, added if new.
    pub fn section(&mut self, name: &str) -> SectionId {
        self.sections.id(name)
    }

    /// The id of fouled-board group `label` in `club` (groups of different clubs are different tables).
    pub fn group(&mut self, club: ClubId, label: &str) -> GroupId {
        let key = (club, Box::<str>::from(label));
        if let Some(&id) = self.group_index.get(&key) {
            return id;
        }
        let id = self.groups.len() as GroupId;
        self.groups.push(key.clone());
        self.group_index.insert(key, id);
        id
    }

    /// Packs a pair's identity: club (32 bits), section (32), direction (2) and label code (34: a number
    /// below 2^32, or 2^32 + the id of an interned text label).
    fn pair_key(
        club: ClubId,
        section: SectionId,
        direction: Option<Direction>,
        label: u64,
    ) -> u128 {
        let d = match direction {
            None => 0u128,
            Some(Direction::NS) => 1,
            Some(Direction::EW) => 2,
        };
        (u128::from(club) << 96) | (u128::from(section) << 64) | (d << 62) | u128::from(label)
    }

    /// A [`Self::pair_key`] of another field with its club and section renamed by `clubs` and
    /// `sections` (that field's ids to this one's); direction and label kept.
    fn renamed_key(key: u128, clubs: &[ClubId], sections: &[SectionId]) -> u128 {
        let (club, section) = ((key >> 96) as usize, (key >> 64) as u32 as usize);
        let kept = key & ((1 << 64) - 1);
        (u128::from(clubs[club]) << 96) | (u128::from(sections[section]) << 64) | kept
    }

    fn label_code(&mut self, label: &PairLabel) -> u64 {
        match label {
            PairLabel::Number(n) => u64::from(*n),
            PairLabel::Text(t) => (1 << 32) | u64::from(self.labels.id(t)),
        }
    }

    /// The id of a pair, added if new.
    pub fn pair(&mut self, pair: Pair) -> PairId {
        if let PairLabel::Number(n) = pair.label {
            return self.pair_numbered(pair.club, pair.section, n, pair.direction);
        }
        let code = self.label_code(&pair.label);
        let key = Self::pair_key(pair.club, pair.section, pair.direction, code);
        if let Some(&id) = self.pair_index.get(&key) {
            return id;
        }
        let id = self.pairs.len() as PairId;
        self.directions.push(pair.direction);
        self.pairs.push(pair);
        self.pair_index.insert(key, id);
        id
    }

    /// The id of a pair with a plain number, added if new (the readers' hot path).
    #[inline]
    pub fn pair_numbered(
        &mut self,
        club: ClubId,
        section: SectionId,
        number: u32,
        direction: Option<Direction>,
    ) -> PairId {
        let next = self.pairs.len() as PairId;
        let unit = Self::pair_key(club, section, direction, 0);
        let dense = if number < DENSE_NUMBERS {
            self.numbered.slot(unit, number).map(|slot| *slot)
        } else {
            None
        };
        let key = || Self::pair_key(club, section, direction, u64::from(number));
        let id = match dense {
            Some(slot) if slot != 0 => slot - 1,
            Some(_) => {
                let hashed = self.numbered.unit(unit).hashed;
                match hashed.then(|| self.pair_index.get(&key())).flatten() {
                    Some(&id) => id,
                    None => {
                        self.numbered.claim(unit, number, next);
                        next
                    }
                }
            }
            None => *self.pair_index.entry(key()).or_insert_with(|| {
                if number < DENSE_NUMBERS {
                    self.numbered.unit(unit).hashed = true;
                }
                next
            }),
        };
        if id == next {
            self.push_numbered(club, section, number, direction);
        }
        id
    }

    /// Adds a pair with a plain number, whose id is known to be new, and returns its id.
    fn push_numbered(
        &mut self,
        club: ClubId,
        section: SectionId,
        number: u32,
        direction: Option<Direction>,
    ) -> PairId {
        self.directions.push(direction);
        self.pairs.push(Pair {
            club,
            section,
            label: PairLabel::Number(number),
            direction,
        });
        (self.pairs.len() - 1) as PairId
    }

    /// The id of an existing pair.
    pub fn find_pair(&self, pair: &Pair) -> Option<PairId> {
        let code = match &pair.label {
            PairLabel::Number(n) => {
                let unit = Self::pair_key(pair.club, pair.section, pair.direction, 0);
                if let Some(id) = self.numbered.get(unit, *n) {
                    return Some(id);
                }
                u64::from(*n)
            }
            PairLabel::Text(t) => (1 << 32) | u64::from(self.labels.find(t)?),
        };
        let key = Self::pair_key(pair.club, pair.section, pair.direction, code);
        self.pair_index.get(&key).copied()
    }

    /// The id of an existing club.
    pub fn find_club(&self, name: &str) -> Option<ClubId> {
        self.clubs.find(name)
    }

    /// Adds one result. The pairs must be ids of this field.
    pub fn push(&mut self, result: TableResult) -> Result<()> {
        u32::try_from(self.boards.len())
            .map_err(|_| Error::Invalid("more than 4,294,967,295 results in one field".into()))?;
        for id in [result.ns, result.ew] {
            if id as usize >= self.pairs.len() {
                return Err(Error::Invalid(format!("unknown pair id {id}")));
            }
        }
        if result.board == 0 {
            return Err(Error::Invalid("board numbers start at 1".into()));
        }
        if let Outcome::Adjusted {
            ns_percent,
            ew_percent,
        } = result.outcome
            && (ns_percent > 100 || ew_percent > 100)
        {
            return Err(Error::Invalid(format!(
                "an adjusted score is a percentage of 0 to 100, not {ns_percent}/{ew_percent}"
            )));
        }
        let TableResult {
            board,
            ns,
            ew,
            outcome,
            arrow_switch,
            group,
        } = result;
        let plain = match outcome {
            Outcome::Played(score) if !arrow_switch && group.is_none() => column_score(score),
            _ => None,
        };
        match plain {
            Some(score) => self.push_row(board, ns, ew, score),
            None => self.push_special_row(
                board,
                ns,
                ew,
                Special {
                    outcome,
                    arrow_switch,
                    group,
                    imps: None,
                },
            ),
        }
        Ok(())
    }

    /// Gives the artificial adjusted score of `row` IMPs to each side (a director's award in IMP
    /// pairs, such as JFR Pary's `0/1.2`): Butler and cross-IMP scoring use them instead of the
    /// percentages, which matchpoint scoring keeps using.
    pub fn award_imps(&mut self, row: usize, ns_imps: Value, ew_imps: Value) -> Result<()> {
        let at = u32::try_from(row)
            .ok()
            .and_then(|r| self.specials.binary_search_by_key(&r, |(r, _)| *r).ok());
        match at.map(|at| &mut self.specials[at].1) {
            Some(special) if matches!(special.outcome, Outcome::Adjusted { .. }) => {
                special.imps = Some((ns_imps, ew_imps));
                Ok(())
            }
            _ => Err(Error::Invalid(format!(
                "row {row} is not an artificial adjusted score: only those take awarded IMPs"
            ))),
        }
    }

    /// The IMPs awarded each side of `row`, if a director awarded any ([`Field::award_imps`]).
    pub fn imp_award(&self, row: usize) -> Option<(Value, Value)> {
        if self.scores.get(row) != Some(&SPECIAL_SCORE) {
            return None;
        }
        self.special(row as u32).imps
    }

    /// Adds a plain score (the hot path of readers: no checks beyond those of the caller).
    /// Always inlined: with the check of the score's width, the compiler stopped inlining it into
    /// the CSV reader's scan, and the call on every row cost 3% of `score L.csv`.
    #[inline(always)]
    pub fn push_played(&mut self, board: u16, ns: PairId, ew: PairId, ns_score: i32) {
        debug_assert!(board > 0);
        match column_score(ns_score) {
            Some(score) => self.push_row(board, ns, ew, score),
            None => self.push_special_row(
                board,
                ns,
                ew,
                Special {
                    outcome: Outcome::Played(ns_score),
                    arrow_switch: false,
                    group: None,
                    imps: None,
                },
            ),
        }
    }

    /// Appends a row to the columns, its score in the column (`SPECIAL_SCORE` for a special).
    #[inline(always)]
    fn push_row(&mut self, board: u16, ns: PairId, ew: PairId, score: ColumnScore) {
        self.boards.push(board);
        self.max_board = self.max_board.max(board);
        self.ns.push(ns);
        self.ew.push(ew);
        self.scores.push(score);
    }

    /// Appends a row whose result lives in the side list: adjusted, split, arrow-switched, fouled,
    /// or a score too large for the column.
    #[cold]
    fn push_special_row(&mut self, board: u16, ns: PairId, ew: PairId, special: Special) {
        let row = self.boards.len() as u32;
        self.push_row(board, ns, ew, SPECIAL_SCORE);
        self.specials.push((row, special));
    }

    /// Appends every result of `other`, mapping its clubs, sections, groups and pairs onto this field's.
    /// Borrowed: the aggregator keeps each club's field and appends new clubs to the national one.
    pub fn append(&mut self, other: &Field) {
        let clubs: Vec<ClubId> = other.clubs.names.iter().map(|n| self.club(n)).collect();
        let sections: Vec<SectionId> = other
            .sections
            .names
            .iter()
            .map(|n| self.section(n))
            .collect();
        let groups: Vec<GroupId> = other
            .groups
            .iter()
            .map(|(club, label)| self.group(clubs[*club as usize], label))
            .collect();
        let pairs: Vec<PairId> = other
            .pairs
            .iter()
            .map(|p| {
                self.pair(Pair {
                    club: clubs[p.club as usize],
                    section: sections[p.section as usize],
                    ..p.clone()
                })
            })
            .collect();
        let offset = self.boards.len() as u32;
        self.boards.extend_from_slice(&other.boards);
        self.max_board = self.max_board.max(other.max_board);
        self.ns.extend(other.ns.iter().map(|&p| pairs[p as usize]));
        self.ew.extend(other.ew.iter().map(|&p| pairs[p as usize]));
        self.scores.extend_from_slice(&other.scores);
        self.specials
            .extend(other.specials.iter().map(|(row, special)| {
                let mut special = *special;
                special.group = special.group.map(|g| groups[g as usize]);
                (row + offset, special)
            }));
    }

    /// Takes out every row of the clubs named (as a club sending a correction is appended
    /// again). Their names and pairs stay, with no results left: right for scoring boards, not
    /// for ranking pairs, where the field is built again instead. The rows were not only
    /// appended, so the field's lineage is new.
    pub fn remove_club_rows(&mut self, clubs: &[&str]) {
        let ids: rustc_hash::FxHashSet<ClubId> =
            clubs.iter().filter_map(|c| self.find_club(c)).collect();
        if ids.is_empty() {
            return;
        }
        let keep: Vec<bool> = self
            .ns
            .iter()
            .map(|&p| !ids.contains(&self.pairs[p as usize].club))
            .collect();
        fn retain<T>(column: &mut Vec<T>, keep: &[bool]) {
            let mut row = 0;
            column.retain(|_| {
                row += 1;
                keep[row - 1]
            });
        }
        retain(&mut self.boards, &keep);
        retain(&mut self.ns, &keep);
        retain(&mut self.ew, &keep);
        retain(&mut self.scores, &keep);
        // A row's new index is the number of kept rows before it; specials are in row order, so
        // one count walks along with them.
        let (mut counted, mut kept_before) = (0, 0u32);
        self.specials.retain_mut(|(row, _)| {
            let at = *row as usize;
            kept_before += keep[counted..at].iter().map(|&k| u32::from(k)).sum::<u32>();
            counted = at;
            *row = kept_before;
            keep[at]
        });
        self.max_board = self.boards.iter().copied().max().unwrap_or(0);
        self.lineage = Lineage::default();
    }

    /// Whether a pair of the clubs named has no row: as [`Field::remove_club_rows`] leaves a pair
    /// that the club's results, appended again, no longer list.
    pub fn has_pairs_without_rows(&self, clubs: &[&str]) -> bool {
        let ids: rustc_hash::FxHashSet<ClubId> =
            clubs.iter().filter_map(|c| self.find_club(c)).collect();
        if ids.is_empty() {
            return false;
        }
        let mut has_rows = vec![false; self.pairs.len()];
        for (&ns, &ew) in self.ns.iter().zip(&self.ew) {
            has_rows[ns as usize] = true;
            has_rows[ew as usize] = true;
        }
        self.pairs
            .iter()
            .zip(&has_rows)
            .any(|(pair, &has)| !has && ids.contains(&pair.club))
    }

    /// Adds the clubs, sections, groups and pairs of `part` that this field lacks; returns the ids
    /// in this field of the part's groups and pairs. The part's number tables of clubs and sections
    /// new here are taken over.
    pub(crate) fn take_names_of(&mut self, part: &Field) -> (Vec<GroupId>, Vec<PairId>) {
        let clubs: Vec<ClubId> = part.clubs.names.iter().map(|n| self.club(n)).collect();
        let sections: Vec<SectionId> = part
            .sections
            .names
            .iter()
            .map(|n| self.section(n))
            .collect();
        let groups = part
            .groups
            .iter()
            .map(|(club, label)| self.group(clubs[*club as usize], label))
            .collect();
        let rekey = |key| Self::renamed_key(key, &clubs, &sections);
        let first_new = self.numbered.units.len();
        let fresh = self.numbered.fresh_units(&part.numbered, rekey);
        let pairs = self.pairs_of(part, &clubs, &sections, &fresh);
        let adopted = fresh
            .iter()
            .enumerate()
            .filter(|(_, f)| **f)
            .map(|(i, _)| i);
        for (at, i) in (first_new..).zip(adopted) {
            self.numbered.adopt(&part.numbered, i, at, &pairs);
        }
        (groups, pairs)
    }

    /// The ids here of `part`'s pairs, in its order, each added if new. A pair numbered in one of
    /// the part's `fresh` units is new without a lookup: a large file read in chunks has most of
    /// its clubs in one chunk, and a lookup and a table slot for each of their pairs cost more
    /// than the reading of the rest of the names.
    fn pairs_of(
        &mut self,
        part: &Field,
        clubs: &[ClubId],
        sections: &[SectionId],
        fresh: &[bool],
    ) -> Vec<PairId> {
        let any_fresh = fresh.contains(&true);
        // The part's unit looked up last: a part's pairs come club by club.
        let mut last: Option<(u128, bool)> = None;
        let mut is_fresh = |p: &Pair| {
            let key = Self::pair_key(p.club, p.section, p.direction, 0);
            match last {
                Some((k, f)) if k == key => f,
                _ => {
                    let f = part.numbered.index.get(&key).is_some_and(|&i| fresh[i]);
                    last = Some((key, f));
                    f
                }
            }
        };
        let mut ids = Vec::with_capacity(part.pairs.len());
        for p in &part.pairs {
            let (club, section) = (clubs[p.club as usize], sections[p.section as usize]);
            let id = match p.label {
                PairLabel::Number(n) if any_fresh && n < DENSE_NUMBERS && is_fresh(p) => {
                    self.push_numbered(club, section, n, p.direction)
                }
                PairLabel::Number(n) => self.pair_numbered(club, section, n, p.direction),
                PairLabel::Text(_) => self.pair(Pair {
                    club,
                    section,
                    ..p.clone()
                }),
            };
            ids.push(id);
        }
        ids
    }

    /// Number of results.
    pub fn len(&self) -> usize {
        self.boards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }

    pub fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// Each pair's direction, by id: the same as the [`Field::pairs`]' own.
    pub(crate) fn pair_directions(&self) -> &[Option<Direction>] {
        &self.directions
    }

    pub fn club_name(&self, club: ClubId) -> &str {
        &self.clubs.names[club as usize]
    }

    pub fn section_name(&self, section: SectionId) -> &str {
        &self.sections.names[section as usize]
    }

    pub fn sections(&self) -> impl Iterator<Item = &str> {
        self.sections.names.iter().map(|n| &**n)
    }

    pub fn clubs(&self) -> impl Iterator<Item = &str> {
        self.clubs.names.iter().map(|n| &**n)
    }

    /// Each club's and each section's place in name order, for sorting by name without comparing
    /// strings: `(club_order[club id], section_order[section id])`.
    pub fn name_order(&self) -> (Vec<u32>, Vec<u32>) {
        fn order(names: &[Box<str>]) -> Vec<u32> {
            let mut idx: Vec<usize> = (0..names.len()).collect();
            idx.sort_by(|&a, &b| names[a].cmp(&names[b]));
            let mut place = vec![0u32; names.len()];
            for (p, i) in idx.into_iter().enumerate() {
                place[i] = p as u32;
            }
            place
        }
        (order(&self.clubs.names), order(&self.sections.names))
    }

    /// Compares two pairs by club name, section name, then number (the order tables list them in).
    pub fn compare_pairs(
        &self,
        order: &(Vec<u32>, Vec<u32>),
        a: PairId,
        b: PairId,
    ) -> std::cmp::Ordering {
        let (pa, pb) = (&self.pairs[a as usize], &self.pairs[b as usize]);
        order.0[pa.club as usize]
            .cmp(&order.0[pb.club as usize])
            .then(order.1[pa.section as usize].cmp(&order.1[pb.section as usize]))
            .then_with(|| pa.label.cmp(&pb.label))
            .then(pa.direction.cmp(&pb.direction))
    }

    /// Compares two pairs as [`Field::compare_pairs`] does, reading their club and section names
    /// themselves: for a few comparisons, cheaper than putting every name in order first.
    pub(crate) fn compare_pairs_by_name(&self, a: PairId, b: PairId) -> std::cmp::Ordering {
        let (pa, pb) = (&self.pairs[a as usize], &self.pairs[b as usize]);
        self.clubs.names[pa.club as usize]
            .cmp(&self.clubs.names[pb.club as usize])
            .then_with(|| {
                self.sections.names[pa.section as usize]
                    .cmp(&self.sections.names[pb.section as usize])
            })
            .then_with(|| pa.label.cmp(&pb.label))
            .then(pa.direction.cmp(&pb.direction))
    }

    /// The club and label of a fouled-board group.
    pub fn group_name(&self, group: GroupId) -> (ClubId, &str) {
        let (club, label) = &self.groups[group as usize];
        (*club, label)
    }

    /// The result in row `row` (0-based, in the order added).
    pub fn result(&self, row: usize) -> TableResult {
        let score = self.scores[row];
        let (outcome, arrow_switch, group) = if score == SPECIAL_SCORE {
            let special = self.special(row as u32);
            (special.outcome, special.arrow_switch, special.group)
        } else {
            (Outcome::Played(score.into()), false, None)
        };
        TableResult {
            board: self.boards[row],
            ns: self.ns[row],
            ew: self.ew[row],
            outcome,
            arrow_switch,
            group,
        }
    }

    pub(crate) fn special(&self, row: u32) -> &Special {
        let at = self
            .specials
            .binary_search_by_key(&row, |(r, _)| *r)
            .expect("every special row has its details");
        &self.specials[at].1
    }

    /// A new field holding only the given rows (for example one club's own results).
    pub fn subset(&self, rows: &[usize]) -> Field {
        let mut out = Field::new();
        out.reserve(rows.len());
        let mut pair_map: FxHashMap<PairId, PairId> = FxHashMap::default();
        for &row in rows {
            let mut result = self.result(row);
            for id in [&mut result.ns, &mut result.ew] {
                let old = *id;
                *id = *pair_map.entry(old).or_insert_with(|| {
                    let p = &self.pairs[old as usize];
                    let club = out.club(self.club_name(p.club));
                    let section = out.section(self.section_name(p.section));
                    out.pair(Pair {
                        club,
                        section,
                        label: p.label.clone(),
                        direction: p.direction,
                    })
                });
            }
            result.group = result.group.map(|g| {
                let (club, label) = self.group_name(g);
                let club = out.club(self.club_name(club));
                out.group(club, label)
            });
            out.push(result)
                .expect("a row of a valid field is valid in a subset");
            if let Some((ns, ew)) = self.imp_award(row) {
                out.award_imps(out.len() - 1, ns, ew)
                    .expect("an awarded row is an adjusted score in a subset too");
            }
        }
        out
    }

    /// The board number of a row.
    pub fn board_of(&self, row: usize) -> u16 {
        self.boards[row]
    }

    /// Rows grouped by board (boards ascending, rows in input order within a board), by counting sort.
    pub fn rows_by_board(&self) -> BoardRows {
        let mut counts = vec![0usize; 1 << 16];
        for &b in &self.boards {
            counts[b as usize] += 1;
        }
        let mut boards = Vec::new();
        let mut starts = vec![0usize];
        let mut next = vec![0usize; 1 << 16];
        let mut at = 0;
        for (b, &c) in counts.iter().enumerate() {
            if c > 0 {
                boards.push(b as u16);
                next[b] = at;
                at += c;
                starts.push(at);
            }
        }
        let mut rows = vec![0u32; self.boards.len()];
        for (row, &b) in self.boards.iter().enumerate() {
            rows[next[b as usize]] = row as u32;
            next[b as usize] += 1;
        }
        BoardRows {
            boards,
            starts,
            rows,
        }
    }

    /// Finds tables entered twice: a pair plays each board once. Returns (first row, repeated row) for
    /// every row naming a pair already seen on the same board.
    pub fn duplicate_rows(&self) -> Vec<(usize, usize)> {
        if !self.may_repeat_a_board() {
            return Vec::new();
        }
        let by_board = self.rows_by_board();
        // For each pair, the board (index + 1) it was last seen on and the row.
        let mut seen_on = crate::zeroed::written::<u32>(self.pairs.len());
        let mut seen_row = crate::zeroed::written::<u32>(self.pairs.len());
        let mut duplicates = Vec::new();
        for (i, rows) in by_board.iter().enumerate() {
            let stamp = i as u32 + 1;
            for &row in rows {
                let mut clash = None;
                for pair in [self.ns[row as usize], self.ew[row as usize]] {
                    let p = pair as usize;
                    if seen_on[p] == stamp {
                        clash.get_or_insert(seen_row[p] as usize);
                    } else {
                        seen_on[p] = stamp;
                        seen_row[p] = row;
                    }
                }
                if let Some(first) = clash {
                    duplicates.push((first, row as usize));
                }
            }
        }
        duplicates.sort_unstable();
        duplicates
    }

    /// Whether a pair may have played a board twice, found with one bit per board (1 to 64) for
    /// each pair: the rows are split between threads, and then each part's bits are laid over the
    /// parts' before it. Always `true` with a board above 64, which only the exact search checks.
    fn may_repeat_a_board(&self) -> bool {
        use rayon::prelude::*;
        if !self.boards.iter().all(|&b| (1..=64).contains(&b)) {
            return true;
        }
        let parts = rayon::current_num_threads().clamp(1, 4);
        let per = self.len().div_ceil(parts).max(1);
        // A part's bits, or `None` when a pair repeats a board inside the part.
        let bits = |k: usize| -> Option<Vec<u64>> {
            let rows = (k * per).min(self.len())..((k + 1) * per).min(self.len());
            let mut bits = crate::zeroed::written::<u64>(self.pairs.len());
            let columns = self.boards[rows.clone()].iter().zip(&self.ns[rows.clone()]);
            for ((&board, &ns), &ew) in columns.zip(&self.ew[rows]) {
                let bit = 1u64 << (board - 1);
                for pair in [ns, ew] {
                    let b = &mut bits[pair as usize];
                    if *b & bit != 0 {
                        return None;
                    }
                    *b |= bit;
                }
            }
            Some(bits)
        };
        let Some(mut parts) = (0..parts)
            .into_par_iter()
            .map(bits)
            .collect::<Option<Vec<_>>>()
        else {
            return true;
        };
        let mut seen = parts.swap_remove(0);
        parts.iter().any(|part| {
            seen.iter_mut().zip(part).any(|(s, &p)| {
                let repeated = *s & p != 0;
                *s |= p;
                repeated
            })
        })
    }

    /// A short description of a pair for messages and tables: `club / section / 3 NS`.
    pub fn describe_pair(&self, id: PairId) -> String {
        let p = &self.pairs[id as usize];
        let mut out = String::new();
        let club = self.club_name(p.club);
        let section = self.section_name(p.section);
        if !club.is_empty() {
            out.push_str(club);
            out.push_str(" / ");
        }
        if !section.is_empty() {
            out.push_str(section);
            out.push_str(" / ");
        }
        out.push_str(&p.label.to_string());
        if let Some(d) = p.direction {
            out.push(' ');
            out.push_str(d.as_str());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(field: &mut Field, club: &str, n: &str, d: Option<Direction>) -> PairId {
        let club = field.club(club);
        let section = field.section("");
        field.pair(Pair {
            club,
            section,
            label: PairLabel::new(n),
            direction: d,
        })
    }

    /// Whether `field`'s column of directions is its pairs' own, pair by pair.
    fn directions_agree(field: &Field) -> bool {
        let own: Vec<Option<Direction>> = field.pairs().iter().map(|p| p.direction).collect();
        field.pair_directions() == own.as_slice()
    }

    #[test]
    fn the_column_of_directions_follows_the_pairs_however_they_are_added() {
        let part = |club: &str| {
            let mut f = Field::new();
            let (c, s) = (f.club(club), f.section("A"));
            for (n, d) in [
                (1, Some(Direction::NS)),
                (2, Some(Direction::EW)),
                (3, None),
            ] {
                f.pair_numbered(c, s, n, d);
            }
            pair(&mut f, club, "7X", Some(Direction::EW));
            pair(&mut f, club, "8Y", None);
            f
        };
        let first = part("North");
        assert!(directions_agree(&first));
        // Joined: the first part's pairs taken whole, the others' added one by one.
        let joined = Field::concat(vec![part("North"), part("South"), part("North")]);
        assert_eq!(joined.pairs().len(), 10);
        assert!(directions_agree(&joined));
    }

    #[test]
    fn labels_keep_numbers_compact_and_text_literal() {
        assert_eq!(PairLabel::new(" 12 "), PairLabel::Number(12));
        assert_eq!(PairLabel::new("012"), PairLabel::Text("012".into()));
        assert_eq!(PairLabel::new("12A").to_string(), "12A");
    }

    #[test]
    fn pairs_compare_by_name_as_with_the_names_put_in_order() {
        // Clubs and sections made in an order other than their names'.
        let mut f = Field::new();
        let mut ids = Vec::new();
        for club in ["Zeta", "Alpha", "Mid"] {
            for section in ["B", "A"] {
                for label in ["2", "10", "1A"] {
                    for d in [Some(Direction::NS), Some(Direction::EW), None] {
                        let (club, section) = (f.club(club), f.section(section));
                        ids.push(f.pair(Pair {
                            club,
                            section,
                            label: PairLabel::new(label),
                            direction: d,
                        }));
                    }
                }
            }
        }
        let order = f.name_order();
        for &a in &ids {
            for &b in &ids {
                assert_eq!(
                    f.compare_pairs_by_name(a, b),
                    f.compare_pairs(&order, a, b),
                    "{:?} {:?}",
                    f.pairs()[a as usize],
                    f.pairs()[b as usize]
                );
            }
        }
        // The first club made sorts last.
        assert_eq!(
            f.compare_pairs_by_name(ids[0], ids[ids.len() - 1]),
            std::cmp::Ordering::Greater
        );
    }

    #[test]
    fn append_remaps_everything() {
        let mut a = Field::new();
        let a1 = pair(&mut a, "X", "1", Some(Direction::NS));
        let a2 = pair(&mut a, "X", "1", Some(Direction::EW));
        a.push_played(1, a1, a2, 420);
        let mut b = Field::new();
        let b0 = pair(&mut b, "Y", "7", Some(Direction::NS));
        let b1 = pair(&mut b, "X", "1", Some(Direction::EW));
        let g = {
            let club = b.club("Y");
            b.group(club, "F")
        };
        b.push(TableResult {
            board: 2,
            ns: b0,
            ew: b1,
            outcome: Outcome::Adjusted {
                ns_percent: 60,
                ew_percent: 40,
            },
            arrow_switch: false,
            group: Some(g),
        })
        .unwrap();
        a.append(&b);
        assert_eq!(a.len(), 2);
        assert_eq!(a.pairs().len(), 3);
        let r = a.result(1);
        assert_eq!(r.ew, a2, "X 1 EW is the same pair in both parts");
        assert_eq!(a.describe_pair(r.ns), "Y / 7 NS");
        assert_eq!(a.group_name(r.group.unwrap()).1, "F");
    }

    /// A field of clubs taking turns row by row, some rows adjusted; the rows of `clubs` only.
    fn turns(clubs: &[&str]) -> Field {
        let mut f = Field::new();
        for (i, club) in ["X", "Y", "Z"].iter().cycle().take(30).enumerate() {
            if !clubs.contains(club) {
                continue;
            }
            let n = (i % 4 + 1).to_string();
            let ns = pair(&mut f, club, &n, Some(Direction::NS));
            let ew = pair(&mut f, club, &n, Some(Direction::EW));
            let board = (i / 3 + 1) as u16 + if *club == "Y" { 20 } else { 0 };
            let outcome = match i % 5 {
                0 => Outcome::Adjusted {
                    ns_percent: 60,
                    ew_percent: 40,
                },
                _ => Outcome::Played(10 * i as i32),
            };
            f.push(TableResult {
                board,
                ns,
                ew,
                outcome,
                arrow_switch: i % 7 == 0,
                group: None,
            })
            .unwrap();
        }
        f
    }

    fn rows(f: &Field) -> Vec<(String, TableResult)> {
        (0..f.len())
            .map(|row| {
                let mut r = f.result(row);
                let name = format!("{} | {}", f.describe_pair(r.ns), f.describe_pair(r.ew));
                (r.ns, r.ew) = (0, 0);
                (name, r)
            })
            .collect()
    }

    #[test]
    fn a_clubs_rows_are_taken_out_and_the_rest_kept_in_order() {
        let mut f = turns(&["X", "Y", "Z"]);
        let lineage = f.lineage.id();
        f.remove_club_rows(&["Y", "W"]);
        assert_eq!(rows(&f), rows(&turns(&["X", "Z"])));
        assert_eq!(f.max_board, turns(&["X", "Z"]).max_board);
        assert!(f.max_board < 20, "Y's boards went with its rows");
        assert_ne!(f.lineage.id(), lineage, "rows were not only appended");
        assert!(
            f.has_pairs_without_rows(&["Y"]),
            "Y's pairs stay, with no rows"
        );
        assert!(!f.has_pairs_without_rows(&["X", "Z", "W"]));
        // Appended again, Y's rows come after the others', on its pairs of before.
        let pairs = f.pairs().len();
        f.append(&turns(&["Y"]));
        assert_eq!(f.pairs().len(), pairs);
        assert!(!f.has_pairs_without_rows(&["X", "Y", "Z"]));
        let mut expected = rows(&turns(&["X", "Z"]));
        expected.extend(rows(&turns(&["Y"])));
        assert_eq!(rows(&f), expected);
        // No club named: nothing changes.
        let before = rows(&f);
        f.remove_club_rows(&["W"]);
        assert_eq!(rows(&f), before);
    }

    #[test]
    fn duplicates_are_found() {
        let mut f = Field::new();
        let ns = pair(&mut f, "", "1", Some(Direction::NS));
        let ew = pair(&mut f, "", "1", Some(Direction::EW));
        let ew2 = pair(&mut f, "", "2", Some(Direction::EW));
        f.push_played(1, ns, ew, 100);
        f.push_played(2, ns, ew, 100);
        f.push_played(1, ns, ew2, 100);
        assert_eq!(f.duplicate_rows(), vec![(0, 2)]);
    }

    proptest::proptest! {
        /// The duplicates found are those a row-by-row search finds, with boards up to 64 (the
        /// quick check split between threads) and above.
        #[test]
        fn duplicates_are_those_a_plain_search_finds(
            rows in proptest::collection::vec((1u16..6, 0u32..5, 0u32..5), 0..60),
            high in proptest::bool::ANY,
        ) {
            let mut f = Field::new();
            let ns: Vec<PairId> = (0..5).map(|n| pair(&mut f, "", &(n + 1).to_string(), Some(Direction::NS))).collect();
            let ew: Vec<PairId> = (0..5).map(|n| pair(&mut f, "", &(n + 1).to_string(), Some(Direction::EW))).collect();
            for &(board, n, e) in &rows {
                f.push_played(if high { board + 64 } else { board }, ns[n as usize], ew[e as usize], 100);
            }
            let mut want = Vec::new();
            for (j, &(board, n, e)) in rows.iter().enumerate() {
                let first = |named: &dyn Fn(&(u16, u32, u32)) -> bool| {
                    rows[..j].iter().position(|r| r.0 == board && named(r))
                };
                if let Some(i) = first(&|r| r.1 == n).or_else(|| first(&|r| r.2 == e)) {
                    want.push((i, j));
                }
            }
            want.sort_unstable();
            proptest::prop_assert_eq!(f.duplicate_rows(), want);
        }
    }

    #[test]
    fn numbered_pairs_are_found_however_they_were_stored() {
        // Numbers close together go into a unit's table, a far one into the hash index; a number the
        // table grows to cover after it was hashed is still the same pair.
        let mut f = Field::new();
        let ns = Some(Direction::NS);
        let mut ids = Vec::new();
        for n in ["5", "6", "900000", "7", "3", "400", "1048577", "2000"] {
            ids.push(pair(&mut f, "C", n, ns));
        }
        assert_eq!(
            ids,
            (0..8).collect::<Vec<PairId>>(),
            "every number is a new pair"
        );
        for _ in 0..2 {
            for (k, n) in ["5", "6", "900000", "7", "3", "400", "1048577", "2000"]
                .iter()
                .enumerate()
            {
                assert_eq!(pair(&mut f, "C", n, ns), k as PairId, "pair {n} again");
                let club = f.find_club("C").unwrap();
                let section = f.section("");
                let found = f.find_pair(&Pair {
                    club,
                    section,
                    label: PairLabel::new(n),
                    direction: ns,
                });
                assert_eq!(found, Some(k as PairId), "find pair {n}");
            }
        }
        // Fill the gap up to 2000 one by one: the table must cover 400..2000 at some point.
        for n in 401..2000u32 {
            pair(&mut f, "C", &n.to_string(), ns);
        }
        assert_eq!(pair(&mut f, "C", "2000", ns), 7);
        assert_eq!(pair(&mut f, "C", "400", ns), 5);
        // The same number in another direction, club or section is another pair.
        assert_ne!(pair(&mut f, "C", "5", Some(Direction::EW)), 0);
        assert_ne!(pair(&mut f, "D", "5", ns), 0);
        let (club, section) = (f.find_club("C").unwrap(), f.section(""));
        let eight = Pair {
            club,
            section,
            label: PairLabel::Number(8),
            direction: ns,
        };
        assert_eq!(f.find_pair(&eight), None);
    }

    /// A field of `tables` tables on each of `boards` boards, the scores of each board taken in
    /// turn from `scores`, every other one through [`Field::push`] rather than `push_played`.
    fn field_scoring(scores: &[i32], boards: u16, tables: u32) -> Field {
        let mut f = Field::new();
        let ns: Vec<PairId> = (1..=tables)
            .map(|t| pair(&mut f, "X", &t.to_string(), Some(Direction::NS)))
            .collect();
        let ew: Vec<PairId> = (1..=tables)
            .map(|t| pair(&mut f, "X", &t.to_string(), Some(Direction::EW)))
            .collect();
        for board in 1..=boards {
            for t in 0..tables as usize {
                let score = scores[(t + usize::from(board)) % scores.len()];
                let (ns, ew) = (ns[t], ew[(t + usize::from(board)) % ew.len()]);
                if t % 2 == 0 {
                    f.push_played(board, ns, ew, score);
                } else {
                    f.push(TableResult {
                        board,
                        ns,
                        ew,
                        outcome: Outcome::Played(score),
                        arrow_switch: false,
                        group: None,
                    })
                    .unwrap();
                }
            }
        }
        f
    }

    #[test]
    fn scores_too_wide_for_the_column_score_in_their_order() {
        // Matchpoints depend only on the scores' order: scores that do not fit in 16 bits (kept as
        // specials) score as scores in the same order that do. Both the way of a club's field and
        // that of a large one.
        let wide = [
            40_000,
            420,
            -40_000,
            i32::MIN,
            420,
            i32::MAX,
            -32_768,
            7_600,
        ];
        let narrow = [980, 420, -7_400, -7_600, 420, 2_980, -1_100, 880];
        for (boards, tables) in [(2, 8), (40, 500)] {
            let (a, b) = (
                field_scoring(&wide, boards, tables),
                field_scoring(&narrow, boards, tables),
            );
            for row in 0..a.len() {
                let (board, table) = (row / tables as usize + 1, row % tables as usize);
                let given = wide[(table + board) % wide.len()];
                assert_eq!(
                    a.result(row).outcome,
                    Outcome::Played(given),
                    "row {row} as given"
                );
            }
            let options = crate::Options::default();
            let (sa, sb) = (
                crate::score(&a, &options).unwrap(),
                crate::score(&b, &options).unwrap(),
            );
            for row in 0..a.len() {
                assert_eq!(sa.result_values(row), sb.result_values(row), "row {row}");
            }
            assert_eq!(sa.standings(), sb.standings());
        }
    }
}
