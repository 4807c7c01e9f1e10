//! Schema-specific codecs for the records the pipeline handles by the million: the results
//! stream's [`ResultsRecorded`] (read), the aggregator's [`SubmissionApplied`] (read and write),
//! and the board scores and standings it writes for every club ([`BoardScored`] and
//! [`StandingsComputed`], read and written: a national event's thousands of clubs have tens of
//! boards each, and a projection started after them reads them all).
//!
//! A national event's 3,600,000 results pass through these twice each: the aggregator decodes
//! them from the clubs' batches and writes them again, all at once, in the submissions it
//! applies; the projection and `replay` read those back. Through apache-avro's serde path a
//! result cost about 1 µs of CPU to decode (a `Value`-free, positional path already; the rest is
//! serde's per-field dispatch and, before [`Text`], a heap allocation per string) and 0.15 µs to
//! encode; serde_avro_fast measured 0.3 µs. Walking the known field list directly costs about
//! 0.1 µs (`cargo bench -p simpairs-events --bench codec`).
//!
//! apache-avro stays the codec of record: it parses the schemas, computes their fingerprints,
//! resolves older versions and reads and writes every other record. These functions are used
//! only for the exact schema versions they were written for ([`RESULTS_RECORDED`],
//! [`SUBMISSION_APPLIED`]: the codec compares fingerprints when it is built, and falls back to
//! apache-avro for any other), and the crate's tests hold them to apache-avro: the same bytes
//! written, the same records read, and an error wherever apache-avro gives one, for random
//! records and for damaged and arbitrary bytes.
//!
//! The Avro binary encoding, as far as these records use it (Avro specification, "Binary
//! Encoding"): `int` and `long` are zig-zag varints; a `string` is its byte length then UTF-8
//! bytes; an `enum` is the symbol's index; a union is the branch's index then its value (every
//! union here is `["null", T]`: 0 is null); a `boolean` is one byte, 0 or 1; a record is its
//! fields in order; an `array` is blocks of items, each led by its count (a negative count is
//! followed by the block's size in bytes), ended by a count of 0.

use crate::codec::ResultsHeader;
use crate::types::{
    Adjusted, AppliedPair, AppliedResult, BoardScored, Direction, Factoring, Fraction, Movement,
    PairStanding, Player, ResultKey, ResultLine, ResultsRecorded, Scoring, SpecialValue,
    StandingsComputed, SubmissionApplied, TableEntry, Text,
};

/// Fingerprint (CRC-64-AVRO of the Parsing Canonical Form) of the `ResultsRecorded` schema that
/// [`read_results_recorded`] reads.
pub(crate) const RESULTS_RECORDED: u64 = 0xae6d_179e_3837_7241;

/// Fingerprint of the `SubmissionApplied` schema that [`read_submission_applied`] reads and
/// [`write_submission_applied`] writes.
pub(crate) const SUBMISSION_APPLIED: u64 = 0x8c34_6e9e_41e6_a841;

/// Fingerprint of the `BoardScored` schema that [`read_board_scored`] reads and
/// [`write_board_scored`] writes.
pub(crate) const BOARD_SCORED: u64 = 0x4640_0c83_bb02_cfbc;

/// Fingerprint of the `StandingsComputed` schema that [`read_standings_computed`] reads and
/// [`write_standings_computed`] writes.
pub(crate) const STANDINGS_COMPUTED: u64 = 0xc8e6_5ca3_1d4f_2b54;

/// Why a datum does not decode, in words (it ends up in dead-letter reasons).
pub(crate) type Malformed = String;

/// A datum's reading stopped at damage; the [`Datum`] holds what was wrong. (Small, so that every
/// field's result fits in registers: with the description in each `Err`, reading a field cost
/// twice as much.)
#[derive(Debug)]
struct Stop;

/// A datum being read: the bytes not read yet, and what was wrong once reading stops.
struct Datum<'a> {
    rest: &'a [u8],
    damage: Option<Malformed>,
}

impl<'a> Datum<'a> {
    /// Stops reading: `detail` says what is wrong with the field `what`.
    #[cold]
    fn stop(&mut self, what: &str, detail: std::fmt::Arguments<'_>) -> Stop {
        self.damage = Some(format!("{what}: {detail}"));
        Stop
    }

    #[inline]
    fn byte(&mut self, what: &str) -> Result<u8, Stop> {
        match self.rest.split_first() {
            Some((&byte, rest)) => {
                self.rest = rest;
                Ok(byte)
            }
            None => Err(self.stop(what, format_args!("the datum ends early"))),
        }
    }

