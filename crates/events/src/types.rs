//! The records of every event, as plain Rust data.
//!
//! Each struct mirrors one Avro record of `schemas/*.avsc` field for field, with the
//! same names (the codec matches them by name): `Option<T>` for a `["null", T]` union,
//! `Vec<u8>` for `bytes`, and a unit-variant enum for an Avro enum (symbols in
//! `SCREAMING_SNAKE_CASE`). Struct names are the Avro record names.

use serde::{Deserialize, Serialize};

/// The short text fields of a result (section, pair numbers, contract, declarer, group, lead):
/// a string kept inline, without a heap allocation, up to 24 bytes, which covers every such
/// field a club writes. A national event carries millions of results with five or more of
/// these each; as `String`s they were a heap allocation apiece, most of the cost of
/// decoding and dropping a result. It derefs to `str` and converts from `&str` and `String`.
pub type Text = compact_str::CompactString;

/// How boards are scored (Avro enum `simpairs.Scoring`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Scoring {
    /// Matchpoints: each result against every other in its direction.
    Matchpoints,
    /// Butler IMPs: each result against the board's datum.
    Butler,
    /// Cross-IMPs: each result against every other, averaged.
    CrossImps,
}

/// How a board played fewer times is scaled up (Avro enum `simpairs.Factoring`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Factoring {
    /// Neuberg's formula, M = (X + 1) N / S - 1.
    Neuberg,
    /// The simple ratio N / S.
    Ratio,
}

/// How pair numbers are read (Avro enum `simpairs.Movement`). Not `non_exhaustive`: the
/// two kinds of movement are all the scoring rules know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Movement {
    /// NS and EW numbers are different pairs.
    Mitchell,
    /// A number is one pair whichever way it sits.
    Howell,
}

/// The direction a Mitchell pair sits (Avro enum `simpairs.Direction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Direction {
    /// North-South.
    Ns,
    /// East-West.
    Ew,
}

/// A club taking part in an event and the key it signs with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClubEntry {
    /// Identity of the club within the event.
    pub club_id: String,
    /// Name of the club.
    pub name: String,
    /// Identity of the signing key, quoted by each [`SubmissionSealed`].
    pub key_id: String,
    /// The club's shared HMAC-SHA256 key (a secret).
    #[serde(with = "apache_avro::serde::bytes")]
    pub hmac_key: Vec<u8>,
}

/// The organiser declared an event: boards, scoring and the clubs allowed to publish.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventDeclared {
    /// Identity of the event.
    pub event_id: String,
    /// Name shown on leaderboards.
    pub name: String,
    /// Board numbers played.
    pub boards: Vec<i32>,
    /// How boards are scored.
    pub scoring: Scoring,
    /// How boards played fewer times are factored up.
    pub factoring: Factoring,
    /// The clubs allowed to publish results.
    pub clubs: Vec<ClubEntry>,
    /// When it was declared (ms since the Unix epoch).
    pub declared_at_ms: i64,
}

/// An artificial adjusted score: a percentage of the top for each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Adjusted {
    /// Percentage of the top awarded to North-South.
    pub ns_percent: i32,
    /// Percentage of the top awarded to East-West.
    pub ew_percent: i32,
}

/// A club recorded the result of one board at one table (schema version 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRecorded {
    /// The event.
    pub event_id: String,
    /// The club that played the board.
    pub club_id: String,
    /// The submission this record is part of.
    pub submission_id: String,
    /// Position within the submission, from 0.
    pub sequence: i32,
    /// Section within the club.
    pub section: Text,
    /// Board number.
    pub board: i32,
    /// North-South pair.
    pub ns_pair: Text,
    /// East-West pair.
    pub ew_pair: Text,
    /// How pair numbers are read.
    pub movement: Movement,
    /// Contract as written (`3NT`, `4HX`, `PASS`).
    pub contract: Option<Text>,
    /// Declarer's seat, `N`, `E`, `S` or `W`.
    pub declarer: Option<Text>,
    /// Tricks taken by declarer.
    pub tricks: Option<i32>,
    /// Score to North-South.
    pub ns_score: Option<i32>,
    /// Score to East-West (a split score when not `-ns_score`).
    pub ew_score: Option<i32>,
    /// Artificial adjusted score.
    pub adjusted: Option<Adjusted>,
    /// The pairs played the other direction's cards.
    pub arrow_switch: bool,
    /// Fouled-board group.
    pub group: Option<Text>,
    /// Opening lead, informative.
    pub lead: Option<Text>,
    /// Table number, when known. Added in schema version 2: version 1 records read as `None`.
    pub table: Option<i32>,
}

