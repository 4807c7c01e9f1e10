//! The double-dummy analysis of real deals agrees with the hand records clubs published: the
//! ACBL club PBN files in `tests/fixtures/realdata` carry, for every board, the tricks each
//! declarer makes in each strain (`[OptimumResultTable]`) and the par score (`[OptimumScore]`),
//! computed by the dealing program. Those numbers are the golden data here.

use std::path::Path;

use simpairs_scoring::{Seat, Vulnerability};
use simpairs_web::deals::{STRAINS, analyse};

/// One board of a PBN file: number, dealer, vulnerability, deal, (declarer, strain, tricks), par.
struct Board {
    number: i32,
    dealer: Option<Seat>,
    vulnerability: Option<Vulnerability>,
    deal: String,
    tricks: Vec<(char, String, u8)>,
    par: Option<(String, i32)>,
}

fn tag<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.strip_prefix(&format!("[{name} \""))?
        .strip_suffix("\"]")
}

fn boards(text: &str) -> Vec<Board> {
    let mut out: Vec<Board> = Vec::new();
    let mut in_table = false;
    for line in text.lines().map(str::trim) {
        if let Some(n) = tag(line, "Board") {
            out.push(Board {
                number: n.parse().unwrap(),
                dealer: None,
                vulnerability: None,
                deal: String::new(),
                tricks: Vec::new(),
                par: None,
            });
            in_table = false;
            continue;
        }
        let Some(b) = out.last_mut() else { continue };
        if let Some(d) = tag(line, "Dealer") {
            b.dealer = d.parse().ok();
        } else if let Some(v) = tag(line, "Vulnerable") {
            b.vulnerability = Some(match v {
                "NS" => Vulnerability {
                    ns: true,
                    ew: false,
                },
                "EW" => Vulnerability {
                    ns: false,
                    ew: true,
                },
                "All" | "Both" => Vulnerability { ns: true, ew: true },
                _ => Vulnerability::NONE,
            });
        } else if let Some(d) = tag(line, "Deal") {
            b.deal = d.to_string();
        } else if let Some(s) = tag(line, "OptimumScore") {
            let (side, score) = s.split_once(' ').unwrap();
            b.par = Some((side.to_string(), score.parse().unwrap()));
        } else if line.starts_with("[OptimumResultTable") {
            in_table = true;
        } else if line.starts_with('[') {
            in_table = false;
        } else if in_table {
            let f: Vec<&str> = line.split_whitespace().collect();
            if let [seat, strain, tricks] = f.as_slice() {
                b.tricks.push((
                    seat.chars().next().unwrap(),
                    strain.to_string(),
                    tricks.parse().unwrap(),
                ));
            }
        }
    }
    out
}

#[test]
fn double_dummy_tricks_and_par_agree_with_published_hand_records() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/realdata/native/rchillyard-Bridge");
    let mut checked = 0;
    for file in ["newtonbridge_20160120_1.pbn", "westwood_20190625_1.pbn"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for b in boards(&text).into_iter().filter(|b| !b.tricks.is_empty()) {
            let a = analyse(b.number, &b.deal, b.dealer, b.vulnerability).unwrap();
            let tricks = a
                .tricks
                .unwrap_or_else(|| panic!("{file} board {}: no analysis", b.number));
            for (seat, strain, want) in &b.tricks {
                let s = "NESW".find(*seat).unwrap();
                let k = STRAINS.iter().position(|x| x == strain).unwrap();
                assert_eq!(
                    tricks[k][s], *want,
                    "{file} board {}: {seat} in {strain}",
                    b.number
                );
            }
            if let (Some((side, score)), Some(par)) = (&b.par, &a.par) {
                let ns = if side == "NS" { *score } else { -*score };
                assert_eq!(
                    par.ns_score, ns,
                    "{file} board {}: par {par:?}, vul {:?} dealer {:?}",
                    b.number, a.vulnerability, a.dealer
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} boards had hand records");
}
