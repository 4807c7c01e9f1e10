//! Fixed sample events shared by the tests: one per record type, filling every field
//! (unions both null and not null somewhere), so golden bytes exercise the whole schema.

#![allow(dead_code)]

use simpairs_events::*;

pub const EVENT_ID: &str = "SIM-2026-11";

/// A `String` or a [`Text`] from a literal.
fn s<T: for<'a> From<&'a str>>(text: &str) -> T {
    T::from(text)
}

fn frac(num: i64, den: i64) -> Fraction {
    Fraction { num, den }
}

/// The version 1 sample as version 2 reads it: the HMAC keys gone, the new fields at their
/// defaults.
pub fn event_declared_v1() -> EventDeclared {
    let mut declared = event_declared();
    for c in &mut declared.clubs {
        c.public_key = Vec::new();
    }
    EventDeclared {
        aggregator_keys: Vec::new(),
        organiser_key: None,
        limits: None,
        conventions: None,
        ..declared
    }
}

pub fn event_declared() -> EventDeclared {
    EventDeclared {
        event_id: s(EVENT_ID),
        name: s("Children in Need Simultaneous Pairs, November 2026"),
        boards: (1..=24).collect(),
        scoring: Scoring::Matchpoints,
        factoring: Factoring::Neuberg,
        clubs: vec![
            ClubEntry {
                club_id: s("bristol"),
                name: s("Bristol Bridge Club"),
                key_id: s("bristol-2026"),
                public_key: (0u8..32).collect(),
            },
            ClubEntry {
                club_id: s("gwynedd"),
                name: s("Clwb Bridge Gwynedd"),
                key_id: s("gwynedd-2026"),
                public_key: vec![0xA5; 32],
            },
        ],
        declared_at_ms: 1_795_000_000_000,
        aggregator_keys: vec![KeyEntry {
            key_id: s("k0123456789ab"),
            public_key: vec![0x5A; 32],
        }],
        organiser_key: Some(KeyEntry {
            key_id: s("kba9876543210"),
            public_key: vec![0x3C; 32],
        }),
        limits: Some(EventLimits {
            results_per_submission: 20_000,
            tables_per_board: 1_000,
            pairs_per_submission: 10_000,
            name_bytes: 200,
            field_bytes: 64,
            file_bytes: 32 << 20,
        }),
        conventions: Some(s("seeds")),
    }
}

pub fn event_amended() -> EventAmended {
    EventAmended {
        event_id: s(EVENT_ID),
        amendment: 2,
        added_clubs: vec![ClubEntry {
            club_id: s("cardiff"),
            name: s("Cardiff Bridge Club"),
            key_id: s("kcardiff0001"),
            public_key: vec![0x11; 32],
        }],
        added_keys: vec![ClubKey {
            club_id: s("bristol"),
            key_id: s("kbristol0002"),
            public_key: vec![0x22; 32],
        }],
        revoked_keys: vec![Revocation {
            club_id: s("bristol"),
            key_id: s("bristol-2026"),
            partition: 0,
            from_offset: 1234,
        }],
        added_aggregator_keys: Vec::new(),
        hands: vec![DealEntry {
            board: 1,
            deal: s("N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"),
        }],
        amended_at_ms: 1_795_100_000_000,
        key_id: s("kba9876543210"),
        signature: vec![0x77; 64],
        hands_from: vec![40, 7, 0],
        closed_from: vec![41, 8, 1],
    }
}

/// The version 2 sample as version 3 reads it (an amendment that does not close the event).
pub fn event_amended_v2() -> EventAmended {
    EventAmended {
        closed_from: Vec::new(),
        ..event_amended()
    }
}

/// The version 1 sample as version 3 reads it (hand records that hold for every seal).
pub fn event_amended_v1() -> EventAmended {
    EventAmended {
        hands_from: Vec::new(),
        ..event_amended_v2()
    }
}

pub fn line_drawn() -> LineDrawn {
    LineDrawn {
        event_id: s(EVENT_ID),
        amendment: 3,
        signature: vec![7; 64],
    }
}

pub fn deal_recorded() -> DealRecorded {
    DealRecorded {
        event_id: s(EVENT_ID),
        club_id: s("bristol"),
        submission_id: s("bristol-2026-11-17-1"),
        sequence: 40,
        board: 1,
        deal: s("N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 -"),
    }
}

pub fn output_sealed() -> OutputSealed {
    OutputSealed {
        event_id: s(EVENT_ID),
        stream: s("SIM-2026-11.board-scores"),
        partition: 0,
        hashes: (0u8..64).collect(),
        hash_function: HashFunction::Blake3,
        sealed_at_ms: 1_795_400_000_456,
        key_id: s("k0123456789ab"),
        signature: vec![0x99; 64],
    }
}

