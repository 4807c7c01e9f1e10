//! Broken files get a clear error that names the file, the line (and for XML the element path) and the
//! field; never a panic, and nothing of the file is accepted.

use crate::common;

use simpairs_formats::{Error, Format, read};

fn native_text(rel: &str) -> String {
    std::fs::read_to_string(common::native(rel)).unwrap()
}

/// Reads and expects a refusal; returns the first problem's (line, field, message).
fn refused(file: &str, bytes: &[u8], format: Option<Format>) -> (u64, Option<String>, String) {
    let err: Error = match read(file, bytes, format) {
        Ok(i) => panic!(
            "{file}: accepted {} results from a broken file",
            i.field.len()
        ),
        Err(e) => e,
    };
    let p = &err.problems()[0];
    assert_eq!(p.at.file, file, "the error names the file");
    assert!(p.at.line >= 1, "the error names a line");
    let shown = err.to_string();
    assert!(
        shown.starts_with(&format!("{file}:{}", p.at.line)),
        "{shown}"
    );
    (p.at.line, p.at.field.clone(), p.message.clone())
}

#[test]
fn truncated_xml() {
    let text = native_text("cobalt/mp_pairs_mitchell_03.xml");
    let cut = &text[..text.len() * 3 / 5];
    let (line, field, message) = refused("cut.xml", cut.as_bytes(), None);
    assert_eq!(line, cut.lines().count() as u64);
    assert!(message.contains("cut short"), "{message}");
    assert!(
        field.unwrap().starts_with("EVENT/BOARD["),
        "the open element path is named"
    );

    let scorer = native_text("scorer-to-usebio/pairs.xml");
    let cut = &scorer[..scorer.len() / 2];
    let (_, _, message) = refused("cut-scorer.xml", cut.as_bytes(), None);
    assert!(
        message.contains("cut short") || message.contains("not well-formed"),
        "{message}"
    );

    // Cut inside a tag.
    let cut = &text[..text.find("<TRAVELLER_LINE>").unwrap() + 7];
    let (_, _, message) = refused("cut2.xml", cut.as_bytes(), Some(Format::Usebio));
    assert!(
        message.contains("not well-formed") || message.contains("cut short"),
        "{message}"
    );
}

#[test]
fn wrong_root_element() {
    let (line, field, message) = refused(
        "page.xml",
        b"<?xml version=\"1.0\"?>\n<html><body/></html>",
        None,
    );
    assert_eq!(line, 1);
    assert!(message.contains("<html>"), "{message}");
    let _ = field;
    let (line, field, message) =
        refused("page.xml", b"\n<html><body/></html>", Some(Format::Usebio));
    assert_eq!((line, field.as_deref()), (2, Some("html")));
    assert!(message.contains("not <USEBIO>"), "{message}");
    let (_, _, message) = refused(
        "u.xml",
        native_text("cobalt/butler_howell.xml").as_bytes(),
        Some(Format::Scorer),
    );
    assert!(message.contains("not <session>"), "{message}");
}

#[test]
fn traveller_line_with_a_missing_field() {
    let text = native_text("cobalt/mp_pairs_mitchell_03.xml");
    // The third line of board 2 loses its NS pair number.
    let board2 = text.find("<BOARD_NUMBER>2</BOARD_NUMBER>").unwrap();
    let at = board2
        + text[board2..]
            .match_indices("<NS_PAIR_NUMBER>")
            .nth(2)
            .unwrap()
            .0;
    let end = at + text[at..].find('\n').unwrap();
    let broken = format!("{}{}", &text[..at], &text[end..]);
    let (line, field, message) = refused("missing.xml", broken.as_bytes(), None);
    assert_eq!(
        field.as_deref(),
        Some("EVENT/BOARD[2]/TRAVELLER_LINE[3]/NS_PAIR_NUMBER")
    );
    assert!(message.contains("missing NS pair"), "{message}");
    assert_eq!(
        line,
        text[..at].lines().count() as u64 - 1,
        "the line of the TRAVELLER_LINE"
    );

    // A line with neither contract nor score.
    let at = text.find("<SCORE>").unwrap();
    let end = at + text[at..].find('\n').unwrap();
    let no_score = format!("{}{}", &text[..at], &text[end..]);
    let no_result = no_score.replacen("<CONTRACT>3D</CONTRACT>", "", 1);
    let (_, field, message) = refused("noresult.xml", no_result.as_bytes(), None);
    assert!(field.unwrap().ends_with("/CONTRACT"));
    assert!(message.contains("the contract is missing"), "{message}");

    // PBN: a ScoreTable row a value short.
    let pbn = native_text("rchillyard-Bridge/newtonbridge_20160120_1.pbn");
    let broken = pbn.replacen("104  1106 3H    S 11", "104  1106 3H    S", 1);
    let (line, field, message) = refused("short.pbn", broken.as_bytes(), None);
    assert_eq!(field.as_deref(), Some("ScoreTable"));
    assert!(
        message.contains("4 values but the table has 5 columns"),
        "{message}"
    );
    assert_eq!(line, 42);

    // Scorer: a result without its board.
    let scorer = native_text("scorer-to-usebio/pairs.xml");
    let broken = scorer.replacen(" bd=\"1\"", "", 1);
    let (line, field, message) = refused("noboard.xml", broken.as_bytes(), None);
    assert_eq!(
        (line, field.as_deref()),
        (8, Some("board_results/brsection[1]/result[1]/@bd"))
    );
    assert!(message.contains("missing board"), "{message}");

    // CSV: a row without its EW pair.
    let (line, field, _) = refused(
        "t.csv",
        b"board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,2,,420\n",
        None,
    );
    assert_eq!((line, field.as_deref()), (3, Some("ew_pair")));
}

