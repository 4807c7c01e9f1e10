//! The schema files as the generator sees them: parsed, checked and turned into a model of
//! Rust types. Every error names the file and the field it is about.
//!
//! The generator maps a subset of Avro, the one the events use: records, enums, arrays,
//! `["null", T]` unions and the primitive types except `null` on its own. Maps, fixed,
//! other unions, logical types and recursive types are refused in words.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// The streams, upstream first: the names of `Stream` in `src/event.rs` (a test checks that
/// they agree). A record's `"stream"` attribute must be one of them.
pub const STREAMS: [&str; 5] = [
    "declarations",
    "results",
    "board-scores",
    "leaderboard",
    "dead-letter",
];

/// Names the generated types cannot take: `crate::types::Text`, and the crate's `Event`,
/// `EventType` and `Stream`.
const RESERVED: [&str; 4] = ["Text", "Event", "EventType", "Stream"];

/// What went wrong, in words naming the file and the field.
pub type Result<T> = std::result::Result<T, String>;

/// A value's type, as the generated Rust holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    Bool,
    Int,
    Long,
    Double,
    Bytes,
    /// A `string`, as a `String` or (`"rust.type": "Text"`) as `crate::types::Text`.
    Str(StrRepr),
    /// A record or enum, by its Rust name (the Avro name without namespace).
    Named(String),
    Array(Box<Ty>),
    /// `["null", T]`.
    Optional(Box<Ty>),
}

/// How a `string` is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrRepr {
    String,
    Text,
}

/// A record field.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub doc: String,
    pub ty: Ty,
}

/// An Avro record: a Rust struct.
#[derive(Debug, Clone)]
pub struct Record {
    pub name: String,
    pub doc: String,
    pub fields: Vec<Field>,
    /// Extra derives (`"rust.derive"`): `Copy`, `Hash`, `PartialOrd`, `Ord`.
    pub derives: Vec<String>,
    /// The first file that defines it.
    pub file: String,
}

/// An Avro enum: a Rust enum of unit variants.
#[derive(Debug, Clone)]
pub struct Enum {
    pub name: String,
    pub doc: String,
    pub symbols: Vec<String>,
    /// `"rust.non_exhaustive": true`.
    pub non_exhaustive: bool,
    /// Extra derives beyond the enums' `Copy`, `Eq` and `Hash`.
    pub derives: Vec<String>,
    pub file: String,
}

/// A named type.
#[derive(Debug, Clone)]
pub enum Named {
    Record(Record),
    Enum(Enum),
}

impl Named {
    pub fn name(&self) -> &str {
        match self {
            Named::Record(r) => &r.name,
            Named::Enum(e) => &e.name,
        }
    }
}

/// One part of a partition key.
#[derive(Debug, Clone)]
pub enum KeyPart {
    /// A field's value: a string, or a number in decimal.
    Field(String),
    /// The first of these fields that is not null (all but the last are optional strings).
    FirstOf(Vec<String>),
}

/// A record type of the log: the top-level record of a current `schemas/<Name>.avsc`.
#[derive(Debug, Clone)]
pub struct EventSchema {
    pub name: String,
    /// Relative to the repository: `schemas/<Name>.avsc`.
    pub path: String,
    pub doc: String,
    pub version: u64,
    /// Position in [`STREAMS`].
    pub stream: usize,
    pub key: Vec<KeyPart>,
    /// The Parsing Canonical Form, and its CRC-64-AVRO fingerprint.
    pub canonical_form: String,
    pub fingerprint: u64,
}

/// Every type the current schemas define.
#[derive(Debug, Default)]
pub struct Catalog {
    /// In order of first definition.
    pub named: Vec<Named>,
    /// Rust name to (full Avro name, shape, file): a type defined by several files must have
    /// one shape.
    shapes: BTreeMap<String, (String, String, String)>,
    /// In file order; sorted by stream then name once all are read.
    pub events: Vec<EventSchema>,
}

impl Catalog {
    pub fn get(&self, name: &str) -> Option<&Named> {
        self.named.iter().find(|n| n.name() == name)
    }

    pub fn record(&self, name: &str) -> Option<&Record> {
        match self.get(name) {
            Some(Named::Record(r)) => Some(r),
            _ => None,
        }
    }
}

