//! `simpairs log check` and `simpairs log repair`: is the embedded log whole, and cutting what a
//! crash leaves (never what was lost).
//!
//! Exit codes of `check`: 0 whole; 1 records lost or damaged (restore from a backup) or the log
//! could not be read; 3 whole but for the torn end of an interrupted append (run `log repair`).
//! Of `repair`: 0 every partition whole afterwards; 1 something refused or failed.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};
use simpairs_events::Stream;
use simpairs_log::{Error, PartitionReport, RepairOptions, RepairReport, Report, StreamReport};
use simpairs_pipeline::declare::CATALOG;
use simpairs_pipeline::{LogLocation, stream_name};

/// Exit code of `log check` when only torn tails were found.
const EXIT_TORN_TAIL: u8 = 3;

#[derive(clap::Subcommand, Debug)]
pub enum LogCommand {
    /// Reads the whole embedded log and reports every stream and partition: segments, offsets,
    /// records, the last durable offset, each consumer group's position, and any loss or damage
    /// with the file and offsets. Exit code 0: whole; 1: records lost or damaged (restore from a
    /// backup); 3: only the torn end of an interrupted append (run `simpairs log repair`).
    Check(CheckArgs),
    /// Cuts what a crash can leave (the torn end of an interrupted append, after the last durable
    /// offset) and says what it cut; refuses, naming files and offsets, to touch records that
    /// were lost or damaged: those must be restored from a backup.
    Repair(RepairArgs),
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The embedded log's directory.
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    /// Print the report as JSON (every segment file included).
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct RepairArgs {
    /// The embedded log's directory.
    #[arg(long, env = "SIMPAIRS_LOG")]
    pub log: LogLocation,
    /// Only this stream (default: all of them).
    #[arg(long)]
    pub stream: Option<String>,
    /// Also write a new checkpoint for partitions whose checkpoint file is missing or unreadable
    /// and that have no other problem. A cut made at a batch boundary before then can no longer
    /// be told: use it only when the segment files are known to be whole.
    #[arg(long)]
    pub rebuild_checkpoints: bool,
}

pub fn run(command: LogCommand) -> ExitCode {
    let outcome = match command {
        LogCommand::Check(args) => check(&args),
        LogCommand::Repair(args) => repair(&args),
    };
    outcome.unwrap_or_else(|e| {
        eprintln!("simpairs: {e:#}");
        ExitCode::FAILURE
    })
}

/// The directory of an embedded log location.
fn embedded_dir(location: &LogLocation) -> anyhow::Result<PathBuf> {
    match location {
        LogLocation::Embedded(dir) if dir.is_dir() => Ok(dir.clone()),
        LogLocation::Embedded(dir) => {
            anyhow::bail!(
                "{} is not a directory holding an embedded log",
                dir.display()
            )
        }
        other => anyhow::bail!(
            "`simpairs log` checks the embedded log (a directory), not {other}: Kafka keeps and checks its own replicas"
        ),
    }
}

fn check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let dir = embedded_dir(&args.log)?;
    let mut report = simpairs_log::check(&dir)?;
    let missing = missing_streams(&dir, &report);
    report.problems.extend(missing);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report_json(&report))?;
        writeln!(out)?;
    } else {
        write_report(&mut out, &report)?;
    }
    out.flush()?;
    Ok(if !report.is_whole() {
        ExitCode::FAILURE
    } else if report.torn_tails().next().is_some() {
        ExitCode::from(EXIT_TORN_TAIL)
    } else {
        ExitCode::SUCCESS
    })
}

/// A stream of the log as far as the event check needs it.
struct Present {
    records: u64,
    /// A consumer group holding a position in it.
    reader: Option<String>,
}

