//! 200 MB files of garbage, generated here (never committed): every reader refuses each with an error
//! that names the file and a line, quickly, without a panic and without memory growing with the file
//! (readers stream, and stop after enough problems to reject the file).
//!
//! This file holds a single test so that the process's peak memory (`VmHWM`, Linux) measures it alone.

use simpairs_formats::{Format, read};

const SIZE: usize = 200 << 20;
/// The most the readers may add to the process's peak memory on top of the 200 MB input.
const EXTRA_ALLOWED: u64 = 96 << 20;

/// Peak resident memory of the process so far, in bytes (Linux only).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `SIZE` bytes made by repeating a 1 MB block from `byte(i)`.
fn repeated(mut byte: impl FnMut(usize) -> u8) -> Vec<u8> {
    let block: Vec<u8> = (0..1 << 20).map(&mut byte).collect();
    let mut out = Vec::with_capacity(SIZE);
    while out.len() < SIZE {
        out.extend_from_slice(&block);
    }
    out
}

/// A structured head followed by `unit` repeated to `size`.
fn structured_to(size: usize, head: &str, unit: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + unit.len());
    out.extend_from_slice(head.as_bytes());
    while out.len() < size {
        out.extend_from_slice(unit.as_bytes());
    }
    out
}

fn structured(head: &str, unit: &str) -> Vec<u8> {
    structured_to(SIZE, head, unit)
}

fn xorshift(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// A file name, its bytes, and the formats to read it as (`None`: detect).
type Case<'a> = (&'a str, &'a [u8], Vec<Option<Format>>);

#[test]
fn two_hundred_megabytes_of_garbage_are_refused_in_bounded_memory() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let random = repeated(|_| (xorshift(&mut seed) >> 24) as u8);
    assert!(!random.starts_with(&[0xFF, 0xFE]) && !random.starts_with(&[0xFE, 0xFF]));
    const PRINTABLE: &[u8] =
        b"abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789.,;:!?\"'[]{}()#%";
    let text = repeated(|i| {
        if i % 81 == 80 {
            b'\n'
        } else {
            PRINTABLE[(xorshift(&mut seed) % PRINTABLE.len() as u64) as usize]
        }
    });
    let usebio = structured(
        "<USEBIO Version=\"1.2\"><EVENT EVENT_TYPE=\"MP_PAIRS\"><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>\n",
        "<TRAVELLER_LINE><SCORE>x</SCORE></TRAVELLER_LINE>\n",
    );
    // Well-formed XML of unknown elements is read to its end (some 19 million elements): a tenth of the
    // size in unoptimised builds keeps `cargo test` quick.
    let elements_size = if cfg!(debug_assertions) {
        SIZE / 10
    } else {
        SIZE
    };
    let elements = structured_to(elements_size, "<USEBIO>", "<X a=\"1\"/>\n");
    let scorer = structured(
        "<session club=\"x\"><board_results><brsection id=\"A\">\n",
        "<result bd=\"1\"/>\n",
    );
    let pbn = structured(
        "% PBN 2.1\n[Board \"1\"]\n[ScoreTable \"PairId_NS;PairId_EW;Contract;Declarer;Result\"]\n",
        "1 2 9Z N 7\n",
    );
    let nested = structured("<USEBIO>", "<A>");

    let cases: Vec<Case<'_>> = vec![
        (
            "random.bin",
            &random,
            vec![
                None,
                Some(Format::Usebio),
                Some(Format::Scorer),
                Some(Format::Pbn),
                Some(Format::Csv),
                Some(Format::HillyardCsv),
            ],
        ),
        (
            "text.txt",
            &text,
            vec![
                None,
                Some(Format::Usebio),
                Some(Format::Scorer),
                Some(Format::Pbn),
                Some(Format::HillyardCsv),
            ],
        ),
        ("lines.xml", &usebio, vec![None]),
        ("elements.xml", &elements, vec![None]),
        ("results.xml", &scorer, vec![None]),
        ("rows.pbn", &pbn, vec![None]),
        ("nested.xml", &nested, vec![None]),
    ];
    let before = peak_memory();
    for (name, bytes, formats) in &cases {
        for format in formats {
            let started = std::time::Instant::now();
            let err = match read(name, bytes, *format) {
                Ok(i) => panic!(
                    "{name} {format:?}: garbage accepted with {} results",
                    i.field.len()
                ),
                Err(e) => e,
            };
            let p = &err.problems()[0];
            assert_eq!(p.at.file, *name);
            assert!(p.at.line >= 1);
            assert!(err.problems().len() <= simpairs_formats::error::MAX_REPORTED);
            eprintln!(
                "{name} {format:?}: refused in {:?}: {}",
                started.elapsed(),
                p
            );
        }
    }
    if let (Some(before), Some(after)) = (before, peak_memory()) {
        let extra = after.saturating_sub(before);
        eprintln!(
            "peak memory grew by {} MB reading {} files of 200 MB",
            extra >> 20,
            cases.len()
        );
        assert!(
            extra <= EXTRA_ALLOWED,
            "reading garbage grew peak memory by {} MB",
            extra >> 20
        );
    }
}
