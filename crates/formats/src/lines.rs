//! The source line of each result of a field. Every reader records them and the importer keeps them,
//! so they live apart from both.

/// The source line of each result of a field, kept as runs of consecutive lines: a large file's rows
/// are almost all on consecutive lines, so this costs a few entries per chunk instead of 8 bytes per
/// result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    /// (first row, its line) of each run; within a run row `r` is on line `line + (r - row)`.
    runs: Vec<(usize, u64)>,
    len: usize,
}

impl Lines {
    pub fn new(lines: Vec<u64>) -> Lines {
        let mut out = Lines::default();
        for line in lines {
            out.push(line);
        }
        out
    }

    /// Adds the line of the next result.
    #[inline]
    pub fn push(&mut self, line: u64) {
        let continues = self
            .runs
            .last()
            .is_some_and(|&(row, first)| first + (self.len - row) as u64 == line);
        if !continues {
            self.runs.push((self.len, line));
        }
        self.len += 1;
    }

    /// Adds the lines of `other`'s results after these.
    pub fn append(&mut self, other: &Lines) {
        for (k, &(row, line)) in other.runs.iter().enumerate() {
            let end = other.runs.get(k + 1).map_or(other.len, |r| r.0);
            self.push(line);
            // The rest of the run continues the one just pushed.
            self.len += end - row - 1;
        }
    }

    /// Moves every line `by` lines on.
    pub fn move_by(&mut self, by: u64) {
        for (_, line) in &mut self.runs {
            *line += by;
        }
    }

    /// The line result `row` came from.
    pub fn line_of(&self, row: usize) -> u64 {
        assert!(row < self.len, "row {row} of {} lines", self.len);
        let run = self.runs.partition_point(|&(first, _)| first <= row) - 1;
        let (first, line) = self.runs[run];
        line + (row - first) as u64
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::Lines;

    #[test]
    fn lines_keep_runs_and_join_them() {
        let given = vec![2, 3, 4, 6, 7, 9, 10, 11, 12];
        let lines = Lines::new(given.clone());
        assert_eq!(lines.len(), given.len());
        assert_eq!(lines.runs.len(), 3, "2-4, 6-7, 9-12");
        for (row, &line) in given.iter().enumerate() {
            assert_eq!(lines.line_of(row), line);
        }
        // Appending: a run continuing the last one merges with it.
        let (a, b) = given.split_at(4);
        let mut joined = Lines::new(a.to_vec());
        joined.append(&Lines::new(b.to_vec()));
        assert_eq!(joined, lines);
        let mut joined = Lines::new(vec![1]);
        joined.append(&Lines::new(vec![2, 3, 8]));
        assert_eq!(joined, Lines::new(vec![1, 2, 3, 8]));
        assert_eq!(joined.runs.len(), 2);
        assert!(Lines::default().is_empty());
    }
}
