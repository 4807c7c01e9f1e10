//! The simulated national event is valid input: every club's file reads and scores, alone and together.

use std::process::Command;

#[test]
fn simulated_clubs_read_and_score() {
    let event = simpairs_sim::national_event(&simpairs_sim::Settings {
        seed: 5,
        clubs: 40,
        boards: 8,
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let mut all = String::new();
    for (i, club) in event.clubs.iter().enumerate() {
        let read = simpairs_formats::csv::read(&club.id, club.csv.as_bytes()).unwrap();
        assert_eq!(read.field.len(), club.results);
        let body = club.csv.split_once('\n').unwrap().1;
        if i == 0 {
            all.push_str(club.csv.split_once('\n').unwrap().0);
            all.push('\n');
        }
        all.push_str(body);
    }
    let path = dir.path().join("national.csv");
    std::fs::write(&path, &all).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .arg("score")
        .arg(&path)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results: usize = json["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["results"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        results,
        event.clubs.iter().map(|c| c.results).sum::<usize>()
    );
    // The correction re-enters an existing table: on its own it is a valid file.
    let (club, csv) = &event.correction;
    assert_eq!(*club, 0);
    assert_eq!(
        simpairs_formats::csv::read("correction", csv.as_bytes())
            .unwrap()
            .field
            .len(),
        1
    );
}
