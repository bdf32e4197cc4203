//! The one-line summary that ends a `--per-file` report in the human formats: how many files had a
//! violation, how many conform, and how many told nothing (every model inconclusive).

use crate::check::ModelReport;
use crate::monitor::Verdict;
use std::io::{self, Write};

/// The runs seen so far, by what they showed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub violated: usize,
    pub conforms: usize,
    pub inconclusive: usize,
}

impl Tally {
    /// One run: violated if any model is, else conforms if any model does, else inconclusive.
    pub fn add(&mut self, reports: &[ModelReport]) {
        let any = |v: Verdict| reports.iter().any(|r| r.verdict == v);
        if any(Verdict::Violated) {
            self.violated += 1;
        } else if any(Verdict::Conforms) {
            self.conforms += 1;
        } else {
            self.inconclusive += 1;
        }
    }

    /// `ozone-conform: 5 files: 1 with a violation, 3 conform, 1 where every model was inconclusive`.
    pub fn line(&self) -> String {
        let files = self.violated + self.conforms + self.inconclusive;
        format!(
            "ozone-conform: {files} file{}: {} with a violation, {} conform, {} where every model was inconclusive",
            if files == 1 { "" } else { "s" },
            self.violated,
            self.conforms,
            self.inconclusive
        )
    }

    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", self.line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_files_by_their_strongest_verdict() {
        let t = Tally {
            violated: 1,
            conforms: 3,
            inconclusive: 1,
        };
        assert_eq!(
            t.line(),
            "ozone-conform: 5 files: 1 with a violation, 3 conform, 1 where every model was inconclusive"
        );
    }
}
