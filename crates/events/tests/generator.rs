//! The generator (`build.rs`) refuses what it cannot map, in words naming the file and the
//! field. Its modules are compiled here as they are in the build script.

#[allow(
    dead_code,
    reason = "the build script's modules: the tests use the reading part"
)]
#[path = "../build/canonical.rs"]
mod canonical;
#[allow(
    dead_code,
    reason = "the build script's modules: the tests use the reading part"
)]
#[path = "../build/events.rs"]
mod events;
#[allow(
    dead_code,
    reason = "the build script's modules: the tests use the reading part"
)]
#[path = "../build/schema.rs"]
mod schema;

use schema::Catalog;

/// A record type's schema with `fields` (JSON) and `extra` top-level attributes.
fn record(name: &str, extra: &str, fields: &str) -> String {
    format!(
        r#"{{"type": "record", "name": "{name}", "namespace": "simpairs", "version": 1,
        "stream": "results", "key": ["event_id"], {extra} "doc": "A record.",
        "fields": [{{"name": "event_id", "type": "string", "doc": "The event."}}, {fields}]}}"#
    )
}

/// What reading the files (path, text) into one catalog says, or `Ok`.
fn read(files: &[(&str, String)]) -> Result<Catalog, String> {
    let mut catalog = Catalog::default();
    for (path, text) in files {
        schema::read_current(&mut catalog, path, text)?;
    }
    events::finish(&mut catalog)?;
    Ok(catalog)
}

/// The error reading one file `Thing.avsc` with `fields` gives.
fn error(extra: &str, fields: &str) -> String {
    let text = record("Thing", extra, fields);
    match read(&[("schemas/Thing.avsc", text)]) {
        Ok(_) => panic!("read without an error: {fields}"),
        Err(e) => e,
    }
}

fn assert_says(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "{message:?} does not say {part:?}");
    }
}

#[test]
fn a_plain_record_reads() {
    let fields =
        r#"{"name": "n", "type": ["null", {"type": "array", "items": "long"}], "doc": "N."}"#;
    let catalog = read(&[("schemas/Thing.avsc", record("Thing", "", fields))]).unwrap();
    assert_eq!(catalog.events.len(), 1);
    assert_eq!(
        catalog.events[0].canonical_form,
        r#"{"name":"simpairs.Thing","type":"record","fields":[{"name":"event_id","type":"string"},{"name":"n","type":["null",{"type":"array","items":"long"}]}]}"#
    );
}

#[test]
fn unknown_and_misapplied_rust_attributes_are_refused() {
    let misspelt = error(
        "",
        r#"{"name": "s", "type": "string", "rust.typ": "Text", "doc": "S."}"#,
    );
    assert_says(
        &misspelt,
        &[
            "schemas/Thing.avsc",
            "field Thing.s",
            "unknown attribute rust.typ",
        ],
    );
    let on_int = error(
        "",
        r#"{"name": "n", "type": "int", "rust.type": "Text", "doc": "N."}"#,
    );
    assert_says(
        &on_int,
        &[
            "schemas/Thing.avsc",
            "field Thing.n",
            "rust.type \"Text\" does not apply",
        ],
    );
    let derive = error(
        "\"rust.derive\": [\"Copy\"],",
        r#"{"name": "n", "type": "int", "doc": "N."}"#,
    );
    assert_says(
        &derive,
        &[
            "schemas/Thing.avsc",
            "field Thing.event_id",
            "Thing derives Copy",
        ],
    );
}