/// A played result: contract, declarer, tricks and score, table known.
pub fn result_recorded() -> ResultRecorded {
    ResultRecorded {
        event_id: s(EVENT_ID),
        club_id: s("bristol"),
        submission_id: s("bristol-2026-11-17-1"),
        sequence: 41,
        section: s("A"),
        board: 7,
        ns_pair: s("3"),
        ew_pair: s("11"),
        movement: Movement::Mitchell,
        contract: Some(s("4SX")),
        declarer: Some(s("N")),
        tricks: Some(9),
        ns_score: Some(-200),
        ew_score: None,
        adjusted: None,
        arrow_switch: true,
        group: Some(s("a")),
        lead: Some(s("HK")),
        table: Some(5),
    }
}

/// An adjusted result (AVE+/AVE-), written with version 1 of the schema (no table).
pub fn result_recorded_v1() -> ResultRecorded {
    ResultRecorded {
        event_id: s(EVENT_ID),
        club_id: s("gwynedd"),
        submission_id: s("gwynedd-1"),
        sequence: 0,
        section: s(""),
        board: 12,
        ns_pair: s("4"),
        ew_pair: s("6"),
        movement: Movement::Howell,
        contract: None,
        declarer: None,
        tricks: None,
        ns_score: None,
        ew_score: None,
        adjusted: Some(Adjusted {
            ns_percent: 60,
            ew_percent: 40,
        }),
        arrow_switch: false,
        group: None,
        lead: None,
        table: None,
    }
}

pub fn result_withdrawn() -> ResultWithdrawn {
    ResultWithdrawn {
        event_id: s(EVENT_ID),
        club_id: s("bristol"),
        submission_id: s("bristol-2026-11-17-2"),
        sequence: 0,
        section: s("A"),
        board: 7,
        ns_pair: s("3"),
        ew_pair: s("11"),
    }
}

pub fn pair_entered() -> PairEntered {
    PairEntered {
        event_id: s(EVENT_ID),
        club_id: s("bristol"),
        submission_id: s("bristol-2026-11-17-1"),
        sequence: 2,
        section: s("A"),
        pair: s("3"),
        direction: Some(Direction::Ns),
        players: vec![
            Player {
                name: s("Siân Lloyd-Jones"),
                national_id: Some(s("EBU 104233")),
            },
            Player {
                name: s("Zoë Ó Briain"),
                national_id: None,
            },
        ],
    }
}

pub fn submission_sealed() -> SubmissionSealed {
    SubmissionSealed {
        event_id: s(EVENT_ID),
        club_id: s("bristol"),
        submission_id: s("bristol-2026-11-17-1"),
        count: 42,
        digest: (100u8..132).collect(),
        hash_function: HashFunction::Blake3,
        key_id: s("bristol-2026"),
        signature: (150u8..214).collect(),
        sealed_at_ms: 1_795_400_000_123,
        source: Some(s("bristol-2026-11-17.csv")),
        warnings: vec![SealWarning {
            line: 14,
            field: s("ns_score"),
            message: s(
                "ns_score 100 disagrees with 3NT-1 by N, which scores -50 for NS; the recorded score is used",
            ),
        }],
        whole_session: true,
    }
}

/// The version 3 sample as version 4 reads it (not a whole session).
pub fn submission_sealed_v3() -> SubmissionSealed {
    SubmissionSealed {
        whole_session: false,
        ..submission_sealed()
    }
}

/// The version 1 sample as version 2 reads it (an HMAC signature, no warnings).
pub fn submission_sealed_v1() -> SubmissionSealed {
    SubmissionSealed {
        signature: (200u8..232).collect(),
        warnings: Vec::new(),
        ..submission_sealed_v2()
    }
}

/// The version 2 sample as version 4 reads it (a SHA-256 digest).
pub fn submission_sealed_v2() -> SubmissionSealed {
    SubmissionSealed {
        hash_function: HashFunction::Sha256,
        ..submission_sealed_v3()
    }
}

/// The version 1 sample as version 2 reads it (SHA-256 hashes).
pub fn output_sealed_v1() -> OutputSealed {
    OutputSealed {
        hash_function: HashFunction::Sha256,
        ..output_sealed()
    }
}

/// The version 1 sample as version 2 reads it (no leads).
pub fn submission_applied_v1() -> SubmissionApplied {
    let mut applied = submission_applied();
    for r in &mut applied.results {
        r.lead = None;
    }
    applied
}

