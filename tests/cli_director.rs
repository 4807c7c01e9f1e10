//! What an organiser and a director do at the command line: declare, publish (a file the
//! aggregator would refuse is refused at once), aggregate, then look at the submissions and replay
//! the event as of the offset `club publish` printed or as of a date and time.

use std::path::Path;
use std::process::{Command, Output};

const CLUB_A: &str = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score\n\
1,1,1,4S,N,10,\n1,2,2,4S,N,9,\n2,1,2,3NT,S,9,\n2,2,1,2H,E,8,\n";
const CLUB_B: &str =
    "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,2,2,450\n2,1,2,-110\n2,2,1,600\n";
/// Club A's correction: table 2 of board 1 made 10 tricks after all.
const CLUB_A_CORRECTED: &str = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score\n\
1,1,1,4S,N,10,\n1,2,2,4S,N,10,\n2,1,2,3NT,S,9,\n2,2,1,2H,E,8,\n";

fn simpairs(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("simpairs runs")
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = simpairs(dir, args);
    assert!(
        out.status.success(),
        "simpairs {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The seal offset `club publish` printed.
fn seal_offset(printed: &str) -> String {
    let at = printed.find("seal at offset ").expect("an offset") + "seal at offset ".len();
    printed[at..].trim_end().trim_end_matches(')').to_string()
}

/// `event declare` of event E in `dir`'s log, on `boards`, with the clubs of `clubs.csv`.
fn declare_clubs_file(dir: &Path, boards: &str) -> Output {
    let args = [
        "event", "declare", "--log", "log", "--event", "E", "--boards", boards,
    ];
    simpairs(dir, &[&args[..], &["--clubs", "clubs.csv"]].concat())
}

/// [`declare_clubs_file`], which must succeed.
fn declared(dir: &Path, boards: &str) {
    let out = declare_clubs_file(dir, boards);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn publish(dir: &Path, club: &str, file: &str) -> String {
    ok(
        dir,
        &[
            "club", "publish", "--log", "log", "--event", "E", "--club", club, "--key",
        ]
        .into_iter()
        .chain([format!("keys/{club}.key").as_str(), file])
        .collect::<Vec<_>>(),
    )
}

/// An event of two clubs, A published, B published, A corrected; aggregated.
fn event(dir: &Path) -> (String, String) {
    event_declared_with(dir, &[])
}

/// [`event`], declared with these flags too.
fn event_declared_with(dir: &Path, declare_flags: &[&str]) -> (String, String) {
    std::fs::write(dir.join("clubs.csv"), "club,name\nA,Club A\nB,Club B\n").unwrap();
    for (name, text) in [
        ("a.csv", CLUB_A),
        ("b.csv", CLUB_B),
        ("a2.csv", CLUB_A_CORRECTED),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    ok(
        dir,
        &[
            "event",
            "declare",
            "--log",
            "log",
            "--event",
            "E",
            "--boards",
            "1-2",
            "--clubs",
            "clubs.csv",
        ]
        .into_iter()
        .chain(declare_flags.iter().copied())
        .collect::<Vec<_>>(),
    );
    let first = seal_offset(&publish(dir, "A", "a.csv"));
    let second = seal_offset(&publish(dir, "B", "b.csv"));
    publish(dir, "A", "a2.csv");
    ok(
        dir,
        &[
            "aggregate",
            "--log",
            "log",
            "--until-idle",
            "--key",
            "keys/aggregator.key",
        ],
    );
    (first, second)
}

fn pairs_of(json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json).expect("JSON");
    let mut clubs: Vec<String> = v["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .map(|p| p["club"].as_str().unwrap_or_default().to_string())
        .collect();
    clubs.sort();
    clubs.dedup();
    clubs
}

#[test]
fn replay_as_of_the_offset_publish_printed_includes_that_seal() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = event(dir.path());
    let json = ok(
        dir.path(),
        &["replay", "--log", "log", "--as-of", &first, "--json"],
    );
    assert_eq!(pairs_of(&json), ["A"], "just after A's seal: A alone");
    let json = ok(
        dir.path(),
        &["replay", "--log", "log", "--as-of", &second, "--json"],
    );
    assert_eq!(pairs_of(&json), ["A", "B"]);
    // The time the director's listing prints for A's seal, copied as printed, takes it in.
    let listed = ok(dir.path(), &["submissions", "--log", "log", "--club", "A"]);
    let at = listed.find(" sealed ").expect("a seal time") + " sealed ".len();
    let sealed = &listed[at..at + listed[at..].find(" at offset").unwrap()];
    let json = ok(
        dir.path(),
        &["replay", "--log", "log", "--as-of", sealed, "--json"],
    );
    assert!(pairs_of(&json).contains(&"A".to_string()), "{sealed}");
    // Past the end of the log: the event now, and said so.
    let out = simpairs(dir.path(), &["replay", "--log", "log", "--as-of", "99999"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("note: offset 99999 is past the end of the log"),
        "{err}"
    );
    // A moment before anything was published, in UTC and in local time.
    for moment in ["2001-02-03T04:05:06Z", "2001-02-03 04:05"] {
        let out = simpairs(dir.path(), &["replay", "--log", "log", "--as-of", moment]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("nothing was published at or before")
                && err.contains("first submission was sealed at offset"),
            "{err}"
        );
    }
    let out = simpairs(
        dir.path(),
        &["replay", "--log", "log", "--as-of", "yesterday-ish"],
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected an offset"));
}

#[test]
fn the_director_sees_every_submission_and_what_became_of_it() {
    let dir = tempfile::tempdir().unwrap();
    event(dir.path());
    let json = ok(dir.path(), &["submissions", "--log", "log", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let states: Vec<(String, String, String)> = v["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["club"].as_str().unwrap().to_string(),
                s["source"].as_str().unwrap().to_string(),
                s["state"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        ("A", "a.csv", "superseded"),
        ("B", "b.csv", "applied"),
        ("A", "a2.csv", "applied"),
    ];
    assert_eq!(
        states,
        expected.map(|(c, f, s)| (c.to_string(), f.to_string(), s.to_string()))
    );
    let text = ok(dir.path(), &["submissions", "--log", "log"]);
    assert!(
        text.contains("corrected by submission")
            && text.contains(": none of its lines is in force"),
        "{text}"
    );

    // B corrects one line: its file stays applied, three of its four lines in force.
    let d = dir.path();
    std::fs::write(
        d.join("b2.csv"),
        "board,ns_pair,ew_pair,ns_score\n1,2,2,420\n",
    )
    .unwrap();
    publish(d, "B", "b2.csv");
    let json = ok(d, &["submissions", "--log", "log", "--json", "--club", "B"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let listed: Vec<(&str, &str, Option<u64>, bool)> = (v["submissions"].as_array().unwrap())
        .iter()
        .map(|s| {
            let by = s["superseded_by"].is_string();
            (
                s["source"].as_str().unwrap(),
                s["state"].as_str().unwrap(),
                s["lines_in_force"].as_u64(),
                by,
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("b.csv", "applied", Some(3), true),
            ("b2.csv", "applied", Some(1), false)
        ]
    );
    let text = ok(d, &["submissions", "--log", "log", "--club", "B"]);
    assert!(text.contains(": 3 of its lines still in force"), "{text}");
    assert!(text.contains("3 applied, 1 superseded"), "{text}");
}

#[test]
fn a_file_the_aggregator_would_refuse_is_refused_at_publish() {
    let dir = tempfile::tempdir().unwrap();
    event(dir.path());
    // Board 3 is not a board of the event.
    std::fs::write(
        dir.path().join("bad.csv"),
        "board,ns_pair,ew_pair,ns_score\n3,1,1,420\n",
    )
    .unwrap();
    let out = simpairs(
        dir.path(),
        &[
            "club",
            "publish",
            "--log",
            "log",
            "--event",
            "E",
            "--club",
            "B",
            "--key",
            "keys/B.key",
            "bad.csv",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("board"));
    let json = ok(dir.path(), &["submissions", "--log", "log", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["submissions"].as_array().unwrap().len(),
        3,
        "nothing more was published"
    );
}

/// `replay` takes the conventions as `score` does: a preset, and each choice as a flag of its own.
#[test]
fn replay_scores_by_the_conventions_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    event(dir.path());
    let conventions = |extra: &[&str]| -> serde_json::Value {
        let args: Vec<&str> = ["replay", "--log", "log", "--json"]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let v: serde_json::Value = serde_json::from_str(&ok(dir.path(), &args)).unwrap();
        v["scoring"]["conventions"].clone()
    };
    assert_eq!(
        conventions(&[]),
        serde_json::Value::Null,
        "the seeds by default"
    );
    assert_eq!(conventions(&["--conventions", "nz-scorer"]), "nz-scorer");
    assert_eq!(
        conventions(&["--lines", "truncate-0.1", "--datum", "median"]),
        "seeds,lines=truncate-0.1,datum=median"
    );
}

/// An event declared with a program's conventions is scored by them wherever it is read, with no
/// flag: replay gives what `--conventions` gives on an event declared with the seeds'.
#[test]
fn an_event_declared_with_conventions_is_scored_by_them() {
    let declared = tempfile::tempdir().unwrap();
    let plain = tempfile::tempdir().unwrap();
    // Club B played board 1 once only, so ScoreBridge's missing-results-as-ties rule applies.
    let short_b = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n2,1,2,-110\n2,2,1,600\n";
    for dir in [declared.path(), plain.path()] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let printed = {
        std::fs::write(
            declared.path().join("clubs.csv"),
            "club,name\nA,Club A\nB,Club B\n",
        )
        .unwrap();
        ok(
            declared.path(),
            &[
                "event",
                "declare",
                "--log",
                "log",
                "--event",
                "E",
                "--boards",
                "1-2",
                "--clubs",
                "clubs.csv",
                "--conventions",
                "scorebridge",
            ],
        )
    };
    assert!(printed.contains("conventions: scorebridge"), "{printed}");
    std::fs::write(
        plain.path().join("clubs.csv"),
        "club,name\nA,Club A\nB,Club B\n",
    )
    .unwrap();
    ok(
        plain.path(),
        &[
            "event",
            "declare",
            "--log",
            "log",
            "--event",
            "E",
            "--boards",
            "1-2",
            "--clubs",
            "clubs.csv",
        ],
    );
    for dir in [declared.path(), plain.path()] {
        std::fs::write(dir.join("a.csv"), CLUB_A).unwrap();
        std::fs::write(dir.join("b.csv"), short_b).unwrap();
        publish(dir, "A", "a.csv");
        publish(dir, "B", "b.csv");
        ok(
            dir,
            &[
                "aggregate",
                "--log",
                "log",
                "--until-idle",
                "--key",
                "keys/aggregator.key",
            ],
        );
    }
    let replay = |dir: &Path, flags: &[&str]| -> serde_json::Value {
        let args: Vec<&str> = ["replay", "--log", "log", "--json"]
            .into_iter()
            .chain(flags.iter().copied())
            .collect();
        serde_json::from_str(&ok(dir, &args)).unwrap()
    };
    let by_declaration = replay(declared.path(), &[]);
    let by_flag = replay(plain.path(), &["--conventions", "scorebridge"]);
    let seeds = replay(plain.path(), &[]);
    assert_eq!(by_declaration["scoring"]["conventions"], "scorebridge");
    assert_eq!(by_declaration["pairs"], by_flag["pairs"]);
    assert_ne!(
        by_declaration["pairs"], seeds["pairs"],
        "the rule changes these figures"
    );
    // A flag still overrides what the event declared.
    assert_eq!(
        replay(declared.path(), &["--conventions", "seeds"])["pairs"],
        seeds["pairs"]
    );
}

#[test]
fn a_changed_score_applies_with_a_warning_the_director_sees() {
    let dir = tempfile::tempdir().unwrap();
    event(dir.path());
    // Table 2 of board 1: 4S made exactly is 420, the director ruled 450.
    std::fs::write(
        dir.path().join("a3.csv"),
        "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score\n\
1,1,1,4S,N,10,\n1,2,2,4S,N,10,450\n2,1,2,3NT,S,9,\n2,2,1,2H,E,8,\n",
    )
    .unwrap();
    let out = simpairs(
        dir.path(),
        &[
            "club",
            "publish",
            "--log",
            "log",
            "--event",
            "E",
            "--club",
            "A",
            "--key",
            "keys/A.key",
            "a3.csv",
        ],
    );
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: a3.csv:3: ns_score") && stderr.contains("450"),
        "{stderr}"
    );
    ok(
        dir.path(),
        &[
            "aggregate",
            "--log",
            "log",
            "--until-idle",
            "--key",
            "keys/aggregator.key",
        ],
    );
    let text = ok(dir.path(), &["submissions", "--log", "log"]);
    assert!(text.contains("warning: a3.csv:3: ns_score"), "{text}");
    // The recorded score stands: NS 2 scores 450 on board 1.
    let json = ok(dir.path(), &["replay", "--log", "log", "--json"]);
    assert!(json.contains("\"ns_score\":450"), "{json}");
}

#[test]
fn an_event_is_declared_once_and_no_key_file_is_written_over() {
    let dir = tempfile::tempdir().unwrap();
    event(dir.path());
    let keys: Vec<(String, Vec<u8>)> = ["A", "B", "aggregator", "organiser"]
        .iter()
        .map(|k| {
            let path = dir.path().join(format!("keys/{k}.key"));
            (k.to_string(), std::fs::read(&path).unwrap())
        })
        .collect();
    let out = simpairs(
        dir.path(),
        &[
            "event",
            "declare",
            "--log",
            "log",
            "--event",
            "E",
            "--boards",
            "1-2",
            "--clubs",
            "clubs.csv",
        ],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("event E is already declared"), "{stderr}");
    // Another event with the same keys directory: refused, the keys stay as they were.
    let out = simpairs(
        dir.path(),
        &[
            "event",
            "declare",
            "--log",
            "log",
            "--event",
            "F",
            "--boards",
            "1-2",
            "--clubs",
            "clubs.csv",
        ],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("never writes over a key file"), "{stderr}");
    for (k, bytes) in keys {
        assert_eq!(
            std::fs::read(dir.path().join(format!("keys/{k}.key"))).unwrap(),
            bytes,
            "{k}"
        );
    }
    // Clubs are added by the organiser's signed amendment.
    std::fs::write(dir.path().join("more.csv"), "club,name\nC,Club C\n").unwrap();
    ok(
        dir.path(),
        &[&AMEND[..], &["--add-clubs", "more.csv"]].concat(),
    );
    std::fs::write(dir.path().join("c.csv"), CLUB_B).unwrap();
    publish(dir.path(), "C", "c.csv");
    ok(
        dir.path(),
        &[
            "aggregate",
            "--log",
            "log",
            "--until-idle",
            "--key",
            "keys/aggregator.key",
        ],
    );
    let json = ok(dir.path(), &["replay", "--log", "log", "--json"]);
    assert_eq!(pairs_of(&json), ["A", "B", "C"]);
}

#[test]
fn a_revoked_key_signs_nothing_after_its_revocation_and_a_new_one_does() {
    let dir = tempfile::tempdir().unwrap();
    event(dir.path());
    ok(dir.path(), &["club", "keygen", "--out", "b2.key"]);
    let old = key_id_of_private(&dir.path().join("keys/B.key"));
    let revoke = format!("B={old}");
    let changes = ["--revoke", revoke.as_str(), "--add-key", "B=b2.pub"];
    ok(dir.path(), &[&AMEND[..], &changes].concat());
    std::fs::write(dir.path().join("b2.csv"), CLUB_A).unwrap();
    // With the revoked key: refused at publish already.
    let out = simpairs(
        dir.path(),
        &[
            "club",
            "publish",
            "--log",
            "log",
            "--event",
            "E",
            "--club",
            "B",
            "--key",
            "keys/B.key",
            "b2.csv",
        ],
    );
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let new = key_id_of_private(&dir.path().join("b2.key"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("revoked")
            && err.contains(&format!("sign with the club's key in force ({new})")),
        "{err}"
    );
    ok(
        dir.path(),
        &[
            "club", "publish", "--log", "log", "--event", "E", "--club", "B", "--key", "b2.key",
            "b2.csv",
        ],
    );
    ok(
        dir.path(),
        &[
            "aggregate",
            "--log",
            "log",
            "--until-idle",
            "--key",
            "keys/aggregator.key",
        ],
    );
    let json = ok(dir.path(), &["submissions", "--log", "log", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let last = v["submissions"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["club"].as_str(), last["state"].as_str()),
        (Some("B"), Some("applied"))
    );

    // A key revoked as `club keygen` printed it; a key the club does not have is named with
    // the club's keys; with none left in force, the club is told it has none.
    let amend = |revoke: &str| simpairs(dir.path(), &[&AMEND[..], &["--revoke", revoke]].concat());
    let out = amend("B=k000000000000");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("(its keys: {old}, {new})")), "{err}");
    let printed = std::fs::read_to_string(dir.path().join("b2.pub")).unwrap();
    let out = amend(&format!("B={}", printed.trim()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let args = [
        "club", "publish", "--log", "log", "--event", "E", "--club", "B",
    ];
    let out = simpairs(
        dir.path(),
        &[&args[..], &["--key", "b2.key", "b2.csv"]].concat(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the club has no other key"), "{err}");
}

fn key_id_of_private(path: &Path) -> String {
    simpairs_pipeline::keys::read_private(path)
        .unwrap()
        .public()
        .id()
}

/// Appends club `club`'s file as `club publish` would, but only the events `keep` keeps: an upload
/// cut short (its records, no seal) or a seal whose records never came.
fn append_part(dir: &Path, club: &str, csv: &str, keep: impl Fn(&simpairs_events::Event) -> bool) {
    let log = simpairs_log::EmbeddedLog::open(dir.join("log")).unwrap();
    let codec = simpairs_events::Codec::new().unwrap();
    let key = simpairs_pipeline::keys::read_private(&dir.join(format!("keys/{club}.key"))).unwrap();
    let sealed = simpairs_pipeline::publish::seal_file(
        &codec,
        &log,
        "E",
        club,
        &key,
        &simpairs_pipeline::publish::ClubFile {
            name: "cut.csv",
            bytes: csv.as_bytes(),
            format: None,
            whole_session: false,
        },
    )
    .unwrap();
    let stream = simpairs_pipeline::stream_name("E", simpairs_events::Stream::Results);
    let encoded: Vec<(Vec<u8>, Vec<u8>)> = (sealed.events.iter())
        .filter(|e| keep(e))
        .map(|e| (e.partition_key(), codec.encode(e)))
        .collect();
    let records: Vec<simpairs_log::Produce<'_>> = (encoded.iter())
        .map(|(k, v)| simpairs_log::Produce::new(k, v, 0))
        .collect();
    simpairs_log::Log::append(&log, &stream, &records).unwrap();
}

#[test]
fn the_director_sees_uploads_not_complete_and_clubs_not_in() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("clubs.csv"),
        "club,name\nA,Club A\nB,Club B\nC,Club C\n",
    )
    .unwrap();
    std::fs::write(d.join("a.csv"), CLUB_A).unwrap();
    declared(d, "1-2");
    publish(d, "A", "a.csv");
    let is_seal =
        |e: &simpairs_events::Event| matches!(e, simpairs_events::Event::SubmissionSealed(_));
    // B's upload was cut short before its seal; C's seal came without its four results.
    append_part(d, "B", CLUB_B, |e| !is_seal(e));
    append_part(d, "C", CLUB_B, is_seal);
    // And a record that does not read: set aside on its own.
    let log = simpairs_log::EmbeddedLog::open(d.join("log")).unwrap();
    let stream = simpairs_pipeline::stream_name("E", simpairs_events::Stream::Results);
    let junk = simpairs_log::Produce::new(b"E/1", b"not a record", 0);
    simpairs_log::Log::append(&log, &stream, &[junk]).unwrap();
    ok(
        d,
        &[
            "aggregate",
            "--log",
            "log",
            "--until-idle",
            "--key",
            "keys/aggregator.key",
        ],
    );

    let text = ok(d, &["submissions", "--log", "log"]);
    assert!(
        text.starts_with(
            "event E: 1 of 3 declared clubs in; 1 submission: 1 applied, 0 superseded, 0 set aside; 1 record set aside on its own\n"
        ),
        "{text}"
    );
    assert!(text.contains(": 4 records, applied"), "{text}");
    assert!(text.contains("\nset aside at offset "), "{text}");
    assert!(
        text.contains("\nnot sealed: club B, submission ")
            && text.contains(": 4 records and no seal that applies"),
        "{text}"
    );
    assert!(
        text.contains("\nnot complete: club C, submission ")
            && text.contains("covers 4 records, and 0 records came"),
        "{text}"
    );
    assert!(
        text.ends_with("\nclubs not in yet: 2\n  B (Club B)\n  C (Club C)\n"),
        "{text}"
    );

    // One club; one state.
    let b = ok(d, &["submissions", "--log", "log", "--club", "B"]);
    assert!(
        b.contains("not sealed: club B")
            && !b.contains("club A,")
            && !b.contains("club C")
            && !b.contains("set aside at offset"),
        "{b}"
    );
    let applied = ok(d, &["submissions", "--log", "log", "--state", "applied"]);
    assert!(
        applied.contains("club A,")
            && !applied.contains("not sealed")
            && !applied.contains("not in yet"),
        "{applied}"
    );
    let json = ok(d, &["submissions", "--log", "log", "--club", "C", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["submissions"].as_array().unwrap().len(), 0);
    assert_eq!(v["unsealed"][0]["club"], "C");
    assert_eq!(v["unsealed"][0]["seal"]["covers"], 4);
    assert_eq!(
        v["not_in"],
        serde_json::json!([{"club": "C", "name": "Club C"}])
    );
    assert_eq!(v["clubs_declared"], 3);
    // A club the event does not know is said so, not listed as nothing.
    let out = simpairs(d, &["submissions", "--log", "log", "--club", "Z"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("club Z is not part of event E"), "{err}");
}

#[test]
fn a_clubs_file_saved_by_a_spreadsheet_on_windows_is_declared_with_its_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Excel's plain CSV where the decimal mark is a comma: semicolons, CRLF, Windows-1252.
    std::fs::write(
        d.join("clubs.csv"),
        b"Club;Name\r\nA;Club Ang\xe9lique\r\nB;\"Smith; Jones\"\r\n;;\r\n",
    )
    .unwrap();
    let out = declare_clubs_file(d, "1-2");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: clubs.csv:2: ") && err.contains("Windows-1252"),
        "{err}"
    );
    let text = ok(d, &["submissions", "--log", "log"]);
    assert!(
        text.ends_with("clubs not in yet: 2\n  A (Club Angélique)\n  B (Smith; Jones)\n"),
        "{text}"
    );
}

#[test]
fn the_organisers_whole_list_given_again_adds_only_the_new_clubs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\nB,Club B\n").unwrap();
    declared(d, "1-2");
    let amend = |file: &str, keys: &str| {
        simpairs(
            d,
            &[&AMEND[..], &["--add-clubs", file, "--keys-out", keys]].concat(),
        )
    };
    // The whole list with one club more: C is added, A and B are left as they are.
    std::fs::write(
        d.join("all.csv"),
        "club,name\nA,Club A\nB,Club B\nC,Club C\n",
    )
    .unwrap();
    let out = amend("all.csv", "late");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("left as they are: A, B") && said.contains("late/C.key"),
        "{said}"
    );
    assert!(!d.join("late/A.key").exists() && !d.join("late/B.key").exists());
    std::fs::write(d.join("c.csv"), CLUB_B).unwrap();
    ok(
        d,
        &[
            "club",
            "publish",
            "--log",
            "log",
            "--event",
            "E",
            "--club",
            "C",
            "--key",
            "late/C.key",
            "c.csv",
        ],
    );
    // The same list again: nothing to amend. A club listed under another name: refused whole.
    let again = amend("all.csv", "again");
    assert!(!again.status.success());
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("nothing to amend"), "{err}");
    std::fs::write(d.join("renamed.csv"), "club,name\nA,Club Alpha\nD,Club D\n").unwrap();
    let renamed = amend("renamed.csv", "renamed");
    assert!(!renamed.status.success());
    let err = String::from_utf8_lossy(&renamed.stderr);
    assert!(
        err.contains("club A is already part of event E, as \"Club A\""),
        "{err}"
    );
    assert!(
        !d.join("renamed").exists() && !d.join("again").exists(),
        "no key file made"
    );
    // The listing is the judge's own reading of the log: C's submission applies in it.
    let text = ok(d, &["submissions", "--log", "log"]);
    assert!(
        text.starts_with("event E: 1 of 3 declared clubs in"),
        "{text}"
    );
    assert!(
        text.ends_with("clubs not in yet: 2\n  A (Club A)\n  B (Club B)\n"),
        "{text}"
    );
}

#[test]
fn a_mistyped_log_is_said_to_be_one_and_not_made() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    event(d);
    std::fs::create_dir(d.join("empty")).unwrap();
    for (log, said) in [
        (
            "lgo",
            "lgo: there is no log there (no such directory); check --log",
        ),
        (
            "empty",
            "empty: this directory holds no simpairs log; check --log",
        ),
    ] {
        for args in [
            &["submissions"][..],
            &["replay"],
            &["aggregate", "--until-idle", "--key", "keys/aggregator.key"],
            &[
                "club",
                "publish",
                "--event",
                "E",
                "--club",
                "B",
                "--key",
                "keys/B.key",
                "b.csv",
            ],
            &["export", "--to", "out"],
        ] {
            let out = simpairs(d, &[args, &["--log", log]].concat());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && err.contains(said),
                "{args:?} {log}: {err}"
            );
        }
    }
    assert!(!d.join("lgo").exists(), "nothing made at the mistyped path");
    assert_eq!(std::fs::read_dir(d.join("empty")).unwrap().count(), 0);
    // The log itself still opens.
    ok(d, &["submissions", "--log", "log"]);
}

#[test]
fn a_clubs_new_key_is_added_as_keygen_printed_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    event(d);
    // The club sends the line keygen printed; the organiser pastes it.
    let printed = ok(d, &["club", "keygen", "--out", "a2.key"]);
    let public = printed
        .lines()
        .find(|l| l.starts_with("ed25519-public:"))
        .unwrap();
    let amend = |given: &str| simpairs(d, &[&AMEND[..], &["--add-key", given]].concat());
    // A private key pasted by mistake is refused without being repeated.
    let private = std::fs::read_to_string(d.join("a2.key")).unwrap();
    let out = amend(&format!("A={}", private.trim()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("this is a private key"),
        "{err}"
    );
    assert!(!err.contains(private.trim()), "{err}");
    let out = amend(&format!("A={public}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(d.join("a3.csv"), CLUB_A_CORRECTED).unwrap();
    ok(
        d,
        &[
            "club", "publish", "--log", "log", "--event", "E", "--club", "A", "--key", "a2.key",
            "a3.csv",
        ],
    );
}

/// Each pair's number, direction, boards, matchpoints and place in `score --json` or `replay
/// --json` output, whatever the club.
fn standings(json: &str) -> Vec<(String, String, u64, f64, u64)> {
    let v: serde_json::Value = serde_json::from_str(json).expect("JSON");
    let mut pairs: Vec<_> = (v["pairs"].as_array().expect("pairs").iter())
        .map(|p| {
            let text = |k: &str| p[k].as_str().unwrap_or_default().to_string();
            let (boards, mp, rank) = (p["boards"].as_u64(), p["mp"].as_f64(), p["rank"].as_u64());
            (
                text("pair"),
                text("direction"),
                boards.unwrap(),
                mp.unwrap(),
                rank.unwrap(),
            )
        })
        .collect();
    pairs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    pairs
}

#[test]
fn a_line_corrected_from_a_plainer_file_corrects_the_session_it_belongs_to() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\nB,Club B\n").unwrap();
    declared(d, "1-3");
    // A Howell in section A (as Scorer names it), and B's Mitchell with an EW number mistyped.
    let howell = "board,section,ns_pair,ew_pair,ns_score,movement\n1,A,1,2,420,howell\n\
                  1,A,3,4,450,howell\n2,A,1,3,-110,howell\n2,A,2,4,600,howell\n\
                  3,A,1,4,100,howell\n3,A,3,2,140,howell\n";
    let mitchell = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,2,2,450\n2,1,2,-110\n2,2,1,600\n";
    std::fs::write(d.join("a.csv"), howell).unwrap();
    std::fs::write(d.join("b.csv"), mitchell.replace("2,2,1,600", "2,2,3,600")).unwrap();
    publish(d, "A", "a.csv");
    publish(d, "B", "b.csv");
    // A's director corrects one line in a plain CSV (no section, no movement); B publishes its
    // file again with the number put right.
    std::fs::write(
        d.join("a2.csv"),
        "board,ns_pair,ew_pair,ns_score\n3,3,2,170\n",
    )
    .unwrap();
    std::fs::write(d.join("b2.csv"), mitchell).unwrap();
    publish(d, "A", "a2.csv");
    publish(d, "B", "b2.csv");
    // Each club's standings are those of its session as corrected, scored alone.
    let corrected = howell.replace("3,A,3,2,140", "3,A,3,2,170");
    std::fs::write(d.join("a_whole.csv"), corrected).unwrap();
    std::fs::write(d.join("b_whole.csv"), mitchell).unwrap();
    for (club, whole) in [("A", "a_whole.csv"), ("B", "b_whole.csv")] {
        let alone = ok(d, &["score", whole, "--json"]);
        let replayed = ok(
            d,
            &[
                "replay",
                "--log",
                "log",
                "--no-index",
                "--json",
                "--club",
                club,
            ],
        );
        assert_eq!(standings(&replayed), standings(&alone), "club {club}");
    }
    // The director is told how A's correction was read; B's needed nothing.
    let listed = ok(d, &["submissions", "--log", "log", "--club", "A"]);
    let notes: Vec<&str> = listed
        .lines()
        .filter(|l| l.starts_with("  note: "))
        .collect();
    assert_eq!(
        notes,
        [
            "  note: read in section A, the club's section in force (the unnamed section in this file)",
            "  note: section A's lines read as a Howell, the section's movement in force",
        ],
        "{listed}"
    );
    let listed = ok(d, &["submissions", "--log", "log", "--club", "B"]);
    assert!(!listed.contains("note:"), "{listed}");
}

#[test]
fn a_pair_number_typed_without_its_leading_zero_corrects_the_pair_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\n").unwrap();
    declared(d, "1-2");
    // The scoring program writes pair numbers with a leading zero; the director types the
    // correction into a spreadsheet, which drops it.
    let session = "board,ns_pair,ew_pair,ns_score\n1,01,01,420\n1,02,02,-50\n1,03,03,400\n\
                   2,01,02,100\n2,02,03,200\n2,03,01,300\n";
    std::fs::write(d.join("s.csv"), session).unwrap();
    std::fs::write(
        d.join("fix.csv"),
        "board,ns_pair,ew_pair,ns_score\n1,2,2,450\n",
    )
    .unwrap();
    publish(d, "A", "s.csv");
    publish(d, "A", "fix.csv");
    let corrected = session.replace("1,02,02,-50", "1,02,02,450");
    std::fs::write(d.join("whole.csv"), corrected).unwrap();
    let alone = ok(d, &["score", "whole.csv", "--json"]);
    let replayed = replayed_club(d, "A", false);
    assert_eq!(standings(&replayed), standings(&alone));
    let listed = ok(d, &["submissions", "--log", "log", "--club", "A"]);
    assert!(
        listed.contains("  note: pair 2 read as pair 02, the club's pair in force"),
        "{listed}"
    );
}

#[test]
fn a_file_in_the_windows_code_page_is_listed_with_its_warning_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\n").unwrap();
    declared(d, "1-2");
    // Excel's plain CSV on Windows: a player's name in Windows-1252 (0xE9 is é).
    let mut csv =
        b"board,ns_pair,ew_pair,ns_score,ns_names\r\n1,1,1,420,Ren\xe9 Dupont\r\n".to_vec();
    csv.extend_from_slice(b"1,2,2,450,\r\n2,1,2,-110,\r\n2,2,1,600,\r\n");
    std::fs::write(d.join("w.csv"), csv).unwrap();
    publish(d, "A", "w.csv");
    let listed = ok(d, &["submissions", "--log", "log", "--club", "A"]);
    let warning = (listed.lines())
        .find(|l| l.contains("Windows-1252"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(warning.starts_with("  warning: w.csv:2: "), "{warning}");
    assert!(!warning.contains(": :"), "{warning}");
}

#[test]
fn a_table_marked_not_played_in_a_correction_takes_its_result_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    event(d);
    // Club A's table 2 of board 1 was not played after all (a late pair, a fouled board).
    let not_played = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score\n\
                      1,1,1,4S,N,10,\n1,2,2,NP,,,\n2,1,2,3NT,S,9,\n2,2,1,2H,E,8,\n";
    std::fs::write(d.join("np.csv"), not_played).unwrap();
    let said = publish(d, "A", "np.csv");
    assert!(
        said.contains(": 3 results, 4 pairs (no players' names in the file), 1 marked not played as submission"),
        "{said}"
    );
    let alone = ok(d, &["score", "np.csv", "--json"]);
    let replayed = ok(
        d,
        &[
            "replay",
            "--log",
            "log",
            "--no-index",
            "--json",
            "--club",
            "A",
        ],
    );
    assert_eq!(standings(&replayed), standings(&alone));
}

/// `replay --json --club` of the log in `dir`, read by the index when `indexed`.
fn replayed_club(dir: &Path, club: &str, indexed: bool) -> String {
    let args = ["replay", "--log", "log", "--json", "--club", club];
    match indexed {
        true => ok(dir, &args),
        false => ok(dir, &[&args[..], &["--no-index"]].concat()),
    }
}

#[test]
fn a_whole_session_published_again_takes_out_a_table_entered_under_a_mistyped_board() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\n").unwrap();
    declared(d, "1-4");
    // Board 3's second table was entered as board 4, which the club did not play.
    let played = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,2,2,450\n2,1,2,-110\n\
                  2,2,1,600\n3,1,1,100\n3,2,2,140\n";
    std::fs::write(
        d.join("first.csv"),
        played.replace("3,2,2,140", "4,2,2,140"),
    )
    .unwrap();
    std::fs::write(d.join("session.csv"), played).unwrap();
    publish(d, "A", "first.csv");
    let alone = standings(&ok(d, &["score", "session.csv", "--json"]));
    // Line by line, board 4's line stays: nothing on board 4 seats pair 2 again.
    publish(d, "A", "session.csv");
    assert_ne!(standings(&replayed_club(d, "A", false)), alone);
    // Given whole, it goes.
    let args = [
        "club", "publish", "--log", "log", "--event", "E", "--club", "A", "--key",
    ];
    let said = ok(
        d,
        &[&args[..], &["keys/A.key", "session.csv", "--whole-session"]].concat(),
    );
    assert!(
        said.contains("published session.csv as the club's whole session: 6 results")
            && said.contains("note: as the club's whole session, it takes out the lines"),
        "{said}"
    );
    for indexed in [false, true] {
        let replayed = replayed_club(d, "A", indexed);
        assert_eq!(standings(&replayed), alone, "indexed: {indexed}");
    }
    let listed = ok(d, &["submissions", "--log", "log", "--club", "A"]);
    let notes: Vec<&str> = listed
        .lines()
        .filter(|l| l.starts_with("  note: "))
        .collect();
    // The director is told of the line left the second time, and how it goes.
    assert_eq!(
        notes,
        [
            "  note: 1 line in force that this file does not hold stays (board 4 NS 2 EW 2): if the file is the club's whole session, publish it again with --whole-session to take it out",
            "  note: the whole session: 1 line in force that this file does not hold taken out (board 4 NS 2 EW 2)"
        ],
        "{listed}"
    );
}

/// `club withdraw` of club `club` signed with `key`, for `reason`.
fn withdraw(dir: &Path, club: &str, key: &str, reason: &str) -> Output {
    let args = [
        "club", "withdraw", "--log", "log", "--event", "E", "--club", club, "--key", key,
        "--reason", reason,
    ];
    simpairs(dir, &args)
}

#[test]
fn the_organiser_withdraws_a_clubs_results_and_the_club_may_publish_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    event(d);
    let out = withdraw(
        d,
        "A",
        "keys/organiser.key",
        "played the boards before the window",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The event is B's alone: the national field is B's session, scored alone.
    let national = ok(d, &["replay", "--log", "log", "--no-index", "--json"]);
    assert_eq!(pairs_of(&national), ["B"]);
    assert_eq!(
        standings(&national),
        standings(&ok(d, &["score", "b.csv", "--json"]))
    );
    let listed = ok(d, &["submissions", "--log", "log"]);
    let first = listed.lines().next().unwrap();
    assert!(
        first.starts_with(
            "event E: 1 of 2 declared clubs in, 1 withdrawn; 4 submissions: 2 applied, 2 superseded"
        ),
        "{listed}"
    );
    assert!(listed.contains("\nclubs withdrawn: 1\n  A (Club A): withdrawal: played the boards before the window (submission s"), "{listed}");
    assert!(listed.contains("  note: the club's results withdrawn: 4 lines in force taken out (board 1 NS 1 EW 1, board 1 NS 2 EW 2, board 2 NS 1 EW 2, board 2 NS 2 EW 1)"), "{listed}");
    assert!(!listed.contains("clubs not in yet"), "{listed}");
    assert_eq!(
        listed
            .matches(" by the organiser: 0 records, applied")
            .count(),
        1,
        "{listed}"
    );
    // The analysts' export says so too.
    ok(
        d,
        &["export", "--log", "log", "--to", "out", "--format", "csv"],
    );
    let table = std::fs::read_to_string(d.join("out/submissions.csv")).unwrap();
    let header = table.lines().next().unwrap();
    assert!(header.contains(",warnings,notes,by_organiser,"), "{header}");
    let row = (table.lines())
        .find(|l| l.contains(",withdrawal: played the boards before the window,"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        row.contains(",\"the club's results withdrawn: 4 lines in force taken out (")
            && row.contains(")\",true,"),
        "{row}"
    );
    assert_eq!(table.matches(",true,").count(), 1, "{table}");
    // The club's key was not revoked: it publishes again, and is in again.
    publish(d, "A", "a2.csv");
    let listed = ok(d, &["submissions", "--log", "log"]);
    assert!(
        listed.starts_with("event E: 2 of 2 declared clubs in; "),
        "{listed}"
    );
    let national = ok(d, &["replay", "--log", "log", "--no-index", "--json"]);
    assert_eq!(pairs_of(&national), ["A", "B"]);
    // A club withdraws its own results with its own key: a new submission, not a copy of the
    // organiser's.
    let out = withdraw(d, "A", "keys/A.key", "published to the wrong event");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let national = ok(d, &["replay", "--log", "log", "--no-index", "--json"]);
    assert_eq!(pairs_of(&national), ["B"]);
    let listed = ok(d, &["submissions", "--log", "log", "--club", "A"]);
    assert!(
        listed.contains("  A (Club A): withdrawal: published to the wrong event"),
        "{listed}"
    );
    // Only the organiser's withdrawal says it was the organiser's.
    assert_eq!(listed.matches(" by the organiser").count(), 1, "{listed}");
}

#[test]
fn a_withdrawal_needs_a_reason_a_declared_club_and_its_own_key_or_the_organisers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    event(d);
    let before = ok(d, &["submissions", "--log", "log", "--json"]);
    let refused = [
        (
            withdraw(d, "A", "keys/organiser.key", "  "),
            "--reason is empty",
        ),
        (
            withdraw(d, "Z", "keys/organiser.key", "x"),
            "club Z is not part of event E",
        ),
        (
            withdraw(d, "A", "keys/B.key", "x"),
            "is not club A's key for event E",
        ),
        (
            withdraw(d, "A", "keys/aggregator.key", "x"),
            "is not club A's key for event E",
        ),
    ];
    for (out, said) in refused {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(said), "{said}: {err}");
    }
    // Nothing was published.
    assert_eq!(ok(d, &["submissions", "--log", "log", "--json"]), before);
}

#[test]
fn a_correction_taken_back_by_publishing_the_first_file_again_applies() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A published a.csv, then its correction a2.csv; the correction was wrong after all.
    event(d);
    let corrected = standings(&replayed_club(d, "A", false));
    assert_eq!(corrected, standings(&ok(d, &["score", "a2.csv", "--json"])));
    publish(d, "A", "a.csv");
    let first = standings(&ok(d, &["score", "a.csv", "--json"]));
    assert_ne!(first, corrected);
    for indexed in [false, true] {
        assert_eq!(
            standings(&replayed_club(d, "A", indexed)),
            first,
            "indexed: {indexed}"
        );
    }
    let listed = ok(d, &["submissions", "--log", "log", "--club", "A"]);
    assert!(
        listed.contains("4 submissions: 2 applied, 2 superseded")
            && listed.contains("(a.csv), sealed ")
            && listed.contains("4 records, applied\n  note: takes back"),
        "{listed}"
    );
    // The director is told which correction the file took back, and what to do if it stands.
    let notes: Vec<&str> = (listed.lines())
        .filter(|l| l.starts_with("  note: "))
        .collect();
    let [note] = notes[..] else {
        panic!("{listed}")
    };
    assert!(
        note.starts_with(
            "  note: takes back 1 correction, giving what the club's first upload gave: \
             board 1 NS 2 EW 2 is 4S-1 N, NS -50 again (submission s"
        ) && note.ends_with(
            " had corrected it to 4S= N, NS 420); if the correction stands, publish it again"
        ),
        "{listed}"
    );
}

#[test]
fn a_club_withdrawn_before_it_published_is_listed_withdrawn_with_nothing_taken_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\n").unwrap();
    declared(d, "1-4");
    let out = withdraw(d, "A", "keys/organiser.key", "did not run the session");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = ok(d, &["submissions", "--log", "log"]);
    assert!(
        listed.starts_with("event E: 0 of 1 declared club in, 1 withdrawn;"),
        "{listed}"
    );
    let notes: Vec<&str> = (listed.lines())
        .filter(|l| l.starts_with("  note: "))
        .collect();
    assert_eq!(
        notes,
        ["  note: the club's results withdrawn: it had none in force"],
        "{listed}"
    );
}

/// The real Compscore sessions and the hand records of one of them, copied into `dir`.
fn cobalt_files(dir: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (from, to) in [
        ("realdata/native/cobalt/mp_pairs_mitchell_02.xml", "02.xml"),
        ("realdata/native/cobalt/mp_pairs_mitchell_03.xml", "03.xml"),
        ("hands/cobalt_mp_pairs_mitchell_02.pbn", "hands.pbn"),
    ] {
        std::fs::copy(root.join(from), dir.join(to)).unwrap();
    }
}

fn aggregated(dir: &Path) {
    let args = [
        "aggregate",
        "--log",
        "log",
        "--until-idle",
        "--key",
        "keys/aggregator.key",
    ];
    ok(dir, &args);
}

/// `club publish` of `file` for club `club`, as it came out.
fn publishing(dir: &Path, club: &str, file: &str) -> Output {
    let key = format!("keys/{club}.key");
    let args = [
        "club", "publish", "--log", "log", "--event", "E", "--club", club,
    ];
    simpairs(dir, &[&args[..], &["--key", &key, file]].concat())
}

const INDEX: [&str; 2] = ["--index-dir", "index"];
/// `event amend` of event E in the log, signed with the organiser's key; the changes follow.
const AMEND: [&str; 8] = [
    "event",
    "amend",
    "--log",
    "log",
    "--event",
    "E",
    "--organiser-key",
    "keys/organiser.key",
];
const REPLAY: [&str; 4] = ["replay", "--log", "log", "--json"];

/// Clubs A, B and C declared for boards 1-27; A plays another session's boards and is first: its
/// deals are the event's, and it applies. An index is built then (read on by the tests). C played
/// the right boards, but A's are the event's: C is set aside, and the director is told whose
/// deals it was held to.
fn a_first_with_other_boards(d: &Path) {
    let clubs = "club,name\nA,Club A\nB,Club B\nC,Club C\n";
    std::fs::write(d.join("clubs.csv"), clubs).unwrap();
    declared(d, "1-27");
    cobalt_files(d);
    publish(d, "A", "03.xml");
    aggregated(d);
    assert_eq!(pairs_of(&ok(d, &[&REPLAY[..], &INDEX].concat())), ["A"]);
    publish(d, "C", "02.xml");
    aggregated(d);
    let listed = ok(d, &["submissions", "--log", "log", "--club", "C"]);
    let whose = "are not the event's (club A's, the first club to apply them)";
    assert!(listed.contains(whose), "{listed}");
}

#[test]
fn hand_records_declared_late_hold_from_where_they_were_declared_for_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The index built after A's file keeps A's deals apart in its saved state.
    a_first_with_other_boards(d);
    let (index, replay) = (INDEX, REPLAY);
    // The organiser declares the hand records; B played them.
    let hands = ["event", "hands", "--log", "log", "--event", "E"];
    let key = ["--organiser-key", "keys/organiser.key", "hands.pbn"];
    let said = ok(d, &[&hands[..], &key].concat());
    // The organiser is told whose deals the event held to, and what to do if they were wrong.
    let boards: Vec<String> = (1..=21).map(|b| b.to_string()).collect();
    let whose = format!(
        "note: until now the event's deals of board(s) {} were club A's",
        boards.join(", ")
    );
    assert!(said.contains(&whose), "{said}");
    assert!(said.contains("simpairs club withdraw --club A"), "{said}");
    assert_eq!(said.matches("note:").count(), 1, "{said}");
    publish(d, "B", "02.xml");
    aggregated(d);
    // The director's listing (a replay) says what the aggregator did: A and B applied, A judged
    // by the deals known when it applied, not by hand records declared after.
    let listed = ok(d, &["submissions", "--log", "log"]);
    let counts = "3 submissions: 2 applied, 0 superseded, 1 set aside";
    assert!(listed.contains(counts), "{listed}");
    // It says where the hand records hold from: their line, after A's and C's seals.
    let from = "amendment 1: the hand records of 27 boards, from offset ";
    let at: u64 = (listed.split(from).nth(1).and_then(|r| r.split(' ').next()))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{listed}"));
    let sealed = |club: &str| -> Vec<u64> {
        (listed.lines())
            .filter(|l| l.starts_with(&format!("club {club}, ")))
            .filter_map(|l| {
                l.split(" at offset ")
                    .nth(1)?
                    .split(':')
                    .next()?
                    .parse()
                    .ok()
            })
            .collect()
    };
    let (a, b, c) = (sealed("A"), sealed("B"), sealed("C"));
    assert!(a[0] < at && c[0] < at && at < b[0], "{listed}");
    for indexed in [&["--no-index"][..], &index] {
        let args = [&replay[..], indexed].concat();
        assert_eq!(pairs_of(&ok(d, &args)), ["A", "B"], "{indexed:?}");
    }
    // A club that publishes other deals now is refused at publish, naming the boards and whose
    // deals they are not; C, publishing again what it played, applies.
    let out = publishing(d, "C", "03.xml");
    let err = String::from_utf8_lossy(&out.stderr);
    let refused = "not the event's (the organiser's hand records): it played other deals";
    assert!(!out.status.success() && err.contains(refused), "{err}");
    publish(d, "C", "02.xml");
    aggregated(d);
    // Read on from the index saved after the hand records' line, too.
    for indexed in [&["--no-index"][..], &index] {
        let args = [&replay[..], indexed].concat();
        assert_eq!(pairs_of(&ok(d, &args)), ["A", "B", "C"], "{indexed:?}");
    }
}

#[test]
fn a_withdrawn_club_s_deals_no_longer_hold_and_the_clubs_held_to_them_apply() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    a_first_with_other_boards(d);
    let (index, replay) = (INDEX, REPLAY);
    // Without hand records declared, withdrawing A is enough: its deals no longer hold, and C,
    // publishing again, applies; B, who played the boards A did, is held to C's deals now.
    let out = withdraw(
        d,
        "A",
        "keys/organiser.key",
        "played another session's boards",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The director's listing tells C so.
    let listed = ok(d, &["submissions", "--log", "log", "--club", "C"]);
    let again = "note: the deals it was held to are no longer the event's (the club that gave them withdrew its results of those boards): publish the file again";
    assert!(listed.contains(again), "{listed}");
    publish(d, "C", "02.xml");
    aggregated(d);
    let listed = ok(d, &["submissions", "--log", "log", "--club", "C"]);
    assert!(!listed.contains(again), "{listed}");
    publish(d, "B", "03.xml");
    aggregated(d);
    let listed = ok(d, &["submissions", "--log", "log", "--club", "B"]);
    assert!(
        listed.contains("(club C's, the first club to apply them)"),
        "{listed}"
    );
    // C holds them: B is not told to publish again.
    assert!(!listed.contains(again), "{listed}");
    // The aggregator, a replay without the index and one read on from an index built before the
    // withdrawal agree.
    // A applied and was superseded by its withdrawal; C's first file and B are set aside.
    let listed = ok(d, &["submissions", "--log", "log", "--club", "C"]);
    let counts = "1 of 3 declared clubs in, 1 withdrawn; 5 submissions: 2 applied, 1 superseded, 2 set aside";
    assert!(listed.contains(counts), "{listed}");
    assert!(
        listed.trim_end().ends_with("636 records, applied"),
        "{listed}"
    );
    for indexed in [&["--no-index"][..], &index] {
        let args = [&replay[..], indexed].concat();
        assert_eq!(pairs_of(&ok(d, &args)), ["C"], "{indexed:?}");
    }
}

#[test]
fn a_dealing_programs_extra_boards_are_left_out_and_new_hand_records_say_what_they_replace() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\n").unwrap();
    declared(d, "1-2");
    let realdata = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/realdata/native/rchillyard-Bridge");
    for (from, to) in [
        ("newtonbridge_20160120_1.pbn", "first.pbn"),
        ("westwood_20190625_1.pbn", "second.pbn"),
    ] {
        std::fs::copy(realdata.join(from), d.join(to)).unwrap();
    }
    let hands = |file: &str| {
        let args = ["event", "hands", "--log", "log", "--event", "E"];
        ok(
            d,
            &[&args[..], &["--organiser-key", "keys/organiser.key", file]].concat(),
        )
    };
    // The dealing program dealt 30 boards for a 2-board event.
    let said = hands("first.pbn");
    assert!(
        said.contains("the hand records of 2 boards declared"),
        "{said}"
    );
    let others: Vec<String> = (3..=30).map(|b| b.to_string()).collect();
    let left_out = format!(
        "note: first.pbn also deals board(s) {}, not boards of the event: left out",
        others.join(", ")
    );
    assert!(said.contains(&left_out), "{said}");
    // Other hand records of the same boards say they replace the organiser's, blaming no club.
    let said = hands("second.pbn");
    assert!(
        said.contains("note: these replace the hand records of board(s) 1, 2 declared before"),
        "{said}"
    );
    assert!(!said.contains("club"), "{said}");
}

#[test]
fn an_aggregator_of_one_event_in_a_log_of_two_leaves_the_other_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    event(d);
    std::fs::write(d.join("clubs2.csv"), "club,name\nZ,Club Z\n").unwrap();
    let declare = [
        "event", "declare", "--log", "log", "--event", "E2", "--boards", "1-3",
    ];
    ok(
        d,
        &[
            &declare[..],
            &["--clubs", "clubs2.csv", "--keys-out", "keys2"],
        ]
        .concat(),
    );
    let args = ["aggregate", "--log", "log", "--until-idle"];
    // Its log lines, to a file or a journal, are plain words: no terminal colours.
    let out = Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .current_dir(d)
        .env("RUST_LOG", "info")
        .args([&args[..], &["--key", "keys/aggregator.key"]].concat())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(" INFO ") && !err.contains('\x1b'), "{err:?}");
    assert!(
        err.contains("note: event E2 is not aggregated here") && err.contains("--event E2"),
        "{err}"
    );
    // Again: nothing new, and said so.
    let out = simpairs(
        d,
        &[&args[..], &["--key", "keys/aggregator.key", "--event", "E"]].concat(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("E: nothing new to aggregate"), "{err}");
    // A key of neither event is refused, naming them.
    ok(d, &["club", "keygen", "--out", "stranger.key"]);
    let out = simpairs(d, &[&args[..], &["--key", "stranger.key"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("is not the aggregator key of any event in the log (E, E2)"),
        "{err}"
    );
}

#[test]
fn the_listing_says_when_the_aggregator_has_not_published_what_applied() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\nB,Club B\n").unwrap();
    declared(d, "1-2");
    std::fs::write(d.join("a.csv"), CLUB_A).unwrap();
    std::fs::write(d.join("b.csv"), CLUB_B).unwrap();
    publish(d, "A", "a.csv");
    publish(d, "B", "b.csv");
    let waiting = |n: &str| format!("waiting for the aggregator: {n} applied here");
    let listed = ok(d, &["submissions", "--log", "log"]);
    assert!(listed.contains(&waiting("2 submissions")), "{listed}");
    aggregated(d);
    let listed = ok(d, &["submissions", "--log", "log"]);
    assert!(!listed.contains("waiting for the aggregator"), "{listed}");
    // A correction the aggregator has not read yet; the JSON says so too.
    std::fs::write(d.join("a2.csv"), CLUB_A_CORRECTED).unwrap();
    publish(d, "A", "a2.csv");
    let listed = ok(d, &["submissions", "--log", "log"]);
    assert!(
        listed.contains(&(waiting("1 submission") + " is not")),
        "{listed}"
    );
    let json = ok(d, &["submissions", "--log", "log", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["awaiting_aggregator"], 1);
}

#[test]
fn a_second_event_beside_the_same_clubs_file_is_told_where_its_keys_go_and_leaves_no_log() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\n").unwrap();
    declared(d, "1-2");
    let args = [
        "event", "declare", "--log", "log2", "--event", "E2", "--boards", "1-2",
    ];
    let out = simpairs(d, &[&args[..], &["--clubs", "clubs.csv"]].concat());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("keys/A.key already exists") && err.contains("--keys-out"),
        "{err}"
    );
    // Nothing was declared, and no empty log is left to be taken for one.
    assert!(!d.join("log2").exists());
    ok(
        d,
        &[&args[..], &["--clubs", "clubs.csv", "--keys-out", "keys2"]].concat(),
    );
    assert!(d.join("log2").is_dir() && d.join("keys2/A.key").is_file());
}

/// The organiser closes the event as the README shows: the results in are final, a club
/// publishing is refused at once, the listing says so, and the event cannot be closed twice.
#[test]
fn a_closed_event_takes_nothing_more_and_says_its_results_are_final() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Club A\nB,Club B\n").unwrap();
    std::fs::write(d.join("a.csv"), CLUB_A).unwrap();
    std::fs::write(d.join("b.csv"), CLUB_B).unwrap();
    declared(d, "1-2");
    publish(d, "A", "a.csv");
    // B's seal came before the close, its results not.
    append_part(d, "B", CLUB_B, |e| {
        matches!(e, simpairs_events::Event::SubmissionSealed(_))
    });
    let close = [&AMEND[..], &["--close"]].concat();
    let closed = ok(d, &close);
    assert!(
        closed.starts_with("event E closed: the results in by now are final;"),
        "{closed}"
    );
    let refused = publishing(d, "B", "b.csv");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("event E was closed by the organiser at ")
            && stderr.contains("its results are final, and nothing more is taken"),
        "{stderr}"
    );
    let again = simpairs(d, &close);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(!again.status.success() && stderr.contains("cannot be closed again"));
    aggregated(d);
    let listed = ok(d, &["submissions", "--log", "log"]);
    let said = [
        "event E: 1 of 2 declared clubs in;",
        "\nclosed by the organiser at ",
        "amendment 1: the event closed at ",
        "\nclubs with no results in the event (it is closed): 1\n  B (Club B)",
        "came; nothing of it applies until they all have (the event is closed, so the club cannot publish its file again)",
    ];
    assert!(said.iter().all(|s| listed.contains(s)), "{listed}");
}

