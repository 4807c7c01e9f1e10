//! `wire.rs`: for every record and enum, a reader, a skipper and a writer of its Avro binary
//! encoding that walk the fields in schema order (`impl Wire`, `impl Record`), and the
//! dispatch from an `EventType` or an `Event` to them and to apache-avro's.
//!
//! The runtime they call (`Datum`, `Out`: varints, strings, unions, arrays in blocks) is
//! hand-written, in `src/wire.rs`.

use crate::emit::{HEADER, emit, ident, lit};
use crate::schema::{Catalog, Enum, Named, Record, StrRepr, Ty};

pub fn wire(catalog: &Catalog) -> String {
    let mut out = String::from(HEADER);
    for named in &catalog.named {
        let event = catalog.events.iter().any(|e| e.name == named.name());
        match named {
            Named::Record(record) => {
                record_wire(&mut out, record, !event);
                record_fields(&mut out, record);
            }
            Named::Enum(enumeration) => enum_wire(&mut out, enumeration),
        }
    }
    dispatch(&mut out, catalog);
    apache_dispatch(&mut out, catalog);
    out
}

/// An expression reading a `ty`: a `Result<T, Stop>`.
fn read(ty: &Ty, what: &str) -> String {
    match ty {
        Ty::Bool => format!("d.boolean({what})"),
        Ty::Int => format!("d.int({what})"),
        Ty::Long => format!("d.long({what})"),
        Ty::Double => format!("d.double({what})"),
        Ty::Bytes => format!("d.bytes({what}).map(<[u8]>::to_vec)"),
        Ty::Str(StrRepr::String) => format!("d.str({what}).map(str::to_string)"),
        Ty::Str(StrRepr::Text) => format!("d.str({what}).map(crate::types::Text::from)"),
        Ty::Named(name) => format!("<crate::types::{name} as Wire>::read(d, {what})"),
        Ty::Optional(inner) => format!("d.optional({what}, |d| {})", read(inner, what)),
        Ty::Array(inner) => format!("d.array({what}, |d| {})", read(inner, what)),
    }
}

/// An expression reading a `ty` as [`read`] does, but a string or bytes (also in a union) as
/// borrowed from the datum, made owned by [`own`] once every field is read: nothing is
/// allocated, and dropped again, for a record a later field of which is damaged.
fn read_raw(ty: &Ty, what: &str) -> String {
    match ty {
        Ty::Bytes => format!("d.bytes({what})"),
        Ty::Str(_) => format!("d.str({what})"),
        Ty::Optional(inner) if matches!(**inner, Ty::Bytes | Ty::Str(_)) => {
            format!("d.optional({what}, |d| {})", read_raw(inner, what))
        }
        _ => read(ty, what),
    }
}

/// The value of a field read by [`read_raw`] into `var`, owned.
fn own(ty: &Ty, var: &str) -> String {
    match ty {
        Ty::Bytes => format!("{var}.to_vec()"),
        Ty::Str(StrRepr::String) => format!("{var}.to_string()"),
        Ty::Str(StrRepr::Text) => format!("crate::types::Text::from({var})"),
        Ty::Optional(inner) => match **inner {
            Ty::Bytes => format!("{var}.map(<[u8]>::to_vec)"),
            Ty::Str(StrRepr::String) => format!("{var}.map(str::to_string)"),
            Ty::Str(StrRepr::Text) => format!("{var}.map(crate::types::Text::from)"),
            _ => var.to_string(),
        },
        _ => var.to_string(),
    }
}

/// An expression checking a `ty` as [`read`] does without building it: a `Result<(), Stop>`.
fn skip(ty: &Ty, what: &str) -> String {
    match ty {
        Ty::Bool => format!("d.boolean({what}).map(drop)"),
        Ty::Int => format!("d.int({what}).map(drop)"),
        Ty::Long => format!("d.long({what}).map(drop)"),
        Ty::Double => format!("d.double({what}).map(drop)"),
        Ty::Bytes => format!("d.bytes({what}).map(drop)"),
        Ty::Str(_) => format!("d.checked_str({what})"),
        Ty::Named(name) => format!("<crate::types::{name} as Wire>::skip(d, {what})"),
        Ty::Optional(inner) => format!("d.optional({what}, |d| {}).map(drop)", skip(inner, what)),
        Ty::Array(inner) => format!("d.each({what}, |d| {})", skip(inner, what)),
    }
}