/// `path, at: message`.
pub fn fail<T>(path: &str, at: &str, message: impl std::fmt::Display) -> Result<T> {
    if at.is_empty() {
        Err(format!("{path}: {message}"))
    } else {
        Err(format!("{path}, {at}: {message}"))
    }
}

/// Reads one current schema file into `catalog`: its named types and its record type.
pub fn read_current(catalog: &mut Catalog, path: &str, text: &str) -> Result<()> {
    let json: Value =
        serde_json::from_str(text).or_else(|e| fail(path, "", format_args!("not JSON: {e}")))?;
    let Some(top) = json.as_object() else {
        return fail(path, "", "the file is not a JSON object (a record schema)");
    };
    if top.get("type").and_then(Value::as_str) != Some("record") {
        return fail(path, "", "the top-level type is not a record");
    }
    let mut file = FileReader {
        path,
        defined: BTreeSet::new(),
        catalog,
    };
    let (ty, canonical_form) = file.ty(&json, "", "the top-level record")?;
    let Ty::Named(name) = ty else {
        return fail(path, "", "the top-level type is not a record");
    };
    let stem = path
        .trim_start_matches("schemas/")
        .trim_end_matches(".avsc");
    if stem != name {
        return fail(
            path,
            "",
            format_args!("the file defines {name}: it must be named {name}.avsc"),
        );
    }
    let event = crate::events::event_schema(catalog, path, top, &name, canonical_form)?;
    catalog.events.push(event);
    Ok(())
}

/// Reads the types of one file, keeping the names it has defined so far.
struct FileReader<'a> {
    path: &'a str,
    /// Full names defined so far in this file (Avro: a name is defined once per file).
    defined: BTreeSet<String>,
    catalog: &'a mut Catalog,
}

/// Avro's primitive type names the generator maps, with their types.
fn primitive(name: &str) -> Option<Ty> {
    Some(match name {
        "boolean" => Ty::Bool,
        "int" => Ty::Int,
        "long" => Ty::Long,
        "double" => Ty::Double,
        "bytes" => Ty::Bytes,
        "string" => Ty::Str(StrRepr::String),
        _ => return None,
    })
}

