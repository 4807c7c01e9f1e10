//! A stream asked for that has no directory: not made yet ([`Error::UnknownStream`]), or gone
//! ([`Error::MissingStream`]) when the log shows it was made. Told apart so that a damaged log
//! is not taken for a new one (and an event declared again over it).
//!
//! The log shows a stream was made when a consumer group holds a position in it, or when it is
//! one of a family: streams named `<family>.<name>` (an event's; the family is all before the
//! last `.`, as an event id may hold one) are made together, and a stream
//! whose name has no `.` (the log's catalog of events) is made with the first family. A family
//! still being made holds no record yet: only records count for the catalog, so a declaration
//! under way is not taken for loss.

use std::path::Path;

use super::{GROUPS_DIR, STREAM_META, inspect, integrity};
use crate::Error;

/// The error for a stream `name` without a description in the log in `dir`.
pub(super) fn unknown_or_missing(dir: &Path, name: &str) -> Error {
    match evidence(dir, name) {
        Some(evidence) => Error::MissingStream {
            stream: name.to_owned(),
            dir: dir.join(name),
            evidence,
        },
        None => Error::UnknownStream {
            stream: name.to_owned(),
        },
    }
}

/// How the log shows that the stream `name` was made, in words; `None` if it does not.
fn evidence(dir: &Path, name: &str) -> Option<String> {
    if let Some(group) = reader_of(dir, name) {
        return Some(format!("consumer group \"{group}\" has read it"));
    }
    let kin = kin(dir, name);
    let shown: Vec<&str> = kin.iter().take(3).map(String::as_str).collect();
    let more = if kin.len() > shown.len() { ", ..." } else { "" };
    match (name.rsplit_once('.'), shown.is_empty()) {
        (_, true) => None,
        (Some((family, _)), false) => Some(format!(
            "the log holds the other streams of \"{family}\" ({}{more}), made with it",
            shown.join(", ")
        )),
        (None, false) => Some(format!(
            "the log holds records of streams made with it ({}{more})",
            shown.join(", ")
        )),
    }
}

/// A consumer group holding a position in the stream (its positions file is read only).
fn reader_of(dir: &Path, name: &str) -> Option<String> {
    let (committed, _unreadable) = integrity::all_committed(&dir.join(GROUPS_DIR)).ok()?;
    committed
        .iter()
        .filter(|((stream, _), _)| stream == name)
        .flat_map(|(_, groups)| groups.iter())
        .map(|c| c.group.clone())
        .next()
}

/// The streams made with `name`: its family's others, or, for a name without a family (the
/// catalog), the streams of any family that hold records.
fn kin(dir: &Path, name: &str) -> Vec<String> {
    let Ok(names) = inspect::stream_names(dir) else {
        return Vec::new();
    };
    let made = |other: &String| other != name && dir.join(other).join(STREAM_META).is_file();
    match name.rsplit_once('.') {
        Some((family, _)) => (names.into_iter())
            .filter(|other| made(other) && other.rsplit_once('.').is_some_and(|(f, _)| f == family))
            .collect(),
        None => (names.into_iter())
            .filter(|other| made(other) && other.contains('.') && holds_records(&dir.join(other)))
            .collect(),
    }
}

/// Whether a stream directory holds a segment file with bytes in any partition.
fn holds_records(stream_dir: &Path) -> bool {
    let Ok(partitions) = std::fs::read_dir(stream_dir) else {
        return false;
    };
    partitions.flatten().any(|partition| {
        std::fs::read_dir(partition.path()).is_ok_and(|files| {
            files.flatten().any(|f| {
                f.path().extension().is_some_and(|e| e == "log")
                    && f.metadata().is_ok_and(|m| m.len() > 0)
            })
        })
    })
}
