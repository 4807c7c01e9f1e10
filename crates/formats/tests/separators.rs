//! Traveller CSVs as spreadsheets save them: outside the comma-and-point world with semicolons
//! between the fields and decimal commas (Excel's "CSV" where the decimal mark is a comma), or tabs
//! ("text, tab delimited"), with a byte-order mark and Windows line ends; and anywhere with empty
//! header cells past the last column and rows of empty fields where a formatted row was left empty.
//! Each is read as the same file without them: the real files' CSV fixtures, whose official figures
//! are the golden numbers, are written each way and must read, score and check alike.

use crate::common;

use common::{OFFICIAL_FILES, fixture, options};
use simpairs_formats::check::check;
use simpairs_scoring::{Method, score};

/// A comma-separated fixture (no quoted fields) written with `separator` between its fields, a
/// decimal comma in every number with a decimal point, Windows line ends and a byte-order mark.
fn as_a_spreadsheet_saves_it(text: &str, separator: char) -> String {
    assert!(!text.contains('"'), "the fixtures have no quoted fields");
    let mut out = String::from("\u{feff}");
    for line in text.lines() {
        let fields: Vec<String> = line.split(',').map(with_a_decimal_comma).collect();
        out.push_str(&fields.join(&separator.to_string()));
        out.push_str("\r\n");
    }
    out
}

fn with_a_decimal_comma(field: &str) -> String {
    let number = field.strip_prefix('-').unwrap_or(field);
    let is_decimal = number.split_once('.').is_some_and(|(whole, fraction)| {
        [whole, fraction]
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    });
    if is_decimal {
        field.replace('.', ",")
    } else {
        field.to_string()
    }
}

/// A field's debug text without its lineage: a number each field is given when it is made, which
/// tells two reads apart however alike.
fn without_lineage(debug: &str) -> String {
    let mut parts = debug.split("Lineage(");
    let mut out = parts.next().unwrap_or_default().to_string();
    for part in parts {
        out.push_str("Lineage(_");
        out.push_str(part.trim_start_matches(|c: char| c.is_ascii_digit()));
    }
    out
}

