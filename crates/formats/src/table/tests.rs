use super::{Table, read_table};

const REQUIRED: &[&str] = &["club"];

fn read(bytes: &[u8]) -> Table {
    read_table("clubs.csv", bytes, REQUIRED).unwrap_or_else(|e| panic!("{e}"))
}

/// Each row's line and fields.
fn rows(t: &Table) -> Vec<(u64, Vec<&str>)> {
    t.rows
        .iter()
        .map(|r| (r.line, r.fields.iter().map(String::as_str).collect()))
        .collect()
}

#[test]
fn a_comma_file_with_quoted_names_reads_each_field_whole() {
    let t = read(b"Club,Name\nA,\"Smith, Jones & Co\"\nB,\"The \"\"Top\"\" Club\"\n");
    assert_eq!(t.header, ["club", "name"]);
    assert_eq!(
        rows(&t),
        [
            (2, vec!["A", "Smith, Jones & Co"]),
            (3, vec!["B", "The \"Top\" Club"])
        ]
    );
    assert!(t.warnings.is_empty());
}

#[test]
fn a_spreadsheets_separators_line_ends_and_leftovers_read_as_the_comma_file() {
    let comma = read(b"club,name\nA,Club A\nB,\"Smith, Jones\"\n");
    for bytes in [
        &b"\xef\xbb\xbfclub;name\r\nA;Club A\r\nB;Smith, Jones\r\n;\r\n;;\r\n"[..],
        b"club\tname\tpublic_key\r\nA\tClub A\t\r\n\r\nB\tSmith, Jones\t\r\n",
        b"club,name,,\nA,Club A,,\n,,,\nB,\"Smith, Jones\",,\n,,,\n",
    ] {
        let t = read(bytes);
        assert_eq!(&t.header[..2], ["club", "name"], "{bytes:?}");
        let fields: Vec<Vec<&str>> = rows(&t).into_iter().map(|(_, f)| f[..2].to_vec()).collect();
        let expected: Vec<Vec<&str>> = rows(&comma).into_iter().map(|(_, f)| f).collect();
        assert_eq!(fields, expected, "{bytes:?}");
    }
    // Lines are the file's own, blank rows counted.
    let t = read(b"club\tname\r\nA\tClub A\r\n\r\nB\tClub B\r\n");
    assert_eq!(rows(&t)[1].0, 4);
}

#[test]
fn a_name_over_two_lines_keeps_the_next_rows_line() {
    let t = read(b"club,name\nA,\"Club\nA\"\nB,Club B\n");
    assert_eq!(
        rows(&t),
        [(2, vec!["A", "Club\nA"]), (4, vec!["B", "Club B"])]
    );
}

#[test]
fn a_windows_code_page_file_is_read_with_a_warning_at_its_first_such_byte() {
    let t = read(b"club;name\r\nA;Club A\r\nB;Club Ang\xe9lique\r\n");
    assert_eq!(rows(&t)[1].1, ["B", "Club Angélique"]);
    assert_eq!(t.warnings.len(), 1);
    let w = &t.warnings[0];
    assert_eq!((w.at.file.as_str(), w.at.line), ("clubs.csv", 3));
    assert!(w.message.contains("Windows-1252"), "{w}");
    // Its UTF-8 twin has no warning.
    let utf8 = read("club;name\r\nA;Club A\r\nB;Club Angélique\r\n".as_bytes());
    assert_eq!(rows(&utf8), rows(&t));
    assert!(utf8.warnings.is_empty());
}

#[test]
fn utf16_text_is_read() {
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "club\tname\r\nA\tZoë's club\r\n".encode_utf16() {
        bytes.extend(unit.to_le_bytes());
    }
    assert_eq!(rows(&read(&bytes)), [(2, vec!["A", "Zoë's club"])]);
}

#[test]
fn a_workbook_or_a_binary_file_is_refused_with_where_and_what_to_do() {
    let workbook = read_table("clubs.xlsx", b"PK\x03\x04\x14\x00rest", REQUIRED).unwrap_err();
    let text = workbook.to_string();
    assert!(
        text.starts_with("clubs.xlsx:1: ") && text.contains("save the sheet as CSV"),
        "{text}"
    );
    let binary = read_table("clubs.csv", b"club,name\nA,\x00\x01\xff\n", REQUIRED).unwrap_err();
    let text = binary.to_string();
    assert!(
        text.starts_with("clubs.csv:2: ") && text.contains("not UTF-8"),
        "{text}"
    );
}

#[test]
fn a_header_naming_no_required_column_is_split_at_commas() {
    // The caller says which column is missing; the header is as the file has it.
    let t = read(b"id;name\nA;Club A\n");
    assert_eq!(t.header, ["id;name"]);
    assert_eq!(t.column("club"), None);
}
