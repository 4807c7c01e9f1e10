//! `event.rs`: [`Event`] with a variant per record type, `EventType`, and what the schemas'
//! `"stream"` and `"key"` attributes say: each type's stream and partition key.

use crate::emit::{HEADER, doc, emit, ident, key_text, lit, stream_variant};
use crate::schema::{Catalog, EventSchema, KeyPart, Ty};

pub fn events(catalog: &Catalog) -> String {
    let mut out = String::from(HEADER);
    event_enum(&mut out, catalog);
    event_type_enum(&mut out, catalog);
    event_type_impl(&mut out, catalog);
    event_impl(&mut out, catalog);
    for event in &catalog.events {
        record_impl(&mut out, catalog, event);
    }
    out
}

/// The first sentence of a doc.
fn first_sentence(text: &str) -> &str {
    text.find(". ").map_or(text, |end| &text[..=end])
}

fn event_enum(out: &mut String, catalog: &Catalog) {
    emit!(
        out,
        "/// Every event simpairs writes to its log: one variant per record type, that is per current"
    );
    emit!(
        out,
        "/// schema file `schemas/<Type>.avsc` (generated from them by `build.rs`)."
    );
    emit!(out, "#[derive(Debug, Clone, PartialEq)]");
    emit!(out, "#[non_exhaustive]");
    emit!(out, "pub enum Event {{");
    for event in &catalog.events {
        let text = format!(
            "{} Stream [`Stream::{}`], key `{}`.",
            first_sentence(&event.doc),
            stream_variant(event.stream),
            key_text(event)
        );
        doc(out, "    ", &text);
        emit!(out, "    {0}(crate::types::{0}),", event.name);
    }
    emit!(out, "}}");
}

fn event_type_enum(out: &mut String, catalog: &Catalog) {
    emit!(out);
    emit!(
        out,
        "/// The record type of an [`Event`], without its data: the Avro record name."
    );
    emit!(
        out,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]"
    );
    emit!(out, "#[non_exhaustive]");
    emit!(out, "pub enum EventType {{");
    for event in &catalog.events {
        doc(
            out,
            "    ",
            &format!(
                "`simpairs.{}`, version {} (`{}`).",
                event.name, event.version, event.path
            ),
        );
        emit!(out, "    {},", event.name);
    }
    emit!(out, "}}");
}

fn event_type_impl(out: &mut String, catalog: &Catalog) {
    let events = &catalog.events;
    emit!(out);
    emit!(out, "impl EventType {{");
    emit!(
        out,
        "    /// Every record type: by stream, upstream first (as in [`Stream::ALL`]), then by name."
    );
    emit!(out, "    pub const ALL: [EventType; {}] = [", events.len());
    for event in events {
        emit!(out, "        EventType::{},", event.name);
    }
    emit!(out, "    ];");
    emit!(out);
    emit!(
        out,
        "    /// The Avro record name without namespace, which is also the schema file name"
    );
    emit!(
        out,
        "    /// (`schemas/<name>.avsc`) and the golden file name."
    );
    emit!(out, "    pub fn name(self) -> &'static str {{");
    emit!(out, "        match self {{");
    for event in events {
        emit!(
            out,
            "            EventType::{} => {},",
            event.name,
            lit(&event.name)
        );
    }
    emit!(out, "        }}");
    emit!(out, "    }}");
    emit!(out);
    emit!(
        out,
        "    /// The stream events of this type are written to (the `\"stream\"` attribute of its schema)."
    );
    emit!(out, "    pub fn stream(self) -> crate::event::Stream {{");
    emit!(out, "        match self {{");
    for event in events {
        emit!(
            out,
            "            EventType::{} => crate::event::Stream::{},",
            event.name,
            stream_variant(event.stream)
        );
    }
    emit!(out, "        }}");
    emit!(out, "    }}");
    emit!(out, "}}");
}