    /// A zig-zag varint of at most 10 bytes (bits beyond 64 are dropped, as apache-avro does).
    #[inline(always)]
    fn long(&mut self, what: &str) -> Result<i64, Stop> {
        // Most numbers here (lengths, union branches, small ints) take one byte.
        if let Some((&byte, rest)) = self.rest.split_first()
            && byte < 0x80
        {
            self.rest = rest;
            let zigzag = u64::from(byte);
            return Ok((zigzag >> 1) as i64 ^ -((zigzag & 1) as i64));
        }
        self.long_bytes(what)
    }

    /// [`Datum::long`] of more than one byte.
    fn long_bytes(&mut self, what: &str) -> Result<i64, Stop> {
        let mut zigzag = 0u64;
        for i in 0..10 {
            let byte = self.byte(what)?;
            zigzag |= u64::from(byte & 0x7F) << (i * 7);
            if byte & 0x80 == 0 {
                return Ok((zigzag >> 1) as i64 ^ -((zigzag & 1) as i64));
            }
        }
        Err(self.stop(what, format_args!("a number runs over 10 bytes")))
    }

    #[inline]
    fn int(&mut self, what: &str) -> Result<i32, Stop> {
        let long = self.long(what)?;
        i32::try_from(long).map_err(|_| self.stop(what, format_args!("{long} does not fit an int")))
    }

    #[inline]
    fn bytes(&mut self, what: &str) -> Result<&'a [u8], Stop> {
        let len = self.long(what)?;
        match usize::try_from(len) {
            Ok(n) if n <= self.rest.len() => {
                let (bytes, rest) = self.rest.split_at(n);
                self.rest = rest;
                Ok(bytes)
            }
            _ => {
                let left = self.rest.len();
                Err(self.stop(
                    what,
                    format_args!("a length of {len} where {left} bytes are left"),
                ))
            }
        }
    }

    #[inline]
    fn str(&mut self, what: &str) -> Result<&'a str, Stop> {
        let bytes = self.bytes(what)?;
        std::str::from_utf8(bytes).map_err(|e| self.stop(what, format_args!("not UTF-8 ({e})")))
    }

    fn string(&mut self, what: &str) -> Result<String, Stop> {
        self.str(what).map(str::to_string)
    }

    fn text(&mut self, what: &str) -> Result<Text, Stop> {
        self.str(what).map(Text::from)
    }

    #[inline]
    fn boolean(&mut self, what: &str) -> Result<bool, Stop> {
        match self.byte(what)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(self.stop(what, format_args!("{other} is not a boolean"))),
        }
    }

    /// An enum's symbol index, below `symbols`.
    #[inline]
    fn symbol(&mut self, what: &str, symbols: usize) -> Result<usize, Stop> {
        let index = self.int(what)?;
        match usize::try_from(index) {
            Ok(i) if i < symbols => Ok(i),
            _ => Err(self.stop(what, format_args!("no symbol {index}"))),
        }
    }

    /// A `["null", T]` union: `None` for branch 0, `read` for branch 1.
    #[inline]
    fn optional<T>(
        &mut self,
        what: &str,
        read: impl FnOnce(&mut Self, &str) -> Result<T, Stop>,
    ) -> Result<Option<T>, Stop> {
        match self.int(what)? {
            0 => Ok(None),
            1 => read(self, what).map(Some),
            other => Err(self.stop(what, format_args!("no union branch {other}"))),
        }
    }

    /// The count of an array's next block of items, 0 at its end.
    fn block(&mut self, what: &str) -> Result<usize, Stop> {
        let count = self.long(what)?;
        if count < 0 {
            // The block's size in bytes follows a negative count; items are read anyway.
            self.long(what)?;
        }
        // Each item takes at least a byte: a count above what is left is damage, and must not
        // reserve memory.
        let count = count.unsigned_abs();
        if count > self.rest.len() as u64 {
            let left = self.rest.len();
            return Err(self.stop(
                what,
                format_args!("a block of {count} items where {left} bytes are left"),
            ));
        }
        Ok(count as usize)
    }

    /// An array: every item read with `read`, block after block.
    fn array<T>(
        &mut self,
        what: &str,
        mut read: impl FnMut(&mut Self) -> Result<T, Stop>,
    ) -> Result<Vec<T>, Stop> {
        let mut items = Vec::new();
        loop {
            let count = self.block(what)?;
            if count == 0 {
                return Ok(items);
            }
            items.reserve(count);
            for _ in 0..count {
                items.push(read(self)?);
            }
        }
    }

    /// An array's items, each handed to `item`, block after block.
    fn each(
        &mut self,
        what: &str,
        mut item: impl FnMut(&mut Self) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        loop {
            let count = self.block(what)?;
            if count == 0 {
                return Ok(());
            }
            for _ in 0..count {
                item(self)?;
            }
        }
    }

    fn movement(&mut self, what: &str) -> Result<Movement, Stop> {
        Ok(match self.symbol(what, 2)? {
            0 => Movement::Mitchell,
            _ => Movement::Howell,
        })
    }

    fn adjusted(&mut self, what: &str) -> Result<Adjusted, Stop> {
        Ok(Adjusted {
            ns_percent: self.int(what)?,
            ew_percent: self.int(what)?,
        })
    }

    /// A `double`: 8 bytes, little-endian IEEE 754.
    fn double(&mut self, what: &str) -> Result<f64, Stop> {
        match self.rest.split_first_chunk::<8>() {
            Some((bytes, rest)) => {
                self.rest = rest;
                Ok(f64::from_le_bytes(*bytes))
            }
            None => Err(self.stop(what, format_args!("the datum ends early"))),
        }
    }

    fn fraction(&mut self, what: &str) -> Result<Fraction, Stop> {
        Ok(Fraction {
            num: self.long(what)?,
            den: self.long(what)?,
        })
    }

    fn direction(&mut self, what: &str) -> Result<Direction, Stop> {
        Ok(match self.symbol(what, 2)? {
            0 => Direction::Ns,
            _ => Direction::Ew,
        })
    }

    fn end(self) -> Result<(), usize> {
        match self.rest.len() {
            0 => Ok(()),
            left => Err(left),
        }
    }
}

