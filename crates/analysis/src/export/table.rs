//! One table of the export: columns declared once, rows added a value at a time into Arrow
//! builders, written in record batches to a Parquet file (zstd) or a CSV file (a header row,
//! times in RFC 3339).

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, StringBuilder, TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::{Error, Result};

/// The file format of an export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Format {
    #[default]
    Parquet,
    Csv,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
        }
    }
}

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Int,
    Float,
    Flag,
    /// Milliseconds since the epoch, a UTC timestamp.
    Time,
}

enum Builder {
    Text(StringBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Flag(BooleanBuilder),
    Time(TimestampMillisecondBuilder),
}

impl Builder {
    fn new(kind: Kind) -> Builder {
        match kind {
            Kind::Text => Builder::Text(StringBuilder::new()),
            Kind::Int => Builder::Int(Int64Builder::new()),
            Kind::Float => Builder::Float(Float64Builder::new()),
            Kind::Flag => Builder::Flag(BooleanBuilder::new()),
            Kind::Time => Builder::Time(TimestampMillisecondBuilder::new().with_timezone(UTC)),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Text(b) => Arc::new(b.finish()),
            Builder::Int(b) => Arc::new(b.finish()),
            Builder::Float(b) => Arc::new(b.finish()),
            Builder::Flag(b) => Arc::new(b.finish()),
            Builder::Time(b) => Arc::new(b.finish()),
        }
    }
}

fn data_type(kind: Kind) -> DataType {
    match kind {
        Kind::Text => DataType::Utf8,
        Kind::Int => DataType::Int64,
        Kind::Float => DataType::Float64,
        Kind::Flag => DataType::Boolean,
        Kind::Time => DataType::Timestamp(TimeUnit::Millisecond, Some(UTC.into())),
    }
}

/// The zone of the time columns, as an offset (the CSV writer knows no zone names).
const UTC: &str = "+00:00";

/// Rows of this many are written as one record batch.
const BATCH_ROWS: usize = 65_536;

/// A table being written.
pub struct Table {
    name: &'static str,
    path: PathBuf,
    schema: SchemaRef,
    builders: Vec<Builder>,
    /// The column the next value goes to, and rows pending in the builders.
    column: usize,
    pending: usize,
    rows: usize,
    out: Out,
}

enum Out {
    Parquet(Box<ArrowWriter<File>>),
    Csv(Box<arrow_csv::Writer<BufWriter<File>>>),
}

/// A table written: its file and how many rows.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Written {
    pub table: String,
    pub path: PathBuf,
    pub rows: usize,
    pub bytes: u64,
}

impl Table {
    /// A table `name` with `columns`, written to `dir/name.<format>`.
    pub fn create(
        dir: &Path,
        name: &'static str,
        format: Format,
        columns: &[(&str, Kind)],
    ) -> Result<Table> {
        let path = dir.join(format!("{name}.{}", format.extension()));
        let schema: SchemaRef = Arc::new(Schema::new(
            columns
                .iter()
                .map(|(n, k)| Field::new(*n, data_type(*k), true))
                .collect::<Vec<_>>(),
        ));
        let file = File::create(&path).map_err(|e| Error::write(&path, e))?;
        let out = match format {
            Format::Parquet => {
                let props = WriterProperties::builder()
                    .set_compression(Compression::ZSTD(ZstdLevel::default()))
                    .build();
                Out::Parquet(Box::new(
                    ArrowWriter::try_new(file, schema.clone(), Some(props))
                        .map_err(|e| Error::write(&path, e))?,
                ))
            }
            Format::Csv => Out::Csv(Box::new(
                arrow_csv::WriterBuilder::new()
                    .with_header(true)
                    .build(BufWriter::new(file)),
            )),
        };
        Ok(Table {
            name,
            path,
            builders: columns.iter().map(|(_, k)| Builder::new(*k)).collect(),
            schema,
            column: 0,
            pending: 0,
            rows: 0,
            out,
        })
    }

    /// The builder of the next column, which must be of `kind` (the tables' code adds values
    /// in the order of its columns: a mismatch is a bug, said plainly).
    fn next(&mut self) -> &mut Builder {
        let at = self.column;
        self.column += 1;
        self.builders
            .get_mut(at)
            .unwrap_or_else(|| panic!("more values than columns in a row (a bug in the export)"))
    }

    pub fn text(&mut self, v: Option<&str>) -> &mut Self {
        match self.next() {
            Builder::Text(b) => b.append_option(v),
            _ => panic!("a text value for a column of another kind (a bug in the export)"),
        }
        self
    }

    pub fn int(&mut self, v: Option<i64>) -> &mut Self {
        match self.next() {
            Builder::Int(b) => b.append_option(v),
            _ => panic!("a whole number for a column of another kind (a bug in the export)"),
        }
        self
    }

    pub fn float(&mut self, v: Option<f64>) -> &mut Self {
        match self.next() {
            Builder::Float(b) => b.append_option(v),
            _ => panic!("a number for a column of another kind (a bug in the export)"),
        }
        self
    }

    pub fn flag(&mut self, v: Option<bool>) -> &mut Self {
        match self.next() {
            Builder::Flag(b) => b.append_option(v),
            _ => panic!("a flag for a column of another kind (a bug in the export)"),
        }
        self
    }

    pub fn time(&mut self, ms: Option<i64>) -> &mut Self {
        match self.next() {
            Builder::Time(b) => b.append_option(ms),
            _ => panic!("a time for a column of another kind (a bug in the export)"),
        }
        self
    }

    /// Ends the row (every column given); writes a batch when enough rows are pending.
    pub(crate) fn end_row(&mut self) -> Result<()> {
        assert_eq!(
            self.column,
            self.builders.len(),
            "a row of table {} without every column (a bug in the export)",
            self.name
        );
        self.column = 0;
        self.pending += 1;
        if self.pending == BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.pending == 0 {
            return Ok(());
        }
        let arrays: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)
            .map_err(|e| Error::write(&self.path, e))?;
        let written = match &mut self.out {
            Out::Parquet(w) => w.write(&batch).map_err(|e| e.to_string()),
            Out::Csv(w) => w.write(&batch).map_err(|e| e.to_string()),
        };
        written.map_err(|e| Error::write(&self.path, e))?;
        self.rows += self.pending;
        self.pending = 0;
        Ok(())
    }

    /// Writes what is pending and closes the file.
    pub fn finish(mut self) -> Result<Written> {
        self.flush()?;
        let path = self.path.clone();
        match self.out {
            Out::Parquet(w) => {
                w.close().map_err(|e| Error::write(&path, e))?;
            }
            Out::Csv(w) => {
                let mut inner = w.into_inner();
                std::io::Write::flush(&mut inner).map_err(|e| Error::write(&path, e))?;
            }
        }
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        Ok(Written {
            table: self.name.to_string(),
            path,
            rows: self.rows,
            bytes,
        })
    }
}
