//! `arb.rs`, for the crate's tests: a proptest strategy of random values for every type, and
//! of random events of every record type, so that the property tests holding the generated
//! codecs to apache-avro cover every field of every schema without a hand-kept list.

use crate::emit::{HEADER, emit, ident};
use crate::schema::{Catalog, Enum, Named, Record, StrRepr, Ty, snake_name, variant_name};

/// Fields per tuple of strategies (proptest implements `Strategy` for tuples of up to 12).
const CHUNK: usize = 8;

pub fn arb(catalog: &Catalog) -> String {
    let mut out = String::from(HEADER);
    for named in &catalog.named {
        match named {
            Named::Record(record) => record_strategy(&mut out, record),
            Named::Enum(enumeration) => enum_strategy(&mut out, enumeration),
        }
    }
    emit!(out);
    emit!(out, "/// Random events, of every record type.");
    emit!(out, "pub(crate) fn event() -> BoxedStrategy<Event> {{");
    emit!(out, "    proptest::strategy::Union::new(vec![");
    for event in &catalog.events {
        emit!(
            out,
            "        {}().prop_map(Event::{}).boxed(),",
            snake_name(&event.name),
            event.name
        );
    }
    emit!(out, "    ])");
    emit!(out, "    .boxed()");
    emit!(out, "}}");
    out
}

/// A strategy expression for `ty`.
fn strategy(ty: &Ty) -> String {
    match ty {
        Ty::Bool => "any::<bool>()".into(),
        Ty::Int => "any::<i32>()".into(),
        Ty::Long => "any::<i64>()".into(),
        Ty::Double => "any::<f64>()".into(),
        Ty::Bytes => "proptest::collection::vec(any::<u8>(), 0..8)".into(),
        Ty::Str(StrRepr::String) => "text()".into(),
        Ty::Str(StrRepr::Text) => "text().prop_map(crate::types::Text::from)".into(),
        Ty::Named(name) => format!("{}()", snake_name(name)),
        Ty::Optional(inner) => format!("proptest::option::of({})", strategy(inner)),
        Ty::Array(inner) => format!("proptest::collection::vec({}, 0..4)", strategy(inner)),
    }
}

fn record_strategy(out: &mut String, record: &Record) {
    let chunks: Vec<&[crate::schema::Field]> = record.fields.chunks(CHUNK).collect();
    let tuple = |items: Vec<String>| match &items[..] {
        [one] => one.clone(),
        _ => format!("({})", items.join(", ")),
    };
    let mut strategies = Vec::new();
    let mut patterns = Vec::new();
    let mut next = 0;
    for chunk in &chunks {
        strategies.push(tuple(chunk.iter().map(|f| strategy(&f.ty)).collect()));
        patterns.push(tuple(
            chunk
                .iter()
                .map(|_| {
                    next += 1;
                    format!("f{}", next - 1)
                })
                .collect(),
        ));
    }
    emit!(out);
    emit!(
        out,
        "pub(crate) fn {}() -> BoxedStrategy<crate::types::{}> {{",
        snake_name(&record.name),
        record.name
    );
    emit!(out, "    {}", tuple(strategies));
    emit!(
        out,
        "        .prop_map(|{}| crate::types::{} {{",
        tuple(patterns),
        record.name
    );
    for (i, field) in record.fields.iter().enumerate() {
        emit!(out, "            {}: f{i},", ident(&field.name));
    }
    emit!(out, "        }})");
    emit!(out, "        .boxed()");
    emit!(out, "}}");
}

fn enum_strategy(out: &mut String, enumeration: &Enum) {
    let name = &enumeration.name;
    let variants: Vec<String> = enumeration
        .symbols
        .iter()
        .map(|s| format!("crate::types::{name}::{}", variant_name(s)))
        .collect();
    emit!(out);
    emit!(
        out,
        "pub(crate) fn {}() -> BoxedStrategy<crate::types::{name}> {{",
        snake_name(name)
    );
    emit!(
        out,
        "    proptest::sample::select(vec![{}]).boxed()",
        variants.join(", ")
    );
    emit!(out, "}}");
}
