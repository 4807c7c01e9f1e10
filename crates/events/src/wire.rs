//! The Avro binary encoding, read and written without serde: the runtime of the codecs that
//! `build.rs` generates from the schemas, and those codecs (included from `OUT_DIR`).
//!
//! For every record and enum of `schemas/*.avsc` the generator writes an `impl Wire`: a reader
//! that builds the value, a skipper that checks it as the reader does without building it,
//! and a writer, each walking the fields in schema order; and for every record an
//! `impl Record` with its field names in order and a skipper per field. `read_event` and
//! `write_event` dispatch on the record type; `generated_fingerprint` says which schema each
//! was generated from, and [`crate::Codec`] uses them only for a schema with that
//! fingerprint (apache-avro reads every other version).
//!
//! Walking the fields directly, a result costs about 0.1 µs of CPU to decode in a batch and
//! 0.2 µs alone (a `ResultRecorded`), against 0.6 µs through apache-avro's serde path
//! (`SIMPAIRS_BENCH_CLOCK=cpu cargo bench -p simpairs-events --bench codec`). apache-avro
//! stays the codec of record: it parses the schemas, computes their fingerprints, resolves
//! older versions, and the tests hold every generated codec to it: the same bytes written, the
//! same records read, and an error wherever apache-avro gives one, for random records and for
//! damaged, cut, lengthened and arbitrary bytes.
//!
//! The Avro binary encoding, as far as the generator maps it (Avro specification, "Binary
//! Encoding"): `int` and `long` are zig-zag varints; a `double` 8 bytes, little-endian; `bytes` and `string` their length then the bytes (UTF-8 for a string); an
//! `enum` is the symbol's index; a union is the branch's index then its value (every union
//! here is `["null", T]`: 0 is null); a `boolean` is one byte, 0 or 1; a record is its fields
//! in order; an `array` is blocks of items, each led by its count (a negative count is
//! followed by the block's size in bytes), ended by a count of 0.

use crate::event::{Event, EventType};

/// Why a datum does not decode, in words (it ends up in dead-letter reasons).
pub(crate) type Malformed = String;

/// A datum's reading stopped at damage; the [`Datum`] holds what was wrong. (Small, so that every
/// field's result fits in registers: with the description in each `Err`, reading a field cost
/// twice as much.)
#[derive(Debug)]
pub(crate) struct Stop;