/// One table's result in a [`ResultsRecorded`] batch: a [`ResultRecorded`] without the
/// fields the batch holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultLine {
    /// Section within the club.
    pub section: Text,
    /// North-South pair.
    pub ns_pair: Text,
    /// East-West pair.
    pub ew_pair: Text,
    /// How pair numbers are read.
    pub movement: Movement,
    /// Contract as written (`3NT`, `4HX`, `PASS`).
    pub contract: Option<Text>,
    /// Declarer's seat, `N`, `E`, `S` or `W`.
    pub declarer: Option<Text>,
    /// Tricks taken by declarer.
    pub tricks: Option<i32>,
    /// Score to North-South.
    pub ns_score: Option<i32>,
    /// Score to East-West (a split score when not `-ns_score`).
    pub ew_score: Option<i32>,
    /// Artificial adjusted score.
    pub adjusted: Option<Adjusted>,
    /// The pairs played the other direction's cards.
    pub arrow_switch: bool,
    /// Fouled-board group.
    pub group: Option<Text>,
    /// Opening lead, informative.
    pub lead: Option<Text>,
    /// Table number, when known.
    pub table: Option<i32>,
}

/// A club recorded several results of one board: the batched form of [`ResultRecorded`].
///
/// Line `i` stands for the `ResultRecorded` with the batch's `event_id`, `club_id`,
/// `submission_id` and `board`, sequence `first_sequence + i`, and the line's fields
/// ([`ResultsRecorded::records`]). A submission may mix both forms. A batch shares the
/// partition key of its results (`event_id/board`), so ordering per board is unchanged;
/// it saves repeating the identity fields and the message header per result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultsRecorded {
    /// The event.
    pub event_id: String,
    /// The club that played the board.
    pub club_id: String,
    /// The submission these records are part of.
    pub submission_id: String,
    /// Board number of every line.
    pub board: i32,
    /// Sequence of the first line; line `i` has `first_sequence + i`.
    pub first_sequence: i32,
    /// The results, in sequence order.
    pub results: Vec<ResultLine>,
}

impl ResultsRecorded {
    /// The sequences the batch covers, `first_sequence..first_sequence + results.len()`
    /// (saturating at `i32::MAX`).
    pub fn sequences(&self) -> std::ops::Range<i32> {
        let len = i32::try_from(self.results.len()).unwrap_or(i32::MAX);
        self.first_sequence..self.first_sequence.saturating_add(len)
    }

    /// The batch as the individual records it stands for, in sequence order.
    pub fn records(&self) -> impl Iterator<Item = ResultRecorded> + '_ {
        self.sequences()
            .zip(&self.results)
            .map(|(sequence, line)| ResultRecorded {
                event_id: self.event_id.clone(),
                club_id: self.club_id.clone(),
                submission_id: self.submission_id.clone(),
                sequence,
                section: line.section.clone(),
                board: self.board,
                ns_pair: line.ns_pair.clone(),
                ew_pair: line.ew_pair.clone(),
                movement: line.movement,
                contract: line.contract.clone(),
                declarer: line.declarer.clone(),
                tricks: line.tricks,
                ns_score: line.ns_score,
                ew_score: line.ew_score,
                adjusted: line.adjusted,
                arrow_switch: line.arrow_switch,
                group: line.group.clone(),
                lead: line.lead.clone(),
                table: line.table,
            })
    }
}

/// A club withdrew a result it had recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultWithdrawn {
    /// The event.
    pub event_id: String,
    /// The club.
    pub club_id: String,
    /// The submission this record is part of.
    pub submission_id: String,
    /// Position within the submission, from 0.
    pub sequence: i32,
    /// Section of the withdrawn result.
    pub section: Text,
    /// Board of the withdrawn result.
    pub board: i32,
    /// North-South pair of the withdrawn result.
    pub ns_pair: Text,
    /// East-West pair of the withdrawn result.
    pub ew_pair: Text,
}

/// One player of a pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Name as the club wrote it.
    pub name: String,
    /// Membership number with the national organisation.
    pub national_id: Option<String>,
}

