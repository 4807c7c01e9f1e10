//! The informational columns of a traveller CSV, which [`crate::csv::read`] skips because they do not
//! change a result: the contract as written (for export), `lead`, `table`, `round`, the official
//! `ns_mp`/`ew_mp` (or `ns_imps`/`ew_imps`) of the program that wrote the file, and `ns_names`/`ew_names`.
//!
//! They are read in a second, sequential pass only when the header names any of them, so the large
//! score-only files of national events are not read twice. Values that are not what the column holds
//! (a lead of `?`, matchpoints of `-`) are left out; the result itself was checked by the first pass.

use simpairs_scoring::{Contract, Seat};

use crate::error::Result;
use crate::import::{Imported, LineDetails, OfficialLine, Player};
use crate::text::{non_empty, parse_decimal, strip_bom};

/// Columns read here, in the order of the indexes kept.
const EXTRA: [&str; 12] = [
    "contract", "declarer", "tricks", "lead", "table", "round", "ns_mp", "ew_mp", "ns_imps",
    "ew_imps", "ns_names", "ew_names",
];

/// Whether a header line names any of the informational columns.
pub(crate) fn named_in(header: &[u8]) -> bool {
    String::from_utf8_lossy(strip_bom(header))
        .trim_end()
        .split(',')
        .map(|h| h.trim().trim_matches('"').trim().to_ascii_lowercase())
        .any(|h| EXTRA.contains(&h.as_str()))
}

/// Adds the informational columns of `bytes` (already read into `imported`) to `imported`.
pub(crate) fn add(_file: &str, bytes: &[u8], imported: &mut Imported) -> Result<()> {
    let bytes = strip_bom(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::StringRecord::new();
    if !matches!(reader.read_record(&mut record), Ok(true)) {
        return Ok(());
    }
    let header: Vec<String> = record
        .iter()
        .map(|h| h.trim().trim_start_matches('\u{feff}').to_ascii_lowercase())
        .collect();
    let index: Vec<Option<usize>> = EXTRA
        .iter()
        .map(|name| header.iter().position(|h| h == name))
        .collect();
    if index.iter().all(Option::is_none) {
        return Ok(());
    }
    let rows = imported.field.len();
    let mut counter = crate::text::LineCounter::new(bytes);
    let mut row = 0usize;
    let mut details = Vec::new();
    let mut official = Vec::new();
    let mut names: Vec<(u32, Vec<Player>)> = Vec::new();
    while row < rows {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) | Err(_) => break,
        }
        let line = crate::csv::record_line(bytes, record.position(), &mut counter);
        while row < rows && imported.lines.line_of(row) < line {
            row += 1;
        }
        if row >= rows || imported.lines.line_of(row) != line {
            continue;
        }
        let get = |k: usize| index[k].and_then(|i| record.get(i)).map_or("", str::trim);
        let contract =
            non_empty(get(0)).map(|c| c.parse::<Contract>().map_or(c, |k| k.to_string()));
        let passed = contract.as_deref() == Some("PASS");
        let d = LineDetails {
            contract,
            declarer: if passed {
                None
            } else {
                get(1).parse::<Seat>().ok()
            },
            tricks: if passed { None } else { get(2).parse().ok() },
            lead: non_empty(get(3)).filter(|l| l != "?" && l != "-"),
            table: get(4).parse().ok(),
            round: get(5).parse().ok(),
        };
        if !d.is_empty() {
            details.push((row as u32, d));
        }
        let o = OfficialLine {
            ns: parse_decimal(get(6)).or_else(|| parse_decimal(get(8))),
            ew: parse_decimal(get(7)).or_else(|| parse_decimal(get(9))),
        };
        if o != OfficialLine::default() {
            official.push((row as u32, o));
        }
        let r = imported.field.result(row);
        for (k, pair) in [(10, r.ns), (11, r.ew)] {
            let players = players_of(get(k));
            if !players.is_empty() {
                names.push((pair, players));
            }
        }
        row += 1;
    }
    imported.details = details;
    imported.official.lines = official;
    if !names.is_empty() && imported.pairs.is_empty() {
        imported.pairs = crate::import::pair_infos(&imported.field);
    }
    for (pair, players) in names {
        let info = &mut imported.pairs[pair as usize];
        if info.players.is_empty() {
            info.players = players;
        }
    }
    Ok(())
}