/// What went wrong reading a datum: damage described in words, or bytes left after the record.
#[derive(Debug)]
pub(crate) enum ReadError {
    Malformed(Malformed),
    TrailingBytes(usize),
}

/// Reads a whole datum with `read`.
fn read_datum<'a, T>(
    datum: &'a [u8],
    read: impl FnOnce(&mut Datum<'a>) -> Result<T, Stop>,
) -> Result<T, ReadError> {
    let mut datum = Datum {
        rest: datum,
        damage: None,
    };
    match read(&mut datum) {
        Ok(record) => {
            datum.end().map_err(ReadError::TrailingBytes)?;
            Ok(record)
        }
        Err(Stop) => Err(ReadError::Malformed(datum.damage.unwrap_or_default())),
    }
}

/// One line of a `ResultsRecorded` as read, its text borrowed from the datum.
struct Line<'a> {
    section: &'a str,
    ns_pair: &'a str,
    ew_pair: &'a str,
    movement: Movement,
    contract: Option<&'a str>,
    declarer: Option<&'a str>,
    tricks: Option<i32>,
    ns_score: Option<i32>,
    ew_score: Option<i32>,
    adjusted: Option<Adjusted>,
    arrow_switch: bool,
    group: Option<&'a str>,
    lead: Option<&'a str>,
    table: Option<i32>,
}

impl<'a> Datum<'a> {
    fn line(&mut self) -> Result<Line<'a>, Stop> {
        Ok(Line {
            section: self.str("results.section")?,
            ns_pair: self.str("results.ns_pair")?,
            ew_pair: self.str("results.ew_pair")?,
            movement: self.movement("results.movement")?,
            contract: self.optional("results.contract", Datum::str)?,
            declarer: self.optional("results.declarer", Datum::str)?,
            tricks: self.optional("results.tricks", Datum::int)?,
            ns_score: self.optional("results.ns_score", Datum::int)?,
            ew_score: self.optional("results.ew_score", Datum::int)?,
            adjusted: self.optional("results.adjusted", Datum::adjusted)?,
            arrow_switch: self.boolean("results.arrow_switch")?,
            group: self.optional("results.group", Datum::str)?,
            lead: self.optional("results.lead", Datum::str)?,
            table: self.optional("results.table", Datum::int)?,
        })
    }

    /// The fields of a `ResultsRecorded` before its lines.
    fn results_head(&mut self) -> Result<ResultsHeader, Stop> {
        Ok(ResultsHeader {
            event_id: self.string("event_id")?,
            club_id: self.string("club_id")?,
            submission_id: self.string("submission_id")?,
            board: self.int("board")?,
            first_sequence: self.int("first_sequence")?,
            lines: 0,
        })
    }
}

