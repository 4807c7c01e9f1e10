//! `simpairs score` as a user runs it: output shapes, and bad input rejected with a message naming
//! file, line and field, a non-zero exit code and never a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn simpairs() -> Command {
    Command::new(env!("CARGO_BIN_EXE_simpairs"))
}

fn write(dir: &Path, name: &str, contents: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn score(path: &Path, extra: &[&str]) -> Output {
    simpairs()
        .arg("score")
        .arg(path)
        .args(extra)
        .output()
        .unwrap()
}

const HEADER: &str = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score,adjusted\n";

/// Seed 002's board 4 with the Avg/Avg of slide 12.
const SEED_002_AVG: &str = "4,1,9,3C,E,10,,\n4,2,2,3NT,E,11,,\n4,3,4,2NT,E,8,,\n4,4,6,3NT,W,7,,\n4,5,8,3NT,E,9,,\n4,6,1,,,,,AVE\n4,7,3,5C,E,10,,\n4,8,5,3S,N,9,140,\n4,9,7,3C,E,11,,\n";

#[test]
fn json_has_the_spec_shape() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "b4.csv",
        format!("{HEADER}{SEED_002_AVG}").as_bytes(),
    );
    let out = score(&file, &["--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let board = &json["boards"][0];
    assert_eq!(board["board"], 4);
    assert_eq!(board["top"], 16.0);
    let first = &board["results"][0];
    assert_eq!(first["ns_pair"], "1");
    assert_eq!(first["ew_pair"], "9");
    assert_eq!(first["ns_score"], -130);
    assert_eq!(first["ns_mp"], 6.875, "seed 002 slide 12: 6.88");
    assert_eq!(first["ew_mp"], 9.125);
    let adjusted = board["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ns_pair"] == "6")
        .unwrap();
    assert_eq!(adjusted["adjusted"], "50/50");
    assert_eq!(adjusted["ns_mp"], 8.0);
    let pairs = json["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 18);
    let top_ns = &pairs[0];
    assert_eq!(top_ns["direction"], "NS");
    assert_eq!(top_ns["pair"], "4");
    assert_eq!(top_ns["rank"], 1);
    assert_eq!(top_ns["pct"], 99.22);
    assert_eq!(top_ns["max"], 16.0);
    for key in ["club", "section", "boards", "mp", "tied"] {
        assert!(top_ns.get(key).is_some(), "pair has {key}");
    }
}

#[test]
fn single_scale_and_butler_flags() {
    let dir = tempfile::tempdir().unwrap();
    // Seed 003: board 10 on five tables.
    let rows = "board,ns_pair,ew_pair,ns_score\n10,1,6,620\n10,2,7,-100\n10,3,8,630\n10,4,9,620\n10,5,10,1100\n";
    let file = write(dir.path(), "b10.csv", rows.as_bytes());
    let single: serde_json::Value =
        serde_json::from_slice(&score(&file, &["--json", "--scale", "single"]).stdout).unwrap();
    let mps: Vec<f64> = single["boards"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ns_mp"].as_f64().unwrap())
        .collect();
    assert_eq!(mps, [1.5, 0.0, 3.0, 1.5, 4.0]);
    let butler: serde_json::Value =
        serde_json::from_slice(&score(&file, &["--json", "--scoring", "butler"]).stdout).unwrap();
    assert_eq!(butler["boards"][0]["datum"], 620);
    let imps: Vec<f64> = butler["boards"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ns_imps"].as_f64().unwrap())
        .collect();
    assert_eq!(imps, [0.0, -12.0, 0.0, 0.0, 10.0]);
}

/// Each bad row is reported with its file, line and field; nothing is scored.
#[test]
fn bad_rows_name_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 7] = [
        ("4,1,9,3C,E,10,,\n4,2,2,3NT,E\n", ":3", "fields"),
        ("4,1,9,8NT,E,10,,\n", ":2: field contract", "8NT"),
        ("4,1,9,3NT,E,14,,\n", ":2: field tricks", "14"),
        ("4,1,9,3NT,Q,9,,\n", ":2: field declarer", "\"Q\""),
        (
            "4,1,9,3NT,E,9,605,\n",
            ":2: field ns_score",
            "not a possible bridge score",
        ),
        ("4,1,9,3NT,E,9,,\n4,1,9,3NT,E,9,,\n", ":3", "entered twice"),
        ("4,1,9,,,,,AVG?\n", ":2: field adjusted", "AVG?"),
    ];
    for (i, (rows, location, what)) in cases.iter().enumerate() {
        let name = format!("bad{i}.csv");
        let file = write(dir.path(), &name, format!("{HEADER}{rows}").as_bytes());
        let out = score(&file, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "case {i}: {stderr}");
        assert!(
            stderr.contains(&format!("{name}{location}")),
            "case {i}: {stderr}"
        );
        assert!(stderr.contains(what), "case {i}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "case {i}: nothing is printed for a rejected file"
        );
    }
}

#[test]
fn header_problems_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "h.csv",
        b"board,ns_pair,ew_pear,ns_score\n1,1,1,100\n",
    );
    let out = score(&file, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("h.csv:1: field ew_pair:"), "{stderr}");
    assert!(stderr.contains("no ew_pair column"), "{stderr}");
    assert!(stderr.contains("ew_pear is not a column"), "{stderr}");
    let empty = write(dir.path(), "empty.csv", b"");
    let stderr = String::from_utf8_lossy(&score(&empty, &[]).stderr).into_owned();
    assert!(
        stderr.contains("empty.csv:1") && stderr.contains("empty"),
        "{stderr}"
    );
    let missing = score(&dir.path().join("missing.csv"), &[]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
}