/// A club entered a pair in a section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairEntered {
    /// The event.
    pub event_id: String,
    /// The club.
    pub club_id: String,
    /// The submission this record is part of.
    pub submission_id: String,
    /// Position within the submission, from 0.
    pub sequence: i32,
    /// Section within the club.
    pub section: String,
    /// Pair number (or name).
    pub pair: String,
    /// `NS`/`EW` for a Mitchell pair, `None` for a Howell pair.
    pub direction: Option<Direction>,
    /// The players.
    pub players: Vec<Player>,
}

/// A club sealed a submission: count, digest and signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmissionSealed {
    /// The event.
    pub event_id: String,
    /// The club publishing.
    pub club_id: String,
    /// The submission sealed.
    pub submission_id: String,
    /// Number of records sealed (sequences `0..count`).
    pub count: i64,
    /// [`crate::submission_digest`] of the sealed records.
    #[serde(with = "apache_avro::serde::bytes")]
    pub digest: Vec<u8>,
    /// Which of the club's keys signed.
    pub key_id: String,
    /// [`crate::seal_signature`] of the seal.
    #[serde(with = "apache_avro::serde::bytes")]
    pub signature: Vec<u8>,
    /// When it was sealed (ms since the Unix epoch); not signed.
    pub sealed_at_ms: i64,
    /// What produced the submission; not signed.
    pub source: Option<String>,
}

/// A result accepted from a submission (a [`ResultRecorded`] without its identity fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedResult {
    /// Section within the club.
    pub section: Text,
    /// Board number.
    pub board: i32,
    /// North-South pair.
    pub ns_pair: Text,
    /// East-West pair.
    pub ew_pair: Text,
    /// How pair numbers are read.
    pub movement: Movement,
    /// Contract as written.
    pub contract: Option<Text>,
    /// Declarer's seat.
    pub declarer: Option<Text>,
    /// Tricks taken by declarer.
    pub tricks: Option<i32>,
    /// Score to North-South.
    pub ns_score: Option<i32>,
    /// Score to East-West.
    pub ew_score: Option<i32>,
    /// Artificial adjusted score.
    pub adjusted: Option<Adjusted>,
    /// Arrow-switched table.
    pub arrow_switch: bool,
    /// Fouled-board group.
    pub group: Option<Text>,
}

impl ResultLine {
    /// The line as the result a submission applies: with its batch's board, without the
    /// informative lead and table.
    pub fn into_applied(self, board: i32) -> AppliedResult {
        AppliedResult {
            section: self.section,
            board,
            ns_pair: self.ns_pair,
            ew_pair: self.ew_pair,
            movement: self.movement,
            contract: self.contract,
            declarer: self.declarer,
            tricks: self.tricks,
            ns_score: self.ns_score,
            ew_score: self.ew_score,
            adjusted: self.adjusted,
            arrow_switch: self.arrow_switch,
            group: self.group,
        }
    }
}

impl ResultRecorded {
    /// The result as a submission applies it: without its identity, lead and table.
    pub fn applied(&self) -> AppliedResult {
        AppliedResult {
            section: self.section.clone(),
            board: self.board,
            ns_pair: self.ns_pair.clone(),
            ew_pair: self.ew_pair.clone(),
            movement: self.movement,
            contract: self.contract.clone(),
            declarer: self.declarer.clone(),
            tricks: self.tricks,
            ns_score: self.ns_score,
            ew_score: self.ew_score,
            adjusted: self.adjusted,
            arrow_switch: self.arrow_switch,
            group: self.group.clone(),
        }
    }
}

/// The identity of a result within a club.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ResultKey {
    /// Section within the club.
    pub section: Text,
    /// Board number.
    pub board: i32,
    /// North-South pair.
    pub ns_pair: Text,
    /// East-West pair.
    pub ew_pair: Text,
}

/// A pair entry accepted from a submission (a [`PairEntered`] without its identity fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedPair {
    /// Section within the club.
    pub section: String,
    /// Pair number (or name).
    pub pair: String,
    /// `NS`/`EW` for a Mitchell pair, `None` for a Howell pair.
    pub direction: Option<Direction>,
    /// The players.
    pub players: Vec<Player>,
}