/// Reads a `ResultsRecorded` datum written with the schema of [`RESULTS_RECORDED`].
pub(crate) fn read_results_recorded(datum: &[u8]) -> Result<ResultsRecorded, ReadError> {
    read_datum(datum, |d| {
        let head = d.results_head()?;
        let text = |t: &str| Text::from(t);
        let results = d.array("results", |d| {
            let l = d.line()?;
            Ok(ResultLine {
                section: l.section.into(),
                ns_pair: l.ns_pair.into(),
                ew_pair: l.ew_pair.into(),
                movement: l.movement,
                contract: l.contract.map(text),
                declarer: l.declarer.map(text),
                tricks: l.tricks,
                ns_score: l.ns_score,
                ew_score: l.ew_score,
                adjusted: l.adjusted,
                arrow_switch: l.arrow_switch,
                group: l.group.map(text),
                lead: l.lead.map(text),
                table: l.table,
            })
        })?;
        Ok(ResultsRecorded {
            event_id: head.event_id,
            club_id: head.club_id,
            submission_id: head.submission_id,
            board: head.board,
            first_sequence: head.first_sequence,
            results,
        })
    })
}

/// Reads the header of a `ResultsRecorded` datum (schema of [`RESULTS_RECORDED`]) and counts its
/// lines, checking them as [`read_results_recorded`] does without building them.
pub(crate) fn skim_results_recorded(datum: &[u8]) -> Result<ResultsHeader, ReadError> {
    read_datum(datum, |d| {
        let mut head = d.results_head()?;
        let mut lines = 0;
        d.each("results", |d| {
            d.line()?;
            lines += 1;
            Ok(())
        })?;
        head.lines = lines;
        Ok(head)
    })
}

/// Appends the lines of a `ResultsRecorded` datum (schema of [`RESULTS_RECORDED`]) to `out` as the
/// results a submission applies: each with the batch's board, without the informative lead and
/// table.
pub(crate) fn read_lines_as_applied(
    datum: &[u8],
    out: &mut Vec<AppliedResult>,
) -> Result<(), ReadError> {
    read_datum(datum, |d| {
        let board = d.results_head()?.board;
        let text = |t: &str| Text::from(t);
        d.each("results", |d| {
            let l = d.line()?;
            out.push(AppliedResult {
                section: l.section.into(),
                board,
                ns_pair: l.ns_pair.into(),
                ew_pair: l.ew_pair.into(),
                movement: l.movement,
                contract: l.contract.map(text),
                declarer: l.declarer.map(text),
                tricks: l.tricks,
                ns_score: l.ns_score,
                ew_score: l.ew_score,
                adjusted: l.adjusted,
                arrow_switch: l.arrow_switch,
                group: l.group.map(text),
            });
            Ok(())
        })
    })
}

/// Reads a `SubmissionApplied` datum written with the schema of [`SUBMISSION_APPLIED`].
pub(crate) fn read_submission_applied(datum: &[u8]) -> Result<SubmissionApplied, ReadError> {
    read_datum(datum, |d| {
        Ok(SubmissionApplied {
            event_id: d.string("event_id")?,
            club_id: d.string("club_id")?,
            submission_id: d.string("submission_id")?,
            seal_offset: d.long("seal_offset")?,
            results: d.array("results", |d| {
                Ok(AppliedResult {
                    section: d.text("results.section")?,
                    board: d.int("results.board")?,
                    ns_pair: d.text("results.ns_pair")?,
                    ew_pair: d.text("results.ew_pair")?,
                    movement: d.movement("results.movement")?,
                    contract: d.optional("results.contract", Datum::text)?,
                    declarer: d.optional("results.declarer", Datum::text)?,
                    tricks: d.optional("results.tricks", Datum::int)?,
                    ns_score: d.optional("results.ns_score", Datum::int)?,
                    ew_score: d.optional("results.ew_score", Datum::int)?,
                    adjusted: d.optional("results.adjusted", Datum::adjusted)?,
                    arrow_switch: d.boolean("results.arrow_switch")?,
                    group: d.optional("results.group", Datum::text)?,
                })
            })?,
            withdrawn: d.array("withdrawn", |d| {
                Ok(ResultKey {
                    section: d.text("withdrawn.section")?,
                    board: d.int("withdrawn.board")?,
                    ns_pair: d.text("withdrawn.ns_pair")?,
                    ew_pair: d.text("withdrawn.ew_pair")?,
                })
            })?,
            pairs: d.array("pairs", |d| {
                Ok(AppliedPair {
                    section: d.string("pairs.section")?,
                    pair: d.string("pairs.pair")?,
                    direction: d.optional("pairs.direction", Datum::direction)?,
                    players: d.array("pairs.players", |d| {
                        Ok(Player {
                            name: d.string("pairs.players.name")?,
                            national_id: d.optional("pairs.players.national_id", Datum::string)?,
                        })
                    })?,
                })
            })?,
        })
    })
}

