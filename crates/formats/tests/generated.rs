//! The generator of large USEBIO files behind the reading benchmark
//! (`cargo bench -p simpairs-formats --bench usebio`) makes files the reader accepts whole.

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