/// Whatever bytes come in, the command ends with a result or an error, never a panic (exit code 101).
#[test]
fn arbitrary_bytes_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut blobs: Vec<Vec<u8>> = vec![
        b"\xff\xfe\x00board".to_vec(),
        [HEADER.as_bytes(), b"4,1,9,3C,E,10,,\n\xff,2,2,,,,,\n"].concat(),
        format!("{HEADER}{}", "4,".repeat(100_000)).into_bytes(),
        b"board,ns_pair,ew_pair,ns_score\n\"unterminated,1,2,3\n".to_vec(),
        b"board,ns_pair,ew_pair,ns_score\n70000,1,2,100\n0,1,2,100\n-1,1,2,100\n".to_vec(),
        b"board,ns_pair,ew_pair,ns_score\n1,1,2,99999999999999\n1,1,2,-2147483648\n".to_vec(),
    ];
    for _ in 0..40 {
        let len = (next() % 400) as usize;
        let mut blob: Vec<u8> = HEADER.as_bytes().to_vec();
        blob.extend(
            (0..len).map(|_| b"0123456789,-\nNSEWXPAVE+/\"\r \xff"[(next() % 25) as usize]),
        );
        blobs.push(blob);
    }
    for (i, blob) in blobs.iter().enumerate() {
        let file = write(dir.path(), &format!("f{i}.csv"), blob);
        let out = score(&file, &["--json"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(101), "blob {i} panicked: {stderr}");
        assert!(!stderr.contains("panicked"), "blob {i}: {stderr}");
        if !out.status.success() {
            assert!(
                stderr.contains(&format!("f{i}.csv")),
                "blob {i}: the message names the file: {stderr}"
            );
        }
    }
}

/// A large plain CSV is read chunk by chunk as it is parsed; the result is the whole-file reader's
/// (the same file with a byte-order mark takes that path), and a bad row deep in the file is
/// reported on its own line.
#[test]
fn large_files_read_in_chunks_score_as_read_whole() {
    let mut text = String::from("board,club,ns_pair,ew_pair,ns_score\n");
    // Part scores, which every vulnerability allows.
    let scores = [110, -110, 140, -140, 90, -90, 130, 170];
    let mut rows = 0u64;
    while text.len() < 9 << 20 {
        let board = 1 + rows % 24;
        let table = rows / 24;
        let score = scores[(rows * 7 + table) as usize % scores.len()];
        text.push_str(&format!(
            "{board},club{},{},{},{score}\n",
            table / 10,
            table % 10 + 1,
            table % 10 + 101
        ));
        rows += 1;
    }
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    write(a.path(), "big.csv", text.as_bytes());
    write(b.path(), "big.csv", format!("\u{feff}{text}").as_bytes());
    let run = |dir: &Path| {
        simpairs()
            .current_dir(dir)
            .args(["score", "big.csv"])
            .output()
            .unwrap()
    };
    let (chunked, whole) = (run(a.path()), run(b.path()));
    assert!(
        chunked.status.success(),
        "{}",
        String::from_utf8_lossy(&chunked.stderr)
    );
    assert!(whole.status.success());
    assert!(chunked.stdout.len() > 1000);
    assert_eq!(chunked.stdout, whole.stdout);

    // An impossible score on the last line but one.
    let lines = rows + 1;
    let mut bad = text.clone();
    bad.push_str("3,club0,9,109,123\n");
    bad.push_str("3,club0,8,108,50\n");
    write(a.path(), "big.csv", bad.as_bytes());
    let out = run(a.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("big.csv:{}: field ns_score", lines + 1)),
        "{stderr}"
    );
}

