//! `--export FORMAT OUT` of `score` and `replay`: the results they scored written as a file
//! another program reads (USEBIO 1.2 XML for a federation's masterpoints, or a traveller CSV).

use std::path::PathBuf;

use anyhow::{Context, bail};
use simpairs_formats::Imported;
use simpairs_formats::export::ExportFormat;
use simpairs_scoring::Scoring;

#[derive(clap::Args, Debug)]
pub struct ExportFlag {
    /// Also write the results scored, as `usebio` (USEBIO 1.2 XML) or `csv` (traveller CSV with
    /// ns_mp/ew_mp columns), to OUT.
    #[arg(long, num_args = 2, value_names = ["FORMAT", "OUT"])]
    pub export: Option<Vec<String>>,
}

/// A file to write, in a format.
pub struct Export {
    format: ExportFormat,
    out: PathBuf,
}

impl ExportFlag {
    /// The file asked for, checked before anything is read or scored.
    pub fn asked(&self) -> anyhow::Result<Option<Export>> {
        let Some(v) = &self.export else {
            return Ok(None);
        };
        let (format, out) = (&v[0], PathBuf::from(&v[1]));
        let Some(format) = ExportFormat::from_name(format) else {
            bail!("--export {format}: unknown format; expected usebio or csv");
        };
        Ok(Some(Export { format, out }))
    }
}

impl Export {
    /// Writes `imported` as `scoring` scored it, and says so on stderr.
    pub fn write(&self, imported: &Imported, scoring: &Scoring<'_>) -> anyhow::Result<()> {
        let target = self.out.display().to_string();
        let file =
            std::fs::File::create(&self.out).with_context(|| format!("cannot create {target}"))?;
        // The writers buffer their output themselves.
        simpairs_formats::export::write(file, self.format, imported, scoring)
            .with_context(|| format!("cannot write {target}"))?;
        tracing::info!(file = %target, results = imported.field.len(), "exported");
        eprintln!(
            "simpairs: wrote {target} ({} results scored)",
            imported.field.len()
        );
        Ok(())
    }
}
