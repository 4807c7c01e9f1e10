//! The scoring figures beside the peers, measured in rounds: in each round the in-memory rescore
//! (timed after one untimed, as a peer's compute follows its load), `simpairs score` as a whole
//! process, then one run of each peer (which reports its compute phase and is timed whole). Each
//! ratio is taken within a round, so that the machine's drift over the minutes a file's runs take
//! moves both sides of it alike; the table gives the medians, and the range of the rounds in
//! brackets.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use simpairs_scoring::Options;

use crate::child;
use crate::{Args, peak_rss, reset_peak_rss, spread};

/// One measurement's times, one a round.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Times(pub Vec<Duration>);

impl Times {
    /// `0.133 s (0.131-0.236)`: the median, and the range over the rounds.
    fn cell(&self) -> String {
        let seconds: Vec<f64> = self.0.iter().map(Duration::as_secs_f64).collect();
        spread(&seconds, 3, " s")
    }
}

/// `3.0x (2.7-3.3)`: how many times `peer` took as long as `ours`, round by round; the median and
/// the range.
fn ratio_cell(ours: &Times, peer: &Times) -> String {
    let mut ratios: Vec<f64> = ours
        .0
        .iter()
        .zip(&peer.0)
        .map(|(o, p)| p.as_secs_f64() / o.as_secs_f64())
        .collect();
    if ratios.is_empty() {
        return "-".into();
    }
    ratios.sort_by(f64::total_cmp);
    let (min, max) = (ratios[0], ratios[ratios.len() - 1]);
    format!("{:.1}x ({min:.1}-{max:.1})", ratios[ratios.len() / 2])
}

/// A row of the table: our times, and each peer's (`None` when it failed).
pub struct Row {
    pub what: String,
    pub ours: Times,
    pub peers: Vec<(String, Option<Times>)>,
}

/// What a file's rounds measured.
pub struct Measured {
    pub rows: Vec<Row>,
    pub memory: Memory,
}

/// A file's peak memory while scoring, in bytes.
pub struct Memory {
    pub name: String,
    pub results: usize,
    /// This process's peak during the in-memory rescores: the field held and the engine's memory.
    pub rescore: Option<u64>,
    /// `simpairs score`'s peak in each round.
    pub score: Vec<u64>,
}

impl Memory {
    /// The lines the bench prints of it.
    pub fn lines(&self) -> Vec<String> {
        let (name, results) = (&self.name, self.results);
        let per_result = |bytes: u64| bytes as f64 / results as f64;
        let mut lines = Vec::new();
        let (Some(least), Some(most)) = (self.score.iter().min(), self.score.iter().max()) else {
            return self.rescore_line(per_result).into_iter().collect();
        };
        let mut sorted = self.score.clone();
        sorted.sort_unstable();
        lines.push(format!(
            "peak memory of `simpairs score {name}`: {:.1} bytes per result ({:.1}-{:.1}; the \
             process's peak resident size in each round, {results} results)",
            per_result(sorted[sorted.len() / 2]),
            per_result(*least),
            per_result(*most),
        ));
        lines.extend(self.rescore_line(per_result));
        lines
    }

    fn rescore_line(&self, per_result: impl Fn(u64) -> f64) -> Option<String> {
        self.rescore.map(|peak| {
            format!(
                "peak memory of the in-memory rescore, {}: {:.1} bytes per result (this bench's \
                 peak while scoring: the field it holds and the engine's memory, the file's \
                 bytes dropped)",
                self.name,
                per_result(peak)
            )
        })
    }
}

/// A peer's figures for one file, a round at a time: its compute phase and its whole process.
struct PeerTimes {
    name: String,
    /// Its script, found before anything is measured.
    script: PathBuf,
    failed: bool,
    compute: Times,
    whole: Times,
}

