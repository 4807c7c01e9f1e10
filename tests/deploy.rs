//! What can be checked of `deploy/` without Docker or Kubernetes: the YAML parses, every image is
//! pinned, every `simpairs` command line uses subcommands and flags the CLI has (read from the
//! built binary's `--help`, so that a renamed flag fails here), the Kafka settings are ones
//! `KafkaConfig` accepts, and the ports agree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_norway::Value;
use simpairs_kafka::{ENV_VARS, KafkaConfig};

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every YAML document of a file, with `<<` merge keys applied.
fn documents(path: &Path) -> Vec<Value> {
    let text = read(path);
    let mut docs = Vec::new();
    for document in serde_norway::Deserializer::from_str(&text) {
        let mut value: Value = serde::Deserialize::deserialize(document)
            .unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
        value
            .apply_merge()
            .unwrap_or_else(|e| panic!("{}: merge keys: {e}", path.display()));
        if !value.is_null() {
            docs.push(value);
        }
    }
    docs
}

fn get<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, key| v.get(*key))
}

fn string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => panic!("expected a string, got {other:?}"),
    }
}

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::Sequence(items) => items.iter().map(string).collect(),
        Value::String(s) => s.split_whitespace().map(str::to_string).collect(),
        other => panic!("expected a list of strings, got {other:?}"),
    }
}

