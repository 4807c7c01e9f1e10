//! The record types of the log: the top-level records of the current schema files, with the
//! stream they travel on and their partition key (the `"stream"` and `"key"` attributes), and
//! the checks that need every file read.

use serde_json::{Map, Value};

use crate::canonical::fingerprint;
use crate::schema::{Catalog, EventSchema, KeyPart, Named, Result, STREAMS, Ty, fail};

/// The record type of a current file, from its top-level attributes.
pub fn event_schema(
    catalog: &Catalog,
    path: &str,
    top: &Map<String, Value>,
    name: &str,
    canonical_form: String,
) -> Result<EventSchema> {
    let version = version(path, top)?;
    let stream = stream(path, top)?;
    let Some(Value::Array(parts)) = top.get("key") else {
        return fail(
            path,
            "",
            "no \"key\" attribute (the partition key: a list of field names)",
        );
    };
    let Some(record) = catalog.record(name) else {
        return fail(path, "", "the top-level record was not read");
    };
    let field_ty = |field: &str| {
        record
            .fields
            .iter()
            .find(|f| f.name == field)
            .map(|f| &f.ty)
    };
    let mut key = Vec::new();
    for part in parts {
        key.push(key_part(path, part, &field_ty)?);
    }
    if key.is_empty() {
        return fail(path, "", "the \"key\" attribute is empty");
    }
    let optional_str = |ty: &Ty| matches!(ty, Ty::Optional(inner) if matches!(**inner, Ty::Str(_)));
    if let Some(ty) = field_ty("event_id")
        && !matches!(ty, Ty::Str(_))
        && !optional_str(ty)
    {
        return fail(
            path,
            "field event_id",
            "event_id must be a string or an optional string",
        );
    }
    Ok(EventSchema {
        name: name.to_string(),
        path: path.to_string(),
        doc: record.doc.clone(),
        version,
        stream,
        key,
        fingerprint: fingerprint(canonical_form.as_bytes()),
        canonical_form,
    })
}

/// The `"version"` attribute: a positive integer.
fn version(path: &str, top: &Map<String, Value>) -> Result<u64> {
    match top.get("version").and_then(Value::as_u64) {
        Some(v) if (1..=u64::from(u32::MAX)).contains(&v) => Ok(v),
        _ => fail(path, "", "no \"version\" attribute (a positive integer)"),
    }
}

/// The `"stream"` attribute, as a position in [`STREAMS`].
fn stream(path: &str, top: &Map<String, Value>) -> Result<usize> {
    let Some(name) = top.get("stream").and_then(Value::as_str) else {
        return fail(
            path,
            "",
            format_args!("no \"stream\" attribute (one of {STREAMS:?})"),
        );
    };
    match STREAMS.iter().position(|known| *known == name) {
        Some(stream) => Ok(stream),
        None => fail(
            path,
            "",
            format_args!("stream {name:?} is not one of {STREAMS:?}"),
        ),
    }
}

/// One part of a `"key"`: a field name, or a list of them (the first that is not null).
fn key_part<'t>(
    path: &str,
    part: &Value,
    field_ty: &impl Fn(&str) -> Option<&'t Ty>,
) -> Result<KeyPart> {
    let names: Vec<&str> = match part {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) if names.len() >= 2 => names.iter().filter_map(Value::as_str).collect(),
        _ => {
            return fail(
                path,
                "key",
                format_args!("{part} is neither a field name nor a list of two or more"),
            );
        }
    };
    let last = names.len() - 1;
    for (i, name) in names.iter().enumerate() {
        let at = format!("key field {name}");
        let ok = match field_ty(name) {
            None => return fail(path, &at, "no such field at the top level of the record"),
            Some(Ty::Str(_)) => true,
            Some(Ty::Int | Ty::Long) => last == 0,
            Some(Ty::Optional(inner)) => i < last && matches!(**inner, Ty::Str(_)),
            Some(_) => false,
        };
        if !ok {
            return fail(
                path,
                &at,
                "a key part is a string, int or long field; in a list of alternatives, every \
                 field but the last is an optional string and the last a string",
            );
        }
    }
    Ok(match part {
        Value::String(name) => KeyPart::Field(name.clone()),
        _ => KeyPart::FirstOf(names.iter().map(|n| n.to_string()).collect()),
    })
}

/// Checks that need every type: the extra derives hold (no `Copy` of a string, no `Hash` or
/// `Ord` of a float, derives the field types have too), then sorts the record types by stream
/// (upstream first) and name.
pub fn finish(catalog: &mut Catalog) -> Result<()> {
    for named in &catalog.named {
        let Named::Record(record) = named else {
            continue;
        };
        for derive in &record.derives {
            for field in &record.fields {
                if !has_derive(catalog, &field.ty, derive) {
                    return fail(
                        &record.file,
                        &format!("field {}.{}", record.name, field.name),
                        format_args!(
                            "{} derives {derive} but this field's type does not (strings, bytes \
                             and arrays are not Copy, floats not Hash or Ord; a named type needs \
                             \"rust.derive\": [\"{derive}\"] of its own)",
                            record.name
                        ),
                    );
                }
            }
        }
    }
    catalog
        .events
        .sort_by(|a, b| (a.stream, &a.name).cmp(&(b.stream, &b.name)));
    Ok(())
}

/// Whether values of `ty` can derive `derive`.
pub fn has_derive(catalog: &Catalog, ty: &Ty, derive: &str) -> bool {
    match ty {
        Ty::Bool | Ty::Int | Ty::Long => true,
        Ty::Double => matches!(derive, "Copy" | "PartialOrd"),
        Ty::Str(_) | Ty::Bytes | Ty::Array(_) if derive == "Copy" => false,
        Ty::Str(_) | Ty::Bytes => true,
        Ty::Array(inner) | Ty::Optional(inner) => has_derive(catalog, inner, derive),
        Ty::Named(name) => match catalog.get(name) {
            Some(Named::Enum(e)) => {
                matches!(derive, "Copy" | "Hash") || e.derives.iter().any(|d| d == derive)
            }
            Some(Named::Record(r)) => r.derives.iter().any(|d| d == derive),
            None => false,
        },
    }
}

/// Whether `ty` holds no float: its type can derive `Eq`.
pub fn is_eq(catalog: &Catalog, ty: &Ty) -> bool {
    match ty {
        Ty::Double => false,
        Ty::Array(inner) | Ty::Optional(inner) => is_eq(catalog, inner),
        Ty::Named(name) => match catalog.get(name) {
            Some(Named::Record(r)) => r.fields.iter().all(|f| is_eq(catalog, &f.ty)),
            _ => true,
        },
        _ => true,
    }
}