impl PeerTimes {
    /// The peers `--peer-list` names, each with its script in `--peers`; none without `--peers`.
    fn listed(args: &Args) -> anyhow::Result<Vec<PeerTimes>> {
        let Some(dir) = &args.peers else {
            return Ok(Vec::new());
        };
        let peer = |name: &String| {
            let script = dir.join("peers").join(format!("{name}_mp.py"));
            if !script.exists() {
                bail!("no peer script {}", script.display());
            }
            Ok(PeerTimes {
                name: name.clone(),
                script,
                failed: false,
                compute: Times::default(),
                whole: Times::default(),
            })
        };
        args.peer_list.iter().map(peer).collect()
    }
}

/// Measures one file in `args.runs` rounds; `simpairs` is the program timed whole (none with
/// `--in-memory-only`).
pub fn measure_file(
    args: &Args,
    simpairs: Option<&Path>,
    file: &Path,
    name: &str,
) -> anyhow::Result<Measured> {
    let mut peers = PeerTimes::listed(args)?;
    let field = field_of(file)?;
    let results = field.len();
    let options = Options::default();
    let peak_before = reset_peak_rss().then(peak_rss).flatten();
    // A rescore reuses the memory of the one before, as a service scoring the field again would.
    let mut spare = simpairs_scoring::Spare::new();
    let (mut rescore, mut whole) = (Times::default(), Times::default());
    let mut score_peaks = Vec::new();
    let mut rescored = || -> anyhow::Result<Duration> {
        let started = Instant::now();
        let scoring = simpairs_scoring::score_reusing(&field, &options, &mut spare)?;
        let elapsed = started.elapsed();
        std::hint::black_box(scoring.standings().len());
        spare.keep(scoring);
        Ok(elapsed)
    };
    for _ in 0..args.runs {
        // The field is read into the cache by an untimed rescore first, as a peer's compute phase
        // follows its load: the processes of the round before have filled the cache since.
        rescored()?;
        rescore.0.push(rescored()?);
        if let Some(simpairs) = simpairs {
            let run = child::measure(simpairs, &["score".as_ref(), file.as_os_str()])?;
            whole.0.push(run.wall);
            score_peaks.push(run.peak);
        }
        for peer in &mut peers {
            peer_round(args, file, peer)?;
        }
    }
    // The peak while scoring: the peers and `simpairs score` are processes of their own.
    let memory = Memory {
        name: name.to_string(),
        results,
        rescore: peak_before.and(peak_rss()),
        score: score_peaks,
    };
    let mut rows = vec![Row {
        what: format!("rescore in memory, {name} ({results} results)"),
        ours: rescore,
        peers: peer_column(&peers, |t| &t.compute),
    }];
    if simpairs.is_some() {
        rows.push(Row {
            what: format!("whole process `score {name}`"),
            ours: whole,
            peers: peer_column(&peers, |t| &t.whole),
        });
    }
    Ok(Measured { rows, memory })
}

/// The field of a data file, read as `simpairs score` reads it (untimed).
fn field_of(file: &Path) -> anyhow::Result<simpairs_scoring::Field> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let read = simpairs_formats::csv::read(&file.display().to_string(), &bytes)?;
    // Only the field is scored; the reader's line numbers (kept for its messages) are let go.
    Ok(read.field)
}

/// Each peer's times of one kind, `None` for a peer that failed.
fn peer_column(
    peers: &[PeerTimes],
    kind: impl Fn(&PeerTimes) -> &Times,
) -> Vec<(String, Option<Times>)> {
    peers
        .iter()
        .map(|t| (t.name.clone(), (!t.failed).then(|| kind(t).clone())))
        .collect()
}

/// One run of a peer: its compute phase (as it reports it) and its whole process, noted in
/// `peer`; a peer that fails is reported and not run again.
fn peer_round(args: &Args, file: &Path, peer: &mut PeerTimes) -> anyhow::Result<()> {
    if peer.failed {
        return Ok(());
    }
    let name = &peer.name;
    let out =
        std::env::temp_dir().join(format!("simpairs-bench-{name}-{}.csv", std::process::id()));
    let started = Instant::now();
    let output = Command::new(&args.python)
        .arg(&peer.script)
        .arg("--input")
        .arg(file)
        .arg("--out")
        .arg(&out)
        .arg("--variant")
        .arg("count")
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run {}", args.python.display()))?;
    let whole = started.elapsed();
    let _ = std::fs::remove_file(&out);
    if !output.status.success() {
        eprintln!("peer {name} failed on {}; skipped", file.display());
        peer.failed = true;
        return Ok(());
    }
    let compute = compute_phase(&String::from_utf8_lossy(&output.stdout))?;
    peer.compute.0.push(compute);
    peer.whole.0.push(whole);
    Ok(())
}

