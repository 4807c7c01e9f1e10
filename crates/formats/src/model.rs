//! The types a result file is read into, whatever its format: the [`Imported`] file with its event,
//! players, deals, traveller details and official numbers. The readers fill them and
//! [`crate::import`] dispatches to the readers, so they live here, apart from both.

use std::borrow::Cow;
use std::fmt;

use simpairs_scoring::field::Movement;
use simpairs_scoring::{Direction, Field, Method, PairId, Seat, Value, Vulnerability};

use crate::lines::Lines;

pub use crate::row::NotPlayed;

/// The file formats simpairs reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// The traveller CSV (docs/rules-input.md).
    Csv,
    /// USEBIO 1.2 / 1.3 XML, the EBU's results-exchange standard (Compscore, Scorer's converter, ...).
    Usebio,
    /// The session XML of NZ Bridge's club program "Scorer" (`<session>` root).
    Scorer,
    /// Portable Bridge Notation 2.1 with `[ScoreTable]` travellers.
    Pbn,
    /// The traveller-entry CSV of R. Hillyard's `Bridge` director program (`P,ns,ew` blocks).
    HillyardCsv,
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; 5] = [
        Format::Usebio,
        Format::Scorer,
        Format::Pbn,
        Format::Csv,
        Format::HillyardCsv,
    ];

    /// The name used on the command line (`--format usebio`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Usebio => "usebio",
            Format::Scorer => "scorer",
            Format::Pbn => "pbn",
            Format::HillyardCsv => "hillyard-csv",
        }
    }

    /// The format named `name` on the command line.
    pub fn from_name(name: &str) -> Option<Format> {
        let n = name.trim().to_ascii_lowercase();
        Format::ALL.into_iter().find(|f| f.name() == n)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a file says about its event. Every item is as written in the file, `None` when absent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventInfo {
    /// Version of the format, such as USEBIO `1.2` or PBN `2.1`.
    pub format_version: Option<String>,
    pub club_name: Option<String>,
    /// The club's number with its national organisation.
    pub club_id: Option<String>,
    /// The scoring program's identifier of the event.
    pub event_id: Option<String>,
    /// The event's name (USEBIO `EVENT_DESCRIPTION`, PBN `[Event]`, Scorer `event_name`).
    pub name: Option<String>,
    pub title: Option<String>,
    /// The date as written (`21/07/2022`, `2016.01.20`).
    pub date: Option<String>,
    /// Time of day (Scorer `event_time`, such as `Afternoon`).
    pub time: Option<String>,
    pub venue: Option<String>,
    /// The program that wrote the file.
    pub program: Option<String>,
    pub program_version: Option<String>,
    /// The event type as written: USEBIO `MP_PAIRS` / `BUTLER_PAIRS`, Scorer and PBN `MP`.
    pub event_type: Option<String>,
    /// How the file says the event is scored, read from the event type (and scoring method).
    pub method: Option<Method>,
    /// The method the file names when simpairs cannot score it (aggregate, board-a-match, Swiss
    /// pairs, ...), in words; `method` is then `None`. Scoring such a file needs another method chosen.
    pub unscorable_method: Option<String>,
    /// USEBIO `WINNER_TYPE`: 1 winner (Howell-style numbering) or 2 (Mitchell: NS and EW winners).
    pub winner_type: Option<u8>,
    /// The movement the reader decided on (from the winner type, pair numbers or directions).
    pub movement: Option<Movement>,
    /// The sections of the file, in order, with what the file says about each.
    pub sections: Vec<SectionInfo>,
    /// Who scored the event (USEBIO `CONTACT`).
    pub scorer: Option<String>,
    /// The names of a field's clubs where the field knows them by another label: a national
    /// event's clubs are known by their ids. By label; written and read as each USEBIO section's
    /// `CLUB_NAME` beside its `CLUB_ID_NUMBER` (the label).
    pub club_names: std::collections::BTreeMap<String, String>,
}

/// One section (or room) of an event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SectionInfo {
    /// The section's name as the field knows it (empty for files without sections).
    pub name: String,
    /// Number of tables, when the file says.
    pub tables: Option<u32>,
    /// The section is scored with handicaps (Scorer `handicap="true"`).
    pub handicapped: bool,
}

