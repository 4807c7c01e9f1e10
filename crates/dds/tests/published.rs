//! The analysis agrees with the hand records clubs published: the ACBL club PBN files in
//! `tests/fixtures/realdata` carry, for every board, the tricks each declarer takes in each
//! strain (`[OptimumResultTable]`, and the same as hex digits in `[DoubleDummyTricks]`) and, in
//! one of them, the par score (`[OptimumScore]`), computed by the dealing program. Those
//! numbers are the golden data here; the board's own `[Dealer]` and `[Vulnerable]` are used.

use std::path::Path;

use simpairs_dds::{Board, DoubleDummy, SEATS, STRAINS, Seat, Solver, Vulnerability};

/// One board of a PBN file as published.
#[derive(Default)]
struct Published {
    number: i32,
    dealer: Option<Seat>,
    vulnerability: Option<Vulnerability>,
    deal: String,
    /// (declarer, strain, tricks) of `[OptimumResultTable]`.
    table: Vec<(char, String, u8)>,
    /// `[DoubleDummyTricks]`: per declarer N, S, E, W, the tricks in NT, S, H, D, C in hex.
    hex: Option<String>,
    /// `[OptimumScore]`: the side and its score.
    par: Option<(String, i32)>,
}

fn tag<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.strip_prefix(&format!("[{name} \""))?
        .strip_suffix("\"]")
}

fn vulnerability(v: &str) -> Vulnerability {
    let (ns, ew) = match v {
        "NS" => (true, false),
        "EW" => (false, true),
        "All" | "Both" => (true, true),
        _ => (false, false),
    };
    Vulnerability { ns, ew }
}

/// Reads one line of a board into `b`; returns whether the result table goes on.
fn read_line(b: &mut Published, line: &str, in_table: bool) -> bool {
    if let Some(d) = tag(line, "Dealer") {
        b.dealer = Some(d.parse().unwrap());
    } else if let Some(v) = tag(line, "Vulnerable") {
        b.vulnerability = Some(vulnerability(v));
    } else if let Some(d) = tag(line, "Deal") {
        b.deal = d.to_string();
    } else if let Some(h) = tag(line, "DoubleDummyTricks") {
        b.hex = Some(h.to_string());
    } else if let Some(s) = tag(line, "OptimumScore") {
        let (side, score) = s.split_once(' ').unwrap();
        b.par = Some((side.to_string(), score.parse().unwrap()));
    } else if line.starts_with("[OptimumResultTable") {
        return true;
    } else if line.starts_with('[') {
        return false;
    } else if in_table
        && let [seat, strain, tricks] = line.split_whitespace().collect::<Vec<_>>()[..]
    {
        let seat = seat.chars().next().unwrap();
        b.table
            .push((seat, strain.to_string(), tricks.parse().unwrap()));
    }
    in_table
}

fn published(file: &str) -> Vec<Published> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/realdata/native/rchillyard-Bridge")
        .join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<Published> = Vec::new();
    let mut in_table = false;
    for line in text.lines().map(str::trim) {
        if let Some(n) = tag(line, "Board") {
            out.push(Published {
                number: n.parse().unwrap(),
                ..Published::default()
            });
            in_table = false;
        } else if let Some(b) = out.last_mut() {
            in_table = read_line(b, line, in_table);
        }
    }
    out
}

/// Checks one board's analysis against what its hand record publishes; returns whether a par
/// was published.
fn check(file: &str, p: &Published, a: &DoubleDummy) -> bool {
    let at = format!("{file} board {}", p.number);
    assert_eq!(p.table.len(), 20, "{at}: the published table");
    for (seat, strain, want) in &p.table {
        let declarer = SEATS["NESW".find(*seat).unwrap()];
        let k = STRAINS.iter().position(|x| x == strain).unwrap();
        assert_eq!(
            a.tricks_of(k, declarer),
            Some(*want),
            "{at}: {seat} in {strain}"
        );
    }
    let hex = p.hex.as_deref().unwrap();
    let digits: Vec<u8> = hex.chars().map(|c| c.to_digit(16).unwrap() as u8).collect();
    let order = [Seat::North, Seat::South, Seat::East, Seat::West];
    for (s, seat) in order.iter().enumerate() {
        for k in 0..5 {
            assert_eq!(
                a.tricks_of(k, *seat),
                Some(digits[s * 5 + k]),
                "{at}: {hex}"
            );
        }
    }
    let Some((side, score)) = &p.par else {
        return false;
    };
    let ns = if side == "NS" { *score } else { -*score };
    assert_eq!(a.par.ns_score, ns, "{at}: par {:?}", a.par);
    // A par other than a pass-out names the contracts that reach it.
    assert_eq!(a.par.contracts.is_empty(), ns == 0, "{at}: {:?}", a.par);
    true
}

#[test]
fn tricks_and_par_agree_with_every_published_hand_record() {
    let mut solver = Solver::new();
    let mut counted = (0, 0);
    for file in ["newtonbridge_20160120_1.pbn", "westwood_20190625_1.pbn"] {
        let records = published(file);
        let boards: Vec<Board<'_>> = records
            .iter()
            .map(|p| Board {
                deal: &p.deal,
                dealer: p.dealer.unwrap(),
                vulnerability: p.vulnerability.unwrap(),
            })
            .collect();
        let batch = solver.analyse_all(&boards);
        assert_eq!(batch.len(), records.len());
        for ((p, a), board) in records.iter().zip(&batch).zip(&boards) {
            let a = a
                .as_ref()
                .unwrap_or_else(|e| panic!("{file} board {}: {e}", p.number));
            counted.1 += usize::from(check(file, p, a));
            // One deal at a time through the kept context: the same analysis.
            assert_eq!(solver.analyse(board).as_ref(), Ok(a), "{file} {}", p.number);
            counted.0 += 1;
        }
    }
    // Every board of both files, and the 30 pars of the Newton file.
    assert_eq!(counted, (62, 30));
}

#[test]
fn the_published_boards_follow_the_standard_cycle() {
    // The export takes a board's dealer and vulnerability from its number; the hand records
    // used as golden data in its tests must agree with that.
    for file in ["newtonbridge_20160120_1.pbn", "westwood_20190625_1.pbn"] {
        for p in published(file) {
            let b = Board::numbered(p.number, &p.deal);
            assert_eq!(Some(b.dealer), p.dealer, "{file} board {}", p.number);
            assert_eq!(
                Some(b.vulnerability),
                p.vulnerability,
                "{file} board {}",
                p.number
            );
        }
    }
}