/// A statement writing `place`, a field (`self.name`) or, `by_ref`, a reference (`v`).
fn write(ty: &Ty, place: &str, by_ref: bool) -> String {
    let value = if by_ref {
        format!("*{place}")
    } else {
        place.to_string()
    };
    let reference = if by_ref {
        place.to_string()
    } else {
        format!("&{place}")
    };
    match ty {
        Ty::Bool => format!("o.boolean({value})"),
        Ty::Int => format!("o.int({value})"),
        Ty::Long => format!("o.long({value})"),
        Ty::Double => format!("o.double({value})"),
        Ty::Bytes => format!("o.bytes({reference})"),
        Ty::Str(_) => format!("o.str({reference})"),
        Ty::Named(_) => format!("{place}.write(o)"),
        Ty::Optional(inner) => format!(
            "o.optional({reference}, |o, v| {})",
            write(inner, "v", true)
        ),
        Ty::Array(inner) => format!("o.array({reference}, |o, v| {})", write(inner, "v", true)),
    }
}

/// The `impl Wire` of a record. The readers of records inside others are inlined into their
/// callers (`inline`): left to LLVM, `ResultLine`'s stayed a call of its own, and reading a batch
/// of results cost 5% more CPU than the hand-written reader it replaced; inlined, 6% less.
fn record_wire(out: &mut String, record: &Record, inline: bool) {
    let name = &record.name;
    let what = |field: &str| lit(&format!("{name}.{field}"));
    let inline = if inline {
        "    #[inline(always)]\n"
    } else {
        ""
    };
    emit!(out);
    emit!(out, "impl Wire for crate::types::{name} {{");
    emit!(
        out,
        "{inline}    fn read(d: &mut Datum<'_>, _: &'static str) -> Result<Self, Stop> {{"
    );
    for (i, field) in record.fields.iter().enumerate() {
        emit!(
            out,
            "        let v{i} = {}?;",
            read_raw(&field.ty, &what(&field.name))
        );
    }
    emit!(out, "        Ok(crate::types::{name} {{");
    for (i, field) in record.fields.iter().enumerate() {
        emit!(
            out,
            "            {}: {},",
            ident(&field.name),
            own(&field.ty, &format!("v{i}"))
        );
    }
    emit!(out, "        }})");
    emit!(out, "    }}");
    emit!(out);
    emit!(
        out,
        "{inline}    fn skip(d: &mut Datum<'_>, _: &'static str) -> Result<(), Stop> {{"
    );
    for field in &record.fields {
        emit!(out, "        {}?;", skip(&field.ty, &what(&field.name)));
    }
    emit!(out, "        Ok(())");
    emit!(out, "    }}");
    emit!(out);
    emit!(out, "{inline}    fn write(&self, o: &mut Out<'_>) {{");
    for field in &record.fields {
        emit!(
            out,
            "        {};",
            write(&field.ty, &format!("self.{}", ident(&field.name)), false)
        );
    }
    emit!(out, "    }}");
    emit!(out, "}}");
}

fn record_fields(out: &mut String, record: &Record) {
    let name = &record.name;
    let names: Vec<String> = record.fields.iter().map(|f| lit(&f.name)).collect();
    emit!(out);
    emit!(out, "impl Record for crate::types::{name} {{");
    emit!(
        out,
        "    const FIELDS: &'static [&'static str] = &[{}];",
        names.join(", ")
    );
    emit!(out);
    emit!(
        out,
        "    fn skip_field(d: &mut Datum<'_>, index: usize) -> Result<(), Stop> {{"
    );
    emit!(out, "        match index {{");
    for (i, field) in record.fields.iter().enumerate() {
        emit!(
            out,
            "            {i} => {},",
            skip(&field.ty, &lit(&format!("{name}.{}", field.name)))
        );
    }
    emit!(out, "            _ => Ok(()),");
    emit!(out, "        }}");
    emit!(out, "    }}");
    emit!(out, "}}");
}

fn enum_wire(out: &mut String, enumeration: &Enum) {
    let name = &enumeration.name;
    let count = enumeration.symbols.len();
    let variants: Vec<String> = enumeration
        .symbols
        .iter()
        .map(|s| crate::schema::variant_name(s))
        .collect();
    emit!(out);
    emit!(out, "impl Wire for crate::types::{name} {{");
    emit!(out, "    #[inline]");
    emit!(
        out,
        "    fn read(d: &mut Datum<'_>, what: &'static str) -> Result<Self, Stop> {{"
    );
    if let [only] = &variants[..] {
        emit!(out, "        d.symbol(what, 1)?;");
        emit!(out, "        Ok(crate::types::{name}::{only})");
    } else {
        emit!(out, "        Ok(match d.symbol(what, {count})? {{");
        for (i, variant) in variants.iter().enumerate() {
            let pattern = if i + 1 == count {
                "_".to_string()
            } else {
                i.to_string()
            };
            emit!(
                out,
                "            {pattern} => crate::types::{name}::{variant},"
            );
        }
        emit!(out, "        }})");
    }
    emit!(out, "    }}");
    emit!(out);
    emit!(out, "    #[inline]");
    emit!(
        out,
        "    fn skip(d: &mut Datum<'_>, what: &'static str) -> Result<(), Stop> {{"
    );
    emit!(out, "        d.symbol(what, {count}).map(drop)");
    emit!(out, "    }}");
    emit!(out);
    emit!(out, "    #[inline]");
    emit!(out, "    fn write(&self, o: &mut Out<'_>) {{");
    emit!(out, "        o.long(*self as i64);");
    emit!(out, "    }}");
    emit!(out, "}}");
}