/// One player of a pair.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Player {
    pub name: String,
    /// The player's number with the national organisation.
    pub national_id: Option<String>,
    /// The player's home club number.
    pub club_id: Option<String>,
}

/// What a file says about one pair besides its results.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairInfo {
    pub club: String,
    pub section: String,
    /// The pair's number as the field knows it (`1`, not `1NS`).
    pub label: String,
    /// `Some` for Mitchell pairs, `None` for Howell pairs.
    pub direction: Option<Direction>,
    pub players: Vec<Player>,
}

impl PairInfo {
    /// The players' names joined with ` & `.
    pub fn names(&self) -> String {
        self.players
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(" & ")
    }
}

/// One hand: the cards of each suit, highest first, `T` for the ten (`AKJ3`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hand {
    pub spades: String,
    pub hearts: String,
    pub diamonds: String,
    pub clubs: String,
}

impl Hand {
    /// The hand in PBN notation: `spades.hearts.diamonds.clubs`.
    pub fn to_pbn(&self) -> String {
        format!(
            "{}.{}.{}.{}",
            self.spades, self.hearts, self.diamonds, self.clubs
        )
    }

    /// Number of cards.
    pub fn len(&self) -> usize {
        self.spades.len() + self.hearts.len() + self.diamonds.len() + self.clubs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Parses one suit's cards, accepting `10` for the ten and any case; returns them highest first.
    pub(crate) fn parse_suit(text: &str) -> std::result::Result<String, String> {
        const ORDER: &str = "AKQJT98765432";
        let upper = text.trim().to_ascii_uppercase().replace("10", "T");
        if upper == "-" {
            return Ok(String::new());
        }
        let mut seen = [false; 13];
        for c in upper.chars() {
            match ORDER.find(c) {
                Some(i) if !seen[i] => seen[i] = true,
                Some(_) => return Err(format!("the card {c} appears twice in {text:?}")),
                None => return Err(format!("{c:?} is not a card: expected A K Q J T 9 ... 2")),
            }
        }
        Ok(ORDER
            .chars()
            .zip(seen)
            .filter_map(|(c, s)| s.then_some(c))
            .collect())
    }
}

/// The deal of a board: its hand record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deal {
    pub board: u16,
    /// The dealer when the file says; otherwise the standard dealer of the board number applies.
    pub dealer: Option<Seat>,
    /// The vulnerability when the file says; otherwise the standard one of the board number applies.
    pub vulnerability: Option<Vulnerability>,
    /// North, East, South and West's hands; `None` where the file does not give a hand.
    pub hands: [Option<Hand>; 4],
}

impl Deal {
    /// The seats in the order of [`Deal::hands`].
    pub const SEATS: [Seat; 4] = [Seat::North, Seat::East, Seat::South, Seat::West];

    /// The deal in PBN `[Deal]` notation, from North: `N:AK.QJ.T9.8765 ...` (`-` for a missing hand).
    pub fn to_pbn(&self) -> String {
        let hands: Vec<String> = self
            .hands
            .iter()
            .map(|h| h.as_ref().map_or_else(|| "-".to_string(), Hand::to_pbn))
            .collect();
        format!("N:{}", hands.join(" "))
    }

    /// The vulnerability: as the file says, else the standard one of the board number.
    pub fn vulnerability_or_standard(&self) -> Vulnerability {
        self.vulnerability
            .unwrap_or_else(|| Vulnerability::of_board(u32::from(self.board)))
    }
}

/// Checks a deal: no hand holds more than 13 cards or a card twice, and a full deal deals every card
/// once.
pub(crate) fn check_deal(deal: &Deal) -> std::result::Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    let mut full = 0;
    for (hand, seat) in deal.hands.iter().zip(Deal::SEATS) {
        let Some(hand) = hand else { continue };
        if hand.len() > 13 {
            return Err(format!(
                "board {}: {seat}'s hand has {} cards",
                deal.board,
                hand.len()
            ));
        }
        full += usize::from(hand.len() == 13);
        for (suit, cards) in ["S", "H", "D", "C"].iter().zip([
            &hand.spades,
            &hand.hearts,
            &hand.diamonds,
            &hand.clubs,
        ]) {
            for card in cards.chars() {
                if !seen.insert((*suit, card)) {
                    return Err(format!(
                        "board {}: the card {card}{suit} is dealt twice",
                        deal.board
                    ));
                }
            }
        }
    }
    if full < 4
        && deal.hands.iter().all(Option::is_some)
        && deal.hands.iter().flatten().any(|h| !h.is_empty())
    {
        return Err(format!(
            "board {}: a full deal has 13 cards in each hand",
            deal.board
        ));
    }
    Ok(())
}

