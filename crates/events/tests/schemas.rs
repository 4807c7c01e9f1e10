//! The schema files themselves: documented, versioned, registered, consistent copies of
//! shared named types, and fingerprints as the Avro specification defines them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use simpairs_events::{Codec, EventType, NAMESPACE};

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas")
}

/// Every `.avsc` file under `schemas/`, as paths relative to the repository.
fn schema_files() -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path(), &format!("{prefix}{name}/"), out);
            } else if name.ends_with(".avsc") {
                out.push(format!("{prefix}{name}"));
            }
        }
    }
    let mut files = Vec::new();
    walk(&schemas_dir(), "schemas/", &mut files);
    files.sort();
    files
}

#[test]
fn every_schema_file_is_registered_and_every_type_has_one() {
    let codec = Codec::new().unwrap();
    let mut registered: Vec<String> = codec.schemas().map(|s| s.path().to_string()).collect();
    registered.sort();
    assert_eq!(registered, schema_files());
    for event_type in EventType::ALL {
        let current = codec.current_schema(event_type);
        assert_eq!(current.event_type(), event_type);
        assert!(current.is_current());
        assert_eq!(
            current.path(),
            format!("schemas/{}.avsc", event_type.name())
        );
    }
}

#[test]
fn registry_text_matches_the_files_on_disk() {
    let codec = Codec::new().unwrap();
    for info in codec.schemas() {
        let on_disk = std::fs::read_to_string(schemas_dir().join("..").join(info.path())).unwrap();
        assert_eq!(info.json(), on_disk, "{}", info.path());
    }
}

#[test]
fn fingerprints_are_unique() {
    let codec = Codec::new().unwrap();
    let mut seen = BTreeMap::new();
    for info in codec.schemas() {
        if let Some(other) = seen.insert(info.fingerprint(), info.path()) {
            panic!("{} and {other} share a fingerprint", info.path());
        }
    }
}

/// Checks docs recursively: every named type and every field has a non-empty `doc`.
fn check_docs(schema: &Value, at: &str, missing: &mut Vec<String>) {
    match schema {
        Value::Array(branches) => {
            for branch in branches {
                check_docs(branch, at, missing);
            }
        }
        Value::Object(object) => {
            let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
            let has_doc = |o: &serde_json::Map<String, Value>| {
                o.get("doc")
                    .and_then(Value::as_str)
                    .is_some_and(|d| !d.trim().is_empty())
            };
            if matches!(kind, "record" | "enum" | "fixed") && !has_doc(object) {
                missing.push(format!("{at}: type {}", object["name"]));
            }
            if let Some(Value::Array(fields)) = object.get("fields") {
                for field in fields {
                    let name = field["name"].as_str().unwrap();
                    let field_at = format!("{at}.{name}");
                    if !has_doc(field.as_object().unwrap()) {
                        missing.push(field_at.clone());
                    }
                    check_docs(&field["type"], &field_at, missing);
                }
            }
            for key in ["items", "values"] {
                if let Some(inner) = object.get(key) {
                    check_docs(inner, at, missing);
                }
            }
            if let Some(inner @ (Value::Object(_) | Value::Array(_))) = object.get("type") {
                check_docs(inner, at, missing);
            }
        }
        _ => {}
    }
}

#[test]
fn every_type_and_field_is_documented_and_versioned() {
    let codec = Codec::new().unwrap();
    let mut missing = Vec::new();
    for info in codec.schemas() {
        let json: Value = serde_json::from_str(info.json()).unwrap();
        assert_eq!(json["namespace"], NAMESPACE, "{}", info.path());
        assert_eq!(json["version"], info.version(), "{}", info.path());
        check_docs(&json, info.path(), &mut missing);
    }
    assert!(missing.is_empty(), "undocumented: {missing:#?}");
}

/// Collects the definitions of named types (docs removed, nested definitions replaced by
/// their names) into `defs`, keyed by name.
fn collect_named(schema: &Value, file: &str, defs: &mut Vec<(String, String, Value)>) -> Value {
    match schema {
        Value::Array(branches) => Value::Array(
            branches
                .iter()
                .map(|b| collect_named(b, file, defs))
                .collect(),
        ),
        Value::Object(object) => {
            let mut stripped = serde_json::Map::new();
            for (key, value) in object {
                match key.as_str() {
                    "doc" | "version" | "namespace" => {}
                    "fields" => {
                        let fields = value
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|f| {
                                let mut f = f.as_object().unwrap().clone();
                                f.remove("doc");
                                let ty = collect_named(&f["type"], file, defs);
                                f.insert("type".into(), ty);
                                Value::Object(f)
                            })
                            .collect();
                        stripped.insert(key.clone(), Value::Array(fields));
                    }
                    "items" | "values" | "type" => {
                        stripped.insert(key.clone(), collect_named(value, file, defs));
                    }
                    _ => {
                        stripped.insert(key.clone(), value.clone());
                    }
                }
            }
            match object.get("name").and_then(Value::as_str) {
                Some(name) if object.contains_key("type") && !object.contains_key("default") => {
                    defs.push((name.to_string(), file.to_string(), Value::Object(stripped)));
                    Value::String(name.to_string())
                }
                _ => Value::Object(stripped),
            }
        }
        other => other.clone(),
    }
}