/// The compute phase a peer reports: `compute_s` of the last JSON line it printed.
fn compute_phase(stdout: &str) -> anyhow::Result<Duration> {
    let report: serde_json::Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .context("the peer printed no JSON line")?;
    let seconds = report["compute_s"]
        .as_f64()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .context("the peer's JSON has no compute_s of seconds")?;
    Ok(Duration::from_secs_f64(seconds))
}

/// The table of every file's rows.
pub fn print_table(rows: &[Row]) {
    let peer_names: Vec<String> = rows
        .first()
        .map(|r| r.peers.iter().map(|p| p.0.clone()).collect())
        .unwrap_or_default();
    print!("\n| measurement | simpairs |");
    for p in &peer_names {
        print!(" {p} | {p} / simpairs |");
    }
    println!();
    print!("|---|---|");
    for _ in &peer_names {
        print!("---|---|");
    }
    println!();
    for row in rows {
        print!("| {} | {} |", row.what, row.ours.cell());
        for (_, t) in &row.peers {
            match t {
                Some(t) => print!(" {} | {} |", t.cell(), ratio_cell(&row.ours, t)),
                None => print!(" - | - |"),
            }
        }
        println!();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(ms: &[u64]) -> Times {
        Times(ms.iter().map(|&m| Duration::from_millis(m)).collect())
    }

    #[test]
    fn a_cell_gives_the_median_and_the_range() {
        assert_eq!(times(&[236, 131, 133]).cell(), "0.133 s (0.131-0.236)");
    }

    #[test]
    fn ratios_are_taken_round_by_round() {
        // Round by round 3x, 2x and 4x: a drift that slows both sides of a round leaves its
        // ratio alone, where the ratio of the medians would be 300/100.
        let ours = times(&[100, 200, 100]);
        let peer = times(&[300, 400, 400]);
        assert_eq!(ratio_cell(&ours, &peer), "3.0x (2.0-4.0)");
    }

    #[test]
    fn a_peer_s_compute_phase_is_its_last_json_line() {
        let stdout = "loading\n{\"compute_s\": 9.0}\n{\"rows\": 3, \"compute_s\": 1.25}\n";
        assert_eq!(compute_phase(stdout).unwrap(), Duration::from_millis(1250));
    }

    #[test]
    fn a_peer_without_a_compute_phase_is_an_error_that_says_so() {
        let e = compute_phase("{\"rows\": 3}\n").unwrap_err();
        assert!(e.to_string().contains("compute_s"), "{e}");
        let e = compute_phase("no json here\n").unwrap_err();
        assert!(e.to_string().contains("no JSON line"), "{e}");
        let e = compute_phase("{\"compute_s\": -1}\n").unwrap_err();
        assert!(e.to_string().contains("compute_s"), "{e}");
    }

    #[test]
    fn score_s_peak_is_told_per_result_with_its_range() {
        let mut memory = Memory {
            name: "M.csv".into(),
            results: 1_000,
            rescore: Some(30_000),
            score: vec![26_000, 25_000, 27_000],
        };
        let lines = memory.lines();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with(
                "peak memory of `simpairs score M.csv`: 26.0 bytes per result (25.0-27.0;"
            ),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].contains("in-memory rescore, M.csv: 30.0 bytes"),
            "{}",
            lines[1]
        );
        // `--in-memory-only`: no `score` runs, the rescore's line alone.
        memory.score.clear();
        assert_eq!(memory.lines(), vec![lines[1].clone()]);
    }
}