fn event_impl(out: &mut String, catalog: &Catalog) {
    let events = &catalog.events;
    emit!(out);
    emit!(out, "impl Event {{");
    emit!(out, "    /// The record type of this event.");
    emit!(out, "    pub fn event_type(&self) -> EventType {{");
    emit!(out, "        match self {{");
    for event in events {
        emit!(
            out,
            "            Event::{0}(_) => EventType::{0},",
            event.name
        );
    }
    emit!(out, "        }}");
    emit!(out, "    }}");
    emit!(out);
    event_id_fn(out, catalog);
    emit!(
        out,
        "    /// [`Event::partition_key`], from the record's own."
    );
    emit!(out, "    fn key(&self) -> Vec<u8> {{");
    emit!(out, "        match self {{");
    for event in events {
        emit!(
            out,
            "            Event::{}(e) => e.partition_key(),",
            event.name
        );
    }
    emit!(out, "        }}");
    emit!(out, "    }}");
    emit!(out, "}}");
}

/// `Event::event_id`: the record's `event_id` field, if it has one.
fn event_id_fn(out: &mut String, catalog: &Catalog) {
    emit!(
        out,
        "    /// The event (`EventDeclared.event_id`) this event belongs to: its `event_id`; `None` when"
    );
    emit!(
        out,
        "    /// that is null (a [`crate::DeadLettered`] whose message could not be read that far)."
    );
    emit!(out, "    pub fn event_id(&self) -> Option<&str> {{");
    emit!(out, "        match self {{");
    for event in &catalog.events {
        let record = catalog.record(&event.name);
        let field = record.and_then(|r| r.fields.iter().find(|f| f.name == "event_id"));
        let value = match field.map(|f| &f.ty) {
            Some(Ty::Optional(_)) => "e.event_id.as_deref()",
            Some(_) => "Some(e.event_id.as_str())",
            None => "None",
        };
        let binding = if field.is_some() { "e" } else { "_" };
        emit!(
            out,
            "            Event::{}({binding}) => {value},",
            event.name
        );
    }
    emit!(out, "        }}");
    emit!(out, "    }}");
    emit!(out);
}

/// A part of the key as a `Key` of `src/event.rs`.
fn key_value(catalog: &Catalog, event: &EventSchema, part: &KeyPart) -> String {
    let ty = |name: &str| {
        catalog
            .record(&event.name)
            .and_then(|r| r.fields.iter().find(|f| f.name == name))
            .map(|f| f.ty.clone())
    };
    match part {
        KeyPart::Field(field) => match ty(field) {
            Some(Ty::Int) => format!("Key::Num(i64::from(self.{}))", ident(field)),
            Some(Ty::Long) => format!("Key::Num(self.{})", ident(field)),
            _ => format!("Key::Str(self.{}.as_str())", ident(field)),
        },
        KeyPart::FirstOf(names) => {
            let mut value = String::new();
            for (i, field) in names.iter().enumerate() {
                let name = ident(field);
                value += &match i {
                    0 => format!("self.{name}.as_deref()"),
                    i if i + 1 == names.len() => format!(".unwrap_or(&self.{name})"),
                    _ => format!(".or(self.{name}.as_deref())"),
                };
            }
            format!("Key::Str({value})")
        }
    }
}

fn record_impl(out: &mut String, catalog: &Catalog, event: &EventSchema) {
    let parts: Vec<String> = event
        .key
        .iter()
        .map(|p| key_value(catalog, event, p))
        .collect();
    emit!(out);
    emit!(out, "impl crate::types::{} {{", event.name);
    emit!(
        out,
        "    /// The partition key of this record, `{}` (see [`Event::partition_key`]).",
        key_text(event)
    );
    emit!(out, "    pub fn partition_key(&self) -> Vec<u8> {{");
    emit!(out, "        join_key(&[{}])", parts.join(", "));
    emit!(out, "    }}");
    emit!(out, "}}");
    emit!(out);
    emit!(out, "impl From<crate::types::{0}> for Event {{", event.name);
    emit!(
        out,
        "    fn from(record: crate::types::{0}) -> Event {{",
        event.name
    );
    emit!(out, "        Event::{}(record)", event.name);
    emit!(out, "    }}");
    emit!(out, "}}");
}
