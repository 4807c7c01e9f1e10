//! `simpairs score --check`: simpairs' figures beside the official ones a file carries (its program's
//! matchpoints or IMPs on each traveller line, each pair's total, percentage and place), at the
//! file's own precision, with the convention that explains each difference where one does.
//!
//! A club runs it before it publishes; a federation runs it when heats scored by different programs
//! are combined. Every difference found under the conventions asked for is tried again under every
//! preset and under each single choice changed ([`candidates`]): those under which the line or pair
//! agrees are named beside it. A difference the file explains by how it writes its figures (its
//! totals its percentages written again: [`InTheFile`]) says so. A difference that neither explains
//! is *unexplained*.
//!
//! Precision: a file prints each kind of figure (line values, totals, percentages) to some number of
//! decimals; that number is the most decimals any figure of the kind has in the file, and simpairs'
//! figure, as the conventions print it, is rounded to it (halves away from zero) before comparing.

use simpairs_scoring::{
    Conventions, Datum, Half, Method, Options, PairId, Preset, Rounding, Scoring, Value, score,
};

use crate::import::Imported;

/// What one comparison is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Item {
    /// A traveller line (a row of the field): its NS and EW values.
    Line(usize),
    /// A pair's total.
    Total(PairId),
    /// A pair's percentage.
    Percent(PairId),
    /// A pair's place in its list.
    Place(PairId),
}

/// One figure that differs from the file's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub item: Item,
    /// The line or pair in words (`board 3: 1 NS v 1 EW`, `pair 1 NS total`), with its source line.
    pub what: String,
    pub official: String,
    pub ours: String,
    /// The conventions under which the figure agrees, in their text form (presets first).
    pub explained_by: Vec<String>,
    /// What the file itself explains the difference by, where it does (not a convention of ours:
    /// see [`InTheFile`]).
    pub in_the_file: Option<InTheFile>,
}

/// A difference the file explains by how it writes its figures, not by how it scores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InTheFile {
    /// Every pair's total in the file is its percentage written again (scorer-to-usebio's
    /// converter writes a Scorer session's percentage as USEBIO's `TOTAL_SCORE` too), and this
    /// pair's percentage agrees with ours.
    TotalIsThePercentage,
}

impl std::fmt::Display for InTheFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InTheFile::TotalIsThePercentage => f.write_str(
                "the file's totals are its percentages written again; this percentage agrees",
            ),
        }
    }
}

impl Difference {
    /// Whether neither a convention nor the file explains it.
    pub fn is_unexplained(&self) -> bool {
        self.explained_by.is_empty() && self.in_the_file.is_none()
    }
}

/// The outcome of a check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Check {
    /// Figures compared (lines count once for both sides).
    pub compared: usize,
    pub differences: Vec<Difference>,
}

impl Check {
    /// Differences no convention explains.
    pub fn unexplained(&self) -> usize {
        self.differences
            .iter()
            .filter(|d| d.is_unexplained())
            .count()
    }

    /// The check in words: one line per difference, then a summary.
    pub fn report(&self, conventions: &Conventions) -> String {
        let mut out = String::new();
        for d in &self.differences {
            let why = match (&d.in_the_file, d.explained_by.is_empty()) {
                (Some(reason), _) => reason.to_string(),
                (None, true) => "unexplained".to_string(),
                (None, false) => format!("agrees under {}", d.explained_by.join("; ")),
            };
            out.push_str(&format!(
                "{}: official {}, ours {} ({why})\n",
                d.what, d.official, d.ours
            ));
        }
        out.push_str(&format!(
            "check under {conventions}: {} figures compared, {} differ, {} unexplained\n",
            self.compared,
            self.differences.len(),
            self.unexplained()
        ));
        out
    }
}

/// The most decimals of each kind of official figure in the file.
#[derive(Clone, Copy, Debug, Default)]
struct Precision {
    lines: u8,
    totals: u8,
    percents: u8,
}

/// Most decimals a figure is compared to.
const MAX_DECIMALS: u8 = 6;

/// The decimals a figure was written with: the fewest that hold it exactly (a third holds none:
/// [`MAX_DECIMALS`]).
fn decimals(v: Value) -> u8 {
    let d = *v.denom();
    (0..=MAX_DECIMALS)
        .find(|&k| 10i64.pow(u32::from(k)) % d == 0)
        .unwrap_or(MAX_DECIMALS)
}