/// A value of an Avro type, read from and written to its binary encoding.
pub(crate) trait Wire: Sized {
    /// Reads a value; `what` names the field it is read for (`Record.field`), in errors.
    fn read(d: &mut Datum<'_>, what: &'static str) -> Result<Self, Stop>;
    /// Checks a value as [`Wire::read`] does, without building it.
    fn skip(d: &mut Datum<'_>, what: &'static str) -> Result<(), Stop>;
    /// Appends the value.
    fn write(&self, o: &mut Out<'_>);
}

/// An Avro record: its fields by position.
pub(crate) trait Record: Wire {
    /// The field names, in schema order.
    const FIELDS: &'static [&'static str];
    /// Checks the field at `index` (of [`Record::FIELDS`]) as reading it would; past the last
    /// field, nothing.
    fn skip_field(d: &mut Datum<'_>, index: usize) -> Result<(), Stop>;
}

/// The position of field `name` in `fields` (a [`Record::FIELDS`]); in a constant, a field
/// that is not there fails the build.
pub(crate) const fn field_position(fields: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < fields.len() {
        let field = fields[i].as_bytes();
        let wanted = name.as_bytes();
        if field.len() == wanted.len() {
            let mut j = 0;
            while j < field.len() && field[j] == wanted[j] {
                j += 1;
            }
            if j == field.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("no such field in the schema: see the Record::FIELDS the constant names");
}

/// The bytes of the 128 ASCII characters, in order.
const ASCII_BYTES: [u8; 128] = {
    let mut bytes = [0u8; 128];
    let mut i = 0;
    while i < bytes.len() {
        bytes[i] = i as u8;
        i += 1;
    }
    bytes
};
/// The 128 ASCII characters as a text: a one-character text is read as a slice of it
/// ([`Datum::str`]).
const ASCII: &str = match std::str::from_utf8(&ASCII_BYTES) {
    Ok(text) => text,
    Err(_) => panic!("ASCII is UTF-8"),
};

/// A datum being read: the bytes not read yet, and what was wrong once reading stops.
pub(crate) struct Datum<'a> {
    rest: &'a [u8],
    damage: Option<Malformed>,
}

impl<'a> Datum<'a> {
    /// Stops reading: `detail` says what is wrong with the field `what`.
    #[cold]
    fn stop(&mut self, what: &str, detail: std::fmt::Arguments<'_>) -> Stop {
        self.damage = Some(format!("{what}: {detail}"));
        Stop
    }

    #[inline]
    fn byte(&mut self, what: &str) -> Result<u8, Stop> {
        match self.rest.split_first() {
            Some((&byte, rest)) => {
                self.rest = rest;
                Ok(byte)
            }
            None => Err(self.stop(what, format_args!("the datum ends early"))),
        }
    }

    /// A zig-zag varint of at most 10 bytes (bits beyond 64 are dropped, as apache-avro does).
    #[inline(always)]
    pub(crate) fn long(&mut self, what: &str) -> Result<i64, Stop> {
        // Most numbers here (lengths, union branches, small ints) take one byte.
        if let Some((&byte, rest)) = self.rest.split_first()
            && byte < 0x80
        {
            self.rest = rest;
            let zigzag = u64::from(byte);
            return Ok((zigzag >> 1) as i64 ^ -((zigzag & 1) as i64));
        }
        self.long_bytes(what)
    }

    /// [`Datum::long`] of more than one byte.
    fn long_bytes(&mut self, what: &str) -> Result<i64, Stop> {
        let mut zigzag = 0u64;
        for i in 0..10 {
            let byte = self.byte(what)?;
            zigzag |= u64::from(byte & 0x7F) << (i * 7);
            if byte & 0x80 == 0 {
                return Ok((zigzag >> 1) as i64 ^ -((zigzag & 1) as i64));
            }
        }
        Err(self.stop(what, format_args!("a number runs over 10 bytes")))
    }

    #[inline(always)]
    pub(crate) fn int(&mut self, what: &str) -> Result<i32, Stop> {
        let long = self.long(what)?;
        i32::try_from(long).map_err(|_| self.stop(what, format_args!("{long} does not fit an int")))
    }

    #[inline(always)]
    pub(crate) fn bytes(&mut self, what: &str) -> Result<&'a [u8], Stop> {
        let len = self.long(what)?;
        match usize::try_from(len) {
            Ok(n) if n <= self.rest.len() => {
                let (bytes, rest) = self.rest.split_at(n);
                self.rest = rest;
                Ok(bytes)
            }
            _ => {
                let left = self.rest.len();
                Err(self.stop(
                    what,
                    format_args!("a length of {len} where {left} bytes are left"),
                ))
            }
        }
    }

    #[inline(always)]
    pub(crate) fn str(&mut self, what: &str) -> Result<&'a str, Stop> {
        let bytes = self.bytes(what)?;
        // A section, a seat, most pair numbers: one character, taken from `ASCII` instead of a
        // call to the UTF-8 check (the lines of a national event hold tens of millions of them).
        if let [byte] = *bytes
            && byte.is_ascii()
        {
            let at = usize::from(byte);
            return Ok(&ASCII[at..=at]);
        }
        std::str::from_utf8(bytes).map_err(|e| self.stop(what, format_args!("not UTF-8 ({e})")))
    }

    /// A string checked as [`Datum::str`] reads it, without making it: bytes that are all ASCII
    /// are UTF-8 without a call to the standard library's check (a national event's lines hold
    /// tens of millions of short texts, each checked when its record arrives).
    #[inline(always)]
    pub(crate) fn checked_str(&mut self, what: &str) -> Result<(), Stop> {
        let bytes = self.bytes(what)?;
        if bytes.is_ascii() {
            return Ok(());
        }
        match std::str::from_utf8(bytes) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.stop(what, format_args!("not UTF-8 ({e})"))),
        }
    }

    #[inline(always)]
    pub(crate) fn boolean(&mut self, what: &str) -> Result<bool, Stop> {
        match self.byte(what)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(self.stop(what, format_args!("{other} is not a boolean"))),
        }
    }

    /// A `double`: 8 bytes, little-endian IEEE 754.
    pub(crate) fn double(&mut self, what: &str) -> Result<f64, Stop> {
        match self.rest.split_first_chunk::<8>() {
            Some((bytes, rest)) => {
                self.rest = rest;
                Ok(f64::from_le_bytes(*bytes))
            }
            None => Err(self.stop(what, format_args!("the datum ends early"))),
        }
    }

    /// An enum's symbol index, below `symbols`.
    #[inline]
    pub(crate) fn symbol(&mut self, what: &str, symbols: usize) -> Result<usize, Stop> {
        let index = self.int(what)?;
        match usize::try_from(index) {
            Ok(i) if i < symbols => Ok(i),
            _ => Err(self.stop(what, format_args!("no symbol {index}"))),
        }
    }

    /// A `["null", T]` union: `None` for branch 0, `read` for branch 1.
    #[inline(always)]
    pub(crate) fn optional<T>(
        &mut self,
        what: &str,
        read: impl FnOnce(&mut Self) -> Result<T, Stop>,
    ) -> Result<Option<T>, Stop> {
        match self.int(what)? {
            0 => Ok(None),
            1 => read(self).map(Some),
            other => Err(self.stop(what, format_args!("no union branch {other}"))),
        }
    }

    /// The count of an array's next block of items, 0 at its end.
    fn block(&mut self, what: &str) -> Result<usize, Stop> {
        let count = self.long(what)?;
        if count < 0 {
            // The block's size in bytes follows a negative count; items are read anyway.
            self.long(what)?;
        }
        // Each item takes at least a byte (the generator maps no type of zero bytes: no null
        // on its own, no record without fields): a count above what is left is damage, and
        // must not reserve memory.
        let count = count.unsigned_abs();
        if count > self.rest.len() as u64 {
            let left = self.rest.len();
            return Err(self.stop(
                what,
                format_args!("a block of {count} items where {left} bytes are left"),
            ));
        }
        Ok(count as usize)
    }

    /// An array: every item read with `read`, block after block.
    pub(crate) fn array<T>(
        &mut self,
        what: &str,
        mut read: impl FnMut(&mut Self) -> Result<T, Stop>,
    ) -> Result<Vec<T>, Stop> {
        let mut items = Vec::new();
        loop {
            let count = self.block(what)?;
            if count == 0 {
                return Ok(items);
            }
            items.reserve(count);
            for _ in 0..count {
                items.push(read(self)?);
            }
        }
    }

    /// An array's items, each handed to `item`, block after block.
    pub(crate) fn each(
        &mut self,
        what: &str,
        mut item: impl FnMut(&mut Self) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        loop {
            let count = self.block(what)?;
            if count == 0 {
                return Ok(());
            }
            for _ in 0..count {
                item(self)?;
            }
        }
    }

    fn end(self) -> Result<(), usize> {
        match self.rest.len() {
            0 => Ok(()),
            left => Err(left),
        }
    }
}