/// What was written on one traveller line beyond its score.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineDetails {
    /// The contract in canonical form (`4HX`, `3NT`, `PASS`), or as written when it is not one.
    pub contract: Option<String>,
    pub declarer: Option<Seat>,
    /// Tricks taken by declarer.
    pub tricks: Option<u8>,
    /// The opening lead as written (`AH`, `CT`, `5S`).
    pub lead: Option<String>,
    pub table: Option<u32>,
    pub round: Option<u32>,
}

impl LineDetails {
    pub fn is_empty(&self) -> bool {
        self == &LineDetails::default()
    }

    /// The contract, its result and its declarer in bridge notation: `4S+1 N`, `3NTX-2 E`, `2H= S`,
    /// `PASS`; a contract that is not one as written. `None` without a contract.
    pub(crate) fn notation(&self) -> Option<String> {
        let text = self.contract.as_deref()?;
        let Ok(contract) = text.parse::<simpairs_scoring::Contract>() else {
            return Some(text.to_string());
        };
        let played = crate::row::result_notation(contract, None, self.tricks);
        Some(match self.declarer {
            Some(d) if contract != simpairs_scoring::Contract::PassedOut => format!("{played} {d}"),
            _ => played,
        })
    }
}

/// The official values of one traveller line, as the file's program computed them (matchpoints on
/// the scale the file uses, Butler or cross-IMPs), exactly as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OfficialLine {
    pub ns: Option<Value>,
    pub ew: Option<Value>,
}

/// A place in a ranking list, as written: `3` or `3=` (tied).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub rank: u32,
    /// The file marks the place as shared (`3=`). Many programs print shared places without `=`.
    pub tied: bool,
}

impl Place {
    /// Parses `3`, `3=`, `=3` or `3 =`.
    pub fn parse(text: &str) -> Option<Place> {
        let t = text.trim();
        let tied = t.contains('=');
        let digits = t.replace('=', "");
        let rank = digits.trim().parse().ok()?;
        Some(Place { rank, tied })
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank, if self.tied { "=" } else { "" })
    }
}

/// The official result of one pair, exactly as written in the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OfficialPair {
    /// Total matchpoints or IMPs (USEBIO `TOTAL_SCORE`: some programs write the percentage here).
    pub total: Option<Value>,
    /// The most the pair could have scored (Scorer `match_points="374/624"`).
    pub max: Option<Value>,
    /// Percentage without handicap.
    pub percent: Option<Value>,
    pub place: Option<Place>,
    pub boards: Option<u32>,
    /// The handicap (Scorer), in percentage points as written.
    pub handicap: Option<Value>,
    /// The percentage after the handicap (Scorer `res` in a handicapped section).
    pub handicapped_percent: Option<Value>,
    /// Master points awarded, as written.
    pub master_points: Option<String>,
}

/// The official numbers of the file's own scoring, kept to compare with simpairs' and to show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Official {
    /// (row of the field, values), in row order; only rows with values.
    pub lines: Vec<(u32, OfficialLine)>,
    /// (pair id, result), in pair order; only pairs the file gives a result for.
    pub pairs: Vec<(PairId, OfficialPair)>,
    /// (board, Butler datum) as written (USEBIO `BOARD_AVERAGE`), in board order.
    pub datums: Vec<(u16, i32)>,
}

impl Official {
    /// The official values of a row, if the file has them.
    pub fn line(&self, row: usize) -> Option<&OfficialLine> {
        let at = self
            .lines
            .binary_search_by_key(&(row as u32), |(r, _)| *r)
            .ok()?;
        Some(&self.lines[at].1)
    }

    /// The official result of a pair, if the file has it.
    pub fn pair(&self, pair: PairId) -> Option<&OfficialPair> {
        let at = self.pairs.binary_search_by_key(&pair, |(p, _)| *p).ok()?;
        Some(&self.pairs[at].1)
    }

