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
        ("4,1,9,3NT,E,9,600,\n", ":2: field ns_score", "disagrees"),
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
    assert!(
        stderr.contains("h.csv:1: field ew_pear: unknown column"),
        "{stderr}"
    );
    assert!(stderr.contains("no ew_pair column"), "{stderr}");
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