#[test]
fn unknown_contract() {
    let text = native_text("cobalt/butler_howell.xml");
    let broken = text.replacen("<CONTRACT>", "<CONTRACT>9", 1);
    let (line, field, message) = refused("contract.xml", broken.as_bytes(), None);
    let expected_line = text[..text.find("<CONTRACT>").unwrap()].lines().count() as u64;
    assert_eq!(line, expected_line, "the line of the CONTRACT element");
    assert_eq!(
        field.as_deref(),
        Some("EVENT/BOARD[1]/TRAVELLER_LINE[1]/CONTRACT")
    );
    assert!(message.contains("contract"), "{message}");

    let scorer = native_text("scorer-to-usebio/pairs.xml");
    let broken = scorer.replacen("cont=\"4 S\"", "cont=\"4 Q\"", 1);
    let (_, field, message) = refused("contract-scorer.xml", broken.as_bytes(), None);
    assert_eq!(
        field.as_deref(),
        Some("board_results/brsection[1]/result[1]/@cont")
    );
    assert!(message.contains("unknown contract"), "{message}");

    let pbn = native_text("rchillyard-Bridge/westwood_20190625_1.pbn");
    let broken = pbn.replacen(" 6H    E 11", " 6Z    E 11", 1);
    let (_, field, message) = refused("contract.pbn", broken.as_bytes(), None);
    assert_eq!(field.as_deref(), Some("ScoreTable/Contract"));
    assert!(message.contains("unknown contract"), "{message}");
}

#[test]
fn bytes_that_are_not_utf8() {
    let text = native_text("cobalt/mp_pairs_mitchell_03.xml");
    let at = text.find("PLAYER 3").unwrap();
    let line_of_at = text[..at].lines().count() as u64;
    // An XML file that names no character set and is not UTF-8 text is read as Windows-1252, as
    // programs on Windows write it, with a warning at the line of the first byte that is not UTF-8.
    let mut bytes = text.as_bytes().to_vec();
    bytes[at] = 0xFF;
    let imported = read("windows.xml", &bytes, None).unwrap();
    assert_eq!(imported.warnings.len(), 1, "{:?}", imported.warnings);
    assert_eq!(imported.warnings[0].at.line, line_of_at);
    assert!(imported.warnings[0].message.contains("Windows-1252"));
    assert!(
        imported
            .pairs
            .iter()
            .any(|p| p.players.iter().any(|x| x.name == "\u{ff}LAYER 3"))
    );
    // Bytes that are text in no code page (a control byte: a binary file) are refused.
    bytes[at + 1] = 0x01;
    let (line, _, message) = refused("latin.xml", &bytes, None);
    assert_eq!(line, line_of_at);
    assert!(
        message.contains("not UTF-8") && message.contains("0xFF"),
        "{message}"
    );

    // An XML file that declares ISO-8859-1 is read in that character set.
    let latin = text
        .replacen(
            "<?xml version=\"1.0\"?>",
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>",
            1,
        )
        .replacen("PLAYER 3", "PLAYER \u{e9}", 1);
    let bytes: Vec<u8> = latin.chars().map(|c| c as u32 as u8).collect();
    let imported = read("latin.xml", &bytes, None).unwrap();
    assert!(
        imported
            .pairs
            .iter()
            .any(|p| p.players.iter().any(|x| x.name == "PLAYER \u{e9}"))
    );

    // A traveller CSV that is not UTF-8 is text in a spreadsheet's code page, read as Windows-1252
    // with a warning (crates/formats/tests/separators.rs); binary bytes are refused at their field.
    let (line, field, _) = refused(
        "t.csv",
        b"board,ns_pair,ew_pair,ns_score\n1,1,1,420\n1,\xff\x00,2,420\n",
        None,
    );
    assert_eq!((line, field.as_deref()), (3, Some("ns_pair")));

    // PBN is ISO-8859-1 unless it says UTF-8.
    let pbn = native_text("rchillyard-Bridge/newtonbridge_20160120_1.pbn");
    let mut bytes = pbn
        .replacen("Newton Bridge Club", "Newton Bridge Caf\u{e9}", 1)
        .into_bytes();
    let at = bytes
        .windows(2)
        .position(|w| w == "\u{e9}".as_bytes())
        .unwrap();
    bytes.splice(at..at + 2, [0xE9]);
    let imported = read("latin.pbn", &bytes, None).unwrap();
    assert_eq!(
        imported.event.club_name.as_deref(),
        Some("Newton Bridge Caf\u{e9}")
    );
    let declared =
        String::from_utf8_lossy(&bytes).replacen("charset=ISO-8859-1", "charset=UTF-8", 1);
    let mut declared = declared.into_bytes();
    let at = declared
        .windows(3)
        .position(|w| w == "\u{fffd}".as_bytes())
        .unwrap();
    declared.splice(at..at + 3, [0xE9]);
    let (line, _, message) = refused("utf8.pbn", &declared, None);
    assert_eq!(line, 7);
    assert!(message.contains("not UTF-8"), "{message}");
}