/// Reads a `BoardScored` datum written with the schema of [`BOARD_SCORED`].
pub(crate) fn read_board_scored(datum: &[u8]) -> Result<BoardScored, ReadError> {
    read_datum(datum, |d| {
        Ok(BoardScored {
            event_id: d.string("event_id")?,
            scope: d.string("scope")?,
            board: d.int("board")?,
            generation: d.long("generation")?,
            results_count: d.int("results_count")?,
            target: d.int("target")?,
            top: d.fraction("top")?,
            datum: d.optional("datum", Datum::int)?,
            table: d.array("table", |d| {
                Ok(TableEntry {
                    ns_score: d.int("table.ns_score")?,
                    count: d.int("table.count")?,
                    ns_value: d.fraction("table.ns_value")?,
                    ew_value: d.fraction("table.ew_value")?,
                })
            })?,
            specials: d.array("specials", |d| {
                Ok(SpecialValue {
                    club_id: d.string("specials.club_id")?,
                    key: ResultKey {
                        section: d.text("specials.key.section")?,
                        board: d.int("specials.key.board")?,
                        ns_pair: d.text("specials.key.ns_pair")?,
                        ew_pair: d.text("specials.key.ew_pair")?,
                    },
                    ns_value: d.fraction("specials.ns_value")?,
                    ew_value: d.fraction("specials.ew_value")?,
                })
            })?,
        })
    })
}

/// Reads a `StandingsComputed` datum written with the schema of [`STANDINGS_COMPUTED`].
pub(crate) fn read_standings_computed(datum: &[u8]) -> Result<StandingsComputed, ReadError> {
    read_datum(datum, |d| {
        Ok(StandingsComputed {
            event_id: d.string("event_id")?,
            scope: d.string("scope")?,
            generation: d.long("generation")?,
            scoring: match d.symbol("scoring", 3)? {
                0 => Scoring::Matchpoints,
                1 => Scoring::Butler,
                _ => Scoring::CrossImps,
            },
            factoring: match d.symbol("factoring", 2)? {
                0 => Factoring::Neuberg,
                _ => Factoring::Ratio,
            },
            standings: d.array("standings", |d| {
                Ok(PairStanding {
                    club_id: d.string("standings.club_id")?,
                    section: d.string("standings.section")?,
                    pair: d.string("standings.pair")?,
                    direction: d.optional("standings.direction", Datum::direction)?,
                    boards: d.int("standings.boards")?,
                    total: d.double("standings.total")?,
                    max: d.double("standings.max")?,
                    total_hundredths: d.long("standings.total_hundredths")?,
                    percent_hundredths: d.optional("standings.percent_hundredths", Datum::long)?,
                    rank: d.int("standings.rank")?,
                    tied: d.boolean("standings.tied")?,
                    combined_rank: d.int("standings.combined_rank")?,
                    combined_tied: d.boolean("standings.combined_tied")?,
                })
            })?,
        })
    })
}

/// Writes Avro's binary encoding into a buffer.
struct Out<'a>(&'a mut Vec<u8>);

impl Out<'_> {
    fn long(&mut self, value: i64) {
        let mut zigzag = ((value << 1) ^ (value >> 63)) as u64;
        while zigzag > 0x7F {
            self.0.push((zigzag as u8 & 0x7F) | 0x80);
            zigzag >>= 7;
        }
        self.0.push(zigzag as u8);
    }

    fn int(&mut self, value: i32) {
        self.long(i64::from(value));
    }

    fn str(&mut self, value: &str) {
        self.long(value.len() as i64);
        self.0.extend_from_slice(value.as_bytes());
    }

    fn boolean(&mut self, value: bool) {
        self.0.push(u8::from(value));
    }

    /// A `double`: 8 bytes, little-endian IEEE 754.
    fn double(&mut self, value: f64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn fraction(&mut self, value: &Fraction) {
        self.long(value.num);
        self.long(value.den);
    }

    fn key(&mut self, k: &ResultKey) {
        self.str(&k.section);
        self.int(k.board);
        self.str(&k.ns_pair);
        self.str(&k.ew_pair);
    }

    fn direction(&mut self, d: Direction) {
        self.long(match d {
            Direction::Ns => 0,
            Direction::Ew => 1,
        });
    }

    fn optional<T>(&mut self, value: Option<T>, write: impl FnOnce(&mut Self, T)) {
        match value {
            None => self.long(0),
            Some(v) => {
                self.long(1);
                write(self, v);
            }
        }
    }

    /// An array as apache-avro writes one: the items in one block, then the end (an empty array
    /// is the end alone).
    fn array<T>(&mut self, items: &[T], mut write: impl FnMut(&mut Self, &T)) {
        if !items.is_empty() {
            self.long(items.len() as i64);
            for item in items {
                write(self, item);
            }
        }
        self.long(0);
    }
}

