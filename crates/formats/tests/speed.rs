//! How fast a large USEBIO file is read. Run in release:
//! `cargo test --release -p simpairs-formats --test speed -- --ignored --nocapture`

#[path = "common/generate.rs"]
mod generate;

use simpairs_formats::{Format, read};

#[test]
fn a_generated_file_is_valid() {
    let text = generate::usebio(1_000, 10);
    let imported = read("gen.xml", text.as_bytes(), None).unwrap();
    assert_eq!(imported.format, Format::Usebio);
    assert_eq!(imported.field.len(), 1_000);
    assert_eq!(
        imported
            .pairs
            .iter()
            .filter(|p| !p.players.is_empty())
            .count(),
        20
    );
}

#[test]
#[ignore = "a timing: run in release with --ignored --nocapture"]
fn a_100000_line_usebio_file_reads_in_well_under_a_second() {
    let text = generate::usebio(100_000, 20);
    let mut best = std::time::Duration::MAX;
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let imported = read("speed.xml", text.as_bytes(), None).unwrap();
        best = best.min(started.elapsed());
        assert_eq!(imported.field.len(), 100_000);
    }
    eprintln!(
        "read {} MB of USEBIO with 100,000 traveller lines in {:?} (best of 5, {:.0} MB/s)",
        text.len() >> 20,
        best,
        text.len() as f64 / 1e6 / best.as_secs_f64()
    );
    assert!(best < std::time::Duration::from_secs(1));
}