/// The aggregator accepted and applied a sealed submission.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmissionApplied {
    /// The event.
    pub event_id: String,
    /// The club.
    pub club_id: String,
    /// The submission applied.
    pub submission_id: String,
    /// Offset of its [`SubmissionSealed`] in the results stream.
    pub seal_offset: i64,
    /// Results recorded, in sequence order.
    pub results: Vec<AppliedResult>,
    /// Results withdrawn, in sequence order.
    pub withdrawn: Vec<ResultKey>,
    /// Pairs entered, in sequence order.
    pub pairs: Vec<AppliedPair>,
}

/// An exact rational number `num / den` (`den > 0`, lowest terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fraction {
    /// Numerator.
    pub num: i64,
    /// Denominator, positive.
    pub den: i64,
}

/// What every ordinary result with one NS score earned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableEntry {
    /// Score to North-South.
    pub ns_score: i32,
    /// Tables with this score.
    pub count: i32,
    /// Matchpoints or IMPs to North-South.
    pub ns_value: Fraction,
    /// Matchpoints or IMPs to East-West.
    pub ew_value: Fraction,
}

/// What a result outside the frequency table earned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecialValue {
    /// Club of the result.
    pub club_id: String,
    /// Which result within the club.
    pub key: ResultKey,
    /// Matchpoints or IMPs to North-South.
    pub ns_value: Fraction,
    /// Matchpoints or IMPs to East-West.
    pub ew_value: Fraction,
}

/// The aggregator scored one board over one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardScored {
    /// The event.
    pub event_id: String,
    /// `""` for the national field, otherwise a club_id.
    pub scope: String,
    /// Board number.
    pub board: i32,
    /// Rescoring generation.
    pub generation: i64,
    /// Results on the board in this field.
    pub results_count: i32,
    /// N of the factoring formulas.
    pub target: i32,
    /// Top on the double scale.
    pub top: Fraction,
    /// Butler datum.
    pub datum: Option<i32>,
    /// Frequency table by ascending NS score.
    pub table: Vec<TableEntry>,
    /// Results outside the table.
    pub specials: Vec<SpecialValue>,
}

/// One pair's place in a field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairStanding {
    /// The pair's club.
    pub club_id: String,
    /// The pair's section.
    pub section: String,
    /// Pair number (or name).
    pub pair: String,
    /// `NS`/`EW` for a Mitchell pair, `None` for a Howell pair.
    pub direction: Option<Direction>,
    /// Boards played.
    pub boards: i32,
    /// Total matchpoints or IMPs, as the nearest `f64` (places, ties and hundredths were settled
    /// exactly by the engine).
    pub total: f64,
    /// Sum of the tops of the boards played, as the nearest `f64`; 0 in IMP modes.
    pub max: f64,
    /// `total` rounded to hundredths, for display.
    pub total_hundredths: i64,
    /// Percentage in hundredths, for display; `None` in IMP modes.
    pub percent_hundredths: Option<i64>,
    /// Place, from 1.
    pub rank: i32,
    /// The place is shared.
    pub tied: bool,
    /// Place when all pairs are ranked together.
    pub combined_rank: i32,
    /// The combined place is shared.
    pub combined_tied: bool,
}

/// The standings of every pair in one field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StandingsComputed {
    /// The event.
    pub event_id: String,
    /// `""` for the national field, otherwise a club_id.
    pub scope: String,
    /// Rescoring generation.
    pub generation: i64,
    /// How boards were scored.
    pub scoring: Scoring,
    /// How boards were factored.
    pub factoring: Factoring,
    /// Every pair, best first.
    pub standings: Vec<PairStanding>,
}

/// The projection published the national leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardPublished {
    /// The event.
    pub event_id: String,
    /// Rescoring generation.
    pub generation: i64,
    /// When it was published (ms since the Unix epoch).
    pub published_at_ms: i64,
    /// Clubs included.
    pub clubs_applied: i32,
    /// Results included.
    pub results_applied: i64,
    /// The leading pairs, best first.
    pub top: Vec<PairStanding>,
}

/// A consumer set aside a message it could not accept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadLettered {
    /// The event, when it could be read.
    pub event_id: Option<String>,
    /// Stream the message came from.
    pub source_stream: String,
    /// Partition it came from.
    pub source_partition: i32,
    /// Offset in that partition.
    pub source_offset: i64,
    /// Why, in words.
    pub reason: String,
    /// The message as read.
    #[serde(with = "apache_avro::serde::bytes")]
    pub payload: Vec<u8>,
    /// When (ms since the Unix epoch).
    pub at_ms: i64,
}