/// Appends the datum of `applied`, written with the schema of [`SUBMISSION_APPLIED`], to `out`.
pub(crate) fn write_submission_applied(applied: &SubmissionApplied, out: &mut Vec<u8>) {
    let mut o = Out(out);
    o.str(&applied.event_id);
    o.str(&applied.club_id);
    o.str(&applied.submission_id);
    o.long(applied.seal_offset);
    o.array(&applied.results, |o, r| {
        o.str(&r.section);
        o.int(r.board);
        o.str(&r.ns_pair);
        o.str(&r.ew_pair);
        o.long(match r.movement {
            Movement::Mitchell => 0,
            Movement::Howell => 1,
        });
        o.optional(r.contract.as_deref(), Out::str);
        o.optional(r.declarer.as_deref(), Out::str);
        o.optional(r.tricks, Out::int);
        o.optional(r.ns_score, Out::int);
        o.optional(r.ew_score, Out::int);
        o.optional(r.adjusted, |o, a| {
            o.int(a.ns_percent);
            o.int(a.ew_percent);
        });
        o.boolean(r.arrow_switch);
        o.optional(r.group.as_deref(), Out::str);
    });
    o.array(&applied.withdrawn, Out::key);
    o.array(&applied.pairs, |o, p| {
        o.str(&p.section);
        o.str(&p.pair);
        o.optional(p.direction, Out::direction);
        o.array(&p.players, |o, player| {
            o.str(&player.name);
            o.optional(player.national_id.as_deref(), Out::str);
        });
    });
}

/// Appends the datum of `scored`, written with the schema of [`BOARD_SCORED`], to `out`.
pub(crate) fn write_board_scored(scored: &BoardScored, out: &mut Vec<u8>) {
    let mut o = Out(out);
    o.str(&scored.event_id);
    o.str(&scored.scope);
    o.int(scored.board);
    o.long(scored.generation);
    o.int(scored.results_count);
    o.int(scored.target);
    o.fraction(&scored.top);
    o.optional(scored.datum, Out::int);
    o.array(&scored.table, |o, e| {
        o.int(e.ns_score);
        o.int(e.count);
        o.fraction(&e.ns_value);
        o.fraction(&e.ew_value);
    });
    o.array(&scored.specials, |o, s| {
        o.str(&s.club_id);
        o.key(&s.key);
        o.fraction(&s.ns_value);
        o.fraction(&s.ew_value);
    });
}

/// Appends the datum of `standings`, written with the schema of [`STANDINGS_COMPUTED`], to `out`.
pub(crate) fn write_standings_computed(standings: &StandingsComputed, out: &mut Vec<u8>) {
    let mut o = Out(out);
    o.str(&standings.event_id);
    o.str(&standings.scope);
    o.long(standings.generation);
    o.long(match standings.scoring {
        Scoring::Matchpoints => 0,
        Scoring::Butler => 1,
        Scoring::CrossImps => 2,
    });
    o.long(match standings.factoring {
        Factoring::Neuberg => 0,
        Factoring::Ratio => 1,
    });
    o.array(&standings.standings, |o, p| {
        o.str(&p.club_id);
        o.str(&p.section);
        o.str(&p.pair);
        o.optional(p.direction, Out::direction);
        o.int(p.boards);
        o.double(p.total);
        o.double(p.max);
        o.long(p.total_hundredths);
        o.optional(p.percent_hundredths, Out::long);
        o.int(p.rank);
        o.boolean(p.tied);
        o.int(p.combined_rank);
        o.boolean(p.combined_tied);
    });
}

#[cfg(test)]
mod tests {
    //! The schema-specific codecs against apache-avro's, on the current schemas.

    use apache_avro::reader::datum::GenericDatumReader;
    use apache_avro::writer::datum::GenericDatumWriter;
    use proptest::prelude::*;

    use super::*;
    use crate::positional::{Positional, Read, Write};
    use crate::test_samples as common;
    use crate::{EventType, schemas::Registry};

