//! `simpairs-bench --national`: the projection's share of seal-to-leaderboard, in memory. The
//! bench's national field (the clubs `--pipeline` publishes) is read into one field; then each new
//! club is appended and the whole national field rescored: its leaderboard's first pairs ranked,
//! then the whole field ranked and listed, as the projection does for every new generation. No
//! log, no aggregator beside it: the engine's work alone.

use std::time::{Duration, Instant};

use simpairs_scoring::{BoardCounts, Field, Options};

/// Each new club's rescore times, and the field it ended on.
pub struct NationalFigures {
    pub results: usize,
    pub pairs: usize,
    /// Until the leaderboard's first pairs are ranked.
    pub first: Vec<Duration>,
    /// Until the whole field is ranked and listed.
    pub times: Vec<Duration>,
}

fn club_field(club: &simpairs_sim::SimClub) -> anyhow::Result<Field> {
    Ok(simpairs_formats::csv::read(&club.id, club.csv.as_bytes())?.field)
}

/// A latency club's field under the id the pipeline bench publishes it with: appended under its
/// simulated id, it would be taken for the field's club of that id, its pairs playing every board
/// twice.
fn late_club_field(club: &simpairs_sim::SimClub) -> anyhow::Result<Field> {
    let (id, csv) = crate::pipeline::late_club(club);
    Ok(simpairs_formats::csv::read(&id, csv.as_bytes())?.field)
}

/// Reads the field's clubs, then times the rescore after each of `new_clubs` clubs.
pub fn measure(results_wanted: usize, new_clubs: usize) -> anyhow::Result<NationalFigures> {
    let (event, clubs, late) = crate::pipeline::bench_event(results_wanted, 36, new_clubs);
    let parts = event.clubs[..clubs]
        .iter()
        .map(club_field)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut field = Field::concat(parts);
    let options = Options::default();
    let mut counts = BoardCounts::new();
    // The projection's first ranking, untimed: the counts kept from here on.
    rescore(&field, &mut counts, &options, Instant::now())?;
    let (mut first, mut times) = (Vec::new(), Vec::new());
    for club in &late {
        field.append(&late_club_field(club)?);
        let started = Instant::now();
        first.push(rescore(&field, &mut counts, &options, started)?);
        times.push(started.elapsed());
    }
    Ok(NationalFigures {
        results: field.len(),
        pairs: field.pairs().len(),
        first,
        times,
    })
}

/// What the projection does for a new generation: the field scored with its kept counts, the
/// leaderboard's first pairs ranked (before pass two when the last ranking bounds them; the time
/// since `started` then is returned), the whole field
/// ranked (each pair's standing made when a page shows it) and its lists built; then the
/// first page of standings made.
fn rescore(
    field: &Field,
    counts: &mut BoardCounts,
    options: &Options,
    started: Instant,
) -> anyhow::Result<Duration> {
    let valued = simpairs_scoring::score_growing_valued(field, counts, options)?;
    let (top, rest) = valued.top(simpairs_pipeline::project::LEADERBOARD_TOP)?;
    std::hint::black_box(top);
    let first = started.elapsed();
    let (scoring, ranked) = rest.rank()?;
    let lists = simpairs_scoring::standings::lists(&scoring);
    let page: Vec<_> = lists
        .combined
        .iter()
        .take(20)
        .map(|&p| ranked.standing(p))
        .collect();
    std::hint::black_box((lists.combined.len(), page));
    Ok(first)
}
