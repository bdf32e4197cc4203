//! The first line of an event's record, as a report shows it.
//!
//! A check of plain files keeps no line text per event (at a few hundred bytes a line it was most of a large
//! check's memory): each event keeps where its record is (input, byte offset) and a hash of its first line,
//! and the few lines a report shows are read back from the file when it renders. Inputs that cannot be read
//! again (stdin, a pipe, a followed file, gzip, an event stream, an editor's buffer) keep their lines.
//!
//! A file may have changed since it was checked (rotated, truncated, rewritten): a line read back is shown only
//! if it hashes to what the scan saw, else the report says the line is unavailable.

use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// A record's first line as a report shows it, and where its message starts in it.
#[derive(Debug, PartialEq, Eq)]
pub struct Excerpt<'a> {
    pub text: Cow<'a, str>,
    pub message_offset: usize,
}

impl Excerpt<'_> {
    /// What a report shows when the line cannot be read back as checked.
    pub fn unavailable() -> Excerpt<'static> {
        Excerpt {
            text: Cow::Borrowed(UNAVAILABLE),
            message_offset: 0,
        }
    }
}

/// Longest first line kept (or read back) for diagnostics, in bytes.
pub const MAX_EXCERPT: usize = 2000;

/// Shown in place of a line that could not be read back as it was checked.
pub const UNAVAILABLE: &str =
    "(line unavailable: the input changed or is gone since it was checked)";

/// The hash of a first line as an excerpt holds it: what tells repeated records apart and a line read back
/// from the line scanned.
pub fn hash(excerpt: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(excerpt.as_bytes());
    h.write_usize(excerpt.len());
    h.finish()
}

/// The excerpt a scan makes of a record's first physical line (without its line end, `\n` or `\r\n`):
/// capped at [`MAX_EXCERPT`] bytes, invalid UTF-8 replaced.
pub fn of_line(line: &[u8]) -> String {
    borrowed_of_line(line).into_owned()
}

/// [`of_line`] without a copy when the capped line is valid UTF-8 (nearly always): the scan hashes every
/// event's line, and keeps few.
pub fn borrowed_of_line(line: &[u8]) -> Cow<'_, str> {
    text_of(&line[..line.len().min(MAX_EXCERPT)])
}

/// `bytes` as text, borrowed when valid UTF-8 (nearly always), invalid bytes replaced otherwise:
/// `from_utf8` checks valid text faster than the lossy decoder walks it.
pub fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(valid) => Cow::Borrowed(valid),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// [`of_line`], and where the message starts in that text: counted in the excerpt, not in the raw bytes,
/// since each invalid byte before the message (a thread name in another encoding) becomes a 3-byte U+FFFD.
pub fn of_line_with_message(line: &[u8], message_at: usize) -> (String, u32) {
    let excerpt = borrowed_of_line(line);
    let offset = message_offset(line, &excerpt, message_at);
    (excerpt.into_owned(), offset)
}

/// Where the message that starts at `message_at` in `line` starts in `excerpt`, [`borrowed_of_line`] of it.
#[allow(clippy::ptr_arg)] // the variant tells a valid line (borrowed) from a decoded one
pub fn message_offset(line: &[u8], excerpt: &Cow<'_, str>, message_at: usize) -> u32 {
    let before = &line[..message_at.min(line.len()).min(MAX_EXCERPT)];
    // A borrowed excerpt is the capped line, valid: `before` is too when it ends on a character boundary.
    if let Cow::Borrowed(valid) = excerpt {
        if valid.is_char_boundary(before.len()) {
            return before.len() as u32;
        }
    }
    let mut offset = match std::str::from_utf8(before) {
        Ok(valid) => valid.len(),
        Err(_) => String::from_utf8_lossy(before).len(),
    }
    .min(excerpt.len());
    while !excerpt.is_char_boundary(offset) {
        offset -= 1;
    }
    offset as u32
}