#[test]
fn copies_of_shared_named_types_agree() {
    // Each file defines the named types it uses (so its fingerprint covers them); where two
    // files define the same name, the definitions must be the same (docs aside) — except
    // across versions of one record type, which may differ by design.
    let codec = Codec::new().unwrap();
    let mut defs = Vec::new();
    for info in codec.schemas().filter(|s| s.is_current()) {
        let json: Value = serde_json::from_str(info.json()).unwrap();
        collect_named(&json, info.path(), &mut defs);
    }
    let mut by_name: BTreeMap<&str, Vec<(&str, &Value)>> = BTreeMap::new();
    for (name, file, def) in &defs {
        by_name.entry(name).or_default().push((file, def));
    }
    let mut shared = 0;
    for (name, copies) in &by_name {
        let (first_file, first) = copies[0];
        for (file, def) in &copies[1..] {
            shared += 1;
            assert_eq!(
                def, &first,
                "{name} differs between {first_file} and {file}"
            );
        }
    }
    assert!(shared >= 10, "expected shared types, found {shared} copies");
    for expected in [
        "Movement",
        "Adjusted",
        "Direction",
        "PairStanding",
        "ResultKey",
        "Player",
        "Scoring",
        "Factoring",
    ] {
        assert!(
            by_name.get(expected).is_some_and(|c| c.len() >= 2),
            "{expected} is not shared"
        );
    }
}

#[test]
fn canonical_form_drops_docs_and_attributes() {
    let codec = Codec::new().unwrap();
    assert_eq!(
        codec
            .current_schema(EventType::ResultWithdrawn)
            .canonical_form(),
        r#"{"name":"simpairs.ResultWithdrawn","type":"record","fields":[{"name":"event_id","type":"string"},{"name":"club_id","type":"string"},{"name":"submission_id","type":"string"},{"name":"sequence","type":"int"},{"name":"section","type":"string"},{"name":"board","type":"int"},{"name":"ns_pair","type":"string"},{"name":"ew_pair","type":"string"}]}"#
    );
}

/// CRC-64-AVRO as the Avro specification's reference code computes it ("Schema
/// Fingerprints"), written here independently of apache-avro.
fn fingerprint64(bytes: &[u8]) -> u64 {
    const EMPTY: u64 = 0xc15d_213a_a4d7_a795;
    let mut table = [0u64; 256];
    for (i, entry) in table.iter_mut().enumerate() {
        let mut fp = i as u64;
        for _ in 0..8 {
            fp = (fp >> 1) ^ (EMPTY & (fp & 1).wrapping_neg());
        }
        *entry = fp;
    }
    let mut fp = EMPTY;
    for &b in bytes {
        fp = (fp >> 8) ^ table[((fp ^ u64::from(b)) & 0xff) as usize];
    }
    fp
}

#[test]
fn fingerprints_follow_the_avro_specification() {
    // The reference implementation on the specification's primitive cases, as apache-avro
    // and the Java implementation give them.
    assert_eq!(fingerprint64(br#""null""#) as i64, 7195948357588979594);
    assert_eq!(fingerprint64(br#""boolean""#) as i64, -6970731678124411036);
    let codec = Codec::new().unwrap();
    for info in codec.schemas() {
        assert_eq!(
            info.fingerprint(),
            fingerprint64(info.canonical_form().as_bytes()),
            "{}",
            info.path()
        );
    }
}

/// Every published schema version's fingerprint, by record type and version: the bytes logs
/// hold start with these, so no edit of a file (docs, custom attributes, a copy into `v<N>/`)
/// may change one. A version newer than this table is pinned by its golden bytes (their
/// header is the fingerprint) until it is added here.
const PUBLISHED: [(&str, u32, u64); 17] = [
    ("EventDeclared", 1, 0xac27_f1dd_d4f7_3012),
    ("EventAmended", 1, 0x9d13_0b0c_edac_a1e5),
    ("EventAmended", 2, 0x7013_9ff4_e014_1aaf),
    ("ResultRecorded", 1, 0x4f02_2374_d936_e9dd),
    ("ResultRecorded", 2, 0xf97d_387d_ffbc_50c4),
    ("ResultsRecorded", 1, 0xae6d_179e_3837_7241),
    ("ResultWithdrawn", 1, 0x5d73_082a_82b1_5975),
    ("PairEntered", 1, 0x0670_20b3_43bb_7a15),
    ("SubmissionSealed", 1, 0xd749_b772_d1d6_6a91),
    ("SubmissionSealed", 2, 0xf240_831e_8009_2155),
    ("SubmissionSealed", 3, 0x3b8c_bff3_2b1a_599c),
    ("OutputSealed", 1, 0xeb0d_2bfd_dc3c_a735),
    ("SubmissionApplied", 1, 0x8c34_6e9e_41e6_a841),
    ("BoardScored", 1, 0x4640_0c83_bb02_cfbc),
    ("StandingsComputed", 1, 0xc8e6_5ca3_1d4f_2b54),
    ("LeaderboardPublished", 1, 0x3428_0fbf_7632_a162),
    ("DeadLettered", 1, 0x7287_9079_e298_3a26),
];

#[test]
fn published_fingerprints_never_change() {
    let codec = Codec::new().unwrap();
    for (name, version, fingerprint) in PUBLISHED {
        let info = codec
            .schemas()
            .find(|s| s.event_type().name() == name && s.version() == version)
            .unwrap_or_else(|| panic!("{name} version {version} is no longer registered"));
        assert_eq!(
            info.fingerprint(),
            fingerprint,
            "{}: the fingerprint of {name} version {version} changed: logs hold messages written with it",
            info.path()
        );
    }
}