impl FileReader<'_> {
    /// A type and its Parsing Canonical Form. `ns` is the enclosing namespace, `at` says where
    /// the type is (for messages).
    fn ty(&mut self, json: &Value, ns: &str, at: &str) -> Result<(Ty, String)> {
        match json {
            Value::String(name) => self.by_name(name, ns, at),
            Value::Array(branches) => self.union(branches, ns, at),
            Value::Object(object) => self.complex(object, ns, at),
            _ => fail(self.path, at, format_args!("{json} is not a type")),
        }
    }

    fn by_name(&mut self, name: &str, ns: &str, at: &str) -> Result<(Ty, String)> {
        if let Some(ty) = primitive(name) {
            return Ok((ty, format!("\"{name}\"")));
        }
        if name == "float" {
            return fail(
                self.path,
                at,
                "float is not mapped yet (no schema used one): give Ty a Float, and Datum and Out a float",
            );
        }
        if name == "null" {
            return fail(
                self.path,
                at,
                "null on its own is not supported (only in [\"null\", T])",
            );
        }
        let full = full_name(name, None, ns);
        if !self.defined.contains(&full) {
            return fail(
                self.path,
                at,
                format_args!(
                    "{name} is not defined before this point in the file (each file defines the \
                     named types it uses; recursive types are not supported)"
                ),
            );
        }
        Ok((
            Ty::Named(short_name(&full).to_string()),
            format!("\"{full}\""),
        ))
    }

    fn union(&mut self, branches: &[Value], ns: &str, at: &str) -> Result<(Ty, String)> {
        match branches {
            [Value::String(null), other] if null == "null" => {
                let (ty, canonical) = self.ty(other, ns, at)?;
                if matches!(ty, Ty::Optional(_)) {
                    return fail(self.path, at, "a union inside a union");
                }
                Ok((
                    Ty::Optional(Box::new(ty)),
                    format!("[\"null\",{canonical}]"),
                ))
            }
            _ => fail(
                self.path,
                at,
                "only unions of null and one other type, null first, are supported \
                 ([\"null\", T], read as Option<T>)",
            ),
        }
    }

    fn complex(&mut self, object: &Map<String, Value>, ns: &str, at: &str) -> Result<(Ty, String)> {
        if object.contains_key("logicalType") {
            return fail(
                self.path,
                at,
                "logical types are not supported by the generator",
            );
        }
        let kind = object.get("type");
        match kind.and_then(Value::as_str) {
            Some("record") => self.record(object, ns, at),
            Some("enum") => self.enumeration(object, ns, at),
            Some("array") => {
                let items = object
                    .get("items")
                    .map_or_else(|| fail(self.path, at, "an array without items"), Ok)?;
                let (ty, canonical) = self.ty(items, ns, at)?;
                if matches!(ty, Ty::Bytes) {
                    return fail(self.path, at, "arrays of bytes are not supported");
                }
                Ok((
                    Ty::Array(Box::new(ty)),
                    format!("{{\"type\":\"array\",\"items\":{canonical}}}"),
                ))
            }
            Some(name @ ("map" | "fixed")) => fail(
                self.path,
                at,
                format_args!("the generator does not map Avro {name}s"),
            ),
            Some(name) if primitive(name).is_some() => self.by_name(name, ns, at),
            _ => match kind {
                Some(inner @ (Value::Object(_) | Value::Array(_))) => self.ty(inner, ns, at),
                _ => fail(
                    self.path,
                    at,
                    format_args!("{} is not a type", Value::Object(object.clone())),
                ),
            },
        }
    }

    fn record(&mut self, object: &Map<String, Value>, ns: &str, at: &str) -> Result<(Ty, String)> {
        let (full, inner_ns) = self.named_type(object, ns, at)?;
        let name = short_name(&full).to_string();
        check_rust_attributes(self.path, &name, object, &["rust.derive"])?;
        let Some(Value::Array(fields_json)) = object.get("fields") else {
            return fail(self.path, &name, "a record without a fields array");
        };
        if fields_json.is_empty() {
            return fail(
                self.path,
                &name,
                "a record without fields (the generator needs at least one)",
            );
        }
        let mut fields = Vec::new();
        let mut canonical = Vec::new();
        for json in fields_json {
            let (field, field_canonical) = self.field(json, &name, &inner_ns)?;
            if fields.iter().any(|f: &Field| f.name == field.name) {
                return fail(
                    self.path,
                    &name,
                    format_args!("field {} appears twice", field.name),
                );
            }
            fields.push(field);
            canonical.push(field_canonical);
        }
        let record = Record {
            name: name.clone(),
            doc: doc(object),
            fields,
            derives: derives(self.path, &name, object)?,
            file: self.path.to_string(),
        };
        self.define(&full, Named::Record(record))?;
        let canonical = format!(
            "{{\"name\":\"{full}\",\"type\":\"record\",\"fields\":[{}]}}",
            canonical.join(",")
        );
        Ok((Ty::Named(name), canonical))
    }

    fn field(&mut self, json: &Value, record: &str, ns: &str) -> Result<(Field, String)> {
        let Some(object) = json.as_object() else {
            return fail(
                self.path,
                record,
                format_args!("field {json} is not an object"),
            );
        };
        let Some(name) = object.get("name").and_then(Value::as_str) else {
            return fail(self.path, record, "a field without a name");
        };
        let at = format!("field {record}.{name}");
        check_field_name(self.path, &at, name)?;
        check_rust_attributes(self.path, &at, object, &["rust.type"])?;
        let Some(ty_json) = object.get("type") else {
            return fail(self.path, &at, "a field without a type");
        };
        let (ty, canonical) = self.ty(ty_json, ns, &at)?;
        let ty = match object.get("rust.type") {
            None => ty,
            Some(Value::String(repr)) => represent(self.path, &at, ty, repr)?,
            Some(other) => {
                return fail(
                    self.path,
                    &at,
                    format_args!("rust.type {other} is not a string"),
                );
            }
        };
        let field = Field {
            name: name.to_string(),
            doc: doc(object),
            ty,
        };
        Ok((
            field,
            format!("{{\"name\":\"{name}\",\"type\":{canonical}}}"),
        ))
    }

    fn enumeration(
        &mut self,
        object: &Map<String, Value>,
        ns: &str,
        at: &str,
    ) -> Result<(Ty, String)> {
        let (full, _) = self.named_type(object, ns, at)?;
        let name = short_name(&full).to_string();
        check_rust_attributes(
            self.path,
            &name,
            object,
            &["rust.derive", "rust.non_exhaustive"],
        )?;
        let symbols = symbols(self.path, &name, object)?;
        let non_exhaustive = match object.get("rust.non_exhaustive") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return fail(
                    self.path,
                    &name,
                    format_args!("rust.non_exhaustive {other} is not true or false"),
                );
            }
        };
        let quoted: Vec<String> = symbols.iter().map(|s| format!("\"{s}\"")).collect();
        let canonical = format!(
            "{{\"name\":\"{full}\",\"type\":\"enum\",\"symbols\":[{}]}}",
            quoted.join(",")
        );
        let enumeration = Enum {
            name: name.clone(),
            doc: doc(object),
            symbols,
            non_exhaustive,
            derives: derives(self.path, &name, object)?,
            file: self.path.to_string(),
        };
        self.define(&full, Named::Enum(enumeration))?;
        Ok((Ty::Named(name), canonical))
    }

    /// The full name of a named type being defined, and the namespace its fields inherit.
    fn named_type(
        &self,
        object: &Map<String, Value>,
        ns: &str,
        at: &str,
    ) -> Result<(String, String)> {
        let Some(name) = object.get("name").and_then(Value::as_str) else {
            return fail(self.path, at, "a named type without a name");
        };
        let full = full_name(name, object.get("namespace").and_then(Value::as_str), ns);
        if !full.split('.').all(is_avro_name) {
            return fail(self.path, at, format_args!("{full} is not an Avro name"));
        }
        let short = short_name(&full);
        if RESERVED.contains(&short) {
            return fail(
                self.path,
                at,
                format_args!("{short} is a name of the crate's own (one of {RESERVED:?})"),
            );
        }
        if !is_type_name(short) {
            return fail(
                self.path,
                at,
                format_args!(
                    "type name {short} is not UpperCamelCase (the Rust type takes the Avro name)"
                ),
            );
        }
        let inner_ns = full.rsplit_once('.').map_or("", |(ns, _)| ns).to_string();
        Ok((full, inner_ns))
    }

    /// Records a definition: once per file, and with one shape across files.
    fn define(&mut self, full: &str, named: Named) -> Result<()> {
        if !self.defined.insert(full.to_string()) {
            return fail(self.path, named.name(), "defined twice in the file");
        }
        let shape = shape(&named);
        let name = named.name().to_string();
        match self.catalog.shapes.get(&name) {
            Some((other_full, other_shape, other_file)) => {
                if other_full != full || *other_shape != shape {
                    return fail(
                        self.path,
                        &name,
                        format_args!(
                            "defined differently from {other_file} (docs aside, every copy of a \
                             named type must be the same, custom attributes included)"
                        ),
                    );
                }
            }
            None => {
                let entry = (full.to_string(), shape, self.path.to_string());
                self.catalog.shapes.insert(name, entry);
                self.catalog.named.push(named);
            }
        }
        Ok(())
    }
}

