//! Generates the events' Rust types, their Avro codecs and the schema registry's file list
//! from the schema files, `schemas/*.avsc` (current versions) and `schemas/v<N>/*.avsc`
//! (older versions, only listed: apache-avro resolves them). Everything goes to `OUT_DIR`
//! and is `include!`d by `src/`:
//!
//! * `types.rs`: a struct per Avro record, an enum per Avro enum (`src/types.rs`);
//! * `event.rs`, `keys.md`: `Event`, `EventType`, streams and partition keys (`src/event.rs`);
//! * `wire.rs`: the readers, skippers and writers of every type, field by field in schema
//!   order, and the fingerprints they were generated for (`src/wire.rs`);
//! * `files.rs`: the schema files the registry parses (`src/schemas.rs`);
//! * `arb.rs`: random values of every type, for the property tests.
//!
//! What Avro does not say about the Rust side is said by custom attributes in the schemas
//! (Avro ignores them and they are not part of the Parsing Canonical Form, so fingerprints do
//! not change): `"stream"` and `"key"` on a top-level record, `"rust.type"` on a field,
//! `"rust.derive"` and `"rust.non_exhaustive"` on a named type. `schemas/README.md` lists
//! them. Anything the generator cannot map stops the build with the file and field named.

#[path = "build/arb.rs"]
mod arb;
#[path = "build/canonical.rs"]
mod canonical;
#[path = "build/emit.rs"]
mod emit;
#[path = "build/event_code.rs"]
mod event_code;
#[path = "build/events.rs"]
mod events;
#[path = "build/schema.rs"]
mod schema;
#[path = "build/wire.rs"]
mod wire;

use std::path::{Path, PathBuf};

fn main() {
    if let Err(message) = run() {
        eprintln!("error: the events cannot be generated from the schemas: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").ok_or("CARGO_MANIFEST_DIR is not set")?;
    let out_dir = std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?;
    let schemas = Path::new(&manifest).join("../../schemas");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=build");
    println!("cargo::rerun-if-changed={}", schemas.display());
    let (current, old) = schema_files(&schemas)?;
    let mut catalog = schema::Catalog::default();
    for path in &current {
        let text = read(&schemas, path)?;
        schema::read_current(&mut catalog, path, &text)?;
    }
    events::finish(&mut catalog)?;
    for path in &old {
        let stem = path
            .rsplit('/')
            .next()
            .unwrap_or(path)
            .trim_end_matches(".avsc");
        if !catalog.events.iter().any(|e| e.name == stem) {
            return Err(format!(
                "{path}: an old version of {stem}, which has no current schema"
            ));
        }
    }
    let outputs = [
        ("types.rs", emit::types(&catalog)),
        ("event.rs", event_code::events(&catalog)),
        ("keys.md", emit::keys_table(&catalog)),
        ("wire.rs", wire::wire(&catalog)),
        ("files.rs", emit::files(&catalog, &old)),
        ("arb.rs", arb::arb(&catalog)),
    ];
    for (name, text) in outputs {
        let path = Path::new(&out_dir).join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The schema files, as paths relative to the repository (`schemas/X.avsc`), sorted: the
/// current versions, then the older ones (`schemas/v<N>/X.avsc`).
fn schema_files(schemas: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    let (mut current, mut old) = (Vec::new(), Vec::new());
    for (name, path) in entries(schemas)? {
        if path.is_dir() {
            let is_version = name
                .strip_prefix('v')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if !is_version {
                return Err(format!(
                    "schemas/{name}/: only v<N>/ directories (older versions) belong in schemas/"
                ));
            }
            for (file, file_path) in entries(&path)? {
                if file_path.is_file() && file.ends_with(".avsc") {
                    old.push(format!("schemas/{name}/{file}"));
                }
            }
        } else if name.ends_with(".avsc") {
            current.push(format!("schemas/{name}"));
        }
    }
    current.sort();
    old.sort();
    Ok((current, old))
}

/// The entries of a directory, by name.
fn entries(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let listing = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut entries = Vec::new();
    for entry in listing {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|n| format!("{}: {n:?} is not UTF-8", dir.display()))?;
        entries.push((name, entry.path()));
    }
    entries.sort();
    Ok(entries)
}

/// The text of `path` (`schemas/X.avsc`), `schemas` being the `schemas/` directory.
fn read(schemas: &Path, path: &str) -> Result<String, String> {
    let file = schemas.join(path.trim_start_matches("schemas/"));
    std::fs::read_to_string(&file).map_err(|e| format!("{path}: {e}"))
}