fn read(name: &str, text: &str) -> simpairs_formats::Imported {
    simpairs_formats::read(name, text.as_bytes(), None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_real_fixture_saved_with_semicolons_or_tabs_reads_as_with_commas() {
    let mut decimal_commas = 0;
    for file in OFFICIAL_FILES {
        let (lines_path, _) = fixture(file);
        let text = std::fs::read_to_string(&lines_path).unwrap();
        let commas = read("club.csv", &text);
        for separator in [';', '\t'] {
            let saved = as_a_spreadsheet_saves_it(&text, separator);
            decimal_commas += saved.matches(',').count();
            let read = read("club.csv", &saved);
            // Everything read: the field, its lines, the official figures, names and warnings.
            assert_eq!(
                without_lineage(&format!("{read:?}")),
                without_lineage(&format!("{commas:?}")),
                "{file} {separator:?}"
            );
        }
    }
    assert!(
        decimal_commas > 100,
        "the fixtures' decimal matchpoints were written with commas"
    );
}

/// Compscore's Mitchell agrees with every official figure it carries; saved with semicolons and
/// decimal commas, it still does, and scores the same.
#[test]
fn a_semicolon_file_checks_against_its_official_figures() {
    let (lines_path, _) = fixture("cobalt/mp_pairs_mitchell_03.xml");
    let text = std::fs::read_to_string(&lines_path).unwrap();
    let saved = read("club.csv", &as_a_spreadsheet_saves_it(&text, ';'));
    let c = check(&saved, &options(Method::Matchpoints)).unwrap();
    assert!(c.compared > 0);
    assert_eq!(c.differences, vec![]);
    let scored = score(&saved.field, &options(Method::Matchpoints)).unwrap();
    let commas = read("club.csv", &text);
    let expected = score(&commas.field, &options(Method::Matchpoints)).unwrap();
    assert_eq!(
        format!("{:?}", scored.standings()),
        format!("{:?}", expected.standings())
    );
}

/// A problem in a semicolon file is told at the file's own line and field, as in the comma file.
#[test]
fn a_problem_in_a_semicolon_file_is_told_at_its_own_line() {
    let text = "board,ns_pair,ew_pair,contract,declarer,tricks\n\
                1,1,1,3NT,N,9\n\
                \n\
                1,2,2,3NT,N,14\n";
    let saved = as_a_spreadsheet_saves_it(text, ';');
    let comma_error = simpairs_formats::read("club.csv", text.as_bytes(), None)
        .unwrap_err()
        .to_string();
    let error = simpairs_formats::read("club.csv", saved.as_bytes(), None)
        .unwrap_err()
        .to_string();
    assert!(error.contains("club.csv:4"), "{error}");
    assert!(error.contains("tricks"), "{error}");
    assert_eq!(error, comma_error);
}

/// Names with commas in them, in a semicolon file, quoted or not, stay whole, and the file reads as
/// the same file written with commas.
#[test]
fn a_name_with_a_comma_in_a_semicolon_file_stays_whole() {
    let semicolons = "board;ns_pair;ew_pair;ns_score;ns_names;ew_names\r\n\
                      1;1;1;420;Smith, Ann & Jones, Bo;\"Lee, Cy & Ng, Di\"\r\n\
                      1;2;2;-50;Roe, Ed & Poe, Flo;Day, Gil & Fay, Hal\r\n";
    let commas = "board,ns_pair,ew_pair,ns_score,ns_names,ew_names\r\n\
                  1,1,1,420,\"Smith, Ann & Jones, Bo\",\"Lee, Cy & Ng, Di\"\r\n\
                  1,2,2,-50,\"Roe, Ed & Poe, Flo\",\"Day, Gil & Fay, Hal\"\r\n";
    let imported = read("club.csv", semicolons);
    let named: Vec<String> = imported
        .pairs
        .iter()
        .flat_map(|p| p.players.iter().map(|player| player.name.clone()))
        .collect();
    for name in ["Smith, Ann", "Jones, Bo", "Lee, Cy", "Ng, Di", "Fay, Hal"] {
        assert!(named.iter().any(|n| n == name), "{name} in {named:?}");
    }
    assert_eq!(
        without_lineage(&format!("{imported:?}")),
        without_lineage(&format!("{:?}", read("club.csv", commas)))
    );
}

/// A spreadsheet's empty header cells past the last column, and its formatted empty rows saved as
/// rows of empty fields (`,,,,,,,,`), in the middle and at the end: the file reads as the same file
/// with blank lines for those rows, through the quick reading and through the one for quoted fields.
#[test]
fn a_spreadsheets_empty_columns_and_rows_are_skipped() {
    let clean = "board,ns_pair,ew_pair,contract,declarer,tricks\r\n\
                 1,1,1,3NT,N,9\r\n\
                 \r\n\
                 1,2,2,3NT,N,10\r\n\
                 \r\n\
                 \r\n";
    let saved = "board,ns_pair,ew_pair,contract,declarer,tricks,,,\r\n\
                 1,1,1,3NT,N,9,,,\r\n\
                 ,,,,,,,,\r\n\
                 1,2,2,3NT,N,10,,,\r\n\
                 ,,,,,,,,\r\n\
                 , ,,,,,,,\r\n";
    let expected = without_lineage(&format!("{:?}", read("club.csv", clean)));
    assert_eq!(
        without_lineage(&format!("{:?}", read("club.csv", saved))),
        expected
    );
    // A quoted field sends the file through the reading that allows quotes.
    let quoted = saved.replacen("3NT,N,10", "\"3NT\",N,10", 1);
    assert_eq!(
        without_lineage(&format!("{:?}", read("club.csv", &quoted))),
        expected
    );
    let semicolons = saved.replace(',', ";");
    assert_eq!(
        without_lineage(&format!("{:?}", read("club.csv", &semicolons))),
        expected
    );
}

/// A row with a result but no board is still refused at its line: only a row of nothing but empty
/// fields is skipped.
#[test]
fn a_row_with_a_result_and_no_board_is_still_refused() {
    let text = "board,ns_pair,ew_pair,ns_score,,\n1,1,1,420,,\n,,,420,,\n";
    let error = simpairs_formats::read("club.csv", text.as_bytes(), None)
        .unwrap_err()
        .to_string();
    assert!(error.contains("club.csv:3"), "{error}");
    assert!(error.contains("board"), "{error}");
}

/// A spreadsheet's plain CSV saved on Windows is in the Windows-1252 code page, not UTF-8: it is read
/// as Windows-1252, names and all, with a warning at the first byte that is not UTF-8, and reads as
/// the same file saved as UTF-8 but for that warning. A UTF-8 file has no such warning.
#[test]
fn a_windows_code_page_file_keeps_its_names_with_a_warning() {
    let utf8 = "board;ns_pair;ew_pair;ns_score;ns_names;ew_names\r\n\
                1;1;1;420;Ann Lee & Bo Ng;Cy Day & Di Fay\r\n\
                1;2;2;-50;J\u{e9}r\u{f4}me Roux & Zo\u{eb} Bl\u{e9};Ren\u{e9}e \u{2013} Ma\u{ef}tre & Ed Roe\r\n";
    let windows: Vec<u8> = utf8
        .chars()
        .map(|c| match c {
            '\u{2013}' => 0x96,
            c => u8::try_from(u32::from(c)).expect("a Latin-1 character"),
        })
        .collect();
    let from_utf8 = read("club.csv", utf8);
    assert_eq!(from_utf8.warnings, vec![]);
    let mut from_windows = simpairs_formats::read("club.csv", &windows, None).unwrap();
    let warning = from_windows.warnings.remove(0);
    assert_eq!((warning.at.line, warning.at.field.as_deref()), (3, None));
    assert!(warning.message.contains("Windows-1252"), "{warning}");
    assert!(warning.message.contains("0xE9"), "{warning}");
    assert_eq!(
        without_lineage(&format!("{from_windows:?}")),
        without_lineage(&format!("{from_utf8:?}"))
    );
    let names: Vec<&str> = from_windows
        .pairs
        .iter()
        .flat_map(|p| p.players.iter().map(|player| player.name.as_str()))
        .collect();
    assert!(names.contains(&"Zo\u{eb} Bl\u{e9}"), "{names:?}");
    assert!(
        names.contains(&"Ren\u{e9}e \u{2013} Ma\u{ef}tre"),
        "{names:?}"
    );
    // With a UTF-8 byte-order mark before it, as some programs write one whatever the text: alike.
    let marked = [&b"\xef\xbb\xbf"[..], &windows].concat();
    let mut from_marked = simpairs_formats::read("club.csv", &marked, None).unwrap();
    assert_eq!(from_marked.warnings.remove(0).at.line, 3);
    assert_eq!(
        without_lineage(&format!("{from_marked:?}")),
        without_lineage(&format!("{from_utf8:?}"))
    );
}

/// The code page's warning takes its place among the lines' warnings, in line order.
#[test]
fn the_code_page_warning_is_in_line_order() {
    let windows = b"board,ns_pair,ew_pair,contract,declarer,tricks,ns_score,ns_names\n\
                    1,1,1,3NT,N,9,100,Ann & Bo\n\
                    1,2,2,3NT,N,9,400,Zo\xeb & Cy\n\
                    1,3,3,3NT,N,10,100,Di & Ed\n";
    let imported = simpairs_formats::read("club.csv", windows, None).unwrap();
    let lines: Vec<u64> = imported.warnings.iter().map(|w| w.at.line).collect();
    assert_eq!(lines, vec![2, 3, 4], "{:?}", imported.warnings);
    assert!(imported.warnings[1].message.contains("Windows-1252"));
}
