//! The pipeline's figures as a table: with `--runs` above one, each row gives the median of the
//! runs and their range in brackets, as the scoring table does (`rounds.rs`). The machine drifts
//! within minutes, so one run of a pipeline says little about whether a target holds.

use std::time::Duration;

use crate::pipeline::PipelineFigures;
use crate::{median, spread as cell};

fn seconds(values: impl IntoIterator<Item = Duration>) -> Vec<f64> {
    values.into_iter().map(|d| d.as_secs_f64()).collect()
}

/// The table of `runs`, measured alike (the same field on the same kind of log).
pub fn print(runs: &[PipelineFigures], partitions: u32) {
    let Some(first) = runs.first() else {
        return;
    };
    let results = first.results as f64;
    println!(
        "\n| pipeline, {} ({} results from {} clubs, 36 boards, {} partition(s)){} | |",
        first.log,
        first.results,
        first.clubs,
        partitions,
        match runs.len() {
            1 => String::new(),
            n => format!("; medians of {n} runs, their range in brackets"),
        }
    );
    println!("|---|---|");
    for line in rows(runs, results) {
        println!("{line}");
    }
}

/// Every row of the table but its head.
fn rows(runs: &[PipelineFigures], results: f64) -> Vec<String> {
    let all = |take: fn(&PipelineFigures) -> Duration| seconds(runs.iter().map(take));
    let rate = |take: fn(&PipelineFigures) -> Duration| -> Vec<f64> {
        all(take).iter().map(|s| results / s).collect()
    };
    let mut rows = vec![
        format!(
            "| publish (read, check, seal, append durably; clubs one after the other) | {}; {} |",
            cell(&rate(|f| f.publish), 0, " results/s"),
            cell(&all(|f| f.publish), 3, " s")
        ),
        format!(
            "| ingest (aggregator: read, verify, apply, rescore, write scores) | {}; {} |",
            cell(&rate(|f| f.ingest), 0, " results/s"),
            cell(&all(|f| f.ingest), 3, " s")
        ),
    ];
    // The first run's only: the process keeps the memory a run frees, and a later run's ingest
    // grows into it.
    if let Some(grown) = runs.first().and_then(|f| f.ingest_memory) {
        rows.push(format!(
            "| ingest's peak memory (resident growth: the aggregator's state, a batch in flight, mapped log pages; the first run) | {:.0} bytes a result ({} MB) |",
            grown as f64 / results.max(1.0),
            grown / 1_000_000
        ));
    }
    rows.push(format!(
        "| live aggregator and projection started on the ingested log, until both are ready | {} |",
        cell(&all(|f| f.restart), 3, " s")
    ));
    rows.extend(replay_rows(runs, results));
    rows.extend(first_page_row(runs));
    rows.extend(latency_rows(runs));
    rows
}

/// The replays' rows, from the runs that timed them.
fn replay_rows(runs: &[PipelineFigures], results: f64) -> Vec<String> {
    let replays: Vec<_> = runs.iter().filter_map(|f| f.replays.as_ref()).collect();
    if replays.is_empty() {
        return Vec::new();
    }
    let first: Vec<_> = replays.iter().map(|r| &r.first).collect();
    let again: Vec<_> = replays.iter().map(|r| &r.again).collect();
    [
        (
            "the first `simpairs replay --json` (every submission judged again, the replay index built; the JSON to nowhere)",
            first,
        ),
        ("`simpairs replay --json` again (the index read)", again),
    ]
    .into_iter()
    .map(|(what, run)| {
        let peaks: Vec<f64> = run
            .iter()
            .map(|r| r.peak as f64 / results.max(1.0))
            .collect();
        format!(
            "| {what} | {}; peak {} |",
            cell(&seconds(run.iter().map(|r| r.wall)), 3, " s"),
            cell(&peaks, 0, " bytes a result")
        )
    })
    .collect()
}

/// The first page's row, from the runs that timed it.
fn first_page_row(runs: &[PipelineFigures]) -> Option<String> {
    let pages: Vec<_> = runs.iter().filter_map(|f| f.first_page.as_ref()).collect();
    if pages.is_empty() {
        return None;
    }
    Some(format!(
        "| `simpairs serve` started on the log (a fresh replay index): its rankings page answered / listing the field | {} / {} |",
        cell(&seconds(pages.iter().map(|p| p.page)), 3, " s"),
        cell(&seconds(pages.iter().map(|p| p.row)), 3, " s")
    ))
}

/// Where a run keeps one kind of its clubs' times.
type ClubTimes = fn(&PipelineFigures) -> &[Duration];

/// The latencies' rows: every run's clubs together, and with more than one run the range of the
/// runs' own medians (a run's clubs share its hour; the runs show the drift between them).
fn latency_rows(runs: &[PipelineFigures]) -> Vec<String> {
    let kinds: [(&str, ClubTimes); 3] = [
        (
            "seal-to-leaderboard (its first 20 pairs appended to the leaderboard stream)",
            |f| &f.latencies,
        ),
        ("seal-to-standings (every list and page shown)", |f| {
            &f.standings
        }),
        (
            "publish-to-leaderboard (the club's read, check and signing too)",
            |f| &f.from_publish,
        ),
    ];
    kinds
        .into_iter()
        .filter_map(|(what, take)| {
            let each: Vec<&[Duration]> = runs.iter().map(take).collect();
            latency_cell(&each)
                .map(|cell| format!("| {what}, new 30-table club, field in | {cell} |"))
        })
        .collect()
}

/// `median 7.8 ms (min 5.0, max 14.4, 40 clubs; the runs' medians 6.2-8.2)` of each run's clubs'
/// times; `None` when no run timed a club.
fn latency_cell(each: &[&[Duration]]) -> Option<String> {
    let pooled: Vec<Duration> = each.iter().flat_map(|run| run.iter().copied()).collect();
    let (min, max) = (*pooled.iter().min()?, *pooled.iter().max()?);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut medians: Vec<Duration> = each
        .iter()
        .filter(|run| !run.is_empty())
        .map(|run| median(run.to_vec()))
        .collect();
    medians.sort();
    let runs = match medians.as_slice() {
        [lo, .., hi] => format!("; the runs' medians {:.1}-{:.1}", ms(*lo), ms(*hi)),
        _ => String::new(),
    };
    Some(format!(
        "median {:.1} ms (min {:.1}, max {:.1}, {} clubs{runs})",
        ms(median(pooled.clone())),
        ms(min),
        ms(max),
        pooled.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(values: &[u64]) -> Vec<Duration> {
        values.iter().map(|&m| Duration::from_millis(m)).collect()
    }

    #[test]
    fn the_latencies_pool_the_runs_clubs_and_give_the_runs_medians() {
        let one = ms(&[5, 6, 14]);
        let two = ms(&[8, 9, 11]);
        assert_eq!(
            latency_cell(&[&one, &two]).unwrap(),
            "median 9.0 ms (min 5.0, max 14.0, 6 clubs; the runs' medians 6.0-9.0)"
        );
        assert_eq!(
            latency_cell(&[&one]).unwrap(),
            "median 6.0 ms (min 5.0, max 14.0, 3 clubs)"
        );
        assert_eq!(latency_cell(&[&[], &[]]), None);
    }
}