pub fn submission_applied() -> SubmissionApplied {
    SubmissionApplied {
        event_id: s(EVENT_ID),
        club_id: s("bristol"),
        submission_id: s("bristol-2026-11-17-1"),
        seal_offset: 9_876_543,
        results: vec![
            AppliedResult {
                section: s("A"),
                board: 1,
                ns_pair: s("1"),
                ew_pair: s("9"),
                movement: Movement::Mitchell,
                contract: Some(s("3NT")),
                declarer: Some(s("S")),
                tricks: Some(10),
                ns_score: Some(430),
                ew_score: None,
                adjusted: None,
                arrow_switch: false,
                group: None,
                lead: Some(s("HK")),
            },
            AppliedResult {
                section: s("A"),
                board: 2,
                ns_pair: s("2"),
                ew_pair: s("10"),
                movement: Movement::Mitchell,
                contract: None,
                declarer: None,
                tricks: None,
                ns_score: Some(100),
                ew_score: Some(-50),
                adjusted: Some(Adjusted {
                    ns_percent: 40,
                    ew_percent: 40,
                }),
                arrow_switch: true,
                group: Some(s("b")),
                lead: None,
            },
        ],
        withdrawn: vec![ResultKey {
            section: s("A"),
            board: 3,
            ns_pair: s("5"),
            ew_pair: s("13"),
        }],
        pairs: vec![
            AppliedPair {
                section: s("A"),
                pair: s("1"),
                direction: Some(Direction::Ew),
                players: vec![Player {
                    name: s("A. Player"),
                    national_id: Some(s("1")),
                }],
            },
            AppliedPair {
                section: s("B"),
                pair: s("7"),
                direction: None,
                players: vec![],
            },
        ],
    }
}

pub fn board_scored() -> BoardScored {
    BoardScored {
        event_id: s(EVENT_ID),
        scope: s(""),
        board: 4,
        generation: 17,
        results_count: 9,
        target: 9,
        top: frac(16, 1),
        datum: Some(-110),
        table: vec![
            TableEntry {
                ns_score: -130,
                count: 3,
                ns_value: frac(6, 1),
                ew_value: frac(10, 1),
            },
            TableEntry {
                ns_score: 680,
                count: 3,
                ns_value: frac(14, 1),
                ew_value: frac(2, 1),
            },
        ],
        specials: vec![SpecialValue {
            club_id: s("gwynedd"),
            key: ResultKey {
                section: s(""),
                board: 4,
                ns_pair: s("4"),
                ew_pair: s("6"),
            },
            ns_value: frac(139, 15),
            ew_value: frac(-7, 3),
        }],
    }
}

pub fn pair_standing(
    rank: i32,
    direction: Option<Direction>,
    percent: Option<i64>,
) -> PairStanding {
    PairStanding {
        club_id: s("bristol"),
        section: s("A"),
        pair: rank.to_string(),
        direction,
        boards: 27,
        total: 215.5,
        max: 432.0,
        total_hundredths: 21550,
        percent_hundredths: percent,
        rank,
        tied: rank == 3,
        combined_rank: rank * 2,
        combined_tied: false,
    }
}

pub fn standings_computed() -> StandingsComputed {
    StandingsComputed {
        event_id: s(EVENT_ID),
        scope: s("bristol"),
        generation: 17,
        scoring: Scoring::CrossImps,
        factoring: Factoring::Ratio,
        standings: vec![
            pair_standing(1, Some(Direction::Ns), Some(6012)),
            pair_standing(3, Some(Direction::Ew), None),
            pair_standing(4, None, Some(4479)),
        ],
    }
}

pub fn leaderboard_published() -> LeaderboardPublished {
    LeaderboardPublished {
        event_id: s(EVENT_ID),
        generation: 17,
        published_at_ms: 1_795_400_100_000,
        clubs_applied: 212,
        results_applied: 61_234,
        top: vec![pair_standing(1, Some(Direction::Ns), Some(7125))],
    }
}

pub fn dead_lettered() -> DeadLettered {
    DeadLettered {
        event_id: None,
        source_stream: s("results"),
        source_partition: 3,
        source_offset: 1_234_567,
        reason: s(
            "the message is not an event: it starts with bytes 00 00 where an event starts with C3 01",
        ),
        payload: vec![0, 0, 0, 0, 1, 0xFF],
        at_ms: 1_795_400_200_000,
    }
}