/// The symbols of an enum, each an Avro name that makes a Rust variant of its own.
fn symbols(path: &str, name: &str, object: &Map<String, Value>) -> Result<Vec<String>> {
    let Some(Value::Array(list)) = object
        .get("symbols")
        .filter(|s| s.as_array().is_some_and(|a| !a.is_empty()))
    else {
        return fail(path, name, "an enum without symbols");
    };
    let mut symbols = Vec::new();
    let mut variants = BTreeSet::new();
    for symbol in list {
        let Some(symbol) = symbol.as_str().filter(|s| is_avro_name(s)) else {
            return fail(
                path,
                name,
                format_args!("symbol {symbol} is not an Avro name"),
            );
        };
        let variant = variant_name(symbol);
        if !variant.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return fail(
                path,
                name,
                format_args!("symbol {symbol} makes no Rust variant name"),
            );
        }
        if !variants.insert(variant) {
            return fail(
                path,
                name,
                format_args!("symbol {symbol} makes the Rust variant of another"),
            );
        }
        symbols.push(symbol.to_string());
    }
    Ok(symbols)
}

/// A named type without its docs, to compare copies.
fn shape(named: &Named) -> String {
    match named {
        Named::Record(r) => {
            let fields: Vec<String> = r
                .fields
                .iter()
                .map(|f| format!("{}: {:?}", f.name, f.ty))
                .collect();
            format!(
                "record {} {:?} {{{}}}",
                r.name,
                r.derives,
                fields.join(", ")
            )
        }
        Named::Enum(e) => format!(
            "enum {} {:?} {} {:?}",
            e.name, e.derives, e.non_exhaustive, e.symbols
        ),
    }
}

