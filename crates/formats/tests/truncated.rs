//! A file cut short (a download stopped, `head -c`, a disk full) is refused with a message naming
//! where it ends, never scored as a smaller event: PBN files that end inside a game, a tag, a table
//! or a row, and XML files (USEBIO, Scorer) that end inside an element.

use crate::common;

use simpairs_formats::read;

/// What reading a cut file gives: `Ok` with its results, or the error's text.
fn outcome(name: &str, bytes: &[u8]) -> Result<usize, String> {
    read(name, bytes, None)
        .map(|i| i.field.len())
        .map_err(|e| e.to_string())
}

/// The length of `bytes` without trailing whitespace: a cut there loses nothing.
fn content_len(bytes: &[u8]) -> usize {
    bytes.trim_ascii_end().len()
}

/// The report's case: the first 3000 bytes of a real PBN file scored "3 boards, 24 results".
#[test]
fn the_reported_pbn_cut_is_refused_naming_the_place() {
    let bytes = std::fs::read(common::native(
        "rchillyard-Bridge/newtonbridge_20160120_1.pbn",
    ))
    .unwrap();
    let message = outcome("cut.pbn", &bytes[..3000]).expect_err("a cut file is refused");
    assert!(message.contains("cut.pbn:"), "{message}");
    assert!(message.contains("cut short"), "{message}");
    assert!(
        message.contains("OptimumResultTable"),
        "names what was cut: {message}"
    );
}

/// Whether a PBN prefix ends just after a whole game (its last tag is `[Result ...]` in these files):
/// such a file is indistinguishable from a shorter whole one.
fn ends_a_game(prefix: &[u8]) -> bool {
    let text = String::from_utf8_lossy(prefix.trim_ascii_end());
    text.lines()
        .last()
        .is_some_and(|l| l.starts_with("[Result ") && l.ends_with(']'))
}

/// Every cut of real PBN files, at line ends and inside lines, is refused, and once a game has been
/// read the message says the file is cut short. Not refused: cuts just after a whole game, and cuts at
/// a line end inside the first game (no game before it tells what a whole game holds): such files
/// are indistinguishable from whole ones.
#[test]
fn every_cut_of_a_pbn_file_is_refused() {
    for file in [
        "rchillyard-Bridge/newtonbridge_20160120_1.pbn",
        "rchillyard-Bridge/westwood_20190625_1.pbn",
    ] {
        let bytes = std::fs::read(common::native(file)).unwrap();
        assert!(outcome(file, &bytes).is_ok(), "{file}: a whole file reads");
        assert!(
            outcome(file, &bytes[..content_len(&bytes)]).is_ok(),
            "{file}: without its last line end"
        );
        let first_game_end = String::from_utf8_lossy(&bytes).find("\n[Result ").unwrap();
        // Every fifth line end and a spread of places inside lines (a read takes a while unoptimised).
        let line_ends = bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i);
        let cuts: Vec<usize> = line_ends
            .step_by(5)
            .chain((1..bytes.len()).step_by(97))
            .collect();
        for n in cuts {
            let at_line_end = bytes[n] == b'\n' || bytes[n - 1] == b'\n';
            if n >= content_len(&bytes)
                || ends_a_game(&bytes[..n])
                || (n <= first_game_end && at_line_end)
            {
                continue;
            }
            let message = match outcome("cut.pbn", &bytes[..n]) {
                Ok(results) => panic!("{file} cut at byte {n}: read as {results} results"),
                Err(m) => m,
            };
            if n > first_game_end + 20 {
                assert!(
                    message.contains("cut short"),
                    "{file} cut at byte {n}: {message}"
                );
            }
        }
    }
}

/// Every cut of real XML files (USEBIO by Compscore, Scorer, a USEBIO file on one line) is refused;
/// once the root element has started the message says the file is cut short.
#[test]
fn every_cut_of_an_xml_file_is_refused() {
    for (file, step) in [
        ("cobalt/mp_pairs_mitchell_03.xml", 317),
        ("scorer-to-usebio/pairs.xml", 211),
        ("scorer-to-usebio/converted/pairs.xml", 613),
    ] {
        let bytes = std::fs::read(common::native(file)).unwrap();
        let root = String::from_utf8_lossy(&bytes)
            .find(if file.contains("converted") || file.contains("cobalt") {
                "<USEBIO"
            } else {
                "<session"
            })
            .unwrap();
        let end = content_len(&bytes);
        let cuts = (1..end).step_by(step).chain(end.saturating_sub(12)..end);
        for n in cuts {
            let message = match outcome("cut.xml", &bytes[..n]) {
                Ok(results) => panic!("{file} cut at byte {n}: read as {results} results"),
                Err(m) => m,
            };
            if n > root + 8 {
                assert!(
                    message.contains("cut short"),
                    "{file} cut at byte {n}: {message}"
                );
            }
        }
    }
}