/// A session of ten boards at two tables, NS 1 against EW 2 and NS 3 against EW 4: `contracts`
/// gives each table's contract, declarer and tricks.
fn session(contracts: impl Fn(i32) -> [&'static str; 2]) -> String {
    let mut csv = String::from("board,ns_pair,ew_pair,contract,declarer,tricks\n");
    for board in 1..=10 {
        let [first, second] = contracts(board);
        csv.push_str(&format!("{board},1,2,{first}\n{board},3,4,{second}\n"));
    }
    csv
}

#[test]
fn a_second_session_published_under_the_first_ones_club_is_told_and_put_right() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clubs.csv"), "club,name\nA,Rotorua BC\n").unwrap();
    declared(d, "1-10");
    let monday = session(|_| ["3NT,E,9", "3NT,E,8"]);
    let thursday = session(|b| ["4S,N,10", if b < 3 { "3NT,E,8" } else { "2H,S,9" }]);
    std::fs::write(d.join("monday.csv"), monday).unwrap();
    std::fs::write(d.join("thursday.csv"), thursday).unwrap();
    publish(d, "A", "monday.csv");
    publish(d, "A", "thursday.csv");
    let listed = ok(d, &["submissions", "--log", "log", "--club", "A"]);
    assert!(
        listed.contains(
            "  note: changes the results of 18 of the 20 lines in force it replaces, where a \
             correction changes a few: if the file is another session of the club"
        ),
        "{listed}"
    );
    // The director finds it among the submissions with a note, alone.
    let noted = ok(d, &["submissions", "--log", "log", "--with-notes"]);
    let listed: Vec<&str> = (noted.lines())
        .filter(|l| l.starts_with("club A, "))
        .collect();
    assert!(
        noted
            .contains("1 submission has a note for the director (`--with-notes` lists only those)")
            && listed.len() == 1
            && listed[0].contains("(thursday.csv)"),
        "{noted}"
    );
    // Put right as docs/rules.md says: the second session declared as a club of its own, and
    // each session published under its own club.
    std::fs::write(
        d.join("late.csv"),
        "club,name\nA-THU,Rotorua BC (Thursday)\n",
    )
    .unwrap();
    ok(d, &[&AMEND[..], &["--add-clubs", "late.csv"]].concat());
    publish(d, "A", "monday.csv");
    publish(d, "A-THU", "thursday.csv");
    aggregated(d);
    for (club, file) in [("A", "monday.csv"), ("A-THU", "thursday.csv")] {
        let alone = standings(&ok(d, &["score", file, "--json"]));
        assert_eq!(standings(&replayed_club(d, club, false)), alone, "{club}");
    }
}