/// What went wrong reading a datum: damage described in words, or bytes left after the record.
#[derive(Debug)]
pub(crate) enum ReadError {
    Malformed(Malformed),
    TrailingBytes(usize),
}

/// Reads a whole datum with `read`.
pub(crate) fn read_datum<'a, T>(
    datum: &'a [u8],
    read: impl FnOnce(&mut Datum<'a>) -> Result<T, Stop>,
) -> Result<T, ReadError> {
    let mut datum = Datum {
        rest: datum,
        damage: None,
    };
    match read(&mut datum) {
        Ok(record) => {
            datum.end().map_err(ReadError::TrailingBytes)?;
            Ok(record)
        }
        Err(Stop) => Err(ReadError::Malformed(datum.damage.unwrap_or_default())),
    }
}

/// Reads a whole datum of record `T` as an event (`wrap`): a function of its own for every
/// record type, so that `read_event` stays a jump table and each type's reader is optimised
/// on its own.
#[inline(never)]
pub(crate) fn read_record<T: Wire>(
    datum: &[u8],
    name: &'static str,
    wrap: fn(T) -> Event,
) -> Result<Event, ReadError> {
    read_datum(datum, |d| T::read(d, name).map(wrap))
}

/// Writes Avro's binary encoding into a buffer.
pub(crate) struct Out<'a>(pub(crate) &'a mut Vec<u8>);

impl Out<'_> {
    #[inline]
    pub(crate) fn long(&mut self, value: i64) {
        let mut zigzag = ((value << 1) ^ (value >> 63)) as u64;
        while zigzag > 0x7F {
            self.0.push((zigzag as u8 & 0x7F) | 0x80);
            zigzag >>= 7;
        }
        self.0.push(zigzag as u8);
    }

    #[inline]
    pub(crate) fn int(&mut self, value: i32) {
        self.long(i64::from(value));
    }

    #[inline]
    pub(crate) fn bytes(&mut self, value: &[u8]) {
        // One byte (a section, a seat, most pair numbers): its length (1, zig-zag 2) and itself
        // in one copy of a known size, not a call to `memcpy`.
        if let [byte] = *value {
            self.0.extend_from_slice(&[2, byte]);
            return;
        }
        self.long(value.len() as i64);
        self.0.extend_from_slice(value);
    }

    #[inline]
    pub(crate) fn str(&mut self, value: &str) {
        self.bytes(value.as_bytes());
    }

    #[inline]
    pub(crate) fn boolean(&mut self, value: bool) {
        self.0.push(u8::from(value));
    }

    /// A `double`: 8 bytes, little-endian IEEE 754.
    pub(crate) fn double(&mut self, value: f64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    /// A `["null", T]` union.
    #[inline]
    pub(crate) fn optional<T>(&mut self, value: &Option<T>, write: impl FnOnce(&mut Self, &T)) {
        match value {
            None => self.long(0),
            Some(v) => {
                self.long(1);
                write(self, v);
            }
        }
    }

    /// An array as apache-avro writes one: the items in one block, then the end (an empty array
    /// is the end alone).
    #[inline]
    pub(crate) fn array<T>(&mut self, items: &[T], mut write: impl FnMut(&mut Self, &T)) {
        if !items.is_empty() {
            self.long(items.len() as i64);
            for item in items {
                write(self, item);
            }
        }
        self.long(0);
    }
}

include!(concat!(env!("OUT_DIR"), "/wire.rs"));

#[cfg(test)]
mod tests;
