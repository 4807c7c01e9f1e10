//! A program run and measured whole: its wall time and its peak resident size.
//!
//! The kernel keeps a process's peak resident size until it is reaped, and gives it to its
//! parent only as the largest of all its children's (`getrusage(RUSAGE_CHILDREN)`). The bench's
//! children include the peers, which hold far more, so the bench runs each measured program
//! through a copy of itself ([`CHILD_FLAG`]) whose only child it is: that copy's largest child
//! is the program.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// The first argument that makes `simpairs-bench` run the rest of its arguments as a program and
/// print its wall time and peak; not for people, so not among the options `--help` lists.
pub const CHILD_FLAG: &str = "--measure-child";

/// What one run of a program took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub wall: Duration,
    /// Its peak resident size, in bytes.
    pub peak: u64,
}

/// Runs `program args` through a copy of this program and returns its wall time and peak, its
/// output thrown away; a program that fails is an error naming it.
pub fn measure(program: &Path, args: &[&OsStr]) -> anyhow::Result<Run> {
    let this = std::env::current_exe().context("cannot find the bench's own program")?;
    let output = Command::new(&this)
        .arg(CHILD_FLAG)
        .arg(program)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run {}", this.display()))?;
    let shown = || {
        let mut words = vec![program.display().to_string()];
        words.extend(args.iter().map(|a| a.to_string_lossy().into_owned()));
        words.join(" ")
    };
    if !output.status.success() {
        bail!("{} failed", shown());
    }
    parse_report(&String::from_utf8_lossy(&output.stdout))
        .with_context(|| format!("no measurement of {}", shown()))
}

/// `<wall nanoseconds> <peak kilobytes>`, as [`run_as_child`] prints them.
fn parse_report(text: &str) -> anyhow::Result<Run> {
    let mut words = text.split_whitespace();
    let (Some(wall), Some(peak), None) = (words.next(), words.next(), words.next()) else {
        bail!("expected two numbers, got {text:?}");
    };
    Ok(Run {
        wall: Duration::from_nanos(wall.parse().context("wall time")?),
        peak: peak.parse::<u64>().context("peak")? * 1024,
    })
}

/// The copy's side: runs `argv` (a program and its arguments), its output to nowhere, and prints
/// its wall time and peak; fails as the program does.
pub fn run_as_child(mut argv: impl Iterator<Item = OsString>) -> ExitCode {
    let Some(program) = argv.next() else {
        eprintln!("simpairs-bench {CHILD_FLAG}: no program given");
        return ExitCode::FAILURE;
    };
    let started = Instant::now();
    let status = Command::new(&program)
        .args(argv)
        .stdout(Stdio::null())
        .status();
    let wall = started.elapsed();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            eprintln!("{} {s}", program.to_string_lossy());
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("cannot run {}: {e}", program.to_string_lossy());
            return ExitCode::FAILURE;
        }
    }
    match nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN) {
        Ok(usage) => {
            // Linux gives the peak in kilobytes.
            println!("{} {}", wall.as_nanos(), usage.max_rss());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cannot read the peak of {}: {e}", program.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_two_numbers() {
        assert_eq!(
            parse_report("1500000000 851128\n").unwrap(),
            Run {
                wall: Duration::from_millis(1500),
                peak: 851_128 * 1024
            }
        );
        for bad in ["", "12", "12 x", "1 2 3"] {
            assert!(parse_report(bad).is_err(), "{bad:?}");
        }
    }
}
