//! Standard output for the commands. A reader that closes the pipe (`... | head -c 100`) ends the output,
//! not the command: later writes are dropped, the command finishes, and its exit code is still the
//! answer's (1 for a violation), every time, however early the pipe closed.

use std::io::{self, Write};

pub struct Out {
    inner: io::StdoutLock<'static>,
    closed: bool,
}

/// Locked standard output that takes a closed pipe as the end of the output.
pub fn stdout() -> Out {
    Out {
        inner: io::stdout().lock(),
        closed: false,
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