/// A function of `signature` that matches `scrutinee` with `arms`.
fn match_fn(out: &mut String, doc: &str, signature: &str, scrutinee: &str, arms: &[String]) {
    emit!(out);
    emit!(out, "/// {doc}");
    emit!(out, "{signature} {{");
    emit!(out, "    match {scrutinee} {{");
    for arm in arms {
        emit!(out, "        {arm},");
    }
    emit!(out, "    }}");
    emit!(out, "}}");
}

/// The generated codecs by record type: their fingerprints, and reading and writing events.
fn dispatch(out: &mut String, catalog: &Catalog) {
    let events = &catalog.events;
    let arms = |arm: &dyn Fn(&str) -> String| -> Vec<String> {
        events.iter().map(|e| arm(&e.name)).collect()
    };
    let fingerprints: Vec<String> = events
        .iter()
        .map(|e| format!("EventType::{} => 0x{:016x}", e.name, e.fingerprint))
        .collect();
    match_fn(
        out,
        "The fingerprint of the schema the codec of `event_type` above was generated from.",
        "pub(crate) fn generated_fingerprint(event_type: EventType) -> u64",
        "event_type",
        &fingerprints,
    );
    match_fn(
        out,
        "Reads a datum written with the schema of [`generated_fingerprint`] of `event_type`.",
        "pub(crate) fn read_event(event_type: EventType, datum: &[u8]) -> Result<Event, ReadError>",
        "event_type",
        &arms(&|name| {
            format!(
                "EventType::{name} => read_record::<crate::types::{name}>(datum, {}, Event::{name})",
                lit(name)
            )
        }),
    );
    match_fn(
        out,
        "Appends the datum of `event`, written with the schema of [`generated_fingerprint`], to `out`.",
        "pub(crate) fn write_event(event: &Event, out: &mut Vec<u8>)",
        "event",
        &arms(&|name| format!("Event::{name}(r) => r.write(&mut Out(out))")),
    );
    emit!(out);
    emit!(
        out,
        "/// The Parsing Canonical Form each codec was generated from, as `build.rs` made it."
    );
    emit!(out, "#[cfg(test)]");
    emit!(
        out,
        "pub(crate) const CANONICAL_FORMS: [(EventType, &str); {}] = [",
        events.len()
    );
    for event in events {
        emit!(
            out,
            "    (EventType::{}, {}),",
            event.name,
            lit(&event.canonical_form)
        );
    }
    emit!(out, "];");
}

/// apache-avro's readers and writers by record type, through the types' serde impls: for old
/// schema versions, and the reference the tests hold the generated codecs to.
fn apache_dispatch(out: &mut String, catalog: &Catalog) {
    let arms = |arm: &dyn Fn(&str) -> String| -> Vec<String> {
        catalog.events.iter().map(|e| arm(&e.name)).collect()
    };
    match_fn(
        out,
        "apache-avro reads a datum of the schema of `reader` as `event_type`, by field name.",
        "pub(crate) fn read_named(\n    \
         reader: &apache_avro::reader::datum::GenericDatumReader<'_>,\n    \
         event_type: EventType,\n    datum: &mut &[u8],\n) -> apache_avro::AvroResult<Event>",
        "event_type",
        &arms(&|name| {
            format!(
                "EventType::{name} => reader.read_deser::<crate::types::{name}>(datum).map(Event::{name})"
            )
        }),
    );
    match_fn(
        out,
        "apache-avro converts a value resolved to the current schema of `event_type` into its event.",
        "pub(crate) fn from_value(\n    event_type: EventType,\n    \
         value: &apache_avro::types::Value,\n) -> apache_avro::AvroResult<Event>",
        "event_type",
        &arms(&|name| {
            format!(
                "EventType::{name} => apache_avro::from_value::<crate::types::{name}>(value).map(Event::{name})"
            )
        }),
    );
    match_fn(
        out,
        "apache-avro appends the datum of `event` to `out`, by field name.",
        "pub(crate) fn write_named(\n    \
         writer: &apache_avro::writer::datum::GenericDatumWriter<'_>,\n    \
         event: &Event,\n    out: &mut Vec<u8>,\n) -> apache_avro::AvroResult<usize>",
        "event",
        &arms(&|name| format!("Event::{name}(r) => writer.write_ser(out, r)")),
    );
}
