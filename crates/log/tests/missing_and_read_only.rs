//! A stream that is gone is said to be missing, never taken for one not made yet; and a log the
//! user may read but not write (a backup copy, another user's log) reads whole.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use simpairs_log::{EmbeddedLog, Error, Log, Produce, StreamConfig};

use crate::common::{log_with_stream, open_log};

/// A log with the streams of family "ev" (an event's) and a catalog, records in each.
fn family_log(dir: &Path) -> EmbeddedLog {
    let log = log_with_stream(dir, "ev.declarations", 1, 1 << 20);
    for stream in ["ev.results", "ev.leaderboard", "catalog"] {
        log.create_stream(stream, &StreamConfig::default()).unwrap();
    }
    for stream in ["ev.declarations", "ev.results", "catalog"] {
        log.append(stream, &[Produce::new(b"k", b"v", 0)]).unwrap();
    }
    log
}

#[test]
fn a_stream_gone_from_its_family_is_missing_not_unknown() {
    let dir = tempfile::tempdir().unwrap();
    drop(family_log(dir.path()));
    fs::remove_dir_all(dir.path().join("ev.declarations")).unwrap();
    fs::remove_dir_all(dir.path().join("catalog")).unwrap();
    let log = open_log(dir.path(), 1 << 20);
    for stream in ["ev.declarations", "catalog"] {
        let err = log.end_offset(stream, 0).unwrap_err();
        assert!(matches!(err, Error::MissingStream { .. }), "{err:?}");
        let said = err.to_string();
        assert!(
            said.starts_with(&format!("stream \"{stream}\" is missing from the log"))
                && said.contains("restore")
                && !said.contains("create it first"),
            "{said}"
        );
    }
    // Another family's stream was never made: that is no loss.
    let err = log.end_offset("other.declarations", 0).unwrap_err();
    assert!(matches!(err, Error::UnknownStream { .. }), "{err:?}");
}

#[test]
fn a_stream_of_a_new_log_or_of_an_empty_family_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let log = open_log(dir.path(), 1 << 20);
    let err = log.end_offset("catalog", 0).unwrap_err();
    assert!(matches!(err, Error::UnknownStream { .. }), "{err:?}");
    // Streams being made (empty, say by a declaration under way) are not evidence for the catalog.
    log.create_stream("ev.declarations", &StreamConfig::default())
        .unwrap();
    let err = log.end_offset("catalog", 0).unwrap_err();
    assert!(matches!(err, Error::UnknownStream { .. }), "{err:?}");
}

#[test]
fn a_stream_a_consumer_group_read_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_with_stream(dir.path(), "solo", 1, 1 << 20);
    log.append("solo", &[Produce::new(b"k", b"v", 0)]).unwrap();
    let mut consumer = log.consumer("reader", &["solo"]).unwrap();
    let read = consumer.poll(1, std::time::Duration::ZERO).unwrap();
    consumer.commit(&[read[0].next_position()]).unwrap();
    drop((consumer, log));
    fs::remove_dir_all(dir.path().join("solo")).unwrap();
    let err = open_log(dir.path(), 1 << 20)
        .read("solo", 0, 0, 1)
        .unwrap_err();
    assert!(
        err.to_string().contains("consumer group \"reader\""),
        "{err}"
    );
}

/// Whether this process runs as root (for whom permissions do not stop reads or writes).
fn is_root(dir: &Path) -> bool {
    let probe = dir.join("probe");
    fs::write(&probe, b"").unwrap();
    let root = fs::metadata(&probe).unwrap().uid() == 0;
    fs::remove_file(&probe).unwrap();
    root
}

/// Gives every file of `path` `file_mode` and every directory `dir_mode`.
fn chmod_all(path: &Path, file_mode: u32, dir_mode: u32) {
    let is_dir = path.is_dir();
    if is_dir {
        for entry in fs::read_dir(path).unwrap() {
            chmod_all(&entry.unwrap().path(), file_mode, dir_mode);
        }
    }
    let mode = if is_dir { dir_mode } else { file_mode };
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs this test again as user nobody (65534) when run as root, where permissions would not be
/// tested; `true` if it did (and it passed). Without `setpriv`, the caller's own asserts still
/// run, without testing permissions.
fn again_as_nobody(test: &str, dir: &Path) -> bool {
    const CHILD: &str = "SIMPAIRS_LOG_TEST_AS_NOBODY";
    if std::env::var_os(CHILD).is_some() || !is_root(dir) {
        return false;
    }
    let exe = std::env::current_exe().unwrap();
    let run = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output();
    match run {
        Ok(out) => {
            let said = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && said.contains("1 passed"),
                "as nobody: {said}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            true
        }
        Err(e) => {
            eprintln!("running as root without setpriv ({e}): permissions not tested");
            false
        }
    }
}

#[test]
fn a_log_the_user_may_read_but_not_write_reads_whole() {
    let tmp = tempfile::tempdir().unwrap();
    chmod_all(tmp.path(), 0o644, 0o755);
    let test = "missing_and_read_only::a_log_the_user_may_read_but_not_write_reads_whole";
    if again_as_nobody(test, tmp.path()) {
        return;
    }
    let dir = tmp.path().join("log");
    drop(family_log(&dir));
    chmod_all(&dir, 0o444, 0o555);
    let log = open_log(&dir, 1 << 20);
    let records = log.read("ev.results", 0, 0, 10).unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(log.end_offset("catalog", 0).unwrap(), 1);
    let report = simpairs_log::check(&dir).unwrap();
    let problems: Vec<String> = report.problems().map(ToString::to_string).collect();
    assert!(report.is_whole(), "{problems:?}");
    chmod_all(&dir, 0o644, 0o755);
}

#[test]
fn a_file_the_user_may_not_read_is_permission_denied_not_damage() {
    let tmp = tempfile::tempdir().unwrap();
    chmod_all(tmp.path(), 0o644, 0o755);
    let test =
        "missing_and_read_only::a_file_the_user_may_not_read_is_permission_denied_not_damage";
    if again_as_nobody(test, tmp.path()) {
        return;
    }
    let dir = tmp.path().join("log");
    drop(family_log(&dir));
    let checkpoint = dir.join("ev.results").join("0").join("checkpoint");
    fs::set_permissions(&checkpoint, fs::Permissions::from_mode(0o000)).unwrap();
    if is_root(tmp.path()) {
        // Root reads it anyway: what can be asserted everywhere is that it reads whole.
        assert!(simpairs_log::check(&dir).unwrap().is_whole());
        return;
    }
    let err = open_log(&dir, 1 << 20)
        .read("ev.results", 0, 0, 1)
        .unwrap_err();
    let said = err.to_string();
    assert!(
        said.starts_with(&format!(
            "permission denied reading {}",
            checkpoint.display()
        )) && said.contains("not damaged"),
        "{said}"
    );
    let report = simpairs_log::check(&dir).unwrap();
    let problems: Vec<String> = report.problems().map(ToString::to_string).collect();
    assert!(
        problems.len() == 1 && problems[0].starts_with("permission denied reading"),
        "{problems:?}"
    );
}