/// Compose's `${VAR:-default}` / `${VAR}` with only the defaults (no environment).
fn interpolate(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').expect("unclosed ${") + start;
        let inner = &rest[start + 2..end];
        out.push_str(inner.split_once(":-").map(|(_, d)| d).unwrap_or(""));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// An image reference is pinned when it names a digest, or a tag with a version number that is
/// not `latest`.
fn assert_pinned(image: &str, whence: &str) {
    if image.contains("@sha256:") {
        return;
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    let tag = last.split_once(':').map(|(_, t)| t);
    match tag {
        Some(t) if t != "latest" && t.chars().any(|c| c.is_ascii_digit()) => {}
        _ => panic!("{whence}: image {image:?} is not pinned to a version"),
    }
}

/// What one subcommand of the CLI takes, as its `--help` says.
#[derive(Debug, Default)]
struct Usage {
    /// Flags that take a value (`--log <LOG>`).
    with_value: BTreeSet<String>,
    /// Flags that take none (`--until-idle`).
    booleans: BTreeSet<String>,
    /// Positional arguments (`usize::MAX` when the last one repeats).
    positionals: usize,
    /// Its own subcommands.
    commands: Vec<String>,
}

/// The built binary's `--help` for a subcommand path (empty: the program itself).
fn help(path: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_simpairs"))
        .args(path)
        .arg("--help")
        .env("COLUMNS", "200")
        .output()
        .expect("simpairs runs");
    assert!(
        out.status.success(),
        "simpairs {} --help: {}",
        path.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("help is text")
}

/// Reads clap's help: the `Commands:`, `Arguments:` and `Options:` sections, whose entries start
/// at most six spaces in (descriptions wrapped onto lines of their own sit further in).
fn usage(path: &[&str]) -> Usage {
    let text = help(path);
    let mut usage = Usage::default();
    let mut section = "";
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            section = line.trim_end();
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let entry = line.trim_start();
        if indent > 6 {
            continue;
        }
        let first = entry.split_whitespace().next().unwrap_or("");
        match section {
            "Commands:" if first != "help" => usage.commands.push(first.to_string()),
            "Arguments:" => {
                usage.positionals = if first.ends_with("...") {
                    usize::MAX
                } else {
                    usage.positionals.saturating_add(1)
                };
            }
            "Options:" => {
                let mut words = entry.split_whitespace();
                let Some(flag) = words.find(|w| w.starts_with("--")) else {
                    continue;
                };
                let flag = flag.trim_end_matches(',');
                let (name, inline_value) = match flag.split_once('=') {
                    Some((name, _)) => (name, true),
                    None => (flag, false),
                };
                let takes_value = inline_value
                    || words
                        .next()
                        .is_some_and(|w| w.starts_with('<') || w.starts_with("[<"));
                if takes_value {
                    usage.with_value.insert(name.to_string());
                } else {
                    usage.booleans.insert(name.to_string());
                }
            }
            _ => {}
        }
    }
    usage
}

/// Every subcommand path of the CLI (`serve`, `event declare`, ...) with what it takes, from the
/// binary's help, read once.
fn cli() -> &'static BTreeMap<String, Usage> {
    static CLI: OnceLock<BTreeMap<String, Usage>> = OnceLock::new();
    CLI.get_or_init(|| {
        let mut all = BTreeMap::new();
        let mut todo: Vec<Vec<String>> = usage(&[]).commands.into_iter().map(|c| vec![c]).collect();
        while let Some(path) = todo.pop() {
            let words: Vec<&str> = path.iter().map(String::as_str).collect();
            let u = usage(&words);
            todo.extend(u.commands.iter().map(|c| {
                let mut deeper = path.clone();
                deeper.push(c.clone());
                deeper
            }));
            if u.commands.is_empty() {
                all.insert(path.join(" "), u);
            }
        }
        all
    })
}

#[test]
fn the_cli_help_is_read_whole() {
    let cli = cli();
    let aggregate = &cli["aggregate"];
    assert!(aggregate.with_value.contains("--log"), "{aggregate:?}");
    assert!(aggregate.booleans.contains("--until-idle"), "{aggregate:?}");
    assert_eq!(
        cli["club publish"].positionals, 1,
        "{:?}",
        cli["club publish"]
    );
    assert!(cli["event declare"].with_value.contains("--partitions"));
    assert!(
        !cli.contains_key("event"),
        "a command of subcommands is no command line"
    );
}

/// Checks one `simpairs` argument list (without the program name); returns its flags' values.
fn check_command(args: &[String], whence: &str) -> (String, BTreeMap<String, String>) {
    let cli = cli();
    let (sub, rest) =
        if args.len() >= 2 && cli.contains_key(format!("{} {}", args[0], args[1]).as_str()) {
            (format!("{} {}", args[0], args[1]), &args[2..])
        } else if !args.is_empty() && cli.contains_key(args[0].as_str()) {
            (args[0].clone(), &args[1..])
        } else {
            panic!(
                "{whence}: `simpairs {}` is not a known subcommand",
                args.join(" ")
            );
        };
    let Usage {
        with_value,
        booleans,
        positionals,
        ..
    } = &cli[sub.as_str()];
    let mut values = BTreeMap::new();
    let mut seen_positionals = 0;
    let mut i = 0;
    while i < rest.len() {
        let arg = &rest[i];
        if arg == "--help" {
            i += 1;
            continue;
        }
        if let Some(flag) = arg.strip_prefix("--") {
            let (name, inline) = match flag.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v.to_string())),
                None => (arg.clone(), None),
            };
            if booleans.contains(&name) {
                values.insert(name, "true".to_string());
                i += 1;
            } else if with_value.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        rest.get(i)
                            .unwrap_or_else(|| panic!("{whence}: {name} needs a value"))
                            .clone()
                    }
                };
                values.insert(name, value);
                i += 1;
            } else {
                panic!("{whence}: `simpairs {sub}` has no flag {name}");
            }
        } else {
            seen_positionals += 1;
            i += 1;
        }
    }
    assert!(
        seen_positionals <= *positionals,
        "{whence}: `simpairs {sub}` takes {positionals} positional argument(s)"
    );
    if let Some(s) = values.get("--scoring") {
        assert!(
            ["mp", "butler", "cross-imps"].contains(&s.as_str()),
            "{whence}: --scoring {s}"
        );
    }
    if let Some(f) = values.get("--factoring") {
        assert!(
            ["neuberg", "ratio"].contains(&f.as_str()),
            "{whence}: --factoring {f}"
        );
    }
    if let Some(p) = values.get("--partitions") {
        assert!(
            p.parse::<u32>().is_ok_and(|n| n >= 1),
            "{whence}: --partitions {p}"
        );
    }
    if let Some(log) = values.get("--log")
        && log.starts_with("kafka://")
    {
        KafkaConfig::from_location(log).unwrap_or_else(|e| panic!("{whence}: --log {log}: {e}"));
    }
    (sub, values)
}

/// The port of a `host:port` listen address.
fn port_of(listen: &str) -> u16 {
    listen
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse().ok())
        .unwrap_or_else(|| panic!("{listen:?} has no port"))
}

