//! Standard output for the commands. A reader that closes the pipe (`... | head -c 100`) ends the output,
//! not the command: later writes are dropped, the command finishes, and its exit code is still the
//! answer's (1 for a violation), every time, however early the pipe closed.

use miette::{Diagnostic, Report};
use std::io::{self, Write};

pub struct Out {
    inner: io::StdoutLock<'static>,
    closed: bool,
}

/// Locked standard output that takes a closed pipe as the end of the output.
/// With `--quiet` it takes nothing: only errors (on stderr) are printed.
pub fn stdout() -> Out {
    Out {
        inner: io::stdout().lock(),
        closed: super::global::quiet(),
    }
}

/// Where a report goes: standard output, or with `-o FILE` a temporary file beside FILE that becomes FILE
/// only when the report is complete ([`Sink::finish`]), so a reader never sees half a report.
/// A FILE that exists and is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO) is written in place:
/// renaming over it would replace the device or pipe with a plain file.
pub enum Sink {
    Stdout(Out),
    File {
        tmp: tempfile::NamedTempFile,
        path: std::path::PathBuf,
    },
    Special(std::fs::File),
}

impl Sink {
    pub fn new(output: Option<&std::path::Path>) -> io::Result<Sink> {
        let Some(path) = output else {
            return Ok(Sink::Stdout(stdout()));
        };
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            return std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map(Sink::Special)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        // Said before the check starts, naming the file asked for (not the temporary file beside it).
        if !dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{}: the directory {} does not exist",
                    path.display(),
                    dir.display()
                ),
            ));
        }
        let mut builder = tempfile::Builder::new();
        builder.prefix(".ozone-conform-");
        // Created as any file is (0666 less the umask), not 0600: the report is for others to read too.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let tmp = builder.tempfile_in(dir).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("{}: {}", path.display(), io::Error::from(e.kind())),
            )
        })?;
        Ok(Sink::File {
            tmp,
            path: path.to_path_buf(),
        })
    }

    /// Ends the report: flushes, and renames the temporary file to FILE.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Sink::Stdout(mut out) => out.flush(),
            Sink::Special(mut file) => file.flush(),
            Sink::File { mut tmp, path } => {
                tmp.flush()?;
                tmp.persist(&path).map(|_| ()).map_err(|e| {
                    io::Error::new(e.error.kind(), format!("{}: {}", path.display(), e.error))
                })
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(o) => o.write(buf),
            Sink::Special(f) => f.write(buf),
            Sink::File { tmp, .. } => tmp.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(o) => o.flush(),
            Sink::Special(f) => f.flush(),
            Sink::File { tmp, .. } => tmp.flush(),
        }
    }
}

impl Out {
    fn closes(&mut self, r: io::Result<()>) -> io::Result<()> {
        match r {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            r => r,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.inner.flush();
        self.closes(r)
    }
}

/// Writing the output failed (a closed pipe is not an error: `| head` is a normal way to stop).
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("cannot write the output: {0}")]
#[diagnostic(code(ozone_conform::output))]
pub struct OutputError(pub io::Error);

pub fn out_err(e: io::Error) -> Report {
    Report::new(OutputError(e))
}

pub(crate) fn is_broken_pipe(report: &Report) -> bool {
    report
        .downcast_ref::<OutputError>()
        .is_some_and(|e| e.0.kind() == io::ErrorKind::BrokenPipe)
}