#[test]
fn the_national_results_are_exported_as_a_file_that_scores_to_the_same_standings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    event(d);
    let national = ok(
        d,
        &[&REPLAY[..], &["--export", "usebio", "national.xml"]].concat(),
    );
    let csv = ok(
        d,
        &[&REPLAY[..], &["--export", "csv", "national.csv"]].concat(),
    );
    assert_eq!(national, csv);
    let xml = std::fs::read_to_string(d.join("national.xml")).unwrap();
    // Each club by the name the organiser declared, beside the id the results carry.
    assert!(
        xml.contains("<EVENT_IDENTIFIER>E</EVENT_IDENTIFIER>")
            && xml.contains(
                "<CLUB_NAME>Club A</CLUB_NAME>\n        <CLUB_ID_NUMBER>A</CLUB_ID_NUMBER>"
            )
            && xml.contains(
                "<CLUB_NAME>Club B</CLUB_NAME>\n        <CLUB_ID_NUMBER>B</CLUB_ID_NUMBER>"
            ),
        "{xml}"
    );
    for file in ["national.xml", "national.csv"] {
        let read_back = standings(&ok(d, &["score", file, "--json"]));
        assert_eq!(read_back, standings(&national), "{file}");
    }
    // One club's own results, as its club ranking has them.
    let club = ok(
        d,
        &[&REPLAY[..], &["--club", "A", "--export", "usebio", "a.xml"]].concat(),
    );
    assert_eq!(
        standings(&ok(d, &["score", "a.xml", "--json"])),
        standings(&club)
    );
    let xml = std::fs::read_to_string(d.join("a.xml")).unwrap();
    assert!(xml.contains("<CLUB_NAME>Club A</CLUB_NAME>"), "{xml}");
    // A format it does not write is refused before the log is read.
    let out = simpairs(
        d,
        &["replay", "--log", "nowhere", "--export", "pdf", "x.pdf"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success()
            && err.contains("--export pdf: unknown format; expected usebio or csv"),
        "{err}"
    );
    assert!(!d.join("x.pdf").exists());
}