#[test]
fn empty_files() {
    for format in [
        None,
        Some(Format::Csv),
        Some(Format::Usebio),
        Some(Format::Scorer),
        Some(Format::Pbn),
        Some(Format::HillyardCsv),
    ] {
        for bytes in [&b""[..], b"   \n\n", b"\xef\xbb\xbf"] {
            let (line, _, message) = refused("empty", bytes, format);
            assert_eq!(line, 1);
            assert!(message.contains("empty"), "{format:?}: {message}");
        }
    }
}

#[test]
fn files_without_results() {
    let (_, _, message) = refused(
        "e.xml",
        b"<USEBIO Version=\"1.2\"><EVENT EVENT_TYPE=\"MP_PAIRS\"/></USEBIO>",
        None,
    );
    assert!(message.contains("no TRAVELLER_LINE"), "{message}");
    let (_, _, message) = refused("e.pbn", b"% PBN 2.1\n[Event \"x\"]\n[Board \"1\"]\n", None);
    assert!(message.contains("no [ScoreTable]"), "{message}");
    let (_, _, message) = refused(
        "e.xml",
        b"<session club=\"x\"><board_results/></session>",
        None,
    );
    assert!(message.contains("no results"), "{message}");
}

#[test]
fn teams_events_and_strange_xml_are_refused() {
    let (_, _, message) = refused(
        "t.xml",
        b"<USEBIO><EVENT EVENT_TYPE=\"SWISS_TEAMS\"><MATCH/></EVENT></USEBIO>",
        None,
    );
    assert!(message.contains("pairs events only"), "{message}");
    let (_, field, message) = refused(
        "deep.xml",
        "<USEBIO>".repeat(40).as_bytes(),
        Some(Format::Usebio),
    );
    assert!(message.contains("nested"), "{message}");
    assert!(field.is_some());
    let (_, _, message) = refused("ent.xml", b"<USEBIO><EVENT>&bogus;</EVENT></USEBIO>", None);
    assert!(message.contains("&bogus;"), "{message}");
}

#[test]
fn a_pbn_deal_that_deals_a_card_twice() {
    let pbn = native_text("rchillyard-Bridge/newtonbridge_20160120_1.pbn");
    let broken = pbn.replacen(
        "N:A97653.94.AT5.A8 K.JT862",
        "N:A97653.94.AT5.A8 A.JT862",
        1,
    );
    let (line, field, message) = refused("deal.pbn", broken.as_bytes(), None);
    assert_eq!((line, field.as_deref()), (16, Some("[Deal]")));
    assert!(message.contains("dealt twice"), "{message}");
}

#[test]
fn the_hillyard_csv_is_read_and_a_broken_one_is_refused() {
    let text = native_text("rchillyard-Bridge/Newton Scoring 20241119.csv");
    let broken = text.replacen("1,450", "1,455", 1);
    let (line, field, message) = refused("n.csv", broken.as_bytes(), None);
    assert_eq!((line, field.as_deref()), (22, Some("result")));
    assert!(message.contains("455"), "{message}");
}

/// A spreadsheet's workbook given instead of its sheet saved as CSV (or any zip archive) is refused
/// with what to do, whatever its name and whether or not the format is named.
#[test]
fn a_spreadsheet_workbook_is_refused_with_what_to_do() {
    let zip = [&b"PK\x03\x04\x14\x00\x06\x00"[..], &[0x9c; 200]].concat();
    let ole = [&b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"[..], &[0x00; 200]].concat();
    for (bytes, what) in [(&zip, "zip archive"), (&ole, "old Excel workbook")] {
        for name in ["session.xlsx", "session.xls", "session.csv"] {
            for format in [None, Some(Format::Csv)] {
                let (line, field, message) = refused(name, bytes, format);
                assert_eq!((line, field), (1, None), "{name} {format:?}");
                assert!(message.contains(what), "{message}");
                assert!(message.contains("save the sheet as CSV"), "{message}");
            }
        }
    }
}