fn precision(imported: &Imported) -> Precision {
    let most = |values: &mut dyn Iterator<Item = Value>| values.map(decimals).max().unwrap_or(0);
    let o = &imported.official;
    Precision {
        lines: most(&mut o.lines.iter().flat_map(|(_, l)| [l.ns, l.ew]).flatten()),
        totals: most(&mut o.pairs.iter().filter_map(|(_, p)| p.total)),
        percents: most(&mut o.pairs.iter().filter_map(|(_, p)| p.percent)),
    }
}

/// `v` at `places` decimals, halves away from zero.
fn at(v: Value, places: u8) -> Value {
    Rounding::Round {
        places,
        half: Half::AwayFromZero,
    }
    .apply(v)
}

/// One figure of ours beside the file's: whether they agree, and both in words.
struct Compared {
    item: Item,
    agrees: bool,
    official: String,
    ours: String,
}

fn show(v: Value) -> String {
    crate::text::format_exact(v)
}

/// Every figure of the file beside ours under `scoring`, in a fixed order.
fn compare(imported: &Imported, scoring: &Scoring<'_>, p: Precision) -> Vec<Compared> {
    let mut out = Vec::new();
    for (row, official) in &imported.official.lines {
        let row = *row as usize;
        // Ours as the conventions print them, compared at the file's precision.
        let (ns, ew) = scoring.line_values(row);
        let agrees = official.ns.is_none_or(|o| o == at(ns, p.lines))
            && official.ew.is_none_or(|o| o == at(ew, p.lines));
        let text = |v: Option<Value>| v.map_or("-".into(), show);
        out.push(Compared {
            item: Item::Line(row),
            agrees,
            official: format!("{} / {}", text(official.ns), text(official.ew)),
            ours: format!("{} / {}", show(ns), show(ew)),
        });
    }
    let totals = scoring.shown_total_hundredths();
    for (pair, official) in &imported.official.pairs {
        let s = &scoring.standings()[*pair as usize];
        if let Some(total) = official.total {
            let ours = at(Value::new(totals[*pair as usize], 100), p.totals);
            out.push(Compared {
                item: Item::Total(*pair),
                agrees: ours == total,
                official: show(total),
                ours: show(ours),
            });
        }
        if let (Some(percent), Some(h)) = (official.percent, s.percent_hundredths) {
            let ours = at(Value::new(h, 100), p.percents);
            out.push(Compared {
                item: Item::Percent(*pair),
                agrees: ours == percent,
                official: show(percent),
                ours: show(ours),
            });
        }
        if let Some(place) = official.place {
            out.push(Compared {
                item: Item::Place(*pair),
                agrees: place.rank == s.rank,
                official: place.to_string(),
                ours: format!("{}{}", s.rank, if s.tied { "=" } else { "" }),
            });
        }
    }
    out
}

/// The conventions tried to explain a difference: every preset, then each choice of `current`
/// changed alone to each of its other values.
pub fn candidates(current: &Conventions) -> Vec<Conventions> {
    let mut out: Vec<Conventions> = Preset::ALL.iter().map(|p| p.conventions()).collect();
    let roundings = [
        "exact",
        "round-1",
        "round-0.1",
        "round-0.1-even",
        "truncate-0.1",
        "round-0.01",
        "round-0.01-even",
        "truncate-0.01",
    ];
    let choices: [(&str, &[&str]); 8] = [
        ("missing", &["factor", "tie"]),
        ("artificial", &["neuberg", "ratio", "tie", "none"]),
        ("short-lines", &["factored", "raw"]),
        ("lines", &roundings),
        ("totals", &roundings),
        ("scale-totals", &["no", "yes"]),
        ("datum", &["mean", "median"]),
        ("trim-from", &["3", "4", "5", "6"]),
    ];
    for (key, values) in choices {
        for value in values {
            let mut c = *current;
            if c.set(key, value).is_ok() && c != *current {
                out.push(c);
            }
        }
    }
    out.retain(|c| c != current);
    out.dedup();
    out
}

/// Whether a candidate's choices can change the values scored (and so need a scoring of their own),
/// not only how they are printed.
fn rescores(a: &Conventions, b: &Conventions) -> bool {
    a.missing != b.missing
        || a.artificial != b.artificial
        || a.datum != b.datum
        || (a.trim_from != b.trim_from && a.datum == Datum::Mean)
}