/// The streams the log shows it should hold and does not: every stream `event declare` makes
/// (all of them at once, before the declaration's first record) of each event the log shows
/// was declared, and the catalog of events. The log crate knows no events: this is the check
/// that an event is whole, which a stream-by-stream check cannot see.
fn missing_streams(dir: &Path, report: &Report) -> Vec<Error> {
    let present: BTreeMap<&str, Present> = report.streams.iter().map(present).collect();
    let cataloged = cataloged_events(dir, &present);
    let mut events: BTreeSet<String> = cataloged.iter().cloned().collect();
    for name in present.keys() {
        if let Some((event, kind)) = name.rsplit_once('.')
            && Stream::ALL.iter().any(|s| s.name() == kind)
        {
            events.insert(event.to_owned());
        }
    }
    let mut problems = Vec::new();
    let mut declared = Vec::new();
    for event in &events {
        let shown = cataloged
            .contains(event)
            .then(|| "the catalog of events lists it".to_owned())
            .or_else(|| declared_by_streams(event, &present));
        problems.extend(missing_of_event(dir, event, shown.as_deref(), &present));
        if let Some(shown) = shown.filter(|_| !cataloged.contains(event)) {
            declared.push(format!("event \"{event}\" was declared ({shown})"));
        }
    }
    if !present.contains_key(CATALOG) && !declared.is_empty() {
        problems.push(missing(dir, CATALOG, declared.join("; ")));
    }
    problems
}

fn present(stream: &StreamReport) -> (&str, Present) {
    let partitions = stream.partitions.iter();
    let records = partitions.clone().map(|p| p.records).sum();
    let reader = partitions
        .flat_map(|p| p.committed.iter())
        .map(|c| c.group.clone())
        .next();
    (stream.name.as_str(), Present { records, reader })
}

/// The events the catalog lists; none if it is absent or unreadable (then reported already).
fn cataloged_events(dir: &Path, present: &BTreeMap<&str, Present>) -> BTreeSet<String> {
    // Opening a directory that is no log would make one: only an existing log is opened.
    if !present.contains_key(CATALOG) || !simpairs_log::EmbeddedLog::is_log(dir) {
        return BTreeSet::new();
    }
    let events = simpairs_log::EmbeddedLog::open(dir)
        .map_err(simpairs_pipeline::Error::from)
        .and_then(|log| simpairs_pipeline::declare::events(&log));
    events
        .map(|events| events.into_iter().map(|e| e.event_id).collect())
        .unwrap_or_default()
}

/// How the event's own streams show it was declared: a record in one (its declaration is the
/// first), or a consumer group that read one. Streams without either may be those of a
/// declaration that stopped before its first record, which declaring again completes.
fn declared_by_streams(event: &str, present: &BTreeMap<&str, Present>) -> Option<String> {
    Stream::ALL.iter().find_map(|&kind| {
        let name = stream_name(event, kind);
        let p = present.get(name.as_str())?;
        match &p.reader {
            Some(group) => Some(format!("consumer group \"{group}\" has read {name}")),
            None if p.records > 0 => Some(format!("{name} holds records")),
            None => None,
        }
    })
}

/// The streams of a declared event (`shown`: how the log shows it was) that are not there; or
/// of any event, those missing before one that is there (they are made in order).
fn missing_of_event(
    dir: &Path,
    event: &str,
    shown: Option<&str>,
    present: &BTreeMap<&str, Present>,
) -> Vec<Error> {
    let names: Vec<String> = Stream::ALL.iter().map(|&s| stream_name(event, s)).collect();
    let mut problems = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if present.contains_key(name.as_str()) {
            continue;
        }
        let later = names[i + 1..]
            .iter()
            .find(|n| present.contains_key(n.as_str()));
        let evidence = match (shown, later) {
            (Some(shown), _) => format!(
                "event \"{event}\" was declared ({shown}), and `event declare` makes all its streams"
            ),
            (None, Some(later)) => format!("{later} is there, made after it"),
            (None, None) => continue,
        };
        problems.push(missing(dir, name, evidence));
    }
    problems
}

fn missing(dir: &Path, stream: &str, evidence: String) -> Error {
    Error::MissingStream {
        stream: stream.to_owned(),
        dir: dir.join(stream),
        evidence,
    }
}

/// The report in words, one paragraph per stream, one line per partition and problem.
fn write_report(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    let partitions: usize = report.streams.iter().map(|s| s.partitions.len()).sum();
    let records: u64 = report
        .streams
        .iter()
        .flat_map(|s| &s.partitions)
        .map(|p| p.records)
        .sum();
    writeln!(
        out,
        "log {}: {} stream(s), {partitions} partition(s), {records} record(s)",
        report.dir.display(),
        report.streams.len()
    )?;
    for stream in &report.streams {
        write_stream(out, stream)?;
    }
    for problem in &report.problems {
        writeln!(out, "  {}: {problem}", kind(problem).to_uppercase())?;
    }
    write_verdict(out, report)
}