/// Checks simpairs environment settings with the real parser, and that no unknown
/// `SIMPAIRS_KAFKA_*` variable is set (a typo would be ignored silently).
fn check_env(env: &BTreeMap<String, String>, whence: &str) {
    for name in env.keys() {
        if name.starts_with("SIMPAIRS_KAFKA_") {
            assert!(
                ENV_VARS.contains(&name.as_str()),
                "{whence}: unknown variable {name}"
            );
        }
    }
    if let Some(log) = env.get("SIMPAIRS_LOG") {
        KafkaConfig::from_location_and_vars(log, |name| env.get(name).cloned())
            .unwrap_or_else(|e| panic!("{whence}: the Kafka settings are refused: {e}"));
    }
}

fn env_map(v: Option<&Value>) -> BTreeMap<String, String> {
    match v {
        None => BTreeMap::new(),
        Some(Value::Mapping(m)) => m
            .iter()
            .map(|(k, v)| (string(k), interpolate(&string(v))))
            .collect(),
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|i| {
                let s = string(i);
                let (k, v) = s.split_once('=').unwrap_or((&s, ""));
                (k.to_string(), interpolate(v))
            })
            .collect(),
        Some(other) => panic!("environment: {other:?}"),
    }
}

#[test]
fn docker_compose_is_consistent() {
    let path = deploy_dir().join("docker-compose.yml");
    let docs = documents(&path);
    assert_eq!(docs.len(), 1);
    let services = get(&docs[0], &["services"])
        .and_then(Value::as_mapping)
        .expect("services");
    let names: BTreeSet<String> = services.keys().map(string).collect();
    for needed in ["kafka", "aggregator", "projection", "declare"] {
        assert!(names.contains(needed), "service {needed} is missing");
    }

    // The broker: Apache Kafka in KRaft mode, listening where the roles look for it.
    let kafka = &services[&Value::from("kafka")];
    let image = string(&kafka["image"]);
    assert!(image.starts_with("apache/kafka:"), "{image}");
    let kafka_env = env_map(kafka.get("environment"));
    assert!(
        kafka_env["KAFKA_PROCESS_ROLES"].contains("controller"),
        "KRaft: no controller role"
    );
    assert!(
        !kafka_env.contains_key("KAFKA_ZOOKEEPER_CONNECT"),
        "KRaft, not ZooKeeper"
    );
    let advertised = &kafka_env["KAFKA_ADVERTISED_LISTENERS"];
    let broker_address = advertised
        .split(',')
        .find_map(|l| l.strip_prefix("PLAINTEXT://"))
        .expect("a PLAINTEXT listener");
    assert!(
        kafka.get("healthcheck").is_some(),
        "kafka needs a healthcheck for depends_on"
    );
    let cluster_id = &kafka_env["CLUSTER_ID"];
    assert_eq!(
        cluster_id.len(),
        22,
        "CLUSTER_ID is 16 bytes in base64url: {cluster_id}"
    );

    let mut commands = 0;
    for (name, service) in services {
        let name = string(name);
        let whence = format!("docker-compose.yml service {name}");
        if let Some(image) = service.get("image") {
            assert_pinned(&string(image), &whence);
        }
        let is_simpairs = service.get("build").is_some();
        if !is_simpairs {
            continue;
        }
        let build = &service["build"];
        assert_eq!(
            string(&build["dockerfile"]),
            "deploy/Dockerfile",
            "{whence}"
        );
        assert!(
            deploy_dir()
                .join(string(&build["context"]))
                .join("deploy/Dockerfile")
                .exists()
        );
        // The command line: the entrypoint (the image's is `simpairs`) and the command.
        let mut argv: Vec<String> = Vec::new();
        if let Some(entrypoint) = service.get("entrypoint") {
            let e = strings(entrypoint);
            assert_eq!(e[0], "simpairs", "{whence}: entrypoint");
            argv.extend(e[1..].iter().map(|a| interpolate(a)));
        }
        if let Some(command) = service.get("command") {
            argv.extend(strings(command).iter().map(|a| interpolate(a)));
        }
        let (sub, flags) = check_command(&argv, &whence);
        commands += 1;
        let env = env_map(service.get("environment"));
        check_env(&env, &whence);
        let log = flags
            .get("--log")
            .or(env.get("SIMPAIRS_LOG"))
            .expect("a log");
        assert_eq!(
            log,
            &format!("kafka://{broker_address}"),
            "{whence}: the log is the kafka service"
        );
        if sub == "serve" {
            let listen = flags.get("--listen").expect("--listen");
            let port = port_of(listen);
            let published: Vec<String> = service.get("ports").map(strings).unwrap_or_default();
            assert!(
                published
                    .iter()
                    .any(|p| p.rsplit(':').next() == Some(&port.to_string())),
                "{whence}: --listen port {port} is not published ({published:?})"
            );
            assert!(
                listen.starts_with("0.0.0.0:"),
                "{whence}: listen on every interface in a container"
            );
        }
        if name != "kafka" {
            let depends = service.get("depends_on").expect("depends_on");
            assert!(depends.get("kafka").is_some(), "{whence}: waits for kafka");
        }
    }
    assert!(commands >= 3);
}

