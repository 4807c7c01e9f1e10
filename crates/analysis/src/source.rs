//! Where an analysis reads an event: the replay index of `simpairs_pipeline::history`, made to
//! cover the whole log (built, read on through what was appended, or built again), in the
//! directory given or in a temporary one.

use std::path::Path;

use simpairs_log::Log;
use simpairs_pipeline::history::Index;

use crate::Result;

/// An index covering the whole log, and the temporary directory holding it when none was given.
pub(crate) struct Indexed {
    pub index: Index,
    _temporary: Option<tempfile::TempDir>,
}

/// The event's index, covering every record of the log now.
pub fn whole(log: &dyn Log, event: &str, dir: Option<&Path>) -> Result<Indexed> {
    let (dir, temporary) = match dir {
        Some(dir) => (dir.to_path_buf(), None),
        None => {
            let t = tempfile::tempdir().map_err(crate::Error::TempDir)?;
            (t.path().to_path_buf(), Some(t))
        }
    };
    let index = Index::up_to_date(log, event, &dir)?;
    Ok(Indexed {
        index,
        _temporary: temporary,
    })
}