    /// The official Butler datum of a board.
    pub fn datum(&self, board: u16) -> Option<i32> {
        let at = self.datums.binary_search_by_key(&board, |(b, _)| *b).ok()?;
        Some(self.datums[at].1)
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.pairs.is_empty() && self.datums.is_empty()
    }
}

/// A file read: the field to score and everything else the file carries.
#[derive(Debug)]
pub struct Imported {
    pub format: Format,
    /// Every result of the file, ready for [`simpairs_scoring::score`].
    pub field: Field,
    /// The source line of each result of `field`.
    pub lines: Lines,
    /// Traveller lines that record no result (not played, sit-outs, phantom tables).
    pub not_played: usize,
    /// The tables those lines name (both pair numbers given), in file order: a correction that
    /// marks a table not played takes its earlier result out.
    pub not_played_tables: Vec<NotPlayed>,
    pub event: EventInfo,
    /// Names and numbers of each pair of the field, indexed by [`PairId`]; empty when the file names
    /// nobody (a score-only CSV), so that national-sized fields cost nothing here. See
    /// [`Imported::pair_info`].
    pub pairs: Vec<PairInfo>,
    /// Pairs the file lists that have no result in it (kept so that nothing the file says is lost).
    pub absent_pairs: Vec<PairInfo>,
    /// The hand records, in board order.
    pub deals: Vec<Deal>,
    /// (row, details) of the rows that have any, in row order.
    pub details: Vec<(u32, LineDetails)>,
    pub official: Official,
    /// What the file's accepted lines say that a scorer should look at (a recorded score that
    /// disagrees with its contract, an assigned score no contract makes), sorted by line.
    pub warnings: Vec<crate::Problem>,
}

impl Imported {
    /// An import of a bare field, without anything else.
    pub fn bare(format: Format, field: Field, lines: Lines, not_played: usize) -> Imported {
        Imported {
            format,
            field,
            lines,
            not_played,
            not_played_tables: Vec::new(),
            event: EventInfo::default(),
            pairs: Vec::new(),
            absent_pairs: Vec::new(),
            deals: Vec::new(),
            details: Vec::new(),
            official: Official::default(),
            warnings: Vec::new(),
        }
    }

    /// What the file says about a pair: its names and numbers (no players when the file names nobody).
    pub(crate) fn pair_info(&self, pair: PairId) -> Cow<'_, PairInfo> {
        match self.pairs.get(pair as usize) {
            Some(info) => Cow::Borrowed(info),
            None => {
                let p = &self.field.pairs()[pair as usize];
                Cow::Owned(PairInfo {
                    club: self.field.club_name(p.club).to_string(),
                    section: self.field.section_name(p.section).to_string(),
                    label: p.label.to_string(),
                    direction: p.direction,
                    players: Vec::new(),
                })
            }
        }
    }

    /// The players of a pair, as the file names them (none when it does not).
    pub fn players(&self, pair: PairId) -> &[Player] {
        self.pairs.get(pair as usize).map_or(&[], |p| &p.players)
    }

    /// What was written on row `row` beyond its score.
    pub fn details(&self, row: usize) -> Option<&LineDetails> {
        let at = self
            .details
            .binary_search_by_key(&(row as u32), |(r, _)| *r)
            .ok()?;
        Some(&self.details[at].1)
    }

    /// The deal of a board.
    pub fn deal(&self, board: u16) -> Option<&Deal> {
        let at = self.deals.binary_search_by_key(&board, |d| d.board).ok()?;
        Some(&self.deals[at])
    }

    /// The method the file's event is scored by, if it says.
    pub fn method(&self) -> Option<Method> {
        self.event.method
    }
}

/// A [`PairInfo`] without players for every pair of a field, indexed by pair id.
pub(crate) fn pair_infos(field: &Field) -> Vec<PairInfo> {
    field
        .pairs()
        .iter()
        .map(|p| PairInfo {
            club: field.club_name(p.club).to_string(),
            section: field.section_name(p.section).to_string(),
            label: p.label.to_string(),
            direction: p.direction,
            players: Vec::new(),
        })
        .collect()
}