/// Seed 002 slides 21-22: table 6 on board 4 (all vulnerable) is given a split score, NS -150 and EW
/// +50 (which no contract makes at that vulnerability: a warning, not a refusal), and each
/// direction is matchpointed in its own field as the slide shows.
#[test]
fn seed_002_split_score_is_scored_as_the_slide_shows() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score,ew_score\n\
        4,1,9,3C,E,10,,\n4,2,2,3NT,E,11,,\n4,3,4,2NT,E,8,,\n4,4,6,3NT,W,7,,\n4,5,8,3NT,E,9,,\n\
        4,6,1,,,,-150,50\n4,7,3,5C,E,10,,\n4,8,5,3S,N,9,,\n4,9,7,3C,E,11,,\n";
    let file = write(dir.path(), "split.csv", rows.as_bytes());
    let out = score(&file, &["--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: ") && stderr.contains("split.csv:7: field ew_score"),
        "{stderr}"
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Slide 22: (NS pair, EW pair, NS mp, EW mp).
    let slide = [
        ("1", "9", 8.0, 10.0),
        ("2", "2", 0.0, 16.0),
        ("3", "4", 10.0, 8.0),
        ("4", "6", 16.0, 0.0),
        ("5", "8", 2.0, 14.0),
        ("6", "1", 5.0, 6.0),
        ("7", "3", 12.0, 4.0),
        ("8", "5", 14.0, 2.0),
        ("9", "7", 5.0, 12.0),
    ];
    let results = json["boards"][0]["results"].as_array().unwrap();
    for (ns, ew, ns_mp, ew_mp) in slide {
        let r = results
            .iter()
            .find(|r| r["ns_pair"] == ns && r["ew_pair"] == ew)
            .unwrap();
        assert_eq!(
            (r["ns_mp"].as_f64(), r["ew_mp"].as_f64()),
            (Some(ns_mp), Some(ew_mp)),
            "{r}"
        );
    }
    let split = results.iter().find(|r| r["ns_pair"] == "6").unwrap();
    assert_eq!(
        (&split["ns_score"], &split["ew_score"]),
        (&(-150).into(), &50.into())
    );
    let warnings = json["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0]["file"], file.display().to_string());
    assert_eq!(
        (warnings[0]["line"].as_u64(), warnings[0]["field"].as_str()),
        (Some(7), Some("ew_score"))
    );
}

/// A contract with a score that disagrees: the recorded score is what is scored, and the warning
/// names the file, the line and both figures.
#[test]
fn the_recorded_score_stands_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score\n1,1,1,3NT,N,9,400\n1,2,2,3NT,N,8,100\n";
    let file = write(dir.path(), "ruled.csv", rows.as_bytes());
    let out = score(&file, &["--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let expected = "ruled.csv:3: field ns_score: ns_score 100 disagrees with 3NT-1 by N, which scores -50 for NS; the recorded score is used";
    assert!(
        stderr.starts_with("warning: ") && stderr.contains(expected),
        "{stderr}"
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ruled = json["boards"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ns_pair"] == "2")
        .unwrap()
        .clone();
    assert_eq!(ruled["ns_score"], 100);
    // The table output says the same on stderr, the standings on stdout.
    let table = score(&file, &[]);
    assert!(table.status.success());
    assert!(String::from_utf8_lossy(&table.stderr).contains(expected));
}

/// The report's Windows file: the passed-out row keeps its own PASS, no false disagreement.
#[test]
fn a_crlf_file_scores_with_each_row_its_own_details() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "crlf.csv",
        b"board,ns_pair,ew_pair,contract,ns_score\r\n22,2,6,,110\r\n23,3,7,PASS,0\r\n",
    );
    let out = score(&file, &["--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.get("warnings").is_none(), "{json}");
    let travellers = score(&file, &["--travellers"]);
    let text = String::from_utf8_lossy(&travellers.stdout);
    let board = |n: &str| {
        let at = text.find(&format!("Board {n}")).unwrap();
        text[at..].lines().nth(2).unwrap().to_string()
    };
    assert!(!board("22").contains("PASS"), "{text}");
    assert!(board("23").contains("PASS"), "{text}");
}

/// Players' names beside pair numbers, and travellers in bridge notation.
#[test]
fn names_and_contracts_reach_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "board,ns_pair,ew_pair,contract,declarer,tricks,lead,ns_names,ew_names\n\
        1,1,1,4S,N,11,HA,Ann & Bob,Cy & Di\n1,2,2,3NTX,E,7,,Ed & Flo,Gus & Hal\n1,3,3,PASS,,,,Ivy & Jo,Kim & Lou\n";
    let file = write(dir.path(), "named.csv", rows.as_bytes());
    let out = score(&file, &["--travellers"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in ["Ann & Bob", "Kim & Lou", "4S+1 N", "3NTX-2 E", "PASS", "HA"] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&score(&file, &["--json"]).stdout).unwrap();
    let names: Vec<&serde_json::Value> = json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["names"])
        .collect();
    assert!(
        names.contains(&&serde_json::json!(["Ann", "Bob"])),
        "{json}"
    );
}

/// Outputs of files without names or warnings are byte for byte what they were: the expected JSON
/// is what simpairs printed for this file before names and warnings were added (commit cc13f84).
#[test]
fn json_without_names_or_warnings_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "p.csv",
        b"board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,2,2,400\n",
    );
    let out = score(&file, &["--json"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"scoring\":{\"method\":\"mp\",\"factoring\":\"neuberg\",\"scale\":\"double\"},\"boards\":[{\"board\":1,\"results_count\":2,\"top\":2.0,\"results\":[{\"club\":\"\",\"section\":\"\",\"ns_pair\":\"1\",\"ew_pair\":\"1\",\"ns_score\":420,\"ns_mp\":2.0,\"ew_mp\":0.0},{\"club\":\"\",\"section\":\"\",\"ns_pair\":\"2\",\"ew_pair\":\"2\",\"ns_score\":400,\"ns_mp\":0.0,\"ew_mp\":2.0}]}],\"pairs\":[{\"club\":\"\",\"section\":\"\",\"pair\":\"1\",\"direction\":\"NS\",\"boards\":1,\"mp\":2.0,\"max\":2.0,\"pct\":100.0,\"rank\":1,\"tied\":false,\"combined_rank\":1,\"combined_tied\":true},{\"club\":\"\",\"section\":\"\",\"pair\":\"2\",\"direction\":\"NS\",\"boards\":1,\"mp\":0.0,\"max\":2.0,\"pct\":0.0,\"rank\":2,\"tied\":false,\"combined_rank\":3,\"combined_tied\":true},{\"club\":\"\",\"section\":\"\",\"pair\":\"2\",\"direction\":\"EW\",\"boards\":1,\"mp\":2.0,\"max\":2.0,\"pct\":100.0,\"rank\":1,\"tied\":false,\"combined_rank\":1,\"combined_tied\":true},{\"club\":\"\",\"section\":\"\",\"pair\":\"1\",\"direction\":\"EW\",\"boards\":1,\"mp\":0.0,\"max\":2.0,\"pct\":0.0,\"rank\":2,\"tied\":false,\"combined_rank\":3,\"combined_tied\":true}]}\n"
    );
}

const CROSS_IMP_USEBIO: &str = "<USEBIO Version=\"1.2\"><EVENT EVENT_TYPE=\"CROSS_IMP\"><WINNER_TYPE>2</WINNER_TYPE>\
<SCORING_METHOD>IMPS</SCORING_METHOD><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\
<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><SCORE>420</SCORE></TRAVELLER_LINE>\
<TRAVELLER_LINE><NS_PAIR_NUMBER>2</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER><SCORE>-50</SCORE></TRAVELLER_LINE>\
<TRAVELLER_LINE><NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>3</EW_PAIR_NUMBER><SCORE>450</SCORE></TRAVELLER_LINE>\
</BOARD></EVENT></USEBIO>";

/// Compscore's cross-IMP event (`CROSS_IMP` with `IMPS`) is scored by cross-IMPs; an event of a
/// method simpairs cannot score is refused unless another is chosen.
#[test]
fn the_files_method_is_read_or_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "x.xml", CROSS_IMP_USEBIO.as_bytes());
    let out = score(&file, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("cross-IMPs"));
    let aggregate = write(
        dir.path(),
        "a.xml",
        CROSS_IMP_USEBIO
            .replace("CROSS_IMP\"", "AGGREGATE\"")
            .as_bytes(),
    );
    let out = score(&aggregate, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("a.xml") && stderr.contains("aggregate") && stderr.contains("--scoring"),
        "{stderr}"
    );
    let out = score(&aggregate, &["--scoring", "mp"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning"));
}

/// A PBN file cut short (the report: its first 3000 bytes scored "3 boards, 24 results") is refused.
#[test]
fn a_cut_pbn_file_is_refused() {
    let real = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/realdata/native/rchillyard-Bridge/newtonbridge_20160120_1.pbn"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "cut.pbn", &real[..3000]);
    let out = score(&file, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cut.pbn:167") && stderr.contains("cut short"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// A Scorer hand passed out (`cont="N P"`, score 0) is a result: three lines, top 4.
#[test]
fn a_scorer_hand_passed_out_counts() {
    let session = r#"<session club="C" scoring_type="MP" event_name="E"><board_results><brsection id="A">
<result tab="1" bd="1" rnd="1" ns="1" ew="1" dec="N" cont="N P" lead="" res=" " score="0" mp_ns="20" mp_ew="20"/>
<result tab="2" bd="1" rnd="1" ns="2" ew="2" dec="S" cont="2 S" lead="" res="=" score="120" mp_ns="40" mp_ew="0"/>
<result tab="3" bd="1" rnd="1" ns="3" ew="3" dec="N" cont="3 S" lead="" res="-1" score="-50" mp_ns="0" mp_ew="40"/>
</brsection></board_results></session>"#;
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "s.xml", session.as_bytes());
    let out = score(&file, &["--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["boards"][0]["results_count"], 3);
    assert_eq!(json["boards"][0]["top"], 4.0);
}

/// A traveller CSV without any column giving a result: one error at its header.
#[test]
fn a_missing_column_is_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let rows: String = (1..=80).map(|i| format!("1,{i},{i}\n")).collect();
    let file = write(
        dir.path(),
        "m.csv",
        format!("board,ns_pair,ew_pair\n{rows}").as_bytes(),
    );
    let out = score(&file, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("m.csv:1:") && stderr.contains("the header has: board, ns_pair, ew_pair"),
        "{stderr}"
    );
}

#[test]
fn help_tells_of_warnings_and_the_recorded_score() {
    let out = simpairs().args(["score", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("warning:") && help.contains("recorded score"),
        "{help}"
    );
}

fn realdata(rel: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/realdata/native/"
    ))
    .join(rel)
}

/// `--check` on Compscore's own files: a session that agrees on every figure exits 0; one with hand
/// edits upstream (board 1 of mp_pairs_mitchell_02) prints them as unexplained and exits 2, while
/// the lines the seeds round otherwise name `compscore`.
#[test]
fn check_names_the_conventions_and_fails_on_the_unexplained() {
    let out = score(
        &realdata("cobalt/mp_pairs_mitchell_03.xml"),
        &["--check", "--conventions", "compscore"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("check under compscore: 165 figures compared, 0 differ, 0 unexplained"),
        "{stdout}"
    );
    let out = score(&realdata("cobalt/mp_pairs_mitchell_02.xml"), &["--check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("(agrees under compscore; seeds,lines=round-0.1-even)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("board 3, 1 NS v 1 EW: official 23 / 11, ours 20 / 20 (unexplained)"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexplained"));
    let out = score(&write_seed_004(&tempfile::tempdir().unwrap()), &["--check"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a file without official figures"
    );
}

/// `--check` on a USEBIO file from scorer-to-usebio's converter, which writes each pair's
/// percentage as its total: each total is said to be the file's percentage written again, and the
/// check exits 0, every other figure agreeing.
#[test]
fn check_explains_a_converted_files_totals_and_exits_0() {
    let out = score(
        &realdata("scorer-to-usebio/converted/pairs.xml"),
        &["--check"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(
            "pair 1 NS total: official 46.31, ours 289 (the file's totals are its percentages \
             written again; this percentage agrees)"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("check under seeds: 416 figures compared, 26 differ, 0 unexplained"),
        "{stdout}"
    );
}

/// Seed 004's pair that missed a board, in a CSV.
fn write_seed_004(dir: &tempfile::TempDir) -> PathBuf {
    write(
        dir.path(),
        "s4.csv",
        b"board,ns_pair,ew_pair,ns_score\n1,1,1,600\n1,2,2,100\n1,3,3,0\n1,4,4,-100\n\
          2,1,2,600\n2,2,3,100\n2,3,4,0\n2,4,1,-100\n3,2,4,100\n3,3,1,0\n3,4,2,-100\n",
    )
}

/// `--conventions compscore` prints NS 1's 12 matchpoints on 2 of 3 boards scaled to 18 and board 3's
/// lines raw (top 4); a choice flag overrides the preset, and the JSON names the conventions.
#[test]
fn conventions_change_what_is_printed_and_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_seed_004(&dir);
    let json = |extra: &[&str]| -> serde_json::Value {
        let out = score(&file, extra);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let pair_1 = |j: &serde_json::Value| {
        j["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pair"] == "1" && p["direction"] == "NS")
            .unwrap()["mp"]
            .clone()
    };
    let seeds = json(&["--json"]);
    assert!(seeds["scoring"].get("conventions").is_none());
    assert_eq!(pair_1(&seeds), 12.0);
    let compscore = json(&["--json", "--conventions", "compscore"]);
    assert_eq!(compscore["scoring"]["conventions"], "compscore");
    assert_eq!(pair_1(&compscore), 18.0);
    assert_eq!(compscore["boards"][2]["results"][0]["ns_mp"], 4.0);
    let unscaled = json(&[
        "--json",
        "--conventions",
        "compscore",
        "--scale-totals",
        "no",
    ]);
    assert_eq!(
        unscaled["scoring"]["conventions"],
        "compscore,scale-totals=no"
    );
    assert_eq!(pair_1(&unscaled), 12.0);
    let out = score(&file, &["--conventions", "compscor"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("presets are seeds"));
    let out = score(&file, &["--lines", "round-0.3"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("lines=round-0.3"));
}

#[test]
fn help_names_every_preset() {
    for command in ["score", "replay"] {
        let out = simpairs().args([command, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        for preset in simpairs_scoring::Preset::ALL {
            assert!(help.contains(preset.name()), "{command}: {preset}");
        }
        assert!(help.contains("--trim-from"), "{command}");
    }
}

/// A national file under Neuberg (boards played different numbers of times, so the pairs' totals
/// are fractions summed in floating point) prints the same bytes whatever the machine's cores:
/// `score --json` prints each pair's `mp` in full, and a federation checking a result on another
/// machine must get the same file.
#[test]
fn a_neuberg_file_prints_the_same_bytes_on_any_number_of_cores() {
    let mut text = String::from("board,club,ns_pair,ew_pair,ns_score\n");
    let scores = [110, -110, 140, -140, 90, -90, 130, 170, 420, -50];
    let mut seed: u64 = 7;
    // 900 clubs of 8 tables on 9 boards, board by board: about 60,000 results, more than one
    // thread's part, and every pair's results spread through the file.
    for board in 1..=9u64 {
        for club in 0..900u64 {
            for table in 1..=8u64 {
                // Clubs leave out a table of the first boards: boards have different counts.
                if table == 1 && board <= club % 10 {
                    continue;
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let score = scores[(seed >> 33) as usize % scores.len()];
                text.push_str(&format!(
                    "{board},c{club},{table},{},{score}\n",
                    table + 100
                ));
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "national.csv", text.as_bytes());
    let run = |threads: &str| {
        let out = simpairs()
            .env("RAYON_NUM_THREADS", threads)
            .args(["score", "--json", "--factoring", "neuberg"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let one = run("1");
    let json = String::from_utf8_lossy(&one);
    assert!(
        json.contains("\"factoring\":\"neuberg\""),
        "{}",
        &json[..200]
    );
    for threads in ["2", "3", "5"] {
        assert!(
            run(threads) == one,
            "score --json differs on {threads} threads"
        );
    }
}