/// A batch of three results of board 7.
pub fn results_recorded() -> ResultsRecorded {
    let line = |ns: &str, ew: &str, contract: Option<&str>, ns_score: Option<i32>| ResultLine {
        section: s("A"),
        ns_pair: s(ns),
        ew_pair: s(ew),
        movement: Movement::Mitchell,
        contract: contract.map(s),
        declarer: contract.map(|_| s("S")),
        tricks: contract.map(|_| 10),
        ns_score,
        ew_score: None,
        adjusted: None,
        arrow_switch: false,
        group: None,
        lead: None,
        table: Some(ns.parse().unwrap_or(0)),
    };
    let mut adjusted = line("3", "11", None, None);
    adjusted.adjusted = Some(Adjusted {
        ns_percent: 50,
        ew_percent: 50,
    });
    adjusted.lead = Some(s("D2"));
    ResultsRecorded {
        event_id: s(EVENT_ID),
        club_id: s("bristol"),
        submission_id: s("bristol-2026-11-17-1"),
        board: 7,
        first_sequence: 30,
        results: vec![
            line("1", "9", Some("4S"), Some(620)),
            line("2", "10", Some("3NT"), Some(630)),
            adjusted,
        ],
    }
}

/// One sample per record type, in `EventType::ALL` order (by stream, then by name).
pub fn samples() -> Vec<Event> {
    vec![
        event_amended().into(),
        event_declared().into(),
        deal_recorded().into(),
        line_drawn().into(),
        pair_entered().into(),
        result_recorded().into(),
        result_withdrawn().into(),
        results_recorded().into(),
        submission_sealed().into(),
        board_scored().into(),
        output_sealed().into(),
        submission_applied().into(),
        leaderboard_published().into(),
        standings_computed().into(),
        dead_lettered().into(),
    ]
}

/// Where golden files live.
pub fn golden_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Random records for property tests.
pub mod arb {
    use proptest::prelude::*;
    use simpairs_events::*;

