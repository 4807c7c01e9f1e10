//! Files as users sent them when reporting a problem with the traveller CSV, read through
//! [`super::read`] (and [`super::read_ranged`] where a large file takes that way).

use super::{Format, Imported, read};
use simpairs_scoring::Outcome;

fn read_ok(name: &str, bytes: &[u8]) -> Imported {
    read(name, bytes, None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Each row's line and NS score.
fn scores(got: &Imported) -> Vec<(u64, i32)> {
    (0..got.field.len())
        .map(|r| match got.field.result(r).outcome {
            Outcome::Played(ns) => (got.lines.line_of(r), ns),
            other => panic!("row {r}: {other:?}"),
        })
        .collect()
}

/// `text` in UTF-16 with its byte-order mark, as Excel's "Unicode Text" saves it.
fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    let mut bytes = if little_endian {
        vec![0xFF, 0xFE]
    } else {
        vec![0xFE, 0xFF]
    };
    for unit in text.encode_utf16() {
        bytes.extend(if little_endian {
            unit.to_le_bytes()
        } else {
            unit.to_be_bytes()
        });
    }
    bytes
}

/// The report's file: `+1` was read as 1 trick taken (4S-9 scored 450 for EW); `+2` likewise.
#[test]
fn tricks_against_the_contract_are_counted_from_its_level() {
    let bytes = b"board,ns_pair,ew_pair,contract,declarer,tricks\n1,1,1,4S,N,+1\n1,2,2,3NT,S,9\n1,3,3,2H,E,+2\n";
    let got = read_ok("p.csv", bytes);
    assert_eq!(scores(&got), [(2, 450), (3, 400), (4, -170)]);
    // What --travellers shows: 4S+1, not 4S-9.
    assert_eq!(got.details(0).unwrap().tricks, Some(11));
    assert_eq!(got.details(2).unwrap().tricks, Some(10));
    // `-2` and `=` too, and quoted fields (the whole-file reader's other way) read alike.
    let text = "board,ns_pair,ew_pair,contract,declarer,tricks\n1,1,1,4S,N,-2\n1,2,2,3NT,S,=\n";
    let quoted = text.replace("-2", "\"-2\"");
    for text in [text, &quoted] {
        let got = read_ok("m.csv", text.as_bytes());
        assert_eq!(scores(&got), [(2, -100), (3, 400)], "{text}");
        assert_eq!(got.details(0).unwrap().tricks, Some(8));
    }
}

#[test]
fn tricks_against_the_contract_that_cannot_be_are_refused_at_their_line() {
    let header = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score\n";
    for (row, says) in [
        ("1,3,3,7NT,S,+1,", "7NT+1"),
        ("1,3,3,,,+1,420", "no contract"),
        ("1,3,3,PASS,,=,", "passed out"),
    ] {
        let text = format!("{header}1,1,1,4S,N,10,\n1,2,2,4S,N,=,\n{row}\n");
        let err = read("p.csv", text.as_bytes(), None)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("p.csv:4: field tricks: "), "{err}");
        assert!(err.contains(says), "{err}");
    }
}

/// The report's file: Excel's "Unicode Text" (UTF-16LE with a byte-order mark, tabs, CRLF) was
/// taken for XML cut short.
#[test]
fn a_utf16_file_is_read_as_the_text_it_is() {
    let text = "board\tns_pair\tew_pair\tcontract\tdeclarer\ttricks\r\n1\t1\t1\t4S\tN\t10\r\n";
    for little_endian in [true, false] {
        let bytes = utf16(text, little_endian);
        assert_eq!(super::detect("u.txt", &bytes).unwrap(), Format::Csv);
        for format in [None, Some(Format::Csv)] {
            let got = read("u.txt", &bytes, format).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(scores(&got), [(2, 420)]);
            assert!(got.warnings.is_empty(), "{:?}", got.warnings);
        }
    }
    // A UTF-16 XML file is still XML.
    let xml = utf16("<?xml version=\"1.0\"?>\n<USEBIO Version=\"1.2\"/>", true);
    assert_eq!(super::detect("a", &xml).unwrap(), Format::Usebio);
}

