//! Encoding and decoding `ResultRecorded` events, as the results stream carries them, one
//! result per message and batched as `ResultsRecorded` (one message per club and board).
//!
//! ```text
//! cd /work/main && cargo bench -p simpairs-events --bench codec
//! ```
//!
//! criterion reports the time per `BATCH` results (µs per 1000 = ns per result) and the
//! throughput in results per second; `SubmissionApplied` per result (five clubs' submissions of
//! 200), `BoardScored` and `StandingsComputed` per message (a club's board of 12 tables, a
//! club's 24 pairs). The machine is shared (2 cores, AMD EPYC): wall times vary by a factor of
//! two when other builds run, so compare with `SIMPAIRS_BENCH_CLOCK=cpu` (the measuring
//! thread's CPU time), alternating the binaries to compare.
//!
//! 2026-11-25, every record read and written by the codecs `build.rs` generates from the schemas
//! (`src/wire.rs`), against the hand-written ones they replaced (`direct.rs` for
//! `ResultsRecorded`, `SubmissionApplied`, `BoardScored`, `StandingsComputed`; apache-avro's
//! serde path for the others). CPU time, medians of three alternated runs each, ns per element:
//!
//! | | hand-written / apache-avro | generated |
//! |---|---|---|
//! | `ResultRecorded` encode, decode | 242, 639 (apache-avro) | 40, 212 |
//! | `ResultsRecorded` encode | 195 (apache-avro) | 26 |
//! | `ResultsRecorded` decode, skim, applied_lines | 99, 75, 92 | 93, 65, 81 |
//! | `SubmissionApplied` encode, decode | 36, 132 | 25, 93 |
//! | `BoardScored` encode, decode | 104, 274 | 66, 278 |
//! | `StandingsComputed` encode, decode | 407, 2901 | 379, 2895 |
//!
//! 2026-11-25 (wall time, run alone), `ResultsRecorded` read by its own codec (`direct.rs`), the
//! text fields as inline [`simpairs_events::Text`]s; `ResultRecorded` through apache-avro's serde
//! path:
//!
//! | ns per result | encode | decode | skim | applied_lines |
//! |---|---|---|---|---|
//! | `ResultRecorded` (apache-avro, positional) | 252 | 633 | | |
//! | `ResultsRecorded`, 12 lines | 180 (apache-avro) | 99 | 76 | 91 |
//!
//! `skim` reads a batch's header and checks its lines without building them (what the
//! aggregator does when a batch arrives); `applied_lines` builds them as the results a
//! submission applies (when its seal checks out). The first version of the results' codec
//! returned a `String` describing the damage in every `Err`: skim cost 170 ns, decode 195.
//!
//! 2026-11-22, everything through apache-avro, text fields as `String`s (CPU time per result,
//! read from `/proc/thread-self/schedstat` over 0.5 s runs):
//!
//! | ns per result | encode | decode | total |
//! |---|---|---|---|
//! | `ResultRecorded`, positional | 195 | 423 | 0.62 µs |
//! | `ResultsRecorded`, 12 lines, positional | 150 | 406 | 0.56 µs |
//! | apache-avro derived serde, by field name | 625 | 480 | 1.1 µs |
//! | apache-avro `Value` (`to_value`/`from_value`) | 2735 | 1799 | 4.5 µs |
//!
//! Then decoding cost most: apache-avro allocated every string it read (8 a result, 5 a
//! batched line) and dispatched each value through serde.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use simpairs_events::{
    AppliedPair, BoardScored, Codec, Direction, Event, Factoring, Fraction, Movement, PairStanding,
    Player, ResultKey, ResultLine, ResultRecorded, ResultsRecorded, Scoring, SpecialValue,
    StandingsComputed, SubmissionApplied, TableEntry,
};

/// What criterion measures: wall time, or with `SIMPAIRS_BENCH_CLOCK=cpu` the measuring
/// thread's CPU time. The build machine is shared: when other builds run, wall times of the
/// same code vary by a factor of two, CPU times by a few percent.
struct Clock {
    cpu: bool,
    start: Instant,
    wall: WallTime,
}