    pub fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => "[A-Za-z0-9 -]{0,12}",
            1 => any::<String>(),
        ]
    }

    pub fn opt_text() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(text())
    }

    pub fn movement() -> impl Strategy<Value = Movement> {
        prop_oneof![Just(Movement::Mitchell), Just(Movement::Howell)]
    }

    pub fn adjusted() -> impl Strategy<Value = Option<Adjusted>> {
        proptest::option::of(
            (any::<i32>(), any::<i32>()).prop_map(|(ns_percent, ew_percent)| Adjusted {
                ns_percent,
                ew_percent,
            }),
        )
    }

    prop_compose! {
        pub fn result_recorded()(
            ids in (text(), text(), text()),
            sequence in any::<i32>(),
            section in text(),
            board in any::<i32>(),
            pairs in (text(), text()),
            movement in movement(),
            contract in (opt_text(), opt_text(), any::<Option<i32>>()),
            scores in (any::<Option<i32>>(), any::<Option<i32>>()),
            adjusted in adjusted(),
            arrow_switch in any::<bool>(),
            extra in (opt_text(), opt_text(), any::<Option<i32>>()),
        ) -> ResultRecorded {
            ResultRecorded {
                event_id: ids.0,
                club_id: ids.1,
                submission_id: ids.2,
                sequence,
                section: section.into(),
                board,
                ns_pair: pairs.0.into(),
                ew_pair: pairs.1.into(),
                movement,
                contract: contract.0.map(Text::from),
                declarer: contract.1.map(Text::from),
                tricks: contract.2,
                ns_score: scores.0,
                ew_score: scores.1,
                adjusted,
                arrow_switch,
                group: extra.0.map(Text::from),
                lead: extra.1.map(Text::from),
                table: extra.2,
            }
        }
    }

    prop_compose! {
        pub fn results_recorded()(
            first in result_recorded(),
            more in proptest::collection::vec(result_recorded(), 0..6),
            first_sequence in any::<i32>(),
        ) -> ResultsRecorded {
            let results = std::iter::once(first.clone())
                .chain(more)
                .map(|r| ResultLine {
                    section: r.section,
                    ns_pair: r.ns_pair,
                    ew_pair: r.ew_pair,
                    movement: r.movement,
                    contract: r.contract,
                    declarer: r.declarer,
                    tricks: r.tricks,
                    ns_score: r.ns_score,
                    ew_score: r.ew_score,
                    adjusted: r.adjusted,
                    arrow_switch: r.arrow_switch,
                    group: r.group,
                    lead: r.lead,
                    table: r.table,
                })
                .collect();
            ResultsRecorded {
                event_id: first.event_id,
                club_id: first.club_id,
                submission_id: first.submission_id,
                board: first.board,
                first_sequence,
                results,
            }
        }
    }

    prop_compose! {
        pub fn applied_pair()(
            section in text(),
            pair in text(),
            direction in proptest::option::of(prop_oneof![Just(Direction::Ns), Just(Direction::Ew)]),
            players in proptest::collection::vec((text(), opt_text()), 0..3),
        ) -> AppliedPair {
            AppliedPair {
                section,
                pair,
                direction,
                players: players
                    .into_iter()
                    .map(|(name, national_id)| Player { name, national_id })
                    .collect(),
            }
        }
    }

    prop_compose! {
        pub fn submission_applied()(
            ids in (text(), text(), text()),
            seal_offset in any::<i64>(),
            results in proptest::collection::vec(result_recorded(), 0..6),
            withdrawn in proptest::collection::vec((text(), any::<i32>(), text(), text()), 0..3),
            pairs in proptest::collection::vec(applied_pair(), 0..3),
        ) -> SubmissionApplied {
            SubmissionApplied {
                event_id: ids.0,
                club_id: ids.1,
                submission_id: ids.2,
                seal_offset,
                results: results.iter().map(ResultRecorded::applied).collect(),
                withdrawn: withdrawn
                    .into_iter()
                    .map(|(section, board, ns_pair, ew_pair)| ResultKey {
                        section: section.into(),
                        board,
                        ns_pair: ns_pair.into(),
                        ew_pair: ew_pair.into(),
                    })
                    .collect(),
                pairs,
            }
        }
    }

    pub fn fraction() -> impl Strategy<Value = Fraction> {
        (any::<i64>(), any::<i64>()).prop_map(|(num, den)| Fraction { num, den })
    }

    prop_compose! {
        pub fn board_scored()(
            ids in (text(), text()),
            numbers in (any::<i32>(), any::<i64>(), any::<i32>(), any::<i32>()),
            top in fraction(),
            datum in any::<Option<i32>>(),
            table in proptest::collection::vec(
                (any::<i32>(), any::<i32>(), fraction(), fraction()),
                0..4,
            ),
            specials in proptest::collection::vec(
                (text(), (text(), any::<i32>(), text(), text()), fraction(), fraction()),
                0..3,
            ),
        ) -> BoardScored {
            BoardScored {
                event_id: ids.0.into(),
                scope: ids.1.into(),
                board: numbers.0,
                generation: numbers.1,
                results_count: numbers.2,
                target: numbers.3,
                top,
                datum,
                table: table
                    .into_iter()
                    .map(|(ns_score, count, ns_value, ew_value)| TableEntry {
                        ns_score,
                        count,
                        ns_value,
                        ew_value,
                    })
                    .collect(),
                specials: specials
                    .into_iter()
                    .map(|(club_id, key, ns_value, ew_value)| SpecialValue {
                        club_id,
                        key: ResultKey {
                            section: key.0.into(),
                            board: key.1,
                            ns_pair: key.2.into(),
                            ew_pair: key.3.into(),
                        },
                        ns_value,
                        ew_value,
                    })
                    .collect(),
            }
        }
    }

    prop_compose! {
        pub fn pair_standing()(
            names in (text(), text(), text()),
            direction in proptest::option::of(prop_oneof![Just(Direction::Ns), Just(Direction::Ew)]),
            boards in any::<i32>(),
            totals in (any::<f64>(), any::<f64>(), any::<i64>(), any::<Option<i64>>()),
            places in (any::<i32>(), any::<bool>(), any::<i32>(), any::<bool>()),
        ) -> PairStanding {
            PairStanding {
                club_id: names.0,
                section: names.1,
                pair: names.2,
                direction,
                boards,
                total: totals.0,
                max: totals.1,
                total_hundredths: totals.2,
                percent_hundredths: totals.3,
                rank: places.0,
                tied: places.1,
                combined_rank: places.2,
                combined_tied: places.3,
            }
        }
    }

    prop_compose! {
        pub fn standings_computed()(
            ids in (text(), text()),
            generation in any::<i64>(),
            scoring in prop_oneof![
                Just(Scoring::Matchpoints),
                Just(Scoring::Butler),
                Just(Scoring::CrossImps)
            ],
            factoring in prop_oneof![Just(Factoring::Neuberg), Just(Factoring::Ratio)],
            standings in proptest::collection::vec(pair_standing(), 0..4),
        ) -> StandingsComputed {
            StandingsComputed {
                event_id: ids.0,
                scope: ids.1,
                generation,
                scoring,
                factoring,
                standings,
            }
        }
    }
}