/// `Ann & Bob` (or `Ann;Bob`) as players.
fn players_of(text: &str) -> Vec<Player> {
    text.split(['&', ';'])
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| Player {
            name: n.to_string(),
            ..Player::default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::import::{Format, read};
    use simpairs_scoring::Value;

    #[test]
    fn extra_columns_are_kept() {
        let text = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score,lead,ns_mp,ew_mp,ns_names\n\
1,1,1,4S,N,10,420,AH,2,0,Ann & Bob\n1,2,2,NP,,,,,,,\n1,3,3,3NT,S,9,400,,1,1,\n1,4,4,PASS,,,,,0,2,\n";
        let got = read("t.csv", text.as_bytes(), Some(Format::Csv)).unwrap();
        assert_eq!(got.field.len(), 3);
        assert_eq!(got.details(0).unwrap().lead.as_deref(), Some("AH"));
        assert_eq!(got.details(1).unwrap().contract.as_deref(), Some("3NT"));
        assert_eq!(got.details(2).unwrap().contract.as_deref(), Some("PASS"));
        assert_eq!(
            got.official.line(2).unwrap().ew,
            Some(Value::from_integer(2))
        );
        let ns1 = got.field.result(0).ns;
        assert_eq!(got.pairs[ns1 as usize].names(), "Ann & Bob");
    }

    /// The file of the report, verbatim: Windows line ends (as Excel and club programs write them).
    #[test]
    fn crlf_rows_keep_their_own_details() {
        let text = "board,ns_pair,ew_pair,contract,ns_score\r\n22,2,6,,110\r\n23,3,7,PASS,0\r\n";
        let got = read("crlf.csv", text.as_bytes(), None).unwrap();
        assert_eq!(got.field.len(), 2);
        assert_eq!(got.details(0), None, "row 0 gives no contract");
        assert_eq!(got.details(1).unwrap().contract.as_deref(), Some("PASS"));
        assert_eq!((got.lines.line_of(0), got.lines.line_of(1)), (2, 3));
        assert!(got.warnings.is_empty(), "{:?}", got.warnings);
    }

    /// Every row's line, details, official values and names, in words.
    fn rows(text: &str) -> Vec<String> {
        let got =
            read("v.csv", text.as_bytes(), Some(Format::Csv)).unwrap_or_else(|e| panic!("{e}"));
        (0..got.field.len())
            .map(|r| {
                let ns = got.field.result(r).ns;
                format!(
                    "line {} {:?} {:?} {:?} {:?}",
                    got.lines.line_of(r),
                    got.field.result(r).outcome,
                    got.details(r),
                    got.official.line(r),
                    got.players(ns)
                        .iter()
                        .map(|p| p.name.clone())
                        .collect::<Vec<_>>()
                )
            })
            .collect()
    }

    /// The same rows read the same with LF or CRLF line ends, a byte-order mark, quoted fields, and
    /// (lines numbered accordingly) a quoted name holding a line break.
    #[test]
    fn details_are_the_same_whatever_the_line_ends() {
        let header = "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score,lead,ns_mp,ns_names";
        let body = [
            "22,2,6,,,,110,,1,",
            "23,3,7,PASS,,,0,,0,",
            "24,4,8,4S,N,10,,HA,2,Ann & Bob",
            "24,5,9,4S,N,9,,CK,0,",
        ];
        let lf = format!("{header}\n{}\n", body.join("\n"));
        let expected = rows(&lf);
        assert_eq!(expected.len(), 4);
        let crlf = lf.replace('\n', "\r\n");
        let quoted = |t: &str| {
            t.lines()
                .map(|l| {
                    l.split(',')
                        .map(|f| format!("\"{f}\""))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect::<Vec<_>>()
                .join("\r\n")
        };
        for (name, text) in [
            ("CRLF", crlf.clone()),
            ("BOM + CRLF", format!("\u{feff}{crlf}")),
            ("BOM + LF", format!("\u{feff}{lf}")),
            ("quoted + CRLF", quoted(&lf)),
            ("quoted + LF", quoted(&lf).replace("\r\n", "\n")),
        ] {
            assert_eq!(rows(&text), expected, "{name}");
        }
        // A quoted name over two lines: the rows after it are one line further down.
        for end in ["\n", "\r\n"] {
            let text = lf
                .replace("Ann & Bob", "\"Ann &\nBob\"")
                .replace('\n', end)
                .replace(&format!("&{end}Bob"), "&\nBob");
            let got = rows(&text);
            assert_eq!(got[..3], expected[..3], "{end:?}");
            assert_eq!(
                got[3],
                expected[3].replacen("line 5", "line 6", 1),
                "{end:?}"
            );
        }
    }

    #[test]
    fn score_only_files_are_not_read_twice() {
        let text = "board,ns_pair,ew_pair,ns_score\n1,1,1,420\n";
        let got = read("t.csv", text.as_bytes(), None).unwrap();
        assert!(got.details.is_empty() && got.official.is_empty());
    }
}