/// Reads back the first line of the record at `byte_offset` of `path`, as [`of_line`] made it when scanned;
/// `None` if the file cannot be read there or the line there is not the one whose hash is `expected`.
pub fn read_back(path: &Path, byte_offset: u64, expected: u64) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    f.seek(SeekFrom::Start(byte_offset)).ok()?;
    // The capped line, its `\r`, and one byte more to see where it ends.
    let mut buf = Vec::with_capacity(MAX_EXCERPT + 2);
    f.take(MAX_EXCERPT as u64 + 2).read_to_end(&mut buf).ok()?;
    let line = match memchr::memchr(b'\n', &buf) {
        Some(nl) => &buf[..nl],
        None => &buf[..],
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = of_line(line);
    (hash(&text) == expected).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_offset_is_counted_in_the_lossy_excerpt() {
        // `[t\xe3\xe3] INFO X: msg`: two invalid bytes in the thread become two 3-byte U+FFFD.
        let raw = b"[t\xe3\xe3] INFO X: msg";
        let at = raw.len() - 3;
        let (excerpt, offset) = of_line_with_message(raw, at);
        assert_eq!(&excerpt[offset as usize..], "msg");
        assert_eq!(offset as usize, at + 4);
        // Valid text: the offset is the byte offset.
        let (excerpt, offset) = of_line_with_message(b"[main] INFO X: msg", 15);
        assert_eq!(&excerpt[offset as usize..], "msg");
        // An offset inside a character (cut there by MAX_EXCERPT or a layout) falls to its start.
        let (excerpt, offset) = of_line_with_message("ab\u{e9}cd".as_bytes(), 3);
        assert!(excerpt.is_char_boundary(offset as usize));
    }

    fn file_with(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.log");
        std::fs::write(&p, bytes).unwrap();
        (dir, p)
    }

    #[test]
    fn a_line_reads_back_as_scanned() {
        let (_d, p) = file_with(b"first line\r\nsecond line\nthird");
        let second = of_line(b"second line");
        assert_eq!(
            read_back(&p, 12, hash(&second)).as_deref(),
            Some("second line")
        );
        let first = of_line(b"first line");
        assert_eq!(
            read_back(&p, 0, hash(&first)).as_deref(),
            Some("first line")
        );
        // The last line has no newline.
        assert_eq!(read_back(&p, 24, hash("third")).as_deref(), Some("third"));
    }

    #[test]
    fn a_long_line_reads_back_capped() {
        let mut long = vec![b'a'; MAX_EXCERPT + 500];
        long.extend_from_slice(b"\r\nnext\n");
        let (_d, p) = file_with(&long);
        let scanned = of_line(&long[..MAX_EXCERPT + 500]);
        assert!(scanned.bytes().all(|b| b == b'a'));
        assert_eq!(scanned.len(), MAX_EXCERPT);
        assert_eq!(read_back(&p, 0, hash(&scanned)), Some(scanned));
    }

    #[test]
    fn a_changed_or_missing_file_gives_no_line() {
        let (d, p) = file_with(b"2026-01-01 one\n2026-01-01 two\n");
        let two = hash("2026-01-01 two");
        assert!(read_back(&p, 15, two).is_some());
        // Rotated: another file under the name, the same offset now holds another line.
        std::fs::write(&p, b"2026-01-02 six\n2026-01-02 ten\n").unwrap();
        assert_eq!(read_back(&p, 15, two), None);
        // Truncated.
        std::fs::write(&p, b"").unwrap();
        assert_eq!(read_back(&p, 15, two), None);
        drop(d);
        assert_eq!(read_back(&p, 15, two), None);
    }

    #[test]
    fn invalid_utf8_is_replaced_as_when_scanned() {
        let (_d, p) = file_with(b"caf\xe9 line\n");
        let scanned = of_line(b"caf\xe9 line");
        assert_eq!(scanned, "caf\u{fffd} line");
        assert_eq!(read_back(&p, 0, hash(&scanned)), Some(scanned));
    }
}