    fn schema(event_type: EventType) -> &'static apache_avro::Schema {
        Registry::get().unwrap().current(event_type).schema()
    }

    /// What apache-avro reads from a datum: the record, or an error (bytes left over count as
    /// one, as they do for the codec).
    fn apache_read<T: Positional>(event_type: EventType, datum: &[u8]) -> Option<T> {
        let reader = GenericDatumReader::builder(schema(event_type))
            .build()
            .unwrap();
        let mut rest = datum;
        let record = reader.read_deser::<Read<T>>(&mut rest).ok()?.0;
        rest.is_empty().then_some(record)
    }

    fn apache_write<T: Positional>(event_type: EventType, record: &T) -> Vec<u8> {
        let writer = GenericDatumWriter::builder(schema(event_type))
            .build()
            .unwrap();
        let mut datum = Vec::new();
        writer.write_ser(&mut datum, &Write(record)).unwrap();
        datum
    }

    #[test]
    fn the_codecs_are_for_the_current_schemas() {
        // A schema changed: the codec now reads and writes it with apache-avro (correct, but
        // slower). Bring the field lists of this module in line with the schema, then the
        // fingerprint here.
        let registry = Registry::get().unwrap();
        assert_eq!(
            registry.current(EventType::ResultsRecorded).fingerprint(),
            RESULTS_RECORDED,
            "schemas/ResultsRecorded.avsc changed: update src/direct.rs"
        );
        assert_eq!(
            registry.current(EventType::SubmissionApplied).fingerprint(),
            SUBMISSION_APPLIED,
            "schemas/SubmissionApplied.avsc changed: update src/direct.rs"
        );
        assert_eq!(
            registry.current(EventType::BoardScored).fingerprint(),
            BOARD_SCORED,
            "schemas/BoardScored.avsc changed: update src/direct.rs"
        );
        assert_eq!(
            registry.current(EventType::StandingsComputed).fingerprint(),
            STANDINGS_COMPUTED,
            "schemas/StandingsComputed.avsc changed: update src/direct.rs"
        );
    }

    #[test]
    fn the_samples_read_and_write_as_apache_avro_does() {
        let batch = common::results_recorded();
        let datum = apache_write(EventType::ResultsRecorded, &batch);
        assert_eq!(read_results_recorded(&datum).unwrap(), batch);
        let applied = common::submission_applied();
        let datum = apache_write(EventType::SubmissionApplied, &applied);
        let mut written = Vec::new();
        write_submission_applied(&applied, &mut written);
        assert_eq!(written, datum);
        assert_eq!(read_submission_applied(&datum).unwrap(), applied);
        let scored = common::board_scored();
        let mut written = Vec::new();
        write_board_scored(&scored, &mut written);
        assert_eq!(written, apache_write(EventType::BoardScored, &scored));
        let standings = common::standings_computed();
        let mut written = Vec::new();
        write_standings_computed(&standings, &mut written);
        assert_eq!(
            written,
            apache_write(EventType::StandingsComputed, &standings)
        );
    }

    /// The lines of a batch as the results a submission applies.
    fn as_applied(batch: &ResultsRecorded) -> Vec<AppliedResult> {
        batch
            .results
            .iter()
            .map(|l| l.clone().into_applied(batch.board))
            .collect()
    }

    /// What [`read_lines_as_applied`] reads, if it reads.
    fn applied_lines(datum: &[u8]) -> Option<Vec<AppliedResult>> {
        let mut out = Vec::new();
        read_lines_as_applied(datum, &mut out).ok().map(|()| out)
    }

    /// `datum` damaged: bytes overwritten, then perhaps cut short, then perhaps lengthened.
    fn damaged(
        mut datum: Vec<u8>,
        edits: &[(prop::sample::Index, u8)],
        cut: Option<prop::sample::Index>,
        extra: &[u8],
    ) -> Vec<u8> {
        if !datum.is_empty() {
            for (at, byte) in edits {
                let i = at.index(datum.len());
                datum[i] = *byte;
            }
        }
        if let Some(cut) = cut {
            datum.truncate(cut.index(datum.len() + 1));
        }
        datum.extend_from_slice(extra);
        datum
    }

    /// Damage: one to three bytes overwritten; cut short one time in four; a byte or two
    /// appended one time in four.
    fn damage() -> impl Strategy<
        Value = (
            Vec<(prop::sample::Index, u8)>,
            Option<prop::sample::Index>,
            Vec<u8>,
        ),
    > {
        (
            proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
            proptest::option::weighted(0.25, any::<prop::sample::Index>()),
            prop_oneof![3 => Just(Vec::new()), 1 => proptest::collection::vec(any::<u8>(), 1..3)],
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn results_recorded_reads_as_apache_avro_reads(batch in common::arb::results_recorded()) {
            let datum = apache_write(EventType::ResultsRecorded, &batch);
            prop_assert_eq!(skim_results_recorded(&datum).unwrap(), ResultsHeader::of(&batch));
            prop_assert_eq!(applied_lines(&datum), Some(as_applied(&batch)));
            prop_assert_eq!(read_results_recorded(&datum).unwrap(), batch);
        }

        #[test]
        fn submission_applied_writes_and_reads_as_apache_avro_does(
            applied in common::arb::submission_applied(),
        ) {
            let datum = apache_write(EventType::SubmissionApplied, &applied);
            let mut written = Vec::new();
            write_submission_applied(&applied, &mut written);
            prop_assert_eq!(&written, &datum);
            prop_assert_eq!(read_submission_applied(&datum).unwrap(), applied);
        }

        #[test]
        fn board_scores_and_standings_write_and_read_as_apache_avro_does(
            scored in common::arb::board_scored(),
            standings in common::arb::standings_computed(),
        ) {
            let mut written = Vec::new();
            write_board_scored(&scored, &mut written);
            prop_assert_eq!(&written, &apache_write(EventType::BoardScored, &scored));
            prop_assert_eq!(read_board_scored(&written).unwrap(), scored);
            let mut written = Vec::new();
            write_standings_computed(&standings, &mut written);
            prop_assert_eq!(&written, &apache_write(EventType::StandingsComputed, &standings));
            // Through `Debug`: a NaN total reads back as NaN, which `==` does not match.
            prop_assert_eq!(
                format!("{:?}", read_standings_computed(&written).unwrap()),
                format!("{standings:?}")
            );
        }

        #[test]
        fn damaged_board_scores_and_standings_fail_where_apache_avro_fails(
            scored in common::arb::board_scored(),
            standings in common::arb::standings_computed(),
            (edits, cut, extra) in damage(),
        ) {
            let datum = damaged(apache_write(EventType::BoardScored, &scored), &edits, cut, &extra);
            let apache = apache_read::<BoardScored>(EventType::BoardScored, &datum);
            prop_assert_eq!(read_board_scored(&datum).ok(), apache);
            let datum =
                damaged(apache_write(EventType::StandingsComputed, &standings), &edits, cut, &extra);
            let apache = apache_read::<StandingsComputed>(EventType::StandingsComputed, &datum);
            prop_assert_eq!(
                format!("{:?}", read_standings_computed(&datum).ok()),
                format!("{apache:?}")
            );
        }

        #[test]
        fn damaged_results_recorded_fail_where_apache_avro_fails(
            batch in common::arb::results_recorded(),
            (edits, cut, extra) in damage(),
        ) {
            let datum =
                damaged(apache_write(EventType::ResultsRecorded, &batch), &edits, cut, &extra);
            let apache = apache_read::<ResultsRecorded>(EventType::ResultsRecorded, &datum);
            prop_assert_eq!(read_results_recorded(&datum).ok(), apache.clone());
            prop_assert_eq!(skim_results_recorded(&datum).ok(), apache.as_ref().map(ResultsHeader::of));
            prop_assert_eq!(applied_lines(&datum), apache.map(|b| as_applied(&b)));
        }

        #[test]
        fn damaged_submission_applied_fail_where_apache_avro_fails(
            applied in common::arb::submission_applied(),
            (edits, cut, extra) in damage(),
        ) {
            let datum =
                damaged(apache_write(EventType::SubmissionApplied, &applied), &edits, cut, &extra);
            let apache = apache_read::<SubmissionApplied>(EventType::SubmissionApplied, &datum);
            prop_assert_eq!(read_submission_applied(&datum).ok(), apache);
        }

        #[test]
        fn arbitrary_bytes_fail_where_apache_avro_fails(
            datum in proptest::collection::vec(any::<u8>(), 0..128),
        ) {
            let apache = apache_read::<ResultsRecorded>(EventType::ResultsRecorded, &datum);
            prop_assert_eq!(skim_results_recorded(&datum).ok(), apache.as_ref().map(ResultsHeader::of));
            prop_assert_eq!(applied_lines(&datum), apache.as_ref().map(as_applied));
            prop_assert_eq!(read_results_recorded(&datum).ok(), apache);
            let apache = apache_read::<SubmissionApplied>(EventType::SubmissionApplied, &datum);
            prop_assert_eq!(read_submission_applied(&datum).ok(), apache);
        }
    }
}
