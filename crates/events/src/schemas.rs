//! The schema files, embedded at build time and parsed once per process.
//!
//! `schemas/<Type>.avsc` is the current version of each record type; older versions that
//! may still be found in logs live in `schemas/v<N>/<Type>.avsc`. `build.rs` finds them all
//! and lists them (`FILES`, in `OUT_DIR`): a file copied into `v<N>/` is registered by being
//! there. Each file is self-contained (it defines every named type it uses), and its
//! top-level record carries a `"version"` attribute. Custom attributes and docs are not part
//! of the Parsing Canonical Form, so they never change a fingerprint.

use std::sync::OnceLock;

use apache_avro::Schema;
use apache_avro::rabin::Rabin;
use apache_avro::schema_compatibility::{Compatibility, SchemaCompatibility};

use crate::error::{Error, Result};
use crate::event::EventType;

/// Namespace of every record in `schemas/`.
pub const NAMESPACE: &str = "simpairs";

/// One embedded schema file.
struct SchemaFile {
    /// Path relative to the repository root.
    path: &'static str,
    /// The file's text.
    json: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/files.rs"));

/// A schema of the registry: one version of one record type.
#[derive(Debug)]
pub struct SchemaInfo {
    event_type: EventType,
    version: u32,
    current: bool,
    path: &'static str,
    json: &'static str,
    schema: Schema,
    canonical_form: String,
    fingerprint: u64,
}

impl SchemaInfo {
    /// The record type.
    pub fn event_type(&self) -> EventType {
        self.event_type
    }

    /// The schema's version (its `"version"` attribute), from 1.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Whether this is the version the codec writes and reads into.
    pub fn is_current(&self) -> bool {
        self.current
    }

    /// The file it was read from, relative to the repository (`schemas/v1/ResultRecorded.avsc`).
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// The file's text, docs included.
    pub fn json(&self) -> &'static str {
        self.json
    }

    /// The parsed schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The schema's Parsing Canonical Form (Avro specification), which the fingerprint hashes.
    pub fn canonical_form(&self) -> &str {
        &self.canonical_form
    }

    /// CRC-64-AVRO (Rabin) fingerprint of the canonical form, as the `u64` whose
    /// little-endian bytes follow `C3 01` in every message written with this schema.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
}

/// Every schema, parsed and checked.
#[derive(Debug)]
pub(crate) struct Registry {
    /// Current versions at `EventType::index()`, then older versions.
    pub(crate) schemas: Vec<SchemaInfo>,
}

impl Registry {
    /// The registry of the embedded files, parsed on first use.
    pub(crate) fn get() -> Result<&'static Registry> {
        static REGISTRY: OnceLock<Result<Registry>> = OnceLock::new();
        REGISTRY
            .get_or_init(Registry::parse)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The current schema of `event_type`.
    pub(crate) fn current(&self, event_type: EventType) -> &SchemaInfo {
        &self.schemas[event_type.index()]
    }

    fn parse() -> Result<Registry> {
        let mut schemas: Vec<SchemaInfo> = Vec::with_capacity(FILES.len());
        for file in FILES {
            let info = parse_file(file)?;
            let slot = schemas.len();
            if slot < EventType::ALL.len() {
                if !info.current || info.event_type.index() != slot {
                    return Err(invalid(
                        file.path,
                        format!("expected the current {} here", EventType::ALL[slot]),
                    ));
                }
            } else if info.current {
                return Err(invalid(
                    file.path,
                    "a current schema listed among old ones".into(),
                ));
            }
            if let Some(other) = schemas.iter().find(|s| s.fingerprint == info.fingerprint) {
                return Err(invalid(
                    file.path,
                    format!("same canonical form as {}", other.path),
                ));
            }
            schemas.push(info);
        }
        // Every old version must have a lower version number than the current one and be
        // readable by it (Avro schema resolution), or old logs would stop decoding.
        for old in &schemas[EventType::ALL.len()..] {
            let current = &schemas[old.event_type.index()];
            let path = old.path;
            if old.version >= current.version {
                return Err(invalid(
                    path,
                    format!(
                        "version {} is not older than the current version {}",
                        old.version, current.version
                    ),
                ));
            }
            match SchemaCompatibility::can_read(&old.schema, &current.schema) {
                Ok(Compatibility::Full) => {}
                Ok(partial) => {
                    return Err(invalid(
                        path,
                        format!("the current schema reads it only partially ({partial:?})"),
                    ));
                }
                Err(e) => {
                    return Err(invalid(
                        path,
                        format!("the current schema cannot read it: {e}"),
                    ));
                }
            }
        }
        Ok(Registry { schemas })
    }
}

fn invalid(path: &'static str, detail: String) -> Error {
    Error::Schema { path, detail }
}

fn parse_file(file: &'static SchemaFile) -> Result<SchemaInfo> {
    let schema = Schema::parse_str(file.json).map_err(|e| invalid(file.path, e.to_string()))?;
    let Schema::Record(record) = &schema else {
        return Err(invalid(
            file.path,
            "the top-level type is not a record".into(),
        ));
    };
    if record.name.namespace() != Some(NAMESPACE) {
        return Err(invalid(
            file.path,
            format!("the namespace is not {NAMESPACE}"),
        ));
    }
    let name = record.name.name();
    let event_type = EventType::from_name(name)
        .ok_or_else(|| invalid(file.path, format!("{name} is not an event type")))?;
    let version = record
        .attributes
        .get("version")
        .and_then(serde_json::Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .filter(|&v| v >= 1)
        .ok_or_else(|| {
            invalid(
                file.path,
                "no \"version\" attribute (a positive integer)".into(),
            )
        })?;
    let stem = file
        .path
        .strip_prefix("schemas/")
        .unwrap_or(file.path)
        .trim_end_matches(".avsc");
    let current = match stem.split_once('/') {
        None => true,
        Some((dir, _)) if dir == format!("v{version}") => false,
        Some((dir, _)) => {
            return Err(invalid(
                file.path,
                format!("an old version {version} must live in schemas/v{version}/, not {dir}/"),
            ));
        }
    };
    if stem.rsplit('/').next() != Some(name) {
        return Err(invalid(
            file.path,
            format!("the file is not named after its record {name}"),
        ));
    }
    let canonical_form = schema.canonical_form();
    let bytes = schema.fingerprint::<Rabin>().bytes;
    let fingerprint = <[u8; 8]>::try_from(bytes.as_slice())
        .map(u64::from_le_bytes)
        .map_err(|_| invalid(file.path, "the Rabin fingerprint is not 8 bytes".into()))?;
    Ok(SchemaInfo {
        event_type,
        version,
        current,
        path: file.path,
        json: file.json,
        schema,
        canonical_form,
        fingerprint,
    })
}
