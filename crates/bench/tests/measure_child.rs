//! The bench's measured runs: a program run through `simpairs-bench --measure-child` reports its
//! own peak, not the bench's nor another child's.

use std::process::Command;

fn measured(program: &str, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_simpairs-bench"))
        .arg("--measure-child")
        .arg(program)
        .args(args)
        .output()
        .expect("the bench runs")
}

/// The two numbers printed: wall nanoseconds and peak kilobytes.
fn report(output: &std::process::Output) -> (u64, u64) {
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    let numbers: Vec<u64> = text
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(numbers.len(), 2, "{text:?}");
    (numbers[0], numbers[1])
}

#[test]
fn a_program_s_peak_is_its_own() {
    // 200 MB touched by the child, a few MB by the shell: each peak is the program's.
    let big = measured(
        "python3",
        &[
            "-c",
            "b = bytearray(200_000_000)\nfor i in range(0, len(b), 4096): b[i] = 1",
        ],
    );
    let small = measured("sh", &["-c", "true"]);
    let (wall, big_kb) = report(&big);
    let (_, small_kb) = report(&small);
    assert!(wall > 0);
    assert!(big_kb >= 195_000, "{big_kb} KB");
    assert!(small_kb < 50_000, "{small_kb} KB");
}

#[test]
fn a_program_that_fails_or_is_missing_fails_the_measurement() {
    let failed = measured("sh", &["-c", "exit 3"]);
    assert!(!failed.status.success());
    assert!(failed.stdout.is_empty());
    let missing = measured("/no/such/program", &[]);
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("cannot run /no/such/program"),
        "{missing:?}"
    );
    let none = Command::new(env!("CARGO_BIN_EXE_simpairs-bench"))
        .arg("--measure-child")
        .output()
        .unwrap();
    assert!(!none.status.success());
}
