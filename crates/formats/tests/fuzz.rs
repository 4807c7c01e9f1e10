//! Every reader, fed arbitrary bytes and mutations of the real files: never a panic; a refusal always
//! names the file and a line; anything accepted is consistent, scores, and survives being written as
//! USEBIO and as a traveller CSV and read back.

use crate::common;

use proptest::prelude::*;
use simpairs_formats::export::{self, ExportFormat};
use simpairs_formats::{Format, Imported, read};
use simpairs_scoring::{Options, score};

const FORMATS: [Option<Format>; 6] = [
    None,
    Some(Format::Csv),
    Some(Format::Usebio),
    Some(Format::Scorer),
    Some(Format::Pbn),
    Some(Format::HillyardCsv),
];

/// Cases per property: `PROPTEST_CASES` for long runs, else a count that keeps `cargo test` quick.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The real files, read once.
fn real_files() -> &'static Vec<(&'static str, Vec<u8>)> {
    static FILES: std::sync::OnceLock<Vec<(&'static str, Vec<u8>)>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        common::NATIVE_FILES
            .iter()
            .map(|f| (*f, std::fs::read(common::native(f)).expect("a real file")))
            .collect()
    })
}

/// Reads and checks what came back: a located refusal, or a consistent import that scores and
/// round-trips through both writers.
fn read_and_check(name: &str, bytes: &[u8], format: Option<Format>) -> Result<(), TestCaseError> {
    match read(name, bytes, format) {
        Err(e) => {
            prop_assert!(!e.problems().is_empty());
            for p in e.problems() {
                prop_assert_eq!(&p.at.file, name);
                prop_assert!(p.at.line >= 1, "{}", p);
            }
            prop_assert!(!e.to_string().is_empty());
        }
        Ok(imported) => check_accepted(&imported)?,
    }
    Ok(())
}

fn check_accepted(imported: &Imported) -> Result<(), TestCaseError> {
    let f = &imported.field;
    prop_assert_eq!(imported.lines.len(), f.len());
    prop_assert!(imported.pairs.is_empty() || imported.pairs.len() == f.pairs().len());
    prop_assert!(
        imported
            .details
            .iter()
            .all(|(r, _)| (*r as usize) < f.len())
    );
    prop_assert!(
        imported
            .official
            .lines
            .iter()
            .all(|(r, _)| (*r as usize) < f.len())
    );
    prop_assert!(
        imported
            .official
            .pairs
            .iter()
            .all(|(p, _)| (*p as usize) < f.pairs().len())
    );
    // An accepted file scores: the readers refuse what cannot be scored.
    let scoring = score(f, &Options::default());
    prop_assert!(
        scoring.is_ok(),
        "an accepted file does not score: {}",
        scoring.err().map(|e| e.to_string()).unwrap_or_default()
    );
    let scoring = scoring.expect("checked");
    if f.is_empty() {
        // Nothing to write back (only lines marked not played): a file of no results is refused.
        return Ok(());
    }
    for format in [ExportFormat::Usebio, ExportFormat::Csv] {
        let mut out = Vec::new();
        export::write(&mut out, format, imported, &scoring).expect("writing to memory");
        let name = if format == ExportFormat::Usebio {
            "again.xml"
        } else {
            "again.csv"
        };
        let back = read(name, &out, None);
        prop_assert!(
            back.is_ok(),
            "our own {name} was refused: {}",
            back.err().map(|e| e.to_string()).unwrap_or_default()
        );
        let back = back.expect("checked");
        prop_assert_eq!(back.field.len(), f.len());
    }
    Ok(())
}

/// One change to a file.
#[derive(Clone, Debug)]
enum Mutation {
    Replace {
        at: usize,
        byte: u8,
    },
    Delete {
        at: usize,
        len: usize,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Truncate {
        at: usize,
    },
    /// Copies a slice of the file elsewhere (repeats structure: elements, rows, tags).
    Duplicate {
        from: usize,
        len: usize,
        to: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    prop_oneof![
        (at, any::<u8>()).prop_map(|(at, byte)| Mutation::Replace { at, byte }),
        (at, 1usize..64).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (at, proptest::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (
            at,
            proptest::sample::select(b"<>/\"=&;[]{}%,-\n 0123456789ANSEWXP".to_vec())
        )
            .prop_map(|(at, byte)| Mutation::Replace { at, byte }),
        at.prop_map(|at| Mutation::Truncate { at }),
        (at, 1usize..400, at).prop_map(|(from, len, to)| Mutation::Duplicate { from, len, to }),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let n = bytes.len();
    match m {
        Mutation::Replace { at, byte } => bytes[at % n] = *byte,
        Mutation::Delete { at, len } => {
            let start = at % n;
            bytes.drain(start..(start + len).min(n));
        }
        Mutation::Insert { at, bytes: new } => {
            let at = at % (n + 1);
            bytes.splice(at..at, new.iter().copied());
        }
        Mutation::Truncate { at } => bytes.truncate(at % n),
        Mutation::Duplicate { from, len, to } => {
            let start = from % n;
            let piece = bytes[start..(start + len).min(n)].to_vec();
            let to = to % (n + 1);
            bytes.splice(to..to, piece);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048), k in 0usize..FORMATS.len()) {
        read_and_check("fuzz.bin", &bytes, FORMATS[k])?;
    }

    #[test]
    fn arbitrary_text_with_format_markers_never_panics(
        head in proptest::sample::select(vec![
            "<?xml version=\"1.0\"?>\n<USEBIO Version=\"1.2\"><EVENT EVENT_TYPE=\"MP_PAIRS\">",
            "<session club=\"x\"><board_results><brsection id=\"A\">",
            "% PBN 2.1\n[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Contract;Declarer;Result\"]\n",
            "board,ns_pair,ew_pair,contract,declarer,tricks,ns_score,adjusted,movement\n",
            "Title\nA\n1,N,A & B\n1,E,C & D\nP,1,1\n",
        ]),
        body in "[ -~\n]{0,600}",
    ) {
        let text = format!("{head}{body}");
        for format in FORMATS {
            read_and_check("fuzz.txt", text.as_bytes(), format)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(160), ..ProptestConfig::default() })]

    #[test]
    fn mutated_real_files_never_panic(
        file in 0usize..common::NATIVE_FILES.len(),
        mutations in proptest::collection::vec(mutation(), 1..4),
        forced in any::<bool>(),
    ) {
        let (name, original) = &real_files()[file];
        let mut bytes = original.clone();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        let format = if forced { read(name, original, None).ok().map(|i| i.format) } else { None };
        read_and_check(name, &bytes, format)?;
    }
}

#[test]
fn every_real_file_passes_the_fuzz_checks_unchanged() {
    for (name, bytes) in real_files() {
        let imported = read(name, bytes, None).expect("a real file");
        check_accepted(&imported).expect("consistent");
    }
}