#[test]
fn dockerfile_is_pinned_and_runs_simpairs() {
    let text = read(&deploy_dir().join("Dockerfile"));
    let froms: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("FROM "))
        .collect();
    assert!(froms.len() >= 2, "a multi-stage build");
    for line in &froms {
        let image = line.split_whitespace().nth(1).unwrap();
        assert_pinned(image, "deploy/Dockerfile");
    }
    assert!(froms[0].contains(" AS builder"), "the first stage builds");
    assert!(text.contains("cargo build --release --locked --bin simpairs"));
    assert!(text.contains("COPY --from=builder"));
    assert!(text.contains("ENTRYPOINT [\"simpairs\"]"));
    assert!(text.contains("EXPOSE 8080"));
    assert!(
        text.lines().any(|l| l.trim() == "USER 10001"),
        "runs as a non-root user"
    );
}

#[test]
fn kubernetes_manifests_are_consistent() {
    let dir = deploy_dir().join("k8s");
    let mut objects: Vec<(String, Value)> = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    for file in &files {
        for doc in documents(file) {
            let kind = string(&doc["kind"]);
            assert!(
                doc.get("apiVersion").is_some(),
                "{}: {kind} without apiVersion",
                file.display()
            );
            objects.push((
                file.file_name().unwrap().to_string_lossy().into_owned(),
                doc,
            ));
        }
    }
    let named = |kind: &str| -> BTreeMap<String, &Value> {
        objects
            .iter()
            .filter(|(_, o)| string(&o["kind"]) == kind)
            .map(|(_, o)| (string(&o["metadata"]["name"]), o))
            .collect()
    };
    let config_maps = named("ConfigMap");
    let secrets = named("Secret");
    let deployments = named("Deployment");
    let services = named("Service");

    // kustomization lists every other manifest.
    let kustomization = objects
        .iter()
        .find(|(_, o)| string(&o["kind"]) == "Kustomization")
        .map(|(_, o)| strings(&o["resources"]))
        .expect("kustomization.yaml");
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy();
        if name != "kustomization.yaml" {
            assert!(
                kustomization.contains(&name.to_string()),
                "{name} is not in kustomization.yaml"
            );
        }
    }

    let mut roles = BTreeMap::new();
    for (name, deployment) in &deployments {
        let whence = format!("Deployment {name}");
        let spec = &deployment["spec"];
        let selector = get(spec, &["selector", "matchLabels"])
            .and_then(Value::as_mapping)
            .expect("selector");
        let labels = get(spec, &["template", "metadata", "labels"])
            .and_then(Value::as_mapping)
            .expect("labels");
        for (k, v) in selector {
            assert_eq!(
                labels.get(k),
                Some(v),
                "{whence}: the selector matches the pod labels"
            );
        }
        let containers = get(spec, &["template", "spec", "containers"])
            .and_then(Value::as_sequence)
            .expect("containers");
        for container in containers {
            assert_pinned(&string(&container["image"]), &whence);
            // Environment: from the ConfigMap and Secret (which must exist) and literal entries.
            let mut env: BTreeMap<String, String> = BTreeMap::new();
            for source in container
                .get("envFrom")
                .and_then(Value::as_sequence)
                .into_iter()
                .flatten()
            {
                if let Some(r) = source.get("configMapRef") {
                    let cm = config_maps
                        .get(&string(&r["name"]))
                        .unwrap_or_else(|| panic!("{whence}: no ConfigMap {:?}", r["name"]));
                    env.extend(env_map(cm.get("data")));
                }
                if let Some(r) = source.get("secretRef") {
                    let secret = secrets
                        .get(&string(&r["name"]))
                        .unwrap_or_else(|| panic!("{whence}: no Secret {:?}", r["name"]));
                    env.extend(env_map(secret.get("stringData")));
                }
            }
            for item in container
                .get("env")
                .and_then(Value::as_sequence)
                .into_iter()
                .flatten()
            {
                let value = item
                    .get("value")
                    .map(string)
                    .unwrap_or_else(|| "from-field".to_string());
                env.insert(string(&item["name"]), value);
            }
            check_env(&env, &whence);
            // $(VAR) in the arguments must be defined.
            let mut args = Vec::new();
            for arg in container
                .get("command")
                .into_iter()
                .chain(container.get("args"))
                .flat_map(strings)
            {
                let mut resolved = arg.clone();
                while let Some(start) = resolved.find("$(") {
                    let end = resolved[start..].find(')').unwrap() + start;
                    let var = resolved[start + 2..end].to_string();
                    let value = env
                        .get(&var)
                        .unwrap_or_else(|| panic!("{whence}: $({var}) is not defined"));
                    resolved.replace_range(start..=end, value);
                }
                args.push(resolved);
            }
            if args.first().map(String::as_str) == Some("simpairs") {
                args.remove(0);
            }
            let (sub, flags) = check_command(&args, &whence);
            if sub == "serve" {
                let port = port_of(flags.get("--listen").expect("--listen"));
                let ports = container
                    .get("ports")
                    .and_then(Value::as_sequence)
                    .expect("ports");
                assert!(
                    ports
                        .iter()
                        .any(|p| p["containerPort"].as_u64() == Some(u64::from(port))),
                    "{whence}: --listen port {port} is not a containerPort"
                );
                for probe in ["readinessProbe", "livenessProbe"] {
                    let port_ref = get(container, &[probe, "httpGet", "port"]).expect(probe);
                    let matches = match port_ref {
                        Value::Number(n) => n.as_u64() == Some(u64::from(port)),
                        Value::String(name) => ports.iter().any(|p| {
                            p.get("name") == Some(&Value::from(name.as_str()))
                                && p["containerPort"].as_u64() == Some(u64::from(port))
                        }),
                        _ => false,
                    };
                    assert!(matches, "{whence}: {probe} is not on the listen port");
                }
            }
            roles.insert(sub, (name.clone(), spec["replicas"].as_u64().unwrap_or(1)));
        }
    }
    let (_, aggregator_replicas) = roles.get("aggregate").expect("an aggregator Deployment");
    assert_eq!(
        *aggregator_replicas, 2,
        "the aggregator runs two replicas in one group"
    );
    let (projection, _) = roles.get("serve").expect("a projection Deployment");

    // The Service reaches the projection's pods on its listen port.
    let projection_labels = get(
        deployments[projection],
        &["spec", "template", "metadata", "labels"],
    )
    .and_then(Value::as_mapping)
    .unwrap();
    let service = services
        .values()
        .find(|s| {
            get(s, &["spec", "selector"])
                .and_then(Value::as_mapping)
                .is_some_and(|sel| sel.iter().all(|(k, v)| projection_labels.get(k) == Some(v)))
        })
        .expect("a Service selecting the projection");
    let container_ports = get(
        deployments[projection],
        &["spec", "template", "spec", "containers"],
    )
    .and_then(Value::as_sequence)
    .unwrap()[0]["ports"]
        .clone();
    for port in service["spec"]["ports"].as_sequence().unwrap() {
        let target = &port["targetPort"];
        let ok = container_ports
            .as_sequence()
            .unwrap()
            .iter()
            .any(|p| match target {
                Value::Number(n) => p["containerPort"].as_u64() == n.as_u64(),
                Value::String(name) => p.get("name") == Some(&Value::from(name.as_str())),
                _ => false,
            });
        assert!(
            ok,
            "the Service's targetPort {target:?} is not a port of the projection"
        );
    }
}