impl Clock {
    fn from_env() -> Clock {
        Clock {
            cpu: std::env::var("SIMPAIRS_BENCH_CLOCK").is_ok_and(|v| v == "cpu"),
            start: Instant::now(),
            wall: WallTime,
        }
    }

    fn now(&self) -> Duration {
        if self.cpu {
            let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
            Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
        } else {
            self.start.elapsed()
        }
    }
}

impl Measurement for Clock {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        self.now()
    }

    fn end(&self, start: Duration) -> Duration {
        self.now().saturating_sub(start)
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

/// Results per measured batch.
const BATCH: usize = 1000;

/// Tables per board in a club: the lines of one `ResultsRecorded`.
const TABLES: usize = 12;

const CONTRACTS: [(&str, &str, i32, i32); 8] = [
    ("4S", "N", 10, 420),
    ("3NT", "S", 9, 400),
    ("4H", "E", 10, -420),
    ("2S", "W", 7, 100),
    ("3NT", "N", 10, 430),
    ("1NT", "S", 8, 120),
    ("4SX", "E", 8, 500),
    ("6D", "N", 12, 920),
];

/// A realistic result: a club of a national simultaneous pairs (`TABLES` tables, results
/// in board order as a club's scorer exports them), Mitchell movement,
/// contract/declarer/tricks/score given, table known; one in 8 has a lead, one in 50 is
/// an adjusted score.
fn result(i: usize) -> Event {
    let (contract, declarer, tricks, score) = CONTRACTS[i % CONTRACTS.len()];
    let adjusted = i % 50 == 49;
    Event::ResultRecorded(ResultRecorded {
        event_id: "SIM-2026-11".to_string(),
        club_id: format!("club-{:04}", i / 200),
        submission_id: format!("club-{:04}-2026-11-17-1", i / 200),
        sequence: (i % 200) as i32,
        section: "A".into(),
        board: ((i / TABLES) % 24) as i32 + 1,
        ns_pair: (i % TABLES + 1).to_string().into(),
        ew_pair: (i % TABLES + 13).to_string().into(),
        movement: Movement::Mitchell,
        contract: (!adjusted).then(|| contract.into()),
        declarer: (!adjusted).then(|| declarer.into()),
        tricks: (!adjusted).then_some(tricks),
        ns_score: (!adjusted).then_some(score),
        ew_score: None,
        adjusted: adjusted.then_some(simpairs_events::Adjusted {
            ns_percent: 60,
            ew_percent: 40,
        }),
        arrow_switch: false,
        group: None,
        lead: i.is_multiple_of(8).then(|| "HK".into()),
        table: Some((i % TABLES) as i32 + 1),
    })
}

/// The results of `BATCH` as `ResultsRecorded`, one per club and board.
fn batches(results: &[Event]) -> Vec<Event> {
    let mut batches: Vec<ResultsRecorded> = Vec::new();
    for event in results {
        let Event::ResultRecorded(r) = event else {
            continue;
        };
        let line = ResultLine {
            section: r.section.clone(),
            ns_pair: r.ns_pair.clone(),
            ew_pair: r.ew_pair.clone(),
            movement: r.movement,
            contract: r.contract.clone(),
            declarer: r.declarer.clone(),
            tricks: r.tricks,
            ns_score: r.ns_score,
            ew_score: r.ew_score,
            adjusted: r.adjusted,
            arrow_switch: r.arrow_switch,
            group: r.group.clone(),
            lead: r.lead.clone(),
            table: r.table,
        };
        match batches.last_mut() {
            Some(b) if b.club_id == r.club_id && b.board == r.board && b.results.len() < TABLES => {
                b.results.push(line)
            }
            _ => batches.push(ResultsRecorded {
                event_id: r.event_id.clone(),
                club_id: r.club_id.clone(),
                submission_id: r.submission_id.clone(),
                board: r.board,
                first_sequence: r.sequence,
                results: vec![line],
            }),
        }
    }
    batches.into_iter().map(Event::ResultsRecorded).collect()
}

fn bench_codec(c: &mut Criterion<Clock>) {
    let codec = Codec::new().expect("schemas parse");
    let events: Vec<Event> = (0..BATCH).map(result).collect();
    let messages: Vec<Vec<u8>> = events.iter().map(|e| codec.encode(e)).collect();
    let bytes: usize = messages.iter().map(Vec::len).sum();
    eprintln!(
        "ResultRecorded: {} bytes per message on average",
        bytes as f64 / BATCH as f64
    );

    let mut group = c.benchmark_group("ResultRecorded");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("encode_into (reused buffer)", |b| {
        let mut out = Vec::with_capacity(256);
        b.iter(|| {
            for event in &events {
                out.clear();
                codec.encode_into(black_box(event), &mut out);
                black_box(&out);
            }
        })
    });
    group.bench_function("encode (new Vec)", |b| {
        b.iter(|| {
            for event in &events {
                black_box(codec.encode(black_box(event)));
            }
        })
    });
    group.bench_function("decode", |b| {
        b.iter(|| {
            for message in &messages {
                black_box(codec.decode(black_box(message)).expect("decodes"));
            }
        })
    });
    group.finish();

    let batched = batches(&events);
    let batch_messages: Vec<Vec<u8>> = batched.iter().map(|e| codec.encode(e)).collect();
    let bytes: usize = batch_messages.iter().map(Vec::len).sum();
    eprintln!(
        "ResultsRecorded: {} messages for {BATCH} results, {} bytes per result on average",
        batched.len(),
        bytes as f64 / BATCH as f64
    );
    let mut group = c.benchmark_group("ResultsRecorded");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("encode_into (reused buffer)", |b| {
        let mut out = Vec::with_capacity(4096);
        b.iter(|| {
            for event in &batched {
                out.clear();
                codec.encode_into(black_box(event), &mut out);
                black_box(&out);
            }
        })
    });
    group.bench_function("decode", |b| {
        b.iter(|| {
            for message in &batch_messages {
                black_box(codec.decode(black_box(message)).expect("decodes"));
            }
        })
    });
    group.bench_function("skim (header, lines checked)", |b| {
        b.iter(|| {
            for message in &batch_messages {
                black_box(codec.skim(black_box(message)).expect("skims"));
            }
        })
    });
    group.bench_function("applied_lines (lines as applied results)", |b| {
        let mut out = Vec::with_capacity(BATCH);
        b.iter(|| {
            out.clear();
            for message in &batch_messages {
                codec
                    .applied_lines(black_box(message), &mut out)
                    .expect("reads");
            }
            black_box(&out);
        })
    });
    group.finish();
}

/// One club's applied submission: the results of `BATCH` (200 a club, so five clubs' worth are
/// measured), a withdrawal and the pairs.
fn submissions(results: &[Event]) -> Vec<SubmissionApplied> {
    let mut applied: Vec<SubmissionApplied> = Vec::new();
    for event in results {
        let Event::ResultRecorded(r) = event else {
            continue;
        };
        match applied.last_mut() {
            Some(a) if a.club_id == r.club_id => a.results.push(r.applied()),
            _ => applied.push(SubmissionApplied {
                event_id: r.event_id.clone(),
                club_id: r.club_id.clone(),
                submission_id: r.submission_id.clone(),
                seal_offset: 1_234_567,
                results: vec![r.applied()],
                withdrawn: vec![ResultKey {
                    section: "A".into(),
                    board: 3,
                    ns_pair: "5".into(),
                    ew_pair: "17".into(),
                }],
                pairs: (1..=2 * TABLES)
                    .map(|p| AppliedPair {
                        section: "A".into(),
                        pair: p.to_string(),
                        direction: Some(if p <= TABLES {
                            Direction::Ns
                        } else {
                            Direction::Ew
                        }),
                        players: vec![
                            Player {
                                name: format!("Player {p} North"),
                                national_id: Some(format!("EBU {}", 100_000 + p)),
                            },
                            Player {
                                name: format!("Player {p} South"),
                                national_id: None,
                            },
                        ],
                    })
                    .collect(),
            }),
        }
    }
    applied
}

fn frac(num: i64, den: i64) -> Fraction {
    Fraction { num, den }
}

/// A club's board scored: `TABLES` results, eight scores in the table, one adjusted result.
fn board_scored(i: usize) -> Event {
    Event::BoardScored(BoardScored {
        event_id: "SIM-2026-11".into(),
        scope: format!("club-{:04}", i / 24).into(),
        board: (i % 24) as i32 + 1,
        generation: 17,
        results_count: TABLES as i32,
        target: TABLES as i32,
        top: frac(22, 1),
        datum: None,
        table: (0..8)
            .map(|s| TableEntry {
                ns_score: -200 + 110 * s,
                count: 1 + s % 2,
                ns_value: frac(3 * i64::from(s), 1),
                ew_value: frac(22 - 3 * i64::from(s), 1),
            })
            .collect(),
        specials: vec![SpecialValue {
            club_id: format!("club-{:04}", i / 24),
            key: ResultKey {
                section: "A".into(),
                board: (i % 24) as i32 + 1,
                ns_pair: "4".into(),
                ew_pair: "16".into(),
            },
            ns_value: frac(66, 5),
            ew_value: frac(44, 5),
        }],
    })
}

/// A club's standings: `2 * TABLES` pairs of a Mitchell.
fn standings(i: usize) -> Event {
    Event::StandingsComputed(StandingsComputed {
        event_id: "SIM-2026-11".to_string(),
        scope: format!("club-{i:04}"),
        generation: 17,
        scoring: Scoring::Matchpoints,
        factoring: Factoring::Neuberg,
        standings: (1..=2 * TABLES as i32)
            .map(|p| PairStanding {
                club_id: format!("club-{i:04}"),
                section: "A".into(),
                pair: p.to_string(),
                direction: Some(if p <= TABLES as i32 {
                    Direction::Ns
                } else {
                    Direction::Ew
                }),
                boards: 24,
                total: 264.5 - f64::from(p),
                max: 528.0,
                total_hundredths: 26450 - 100 * i64::from(p),
                percent_hundredths: Some(5009 - 19 * i64::from(p)),
                rank: (p - 1) % TABLES as i32 + 1,
                tied: false,
                combined_rank: p,
                combined_tied: false,
            })
            .collect(),
    })
}

/// Encoding into a reused buffer and decoding `events`, `per` elements each.
fn bench_events(c: &mut Criterion<Clock>, codec: &Codec, name: &str, events: &[Event], per: u64) {
    let messages: Vec<Vec<u8>> = events.iter().map(|e| codec.encode(e)).collect();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(per * events.len() as u64));
    group.bench_function("encode_into (reused buffer)", |b| {
        let mut out = Vec::with_capacity(64 * 1024);
        b.iter(|| {
            for event in events {
                out.clear();
                codec.encode_into(black_box(event), &mut out);
                black_box(&out);
            }
        })
    });
    group.bench_function("decode", |b| {
        b.iter(|| {
            for message in &messages {
                black_box(codec.decode(black_box(message)).expect("decodes"));
            }
        })
    });
    group.finish();
}

/// What the aggregator writes and the projection reads back: applied submissions (per result),
/// the board scores of clubs' fields and their standings (per message).
fn bench_derived(c: &mut Criterion<Clock>) {
    let codec = Codec::new().expect("schemas parse");
    let events: Vec<Event> = (0..BATCH).map(result).collect();
    let applied: Vec<Event> = submissions(&events)
        .into_iter()
        .map(Event::SubmissionApplied)
        .collect();
    bench_events(c, &codec, "SubmissionApplied (per result)", &applied, 200);
    let scored: Vec<Event> = (0..240).map(board_scored).collect();
    bench_events(c, &codec, "BoardScored (per message)", &scored, 1);
    let standings: Vec<Event> = (0..100).map(standings).collect();
    bench_events(c, &codec, "StandingsComputed (per message)", &standings, 1);
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(Clock::from_env());
    targets = bench_codec, bench_derived
}
criterion_main!(benches);
