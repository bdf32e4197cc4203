//! `--format json`: the version 1 document of the README ([`crate::render::report::to_json`]). With `--per-file`, an
//! array of such documents, each with the `run` it is (the input file). With `--coverage`, each document
//! also has its run's `coverage` object ([`crate::coverage::RunCoverage::to_json`]).

use super::{Options, Renderer, Run};
use serde_json::Value;
use std::io::{self, Write};

pub struct Json {
    options: Options,
    runs: Vec<Value>,
}

impl Json {
    pub fn new(options: Options) -> Self {
        Json {
            options,
            runs: Vec::new(),
        }
    }
}

impl Renderer for Json {
    fn all(&self) -> bool {
        self.options.all
    }

    fn run(&mut self, _out: &mut dyn Write, run: &Run) -> io::Result<()> {
        let mut doc = crate::render::report::to_json(run.timeline, run.reports, self.options.all);
        if self.options.per_file {
            doc["run"] = run.name.into();
        }
        if let Some(coverage) = run.coverage {
            doc["coverage"] = coverage.to_json();
        }
        self.runs.push(doc);
        Ok(())
    }

    fn end(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let doc = if self.options.per_file {
            Value::Array(std::mem::take(&mut self.runs))
        } else {
            self.runs.pop().unwrap_or(Value::Null)
        };
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)
    }
}