/// A type's `rust.type`: how its string is held (through unions and arrays).
fn represent(path: &str, at: &str, ty: Ty, repr: &str) -> Result<Ty> {
    Ok(match (ty, repr) {
        (Ty::Optional(inner), _) => Ty::Optional(Box::new(represent(path, at, *inner, repr)?)),
        (Ty::Array(inner), _) => Ty::Array(Box::new(represent(path, at, *inner, repr)?)),
        (Ty::Str(_), "String") => Ty::Str(StrRepr::String),
        (Ty::Str(_), "Text") => Ty::Str(StrRepr::Text),
        (ty @ Ty::Int, "i32") | (ty @ Ty::Long, "i64") | (ty @ Ty::Bytes, "Vec<u8>") => ty,
        (ty, _) => {
            return fail(
                path,
                at,
                format_args!(
                    "rust.type {repr:?} does not apply to {ty:?} (string: \"String\" or \"Text\"; \
                     int: \"i32\"; long: \"i64\"; bytes: \"Vec<u8>\")"
                ),
            );
        }
    })
}

/// The `rust.derive` list of a named type.
fn derives(path: &str, at: &str, object: &Map<String, Value>) -> Result<Vec<String>> {
    const ALLOWED: [&str; 4] = ["Copy", "Hash", "PartialOrd", "Ord"];
    let Some(list) = object.get("rust.derive") else {
        return Ok(Vec::new());
    };
    let Some(list) = list.as_array() else {
        return fail(path, at, "rust.derive is not a list of trait names");
    };
    let mut derives = Vec::new();
    for item in list {
        match item.as_str() {
            Some(name) if ALLOWED.contains(&name) => derives.push(name.to_string()),
            _ => {
                return fail(
                    path,
                    at,
                    format_args!("rust.derive {item}: one of {ALLOWED:?}"),
                );
            }
        }
    }
    if derives.iter().any(|d| d == "Ord") && !derives.iter().any(|d| d == "PartialOrd") {
        return fail(path, at, "rust.derive Ord needs PartialOrd too");
    }
    Ok(derives)
}

/// Refuses `rust.*` attributes the generator does not know (a misspelt one would otherwise
/// be ignored).
fn check_rust_attributes(
    path: &str,
    at: &str,
    object: &Map<String, Value>,
    known: &[&str],
) -> Result<()> {
    for key in object.keys() {
        if key.starts_with("rust.") && !known.contains(&key.as_str()) {
            return fail(
                path,
                at,
                format_args!("unknown attribute {key} here (known: {known:?})"),
            );
        }
    }
    Ok(())
}

fn doc(object: &Map<String, Value>) -> String {
    object
        .get("doc")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// The full name of `name` defined (or referred to) in namespace `ns`.
fn full_name(name: &str, namespace: Option<&str>, ns: &str) -> String {
    if name.contains('.') {
        return name.to_string();
    }
    match namespace.unwrap_or(ns) {
        "" => name.to_string(),
        ns => format!("{ns}.{name}"),
    }
}

fn short_name(full: &str) -> &str {
    full.rsplit('.').next().unwrap_or(full)
}

/// `[A-Za-z_][A-Za-z0-9_]*` (Avro specification, "Names").
fn is_avro_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_type_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
}

fn check_field_name(path: &str, at: &str, name: &str) -> Result<()> {
    let snake = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if matches!(name, "self" | "super" | "crate") {
        fail(path, at, "the name cannot be a Rust field name")
    } else if snake {
        Ok(())
    } else {
        fail(
            path,
            at,
            "the name is not snake_case (the Rust field takes the Avro name)",
        )
    }
}

/// The Rust variant of an enum symbol: `CROSS_IMPS` is `CrossImps`.
pub fn variant_name(symbol: &str) -> String {
    symbol
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let lower = part.to_ascii_lowercase();
            let mut chars = lower.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// `ResultLine` as `result_line`.
pub fn snake_name(name: &str) -> String {
    let mut snake = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake
}
