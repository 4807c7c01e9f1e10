//! A submission's records as they arrive, waiting for its seal and for each other: kept by
//! sequence, a batch of one board's results at its first sequence.

use simpairs_events::types::{
    DealRecorded, PairEntered, ResultRecorded, ResultWithdrawn, SubmissionSealed,
};
use simpairs_events::{Event, EventType, ResultsHeader, Skimmed};

/// One record of a submission awaiting its seal. Nearly every record of a submission is a batch
/// of lines; the other kinds are boxed, so that a submission's list of records, grown as they
/// arrive, moves a batch's header and not the size of a whole result each time it grows.
#[derive(Debug, Clone)]
pub(crate) enum Part {
    Result(Box<ResultRecorded>),
    /// A batch of one board's results, the consecutive sequences from its first: its header. Its
    /// lines are read from the message when the submission is checked
    /// ([`simpairs_events::Codec::applied_lines`]).
    Lines(ResultsHeader),
    Withdrawal(Box<ResultWithdrawn>),
    Pair(Box<PairEntered>),
    /// A board's hand record as the club's file has it.
    Deal(Box<DealRecorded>),
}

impl Part {
    /// The part a submission's record is; `Err` names the type of a record that is no such part
    /// (a seal, or another stream's event).
    pub(crate) fn of(record: Skimmed) -> Result<Part, EventType> {
        match record {
            Skimmed::Results(header) => Ok(Part::Lines(header)),
            Skimmed::Event(event) => Part::of_event(*event),
        }
    }

    /// [`Part::of`] a decoded event.
    pub(crate) fn of_event(event: Event) -> Result<Part, EventType> {
        Ok(match event {
            Event::ResultsRecorded(r) => Part::Lines(ResultsHeader::of(&r)),
            Event::ResultRecorded(r) => Part::Result(Box::new(r)),
            Event::ResultWithdrawn(w) => Part::Withdrawal(Box::new(w)),
            Event::PairEntered(p) => Part::Pair(Box::new(p)),
            Event::DealRecorded(d) => Part::Deal(Box::new(d)),
            other => return Err(other.event_type()),
        })
    }

    /// The club and submission the record belongs to, and its first sequence.
    pub(crate) fn names(&self) -> (&str, &str, i32) {
        match self {
            Part::Result(r) => (&r.club_id, &r.submission_id, r.sequence),
            Part::Lines(b) => (&b.club_id, &b.submission_id, b.first_sequence),
            Part::Withdrawal(w) => (&w.club_id, &w.submission_id, w.sequence),
            Part::Pair(p) => (&p.club_id, &p.submission_id, p.sequence),
            Part::Deal(d) => (&d.club_id, &d.submission_id, d.sequence),
        }
    }

    /// How many sequences the record stands for.
    pub(crate) fn sequences(&self) -> i32 {
        match self {
            Part::Lines(b) => i32::try_from(b.lines).unwrap_or(i32::MAX),
            _ => 1,
        }
    }
}

/// The datum of a message (what a seal's digest covers, and what tells two records apart): the
/// bytes after its header.
pub(crate) fn datum(message: &[u8]) -> &[u8] {
    message
        .get(simpairs_events::HEADER_LEN..)
        .unwrap_or_default()
}

#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// first sequence -> (message as sent, record); a batch covers the sequences from its first.
    /// In order of first sequence (records mostly arrive in order: each is pushed at the end).
    pub(crate) records: Vec<(i32, Vec<u8>, Part)>,
    /// Sequences covered by `records`.
    pub(crate) sequences: i64,
    /// A seal that arrived before all its records, with its offset.
    pub(crate) seal: Option<(SubmissionSealed, i64)>,
}

impl Pending {
    /// The record covering `sequence`: its first sequence and bytes.
    pub(crate) fn covering(&self, sequence: i32) -> Option<(i32, &[u8])> {
        let after = self.records.partition_point(|r| r.0 <= sequence);
        let (first, bytes, part) = self.records.get(after.checked_sub(1)?)?;
        (i64::from(sequence) < i64::from(*first) + i64::from(part.sequences()))
            .then_some((*first, datum(bytes)))
    }

    /// Whether any record covers a sequence of `range`.
    pub(crate) fn overlaps(&self, range: std::ops::Range<i32>) -> bool {
        let from = self.records.partition_point(|r| r.0 < range.start);
        self.covering(range.start).is_some()
            || self.records.get(from).is_some_and(|r| r.0 < range.end)
    }

    /// Adds a record that no record covers the first sequence of.
    pub(crate) fn insert(&mut self, first: i32, message: Vec<u8>, part: Part) {
        self.sequences += i64::from(part.sequences());
        let at = self.records.partition_point(|r| r.0 < first);
        self.records.insert(at, (first, message, part));
    }

    /// Whether the records cover exactly the sequences `0..count`.
    pub(crate) fn complete_run(&self, count: i64) -> bool {
        let mut next = 0i64;
        for (first, _, part) in &self.records {
            if i64::from(*first) != next {
                return false;
            }
            next += i64::from(part.sequences());
        }
        next == count
    }

    /// Every sequence the records cover, in order (for messages).
    pub(crate) fn sequence_list(&self) -> Vec<i32> {
        self.records
            .iter()
            .flat_map(|(first, _, part)| *first..first.saturating_add(part.sequences()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_waiting_is_the_size_of_a_batch_header() {
        // A word for the variant at most: the larger kinds of record are boxed.
        let header = std::mem::size_of::<ResultsHeader>();
        assert!(
            std::mem::size_of::<Part>() <= header + 8,
            "Part is {} bytes, a batch's header {header}",
            std::mem::size_of::<Part>()
        );
    }
}