/// Excel writes `sep=;` as the first line of some CSVs: it names the separator, and lines are
/// still counted from the top of the file, as a text editor shows them.
#[test]
fn a_sep_line_names_the_separator() {
    for (sep, s) in [
        ("sep=;", ";"),
        ("sep=,", ","),
        ("sep=\t", "\t"),
        ("\u{feff}sep=;", ";"),
    ] {
        let text = format!(
            "{sep}\r\nboard{s}ns_pair{s}ew_pair{s}ns_score{s}ns_mp\r\n1{s}1{s}1{s}420{s}2\r\n1{s}2{s}2{s}400{s}0\r\n"
        );
        let got = read_ok("s.csv", text.as_bytes());
        assert_eq!(scores(&got), [(3, 420), (4, 400)], "{sep:?}");
        assert_eq!(got.official.line(0).unwrap().ns, Some(2.into()), "{sep:?}");
        let bad = text.replace("400", "425");
        let err = read("s.csv", bad.as_bytes(), None).unwrap_err();
        assert_eq!(err.problems()[0].at.line, 4, "{sep:?}: {err}");
        let empty = read(
            "s.csv",
            format!("{sep}\nboard{s}ns_pair{s}ew_pair{s}ns_score\n").as_bytes(),
            None,
        );
        assert_eq!(empty.unwrap_err().problems()[0].at.line, 3, "{sep:?}");
    }
}

/// A large `sep=,` file, read in ranges, gives the lines a whole-file reading gives.
#[test]
fn a_large_file_with_a_sep_line_is_read_with_its_lines() {
    let mut bytes = b"sep=,\nboard,ns_pair,ew_pair,ns_score\n".to_vec();
    for i in 0..700_000u32 {
        bytes.extend_from_slice(
            format!("{},{},{},110\n", i / 1000 + 1, i % 1000 + 1, i % 1000 + 1).as_bytes(),
        );
    }
    let fetch = |at: u64, buffer: &mut [u8]| -> std::io::Result<()> {
        let at = at as usize;
        buffer.copy_from_slice(&bytes[at..at + buffer.len()]);
        Ok(())
    };
    let ranged = super::read_ranged("big.csv", bytes.len() as u64, &fetch, None).unwrap();
    let ranged = ranged.expect("a large sep=, file is read in ranges");
    let whole = read_ok("big.csv", &bytes);
    for got in [&ranged, &whole] {
        assert_eq!(got.field.len(), 700_000);
        assert_eq!(
            (got.lines.line_of(0), got.lines.line_of(699_999)),
            (3, 700_002)
        );
    }
}

/// The warning for a file in the Windows code page has no field: it is printed without one, at
/// the line of the first byte that is not UTF-8, counted as the file's own lines.
#[test]
fn the_code_page_warning_names_its_line_and_no_field() {
    let got = read_ok(
        "clubB.tsv",
        b"board\tclub\tns_pair\tew_pair\tns_score\n1\tA\t1\t1\t420\n1\tZ\xfcrich\t2\t2\t400\n",
    );
    assert_eq!(got.warnings.len(), 1);
    let shown = got.warnings[0].to_string();
    assert!(
        shown.starts_with("clubB.tsv:3: the file is not UTF-8"),
        "{shown}"
    );
    let got = read_ok(
        "clubB.csv",
        b"sep=;\nboard;club;ns_pair;ew_pair;ns_score\n1;Z\xfcrich;1;1;420\n",
    );
    assert!(
        got.warnings[0]
            .to_string()
            .starts_with("clubB.csv:3: the file"),
        "{:?}",
        got.warnings
    );
}

/// A pair that plays a board twice: the message names the pair that repeats it and the line it
/// played it on first, whichever direction it sat.
#[test]
fn a_board_played_twice_names_the_pair_and_its_first_line() {
    let header = "board,ns_pair,ew_pair,ns_score\n";
    for (rows, says) in [
        (
            "1,1,1,420\n1,2,2,400\n1,3,1,100\n",
            "pair 1 EW has played board 1 already, on line 2 (against 1 NS); here it plays it again against 3 NS",
        ),
        (
            "1,1,1,420\n1,2,2,400\n1,2,3,100\n",
            "pair 2 NS has played board 1 already, on line 3 (against 2 EW); here it plays it again against 3 EW",
        ),
        (
            "1,1,1,420\n1,2,2,400\n1,1,1,100\n",
            "the same table entered twice: board 1 with 1 NS and 1 EW was already on line 2",
        ),
    ] {
        let text = format!("{header}{rows}");
        let err = read("d.csv", text.as_bytes(), None)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("d.csv:4: "), "{err}");
        assert!(err.contains(says), "{err}");
    }
}