/// The last line: whole, torn, not whole, or not readable by this user.
fn write_verdict(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    let denied = report.problems().filter(|e| is_denied(e)).count();
    let damaged = report.problems().count() - denied;
    let torn = report.torn_tails().count();
    if damaged > 0 {
        writeln!(
            out,
            "NOT WHOLE: {damaged} problem(s) of lost or damaged records; restore the files named above from a backup (`simpairs log repair` cuts only what a crash leaves and will refuse these)"
        )?;
    }
    if denied > 0 {
        // Not damage: a backup restored over it would change nothing.
        return writeln!(
            out,
            "NOT CHECKED: {denied} file(s) this user may not read (above); nothing is known to be lost or damaged in them: run the check as a user who may read the whole log"
        );
    }
    if damaged > 0 {
        Ok(())
    } else if torn > 0 {
        writeln!(
            out,
            "whole, but {torn} partition(s) end with the torn end of an interrupted append: the next append cuts it, or run `simpairs log repair`"
        )
    } else {
        writeln!(out, "whole: nothing lost or damaged")
    }
}

fn write_stream(out: &mut impl Write, stream: &StreamReport) -> std::io::Result<()> {
    let format = if stream.checkpoints {
        "checkpointed"
    } else {
        "written before checkpoints: a cut at a batch boundary or a deleted last segment cannot be seen; `simpairs log repair` writes checkpoints"
    };
    writeln!(out, "stream {} ({format})", stream.name)?;
    for problem in &stream.problems {
        writeln!(out, "  {}: {problem}", kind(problem).to_uppercase())?;
    }
    for p in &stream.partitions {
        write_partition(out, p)?;
    }
    Ok(())
}

fn write_partition(out: &mut impl Write, p: &PartitionReport) -> std::io::Result<()> {
    let bytes: u64 = p.segments.iter().map(|s| s.bytes).sum();
    let files = match (p.segments.first(), p.segments.last()) {
        (Some(first), Some(last)) if p.segments.len() > 1 => {
            format!(" ({} to {})", file_name(&first.file), file_name(&last.file))
        }
        (Some(only), _) => format!(" ({})", file_name(&only.file)),
        _ => String::new(),
    };
    let offsets = if p.end_offset > p.start_offset {
        format!("offsets {} to {}", p.start_offset, p.end_offset - 1)
    } else {
        format!("no record (next offset {})", p.end_offset)
    };
    let durable = p.durable.as_ref().map_or_else(
        || "no checkpoint".to_owned(),
        |d| match d.next_offset {
            0 => "nothing durable yet by its checkpoint".to_owned(),
            next => format!("durable up to offset {} by its checkpoint", next - 1),
        },
    );
    let groups = if p.committed.is_empty() {
        "no consumer group".to_owned()
    } else {
        let each: Vec<String> = p
            .committed
            .iter()
            .map(|c| format!("{} at {}", c.group, c.next_offset))
            .collect();
        format!("groups {}", each.join(", "))
    };
    writeln!(
        out,
        "  partition {}: {offsets}, {} record(s) in {} segment file(s){files}, {bytes} bytes; {durable}; {groups}",
        p.partition,
        p.records,
        p.segments.len()
    )?;
    if let Some(t) = &p.torn_tail {
        writeln!(
            out,
            "    torn tail: {} byte(s) at byte {} of {} ({}), after the last durable offset: what a crash leaves; the next append or `simpairs log repair` cuts it",
            t.bytes,
            t.position,
            t.file.display(),
            t.reason
        )?;
    }
    for problem in &p.problems {
        writeln!(out, "    {}: {problem}", kind(problem).to_uppercase())?;
    }
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A short name for the kind of a problem.
fn kind(error: &Error) -> &'static str {
    match error {
        Error::Lost { .. } => "lost",
        Error::Corrupt { .. } => "damaged",
        Error::MissingCheckpoint { .. } => "missing checkpoint",
        Error::BadMetadata { .. } => "bad metadata",
        Error::MissingStream { .. } => "missing stream",
        e if is_denied(e) => "permission denied",
        Error::Io { .. } => "unreadable",
        _ => "error",
    }
}

/// A file the user running the check may not read: no damage.
fn is_denied(error: &Error) -> bool {
    matches!(error, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied)
}

fn report_json(report: &Report) -> Value {
    json!({
        "log": report.dir,
        "whole": report.is_whole(),
        "torn_tails": report.torn_tails().count(),
        "streams": report.streams.iter().map(stream_json).collect::<Vec<_>>(),
        "problems": report.problems.iter().map(problem_json).collect::<Vec<_>>(),
    })
}