#[test]
fn unmapped_avro_types_are_refused() {
    for (ty, says) in [
        (
            r#"{"type": "map", "values": "int"}"#,
            "does not map Avro maps",
        ),
        (
            r#"{"type": "fixed", "name": "F", "size": 4}"#,
            "does not map Avro fixeds",
        ),
        (
            r#"["string", "null"]"#,
            "only unions of null and one other type",
        ),
        (
            r#"["null", "string", "int"]"#,
            "only unions of null and one other type",
        ),
        (r#""float""#, "float is not mapped"),
        (
            r#"{"type": "int", "logicalType": "date"}"#,
            "logical types are not supported",
        ),
        (r#""Nowhere""#, "Nowhere is not defined before this point"),
    ] {
        let message = error(
            "",
            &format!(r#"{{"name": "x", "type": {ty}, "doc": "X."}}"#),
        );
        assert_says(&message, &["schemas/Thing.avsc", "field Thing.x", says]);
    }
}

#[test]
fn recursive_types_are_refused() {
    let fields = r#"{"name": "node", "type": {"type": "record", "name": "Node", "doc": "N.",
        "fields": [{"name": "next", "type": ["null", "Node"], "doc": "Next."}]}, "doc": "N."}"#;
    assert_says(
        &error("", fields),
        &["field Node.next", "Node is not defined", "recursive"],
    );
}

#[test]
fn names_rust_cannot_take_are_refused() {
    let camel = error(
        "",
        r#"{"name": "eventName", "type": "string", "doc": "N."}"#,
    );
    assert_says(&camel, &["field Thing.eventName", "not snake_case"]);
    let lower = r#"{"name": "t", "type": {"type": "enum", "name": "kind", "symbols": ["A"], "doc": "K."}, "doc": "T."}"#;
    assert_says(
        &error("", lower),
        &["field Thing.t", "kind is not UpperCamelCase"],
    );
    let clash = r#"{"name": "t", "type": {"type": "enum", "name": "K", "symbols": ["A_B", "A__B"], "doc": "K."}, "doc": "T."}"#;
    assert_says(
        &error("", clash),
        &["K", "symbol A__B makes the Rust variant of another"],
    );
}

#[test]
fn streams_and_keys_are_checked() {
    let no_stream = record("Thing", "", r#"{"name": "n", "type": "int", "doc": "N."}"#)
        .replace(r#""stream": "results","#, "");
    let message = read(&[("schemas/Thing.avsc", no_stream)]).unwrap_err();
    assert_says(&message, &["schemas/Thing.avsc", "no \"stream\" attribute"]);
    let wrong = record("Thing", "", r#"{"name": "n", "type": "int", "doc": "N."}"#)
        .replace(r#""stream": "results","#, r#""stream": "scores","#);
    let message = read(&[("schemas/Thing.avsc", wrong)]).unwrap_err();
    assert_says(&message, &["stream \"scores\" is not one of"]);
    let key = record("Thing", "", r#"{"name": "n", "type": "int", "doc": "N."}"#)
        .replace(r#""key": ["event_id"]"#, r#""key": ["event_id", "board"]"#);
    let message = read(&[("schemas/Thing.avsc", key)]).unwrap_err();
    assert_says(
        &message,
        &["schemas/Thing.avsc", "key field board", "no such field"],
    );
    let misnamed = read(&[(
        "schemas/Other.avsc",
        record("Thing", "", r#"{"name": "n", "type": "int", "doc": "N."}"#),
    )]);
    assert_says(
        &misnamed.unwrap_err(),
        &["schemas/Other.avsc", "must be named Thing.avsc"],
    );
}

#[test]
fn copies_of_a_named_type_must_agree() {
    let kind = |symbols: &str, extra: &str| {
        format!(
            r#"{{"name": "k", "type": {{"type": "enum", "name": "Kind", "symbols": [{symbols}], {extra} "doc": "K."}}, "doc": "K."}}"#
        )
    };
    let a = record("Alpha", "", &kind(r#""A", "B""#, ""));
    let same = record("Beta", "", &kind(r#""A", "B""#, ""));
    assert!(
        read(&[
            ("schemas/Alpha.avsc", a.clone()),
            ("schemas/Beta.avsc", same)
        ])
        .is_ok()
    );
    for other in [
        kind(r#""A", "C""#, ""),
        kind(r#""A", "B""#, r#""rust.non_exhaustive": true,"#),
    ] {
        let b = record("Beta", "", &other);
        let message =
            read(&[("schemas/Alpha.avsc", a.clone()), ("schemas/Beta.avsc", b)]).unwrap_err();
        assert_says(
            &message,
            &[
                "schemas/Beta.avsc",
                "Kind",
                "defined differently from schemas/Alpha.avsc",
            ],
        );
    }
}