/// Compares the official figures of `imported` with simpairs' under `options`, and names the
/// conventions that explain each difference.
pub fn check(imported: &Imported, options: &Options) -> simpairs_scoring::Result<Check> {
    let p = precision(imported);
    let scoring = score(&imported.field, options)?;
    let ours = compare(imported, &scoring, p);
    let differing: Vec<usize> = (0..ours.len()).filter(|&i| !ours[i].agrees).collect();
    let mut explained: Vec<Vec<String>> = vec![Vec::new(); ours.len()];
    if !differing.is_empty() {
        for candidate in candidates(&options.conventions) {
            let o = Options {
                conventions: candidate,
                ..*options
            };
            // Butler's datum choices mean nothing to matchpoints, and the reverse.
            if options.method == Method::Matchpoints
                && (candidate.datum != options.conventions.datum
                    || candidate.trim_from != options.conventions.trim_from)
                && candidate.preset == options.conventions.preset
            {
                continue;
            }
            let theirs = if rescores(&candidate, &options.conventions) {
                compare(imported, &score(&imported.field, &o)?, p)
            } else {
                compare(imported, &scoring.with_conventions(candidate), p)
            };
            for &i in &differing {
                if theirs[i].agrees {
                    explained[i].push(candidate.to_string());
                }
            }
        }
    }
    let totals_are_percentages = totals_are_percentages(imported);
    let differences = differing
        .into_iter()
        .map(|i| Difference {
            item: ours[i].item,
            what: describe(imported, ours[i].item),
            official: ours[i].official.clone(),
            ours: ours[i].ours.clone(),
            explained_by: std::mem::take(&mut explained[i]),
            in_the_file: match ours[i].item {
                Item::Total(pair) if totals_are_percentages && percent_agrees(&ours, pair) => {
                    Some(InTheFile::TotalIsThePercentage)
                }
                _ => None,
            },
        })
        .collect();
    Ok(Check {
        compared: ours.len(),
        differences,
    })
}

/// Whether the file's totals are its percentages written again: it gives both for some pair, and
/// every pair given both has the same figure in each. Checked for the whole file, so that a total
/// that happens to equal its percentage explains nothing.
fn totals_are_percentages(imported: &Imported) -> bool {
    let mut both = imported
        .official
        .pairs
        .iter()
        .filter_map(|(_, p)| p.total.zip(p.percent))
        .peekable();
    both.peek().is_some() && both.all(|(total, percent)| total == percent)
}

/// Whether the file's percentage of `pair` agrees with ours (at the file's precision).
fn percent_agrees(compared: &[Compared], pair: PairId) -> bool {
    compared
        .iter()
        .any(|c| c.item == Item::Percent(pair) && c.agrees)
}

/// A line or pair in words, with the file and line it was read from.
fn describe(imported: &Imported, item: Item) -> String {
    let f = &imported.field;
    let pair = |id: PairId| f.describe_pair(id);
    match item {
        Item::Line(row) => {
            let r = f.result(row);
            format!(
                "line {}: board {}, {} v {}",
                imported.lines.line_of(row),
                r.board,
                pair(r.ns),
                pair(r.ew)
            )
        }
        Item::Total(id) => format!("pair {} total", pair(id)),
        Item::Percent(id) => format!("pair {} percentage", pair(id)),
        Item::Place(id) => format!("pair {} place", pair(id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_of_written_figures() {
        assert_eq!(decimals(Value::from_integer(6)), 0);
        assert_eq!(decimals(Value::new(126, 10)), 1);
        assert_eq!(decimals(Value::new(12877, 100)), 2);
        assert_eq!(decimals(Value::new(1, 8)), 3);
        assert_eq!(decimals(Value::new(1, 3)), MAX_DECIMALS);
    }

    #[test]
    fn candidates_hold_every_preset_and_single_changes() {
        let c = candidates(&Conventions::SEEDS);
        assert!(c.iter().any(|c| c.preset == Preset::Compscore));
        assert!(c.iter().all(|c| *c != Conventions::SEEDS));
        assert!(c.iter().any(|c| c.to_string() == "seeds,missing=tie"));
        assert!(
            c.iter()
                .any(|c| c.to_string() == "seeds,lines=truncate-0.1")
        );
    }
}
