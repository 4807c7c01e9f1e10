//! The Kafka client settings given as flags reach the Kafka backend: inconsistent ones are refused
//! before any connection, with the setting named (no broker is needed); and only the commands
//! whose log can be a Kafka one show them in their help.

use std::process::Command;

fn simpairs(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .args(args)
        // Only the flags speak: no setting from the environment of the test run.
        .env_remove("SIMPAIRS_KAFKA_SECURITY_PROTOCOL")
        .env_remove("SIMPAIRS_KAFKA_SASL_MECHANISM")
        .env_remove("SIMPAIRS_KAFKA_SASL_USERNAME")
        .env_remove("SIMPAIRS_KAFKA_SASL_PASSWORD")
        .output()
        .expect("simpairs runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sasl_flags_without_a_sasl_protocol_are_refused() {
    let (ok, stderr) = simpairs(&[
        "aggregate",
        "--log",
        "kafka://127.0.0.1:1",
        "--until-idle",
        "--key",
        "aggregator.key",
        "--kafka-sasl-username",
        "federation",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("SASL settings are given but the security protocol is PLAINTEXT"),
        "{stderr}"
    );
}

#[test]
fn a_sasl_protocol_flag_without_a_mechanism_is_refused() {
    let (ok, stderr) = simpairs(&[
        "replay",
        "--log",
        "kafka://127.0.0.1:1",
        "--json",
        "--kafka-security-protocol",
        "SASL_PLAINTEXT",
    ]);
    assert!(!ok);
    assert!(stderr.contains("no SASL mechanism is given"), "{stderr}");
}

/// `simpairs [path...] --help`, wide enough that clap does not wrap.
fn help(path: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .args(path)
        .arg("--help")
        .env("COLUMNS", "200")
        .output()
        .expect("simpairs runs");
    assert!(out.status.success(), "simpairs {path:?} --help fails");
    String::from_utf8(out.stdout).expect("help is text")
}

/// The entries of one section of clap's help (`Commands:`, `Options:`): each entry's first line
/// with the lines of its description that clap put under it.
fn entries(help: &str, section: &str) -> Vec<String> {
    let mut entries: Vec<String> = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if !line.starts_with(' ') && !line.is_empty() {
            inside = line.trim_end() == section;
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        match entries.last_mut() {
            Some(last) if inside && indent > 6 => last.push_str(line),
            _ if inside && !line.trim().is_empty() => entries.push(line.trim().to_string()),
            _ => {}
        }
    }
    entries
}

/// Every command line path that runs something (`score`, `event declare`, ...), from the help of
/// the program and of each command of subcommands.
fn commands(path: Vec<String>) -> Vec<Vec<String>> {
    let names: Vec<String> = entries(&help(&path), "Commands:")
        .iter()
        .filter_map(|e| e.split_whitespace().next().map(str::to_string))
        .filter(|name| name != "help")
        .collect();
    if names.is_empty() {
        return vec![path];
    }
    names
        .into_iter()
        .flat_map(|name| {
            let mut deeper = path.clone();
            deeper.push(name);
            commands(deeper)
        })
        .collect()
}

/// A command's log can be a Kafka one when it has a log flag (`--log`, `--...-log`) that is not a
/// directory only (`demo`'s and `log check`'s are).
fn opens_a_kafka_log(help: &str) -> bool {
    entries(help, "Options:").iter().any(|entry| {
        let flag = entry.split_whitespace().next().unwrap_or("");
        let text = entry.to_lowercase();
        (flag == "--log" || (flag.starts_with("--") && flag.ends_with("-log")))
            && (text.contains("kafka") || !text.contains("directory"))
    })
}

#[test]
fn only_commands_that_open_a_kafka_log_show_the_kafka_flags() {
    let all = commands(Vec::new());
    assert!(all.len() > 10, "{all:?}");
    assert!(
        !help(&[]).to_lowercase().contains("kafka"),
        "the program's own help"
    );
    let mut with_kafka = Vec::new();
    for path in all {
        let text = help(&path);
        let kafka = opens_a_kafka_log(&text);
        for flag in [
            "--kafka-security-protocol",
            "--kafka-sasl-mechanism",
            "--kafka-sasl-username",
            "--kafka-sasl-password",
            "--kafka-ssl-ca",
            "--kafka-ssl-cert",
            "--kafka-ssl-key",
            "--kafka-client-id",
        ] {
            assert_eq!(
                text.contains(flag),
                kafka,
                "simpairs {path:?} --help: {flag}"
            );
        }
        if !kafka {
            assert!(
                !text.to_lowercase().contains("kafka"),
                "simpairs {path:?} --help mentions Kafka"
            );
        }
        with_kafka.extend(kafka.then(|| path.join(" ")));
    }
    assert!(with_kafka.iter().any(|c| c == "replay"), "{with_kafka:?}");
    assert!(!with_kafka.iter().any(|c| c == "score"), "{with_kafka:?}");
}