fn stream_json(stream: &StreamReport) -> Value {
    json!({
        "name": stream.name,
        "checkpoints": stream.checkpoints,
        "partitions": stream.partitions.iter().map(partition_json).collect::<Vec<_>>(),
        "problems": stream.problems.iter().map(problem_json).collect::<Vec<_>>(),
    })
}

fn partition_json(p: &PartitionReport) -> Value {
    json!({
        "partition": p.partition,
        "dir": p.dir,
        "start_offset": p.start_offset,
        "end_offset": p.end_offset,
        "records": p.records,
        "durable": p.durable.as_ref().map(|d| json!({
            "next_offset": d.next_offset,
            "segment": d.segment,
            "end": d.end,
        })),
        "committed": p.committed.iter().map(|c| json!({
            "group": c.group,
            "next_offset": c.next_offset,
        })).collect::<Vec<_>>(),
        "segments": p.segments.iter().map(|s| json!({
            "file": s.file,
            "base_offset": s.base_offset,
            "next_offset": s.next_offset,
            "records": s.records,
            "bytes": s.bytes,
        })).collect::<Vec<_>>(),
        "torn_tail": p.torn_tail.as_ref().map(|t| json!({
            "file": t.file,
            "position": t.position,
            "bytes": t.bytes,
            "next_offset": t.next_offset,
            "reason": t.reason,
        })),
        "problems": p.problems.iter().map(problem_json).collect::<Vec<_>>(),
    })
}

fn problem_json(error: &Error) -> Value {
    let mut value = json!({ "kind": kind(error), "message": error.to_string() });
    let extra = match error {
        Error::Lost {
            segment,
            expected_offset,
            ..
        } => json!({ "file": segment, "offset": expected_offset }),
        Error::Corrupt {
            file,
            offset,
            position,
            ..
        } => json!({ "file": file, "offset": offset, "position": position }),
        Error::MissingCheckpoint { path, .. } | Error::BadMetadata { path, .. } => {
            json!({ "file": path })
        }
        Error::MissingStream { stream, dir, .. } => json!({ "stream": stream, "file": dir }),
        Error::Io { path, .. } => json!({ "file": path }),
        _ => json!({}),
    };
    if let (Some(map), Value::Object(extra)) = (value.as_object_mut(), extra) {
        map.extend(extra);
    }
    value
}

fn repair(args: &RepairArgs) -> anyhow::Result<ExitCode> {
    let dir = embedded_dir(&args.log)?;
    let options = RepairOptions {
        stream: args.stream.clone(),
        rebuild_checkpoints: args.rebuild_checkpoints,
        ..RepairOptions::default()
    };
    let report = simpairs_log::repair(&dir, &options)?;
    let mut out = std::io::stdout().lock();
    write_repair(&mut out, &report)?;
    out.flush()?;
    Ok(if report.is_whole() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn write_repair(out: &mut impl Write, report: &RepairReport) -> std::io::Result<()> {
    for p in &report.partitions {
        let name = format!("stream {} partition {}", p.stream, p.partition);
        if !p.refused.is_empty() {
            writeln!(
                out,
                "{name}: REFUSED, nothing changed: these records were stored durably and are lost or damaged; restore them from a backup"
            )?;
            for e in &p.refused {
                writeln!(out, "    {}: {e}", kind(e).to_uppercase())?;
            }
            continue;
        }
        match &p.cut {
            Some(t) => writeln!(
                out,
                "{name}: cut {} byte(s) at byte {} of {} ({}): the torn end of an interrupted append, never reported as written; the next record gets offset {}",
                t.bytes,
                t.position,
                t.file.display(),
                t.reason,
                t.next_offset
            )?,
            None => writeln!(out, "{name}: whole, nothing to cut")?,
        }
        if p.checkpoint_written {
            writeln!(
                out,
                "{name}: checkpoint written at the end of its segment files, which were checked whole: from now on a cut or deleted end is detected"
            )?;
        }
    }
    for e in &report.problems {
        writeln!(out, "{}: {e}", kind(e).to_uppercase())?;
    }
    if report.is_whole() {
        writeln!(out, "repaired: every partition is whole")
    } else {
        writeln!(
            out,
            "NOT REPAIRED: some partitions have lost or damaged records (above); they were left as they are"
        )
    }
}
