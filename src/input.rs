//! Inputs: which files to read, in which order, and how to stream their bytes in newline-aligned blocks.
//!
//! Everything is streamed (plain files, gzip recognised by its magic bytes, stdin), so memory stays bounded by
//! the block size times the blocks in flight, whatever the input size.

use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use crate::mapped::MappedFile;

/// Blocks are cut at a newline near this size.
pub const BLOCK_SIZE: usize = 1 << 20;
/// A line longer than this is cut; the rest of it continues in the next block (and is reported).
pub const MAX_LINE: usize = 16 << 20;

/// One input as the user named it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Stdin,
    File(PathBuf),
    /// A file followed as it grows (`--follow`), across rotation by rename and by copytruncate.
    Follow(PathBuf),
    /// The text of a file as an editor holds it, unsaved edits included (the language server): read from
    /// memory, reported under the file's path (whose name may name the node, as a file's does).
    Buffer {
        path: PathBuf,
        bytes: Arc<[u8]>,
    },
}

impl Source {
    /// The path as given on the command line (`-` for stdin), used in every report.
    pub fn display(&self) -> String {
        match self.path() {
            None => "-".to_string(),
            Some(p) => p.display().to_string(),
        }
    }

    pub fn file_name(&self) -> Option<String> {
        self.path()?
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    }

    /// The file's path; `None` for stdin.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Stdin => None,
            Source::File(p) | Source::Follow(p) | Source::Buffer { path: p, .. } => Some(p),
        }
    }
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum InputError {
    #[error("{path}: no such file or directory")]
    #[diagnostic(code(ozone_conform::input::missing))]
    Missing { path: String },
    #[error("{path}: symlink loop (too many levels of symbolic links)")]
    #[diagnostic(
        code(ozone_conform::input::symlink_loop),
        help("the path's symbolic links point at each other; give the file they should name")
    )]
    SymlinkLoop { path: String },
    #[error("the pattern `{pattern}` matches no file")]
    #[diagnostic(code(ozone_conform::input::glob))]
    GlobEmpty { pattern: String },
    #[error("invalid glob pattern `{pattern}`: {message}")]
    #[diagnostic(code(ozone_conform::input::glob))]
    GlobInvalid { pattern: String, message: String },
    #[error("{path}: directory holds no log files (*.log, *.log.N, *.gz, *-output.txt)")]
    #[diagnostic(code(ozone_conform::input::empty_dir))]
    EmptyDir { path: String },
    #[error("{path}: {message}")]
    #[diagnostic(code(ozone_conform::input::io))]
    Io { path: String, message: String },
}

/// An input left out because it repeats another one.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    pub path: String,
    /// The input it repeats (the one that is read).
    pub same_as: String,
    /// `same file` (one path twice, or a directory that also holds a file given explicitly) or `same bytes`.
    pub reason: &'static str,
}

/// What the command line names, after expansion: the inputs to read, in order, and the ones left out.
#[derive(Clone, Debug, Default)]
pub struct Resolved {
    pub sources: Vec<Source>,
    pub skipped: Vec<Skipped>,
    /// For each source (same index), where it sits in its rotation family, when the family has several parts.
    pub rotation: Vec<Option<String>>,
    /// Files to follow that do not exist yet (only with `follow`, see [`resolve_all_following`]).
    pub waiting: Vec<PathBuf>,
}

/// Expands the command line's inputs: `-`, files, directories (recursively) and globs.
pub fn resolve(args: &[String]) -> Result<Vec<Source>, InputError> {
    resolve_all(args, true).map(|r| r.sources)
}

/// [`resolve`], also saying which inputs repeat others (read once) and how rotation families were ordered.
///
/// A rotation family (`x.log.2`, `x.log.1`, `x.log`) is read oldest first whatever the argument order
/// (`check *.log*` puts `x.log` before `x.log.1`), at the place of its first member. `read_once` leaves out
/// repeated files; without it (`check --per-file`, where each file is a run of its own) every one is kept.
pub fn resolve_all(args: &[String], read_once: bool) -> Result<Resolved, InputError> {
    resolve_all_following(args, read_once, false)
}

/// [`resolve_all`]; with `follow`, a file name (not a glob) that does not exist yet is no error: it is in
/// [`Resolved::waiting`], to be followed once it appears.
pub fn resolve_all_following(
    args: &[String],
    read_once: bool,
    follow: bool,
) -> Result<Resolved, InputError> {
    let mut named = Vec::new();
    let mut waiting = Vec::new();
    for arg in args {
        if arg == "-" {
            named.push(Source::Stdin);
            continue;
        }
        let path = Path::new(arg);
        if path.is_dir() {
            let files = walk_dir(path);
            if files.is_empty() {
                return Err(InputError::EmptyDir { path: arg.clone() });
            }
            named.extend(files.into_iter().map(Source::File));
        } else if path.exists() {
            named.push(Source::File(path.to_path_buf()));
        } else if arg.contains(['*', '?', '[']) {
            let paths = glob::glob(arg).map_err(|e| InputError::GlobInvalid {
                pattern: arg.clone(),
                message: e.msg.to_string(),
            })?;
            let mut found: Vec<PathBuf> = paths.filter_map(Result::ok).collect();
            if found.is_empty() {
                return Err(InputError::GlobEmpty {
                    pattern: arg.clone(),
                });
            }
            sort_rotated(&mut found);
            for p in found {
                if p.is_dir() {
                    named.extend(walk_dir(&p).into_iter().map(Source::File));
                } else {
                    named.push(Source::File(p));
                }
            }
        } else if is_symlink_loop(path) {
            return Err(InputError::SymlinkLoop { path: arg.clone() });
        } else if follow {
            waiting.push(path.to_path_buf());
        } else {
            return Err(InputError::Missing { path: arg.clone() });
        }
    }
    let (kept, skipped) = if read_once {
        drop_repeated_files(named)?
    } else {
        (named, Vec::new())
    };
    let (mut sources, mut rotation) = order_families(kept);
    order_container_runs(&mut sources, &mut rotation);
    Ok(Resolved {
        sources,
        skipped,
        rotation,
        waiting,
    })
}

/// `ELOOP`: `Path::exists` is false for a link cycle too, and "no such file" would send the user looking
/// for a file that is there (std has no stable `ErrorKind` for it, hence the errno).
fn is_symlink_loop(path: &Path) -> bool {
    #[cfg(target_os = "linux")]
    const ELOOP: i32 = 40;
    #[cfg(not(target_os = "linux"))]
    const ELOOP: i32 = 62;
    std::fs::metadata(path).is_err_and(|e| e.raw_os_error() == Some(ELOOP))
}

/// Leaves out a file named twice (the same file by its canonical path: passed twice, or inside a directory
/// also given) and a byte-for-byte copy of another file: replaying one log twice would double its events.
fn drop_repeated_files(named: Vec<Source>) -> Result<(Vec<Source>, Vec<Skipped>), InputError> {
    let mut kept: Vec<Source> = Vec::new();
    let mut skipped = Vec::new();
    let mut by_path: std::collections::HashMap<PathBuf, usize> = Default::default();
    // Files of one size are compared by content only when a second one of that size shows up.
    let mut by_size: std::collections::HashMap<u64, Vec<usize>> = Default::default();
    // By path (a file left out as a copy must not lend its digests to the next one kept), and whether of
    // the whole file or of its first bytes.
    let mut digests: std::collections::HashMap<(PathBuf, bool), [u64; 2]> = Default::default();
    let io_err = |p: &Path, e: io::Error| InputError::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    for s in named {
        let Source::File(p) = &s else {
            kept.push(s);
            continue;
        };
        let canonical = std::fs::canonicalize(p).map_err(|e| io_err(p, e))?;
        if let Some(&i) = by_path.get(&canonical) {
            skipped.push(Skipped {
                path: s.display(),
                same_as: kept[i].display(),
                reason: "same file",
            });
            continue;
        }
        let size = std::fs::metadata(p).map_err(|e| io_err(p, e))?.len();
        let mut copy_of = None;
        if size > 0 {
            let same_size = by_size.get(&size).cloned().unwrap_or_default();
            if !same_size.is_empty() {
                // The first bytes first: logs of one size seldom share them, and then neither is read whole.
                for i in same_size {
                    let Source::File(q) = &kept[i] else { continue };
                    let mut same = true;
                    for whole in [false, true] {
                        let mut digest_of = |path: &Path| match digests.get(&(path.into(), whole)) {
                            Some(d) => Ok(*d),
                            None => {
                                let d = digest(path, whole).map_err(|e| io_err(path, e))?;
                                digests.insert((path.into(), whole), d);
                                Ok::<_, InputError>(d)
                            }
                        };
                        if digest_of(p)? != digest_of(q)? {
                            same = false;
                            break;
                        }
                    }
                    if same {
                        copy_of = Some(i);
                        break;
                    }
                }
            }
        }
        if let Some(i) = copy_of {
            skipped.push(Skipped {
                path: s.display(),
                same_as: kept[i].display(),
                reason: "same bytes",
            });
            continue;
        }
        by_path.insert(canonical, kept.len());
        by_size.entry(size).or_default().push(kept.len());
        kept.push(s);
    }
    Ok((kept, skipped))
}

/// Bytes at the start of a file that [`digest`] reads when not asked for the whole file.
const DIGEST_START: usize = 64 * 1024;

/// Two independent 64-bit hashes of a file's bytes, all of them or the first [`DIGEST_START`] (a collision
/// of both is not a practical concern).
fn digest(path: &Path, whole: bool) -> io::Result<[u64; 2]> {
    use std::hash::Hasher;
    let mut a = std::collections::hash_map::DefaultHasher::new();
    let mut b = rustc_hash::FxHasher::default();
    let mut f = File::open(path)?.take(if whole { u64::MAX } else { DIGEST_START as u64 });
    let mut buf = vec![0u8; if whole { 256 * 1024 } else { DIGEST_START }];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        a.write(&buf[..n]);
        b.write(&buf[..n]);
    }
    Ok([a.finish(), b.finish()])
}

/// Puts each rotation family's parts together, oldest first, where its first member was named.
pub(crate) fn order_families(sources: Vec<Source>) -> (Vec<Source>, Vec<Option<String>>) {
    let base_of = |s: &Source| s.path().map(rotation_base);
    let mut families: Vec<(Option<PathBuf>, Vec<Source>)> = Vec::new();
    for s in sources {
        let base = base_of(&s);
        match families.iter_mut().find(|(b, _)| b.is_some() && *b == base) {
            Some((_, members)) => members.push(s),
            None => families.push((base, vec![s])),
        }
    }
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for (base, mut members) in families {
        members.sort_by(|a, b| match (a.path(), b.path()) {
            (Some(x), Some(y)) => rotation_order(x, y),
            _ => std::cmp::Ordering::Equal,
        });
        let n = members.len();
        for (i, m) in members.into_iter().enumerate() {
            notes.push((n > 1).then(|| {
                let base = base.as_ref().map_or_else(String::new, |b| {
                    b.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned()
                });
                let by = match m.path() {
                    Some(p) => match rotation_key(p).1 {
                        Rotation::Live => "live file, newest".to_string(),
                        Rotation::Numbered(k) => format!("suffix .{k}"),
                        Rotation::Dated(d, k) => format!(
                            "date {d}{}",
                            if k > 0 {
                                format!(" #{k}")
                            } else {
                                String::new()
                            }
                        ),
                    },
                    None => String::new(),
                };
                format!("part {} of {n} of {base}, oldest first (by {by})", i + 1)
            }));
            out.push(m);
        }
    }
    (out, notes)
}

/// Puts the files of one Kubernetes container's runs (one per container id or restart count) in the order
/// they ran, by the receive time of their first lines, in the places the files held: their names (random
/// container ids) say nothing of it, and a pod's runs are one node's log, read oldest first like a rotation.
/// `notes` (one per source) move with their files.
pub(crate) fn order_container_runs<T>(sources: &mut [Source], notes: &mut [T]) {
    use crate::wrapper::{container_of_path, first_receive_time};
    let mut groups: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, s) in sources.iter().enumerate() {
        if let Source::File(p) = s {
            if let Some(c) = container_of_path(p) {
                groups.entry(c).or_default().push(i);
            }
        }
    }
    for places in groups.values().filter(|g| g.len() > 1) {
        let mut runs: Vec<(Option<i64>, usize)> = places
            .iter()
            .map(|&i| match &sources[i] {
                Source::File(p) => (first_receive_time(p), i),
                _ => (None, i),
            })
            .collect();
        runs.sort();
        let order: Vec<usize> = runs.into_iter().map(|(_, i)| i).collect();
        permute(sources, places, &order);
        permute(notes, places, &order);
    }
}

/// Puts the item now at `order[k]` at `places[k]`, by swaps (`order` is a permutation of `places`).
fn permute<T>(items: &mut [T], places: &[usize], order: &[usize]) {
    // `at[k]`: where the item that belongs at `places[k]` is now.
    let mut at = order.to_vec();
    for k in 0..places.len() {
        let (to, from) = (places[k], at[k]);
        if to != from {
            items.swap(to, from);
            // The item that was at `to` is now at `from`: whoever wants it looks there.
            if let Some(j) = (k + 1..at.len()).find(|&j| at[j] == to) {
                at[j] = from;
            }
        }
        at[k] = to;
    }
}

/// Log files under a directory, oldest rotation first within each log.
fn walk_dir(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| is_log_file_name(&p.file_name().unwrap_or_default().to_string_lossy()))
        .collect();
    sort_rotated(&mut files);
    files
}

/// Every directory under `root` (itself included) that holds a log file ([`is_log_file_name`]), sorted: the
/// fixture directories the tests check one by one.
#[cfg(any(test, feature = "testing"))]
pub fn log_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.into_path())
        .filter(|d| {
            std::fs::read_dir(d).is_ok_and(|mut entries| {
                entries.any(|f| f.is_ok_and(|f| is_log_file_name(&f.file_name().to_string_lossy())))
            })
        })
        .collect();
    dirs.sort();
    dirs
}

/// `*.log`, rotated `*.log.N` and DailyRollingFileAppender `*.log.2026-08-23`, `*.gz`, surefire `*-output.txt`.
pub fn is_log_file_name(name: &str) -> bool {
    if name.ends_with(".log") || name.ends_with(".gz") || name.ends_with("-output.txt") {
        return true;
    }
    match name.rsplit_once(".log.") {
        Some((_, n)) => {
            (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) || date_suffix(n).is_some()
        }
        None => false,
    }
}

/// Where a file sits in its rotation family.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Rotation {
    /// The file log4j writes to now: the newest.
    Live,
    /// RollingFileAppender's `x.log.N`: the higher N, the older.
    Numbered(i64),
    /// DailyRollingFileAppender's `x.log.2026-08-23` (`-HH`, `-HH-mm` too), log4j2's `x-2026-08-23-1.log.gz`:
    /// by date, then by index (log4j2's `%i` counts up within a period).
    Dated(String, i64),
}

impl Rotation {
    /// Oldest first: dated parts (by date), numbered parts (highest number first), the live file.
    fn rank(&self) -> (u8, String, i64) {
        match self {
            Rotation::Dated(d, i) => (0, d.clone(), *i),
            Rotation::Numbered(n) => (1, String::new(), -n),
            Rotation::Live => (2, String::new(), 0),
        }
    }
}

/// `2026-08-23`, `2026-08-23-14`, `2026-08-23-14-05` (what DatePattern `'.'yyyy-MM-dd[-HH[-mm]]` gives).
fn date_suffix(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let shape_ok = |len: usize| {
        b.len() == len
            && b.iter().enumerate().all(|(i, c)| match i {
                4 | 7 | 10 | 13 => *c == b'-',
                _ => c.is_ascii_digit(),
            })
    };
    [10, 13, 16].into_iter().any(shape_ok).then_some(s)
}

/// Splits a rotated file name into its live file and its place: `x.log.3`, `x.log.3.gz`, `x.log-3.gz`,
/// `x.log.gz` (numbered), `x.log.2026-08-23[.gz]` (dated), `x-2026-08-23-1.log[.gz]` (log4j2 dated).
fn rotation_key(path: &Path) -> (PathBuf, Rotation) {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    for sep in [".log.", ".log-"] {
        if let Some((base, n)) = name.rsplit_once(sep) {
            if let Ok(n) = n.parse::<i64>() {
                return (
                    path.with_file_name(format!("{base}.log")),
                    Rotation::Numbered(n),
                );
            }
            if let Some(d) = date_suffix(n) {
                return (
                    path.with_file_name(format!("{base}.log")),
                    Rotation::Dated(d.to_string(), 0),
                );
            }
        }
    }
    // log4j2 `%d{yyyy-MM-dd}-%i`: `om-audit-2026-08-23-1.log`.
    if let Some(stem) = name.strip_suffix(".log") {
        let (stem, index) = match stem.rsplit_once('-') {
            Some((s, i))
                if !i.is_empty() && i.len() <= 4 && i.bytes().all(|c| c.is_ascii_digit()) =>
            {
                (s, i.parse().unwrap_or(0))
            }
            _ => (stem, 0),
        };
        if stem.len() > 11 && stem.is_char_boundary(stem.len() - 11) {
            let (base, date) = stem.split_at(stem.len() - 11);
            if let Some(d) = date_suffix(&date[1..]) {
                if date.starts_with('-') && !base.is_empty() {
                    return (
                        path.with_file_name(format!("{base}.log")),
                        Rotation::Dated(d.to_string(), index),
                    );
                }
            }
        }
    }
    (path.with_file_name(name), Rotation::Live)
}

/// Oldest first within a family; families by their live file's path.
fn rotation_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    let (ba, ra) = rotation_key(a);
    let (bb, rb) = rotation_key(b);
    ba.cmp(&bb).then(ra.rank().cmp(&rb.rank())).then(a.cmp(b))
}

pub fn sort_rotated(paths: &mut [PathBuf]) {
    paths.sort_by(|a, b| rotation_order(a, b));
}

/// The live log a (possibly rotated) file belongs to: `x.log.3.gz` → `x.log`.
pub fn rotation_base(path: &Path) -> PathBuf {
    rotation_key(path).0
}

/// Opens a source, decompressing when it starts with the gzip magic bytes (whatever its name).
pub fn open(source: &Source) -> io::Result<Box<dyn Read + Send>> {
    open_with_progress(source, None).map(|o| o.reader)
}

/// An opened input: its bytes, and how its blocks are cut.
pub struct Opened {
    pub reader: Box<dyn Read + Send>,
    pub live: Live,
    /// Decompressed: its byte offsets are not the file's.
    pub gzip: bool,
}

/// How the block reader cuts an input. A batch input fills whole blocks; a live one (a pipe, a FIFO, a
/// terminal, a followed file) sends the lines it has as soon as its writer idles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Live {
    Batch,
    /// `ready` is the descriptor to poll: while a fast writer (`cat`, `zcat`) is ahead, blocks keep filling
    /// to full size instead of going out one pipe buffer at a time. `None` (a followed file): a short read
    /// means the writer idles.
    Lines {
        ready: Option<i32>,
    },
}

impl Live {
    /// Are more bytes waiting to be read right now?
    fn more_waiting(self) -> bool {
        match self {
            Live::Lines { ready: Some(fd) } => fd_has_input(fd),
            _ => false,
        }
    }
}

#[cfg(unix)]
fn fd_has_input(fd: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a zero timeout; the descriptor is owned by the reader that outlives the call.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n == 1 && p.revents & libc::POLLIN != 0
}

#[cfg(not(unix))]
fn fd_has_input(_fd: i32) -> bool {
    false
}

/// A pipe's buffer is 64 KiB by default: a larger one lets a fast writer run ahead between our reads.
#[cfg(target_os = "linux")]
fn widen_pipe(fd: i32) {
    // SAFETY: fcntl on a descriptor we hold; failure (not a pipe, above the system's limit) changes nothing.
    unsafe {
        libc::fcntl(fd, libc::F_SETPIPE_SZ, BLOCK_SIZE as libc::c_int);
    }
}

#[cfg(not(target_os = "linux"))]
fn widen_pipe(_fd: i32) {}

/// Is this open file a pipe, a FIFO or a character device (a terminal, `/dev/urandom`): bytes that arrive
/// rather than bytes that are there?
fn streams_bytes(file: &File) -> bool {
    file.metadata().is_ok_and(|m| is_stream_type(m.file_type()))
}

#[cfg(unix)]
fn is_stream_type(t: std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    t.is_fifo() || t.is_char_device() || t.is_socket()
}

#[cfg(not(unix))]
fn is_stream_type(_t: std::fs::FileType) -> bool {
    false
}

/// Counts the raw (before decompression) bytes read into a progress bar; reads are 256 KiB, so the bar is
/// touched once per read, not per line.
struct Counted<R> {
    inner: R,
    bar: indicatif::ProgressBar,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

/// [`open`], advancing `progress` by the bytes read from the file (or stdin).
pub fn open_with_progress(
    source: &Source,
    progress: Option<&indicatif::ProgressBar>,
) -> io::Result<Opened> {
    let (raw, live): (Box<dyn Read + Send>, Live) = match source {
        Source::Stdin => (Box::new(io::stdin()), stdin_liveness()),
        Source::File(p) => {
            let file = File::open(p)?;
            let live = if streams_bytes(&file) {
                pipe_liveness(&file)
            } else {
                Live::Batch
            };
            (Box::new(file), live)
        }
        // Bytes in memory are there whole, as a file's are.
        Source::Buffer { bytes, .. } => (Box::new(io::Cursor::new(Arc::clone(bytes))), Live::Batch),
        // A followed file is read as it is; gzip does not grow.
        Source::Follow(p) => {
            return Ok(Opened {
                reader: Box::new(FollowReader::open(p)?),
                live: Live::Lines { ready: None },
                gzip: false,
            })
        }
    };
    let raw: Box<dyn Read + Send> = match progress {
        Some(bar) => Box::new(Counted {
            inner: raw,
            bar: bar.clone(),
        }),
        None => raw,
    };
    let mut buf = BufReader::with_capacity(256 * 1024, raw);
    let head = buf.fill_buf()?;
    let gzip = head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b;
    let reader: Box<dyn Read + Send> = if gzip {
        Box::new(MultiGzDecoder::new(buf))
    } else {
        Box::new(buf)
    };
    Ok(Opened { reader, live, gzip })
}

#[cfg(unix)]
fn pipe_liveness(file: &File) -> Live {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    widen_pipe(fd);
    Live::Lines { ready: Some(fd) }
}

#[cfg(not(unix))]
fn pipe_liveness(_file: &File) -> Live {
    Live::Lines { ready: None }
}

/// Stdin is live unless it is a regular file (`check - < FILE`), which is read like a named one.
#[cfg(unix)]
fn stdin_liveness() -> Live {
    use std::os::fd::{AsRawFd, FromRawFd};
    let fd = io::stdin().as_raw_fd();
    // SAFETY: borrowed only to ask for its type; ManuallyDrop keeps stdin open.
    let file = std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
    match file.metadata() {
        Ok(m) if m.is_file() => Live::Batch,
        _ => pipe_liveness(&file),
    }
}

#[cfg(not(unix))]
fn stdin_liveness() -> Live {
    Live::Lines { ready: None }
}

/// Is this source live: a pipe, a FIFO or a followed file, whose lines are checked as they arrive (and whose
/// verdicts a signal may end)? A regular file is not, even on stdin.
pub fn is_live(source: &Source) -> bool {
    match source {
        Source::Follow(_) => true,
        Source::Buffer { .. } => false,
        Source::Stdin => stdin_liveness() != Live::Batch,
        // stat, not open: opening a FIFO waits for its writer, and closing it again would end the writer's pipe.
        Source::File(p) => std::fs::metadata(p).is_ok_and(|m| is_stream_type(m.file_type())),
    }
}

/// Reads a file as it grows, like `tail -F`: at its end it waits and reads on; when the path names a new
/// file (rotation by rename) it finishes the old one and goes on with the new one from its start; when the
/// file shrinks below what was read (copytruncate) it starts over from the beginning.
pub struct FollowReader {
    path: PathBuf,
    /// `None` until the file exists (`--follow` waits for a file that is not there yet, as `tail -F` does).
    file: Option<File>,
    /// Bytes read from `file`.
    position: u64,
    poll: std::time::Duration,
}

impl FollowReader {
    pub fn open(path: &std::path::Path) -> io::Result<FollowReader> {
        let file = match File::open(path) {
            Ok(f) => Some(f),
            // Not there yet: read from its start once it appears.
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        Ok(FollowReader {
            path: path.to_path_buf(),
            file,
            position: 0,
            poll: std::time::Duration::from_millis(200),
        })
    }

    /// Has `path` been replaced by another file since we opened ours?
    fn rotated(&self) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let Some(file) = &self.file else {
                return false;
            };
            match (std::fs::metadata(&self.path), file.metadata()) {
                (Ok(now), Ok(ours)) => now.ino() != ours.ino() || now.dev() != ours.dev(),
                _ => false,
            }
        }
        #[cfg(not(unix))]
        {
            false
        }
    }
}

impl Read for FollowReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::io::{Seek, SeekFrom};
        loop {
            let Some(file) = &mut self.file else {
                match File::open(&self.path) {
                    Ok(f) => self.file = Some(f),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => std::thread::sleep(self.poll),
                    Err(e) => return Err(e),
                }
                continue;
            };
            let n = file.read(buf)?;
            if n > 0 {
                self.position += n as u64;
                return Ok(n);
            }
            if self.rotated() {
                // The old file is read to its end; go on with the new one (if it exists yet).
                if let Ok(f) = File::open(&self.path) {
                    self.file = Some(f);
                    self.position = 0;
                    continue;
                }
            } else if let Some(file) = &mut self.file {
                if file.metadata()?.len() < self.position {
                    file.seek(SeekFrom::Start(0))?;
                    self.position = 0;
                    continue;
                }
            }
            std::thread::sleep(self.poll);
        }
    }
}

/// A newline-aligned piece of an input.
#[derive(Debug)]
pub struct Block {
    /// Offset of `bytes[0]` in the (decompressed) input.
    pub offset: u64,
    pub bytes: BlockData,
    /// The block starts in the middle of a line that an earlier block cut because it exceeded `MAX_LINE`.
    pub continues_line: bool,
}

/// A block's bytes: read into a buffer, or a range of a mapped file.
pub enum BlockData {
    Read(Vec<u8>),
    Mapped {
        map: Arc<MappedFile>,
        start: usize,
        end: usize,
    },
}

impl std::ops::Deref for BlockData {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            BlockData::Read(v) => v,
            BlockData::Mapped { map, start, end } => &map.bytes()[*start..*end],
        }
    }
}

impl std::fmt::Debug for BlockData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlockData::Read(v) => write!(f, "Read({} bytes)", v.len()),
            BlockData::Mapped { start, end, .. } => write!(f, "Mapped({start}..{end})"),
        }
    }
}

impl From<Vec<u8>> for BlockData {
    fn from(bytes: Vec<u8>) -> BlockData {
        BlockData::Read(bytes)
    }
}

impl BlockData {
    /// The buffer to read the next block into (a mapped block has none: an empty one).
    pub fn into_buffer(mut self) -> Vec<u8> {
        match &mut self {
            BlockData::Read(v) => std::mem::take(v),
            BlockData::Mapped { .. } => Vec::new(),
        }
    }
}

impl Drop for BlockData {
    /// A mapped block's pages leave the process's memory with it (see [`MappedFile::release`]).
    fn drop(&mut self) {
        if let BlockData::Mapped { map, start, end } = self {
            map.release(*start, *end);
        }
    }
}

impl Block {
    /// A block of a file that shrank while it was read ([`MappedFile::shrunk_to`]) and holds bytes past the
    /// file's new end: the block's whole lines before that end, and the file's new length.
    pub fn cut_at_truncation(&self) -> Option<(Block, u64)> {
        let BlockData::Mapped { map, start, end } = &self.bytes else {
            return None;
        };
        // The map's zero pages tell of a truncation; the last block asks the file too, since a file cut
        // inside the map's last page reads zeros there without a fault.
        let last = *end == map.bytes().len();
        if !(last || map.lost_pages()) {
            return None;
        }
        let now = map.shrunk_to()?;
        if now >= *end as u64 {
            return None;
        }
        let real = &map.bytes()[*start..(now as usize).max(*start)];
        let whole = memchr::memrchr(b'\n', real).map_or(0, |i| i + 1);
        let cut = Block {
            offset: self.offset,
            bytes: BlockData::Mapped {
                map: Arc::clone(map),
                start: *start,
                end: start + whole,
            },
            continues_line: self.continues_line,
        };
        Some((cut, now))
    }
}

/// What the reader thread sends: a sequence number, then a block or the read error that ended the input.
pub type BlockMessage = (u64, Result<Block, (u64, io::Error)>);

/// Where the next block goes: its number, its offset, and whether it continues a line cut at `MAX_LINE`.
#[derive(Default)]
struct NextBlock {
    seq: u64,
    offset: u64,
    continues_line: bool,
}

impl NextBlock {
    /// `bytes` as the next block, numbered and placed after the one before.
    fn take(&mut self, bytes: BlockData) -> BlockMessage {
        let len = bytes.len() as u64;
        let next_continues = !bytes.ends_with(b"\n");
        let message = (
            self.seq,
            Ok(Block {
                offset: self.offset,
                bytes,
                continues_line: self.continues_line,
            }),
        );
        self.seq += 1;
        self.offset += len;
        self.continues_line = next_continues;
        message
    }
}

/// Where a block of `buf` (full, or grown to `MAX_LINE`) is cut: after its last newline, keeping a CRI
/// partial line with the line that finishes it, or at its end when it holds no newline (a line longer than
/// `MAX_LINE`).
fn cut_point(buf: &[u8]) -> usize {
    match memchr::memrchr(b'\n', buf) {
        Some(i) => crate::wrapper::keep_partials_together(buf, i + 1),
        None => buf.len(),
    }
}

/// Cuts an input into newline-aligned blocks, one [`CutBlocks::next_block`] at a time: on the caller's
/// thread for the first block (an input that fits in one block is read without a thread), then on the
/// reader thread of [`spawn_cutter`].
pub trait CutBlocks: Send {
    /// The next block (read into `buf`, whose contents are discarded, when the input is read), or the read
    /// error that ended the input; `None` once the input has ended.
    fn next_block(&mut self, buf: Vec<u8>) -> Option<BlockMessage>;
    /// The input has ended: [`CutBlocks::next_block`] has nothing more to give.
    fn ended(&self) -> bool;
}

/// Cuts the rest of the input on a background thread. Before each block the cutter takes a buffer from
/// the returned sender's channel, so at most `in_flight` blocks exist until the consumer hands buffers
/// back: memory stays bounded whatever the input size, and buffers are reused rather than allocated (and
/// page-faulted) anew for every block.
pub fn spawn_cutter(
    mut cutter: Box<dyn CutBlocks>,
    in_flight: usize,
) -> (Receiver<BlockMessage>, SyncSender<Vec<u8>>) {
    let (tx, rx) = channel();
    let (permit_tx, permit_rx) = sync_channel::<Vec<u8>>(in_flight);
    for _ in 0..in_flight {
        permit_tx.send(Vec::new()).expect("channel has room");
    }
    std::thread::spawn(move || {
        // The consumer stops by dropping the permits' sender or the blocks' receiver.
        while let Ok(buf) = permit_rx.recv() {
            let Some(message) = cutter.next_block(buf) else {
                return;
            };
            if tx.send(message).is_err() {
                return;
            }
        }
    });
    (rx, permit_tx)
}

/// An input opened as blocks.
pub struct OpenedBlocks {
    pub cutter: Box<dyn CutBlocks>,
    pub live: Live,
    /// Decompressed: its byte offsets are not the file's.
    pub gzip: bool,
}

/// Opens a source as blocks: a regular file longer than a block through a memory map ([`MapCutter`]),
/// anything else read ([`BlockCutter`]).
pub fn open_blocks(
    source: &Source,
    progress: Option<&indicatif::ProgressBar>,
) -> io::Result<OpenedBlocks> {
    if let Source::File(path) = source {
        // A file that fits in a block is read in one call: no map to make and tear down.
        let worth_a_map =
            std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > BLOCK_SIZE as u64);
        if let Some(map) = worth_a_map
            .then(|| File::open(path).ok().and_then(MappedFile::map))
            .flatten()
        {
            // A gzip file is decompressed as it is read.
            if !map.bytes().starts_with(&[0x1f, 0x8b]) {
                return Ok(OpenedBlocks {
                    cutter: Box::new(MapCutter::new(map, progress.cloned())),
                    live: Live::Batch,
                    gzip: false,
                });
            }
        }
    }
    let Opened { reader, live, gzip } = open_with_progress(source, progress)?;
    Ok(OpenedBlocks {
        cutter: Box::new(BlockCutter::new(reader, live)),
        live,
        gzip,
    })
}

/// Cuts a mapped file into the blocks [`BlockCutter`] cuts from the same bytes, as ranges of the map.
pub struct MapCutter {
    map: Arc<MappedFile>,
    /// Where the next block starts.
    pos: usize,
    next: NextBlock,
    ended: bool,
    progress: Option<indicatif::ProgressBar>,
}

impl MapCutter {
    pub fn new(map: MappedFile, progress: Option<indicatif::ProgressBar>) -> MapCutter {
        MapCutter {
            map: Arc::new(map),
            pos: 0,
            next: NextBlock::default(),
            ended: false,
            progress,
        }
    }

    /// The next block's range, cut as [`BlockCutter::next_block`] cuts a read of the same bytes: to the last
    /// newline of the first `BLOCK_SIZE` bytes (grown a block at a time up to `MAX_LINE` while they hold
    /// none), or whole at the end of the file.
    fn next_range(&mut self) -> Option<(usize, usize)> {
        let bytes = self.map.bytes();
        let start = self.pos;
        let mut end = start;
        let mut searched = start;
        loop {
            let have = end - start;
            let need = if have < BLOCK_SIZE {
                BLOCK_SIZE - have
            } else if have < MAX_LINE && memchr::memchr(b'\n', &bytes[searched..end]).is_none() {
                searched = end;
                BLOCK_SIZE.min(MAX_LINE - have)
            } else {
                break;
            };
            let n = need.min(bytes.len() - end);
            end += n;
            if n < need {
                self.ended = true;
                self.pos = end;
                return (end > start).then_some((start, end));
            }
        }
        let cut = start + cut_point(&bytes[start..end]);
        self.pos = cut;
        Some((start, cut))
    }
}

impl CutBlocks for MapCutter {
    fn next_block(&mut self, _buf: Vec<u8>) -> Option<BlockMessage> {
        if self.ended {
            return None;
        }
        let (start, end) = self.next_range()?;
        self.map.populate(start, end);
        if let Some(bar) = &self.progress {
            bar.inc((end - start) as u64);
        }
        let bytes = BlockData::Mapped {
            map: Arc::clone(&self.map),
            start,
            end,
        };
        Some(self.next.take(bytes))
    }

    fn ended(&self) -> bool {
        self.ended
    }
}

/// Cuts an input it reads into newline-aligned blocks (see [`CutBlocks`]).
pub struct BlockCutter {
    reader: Box<dyn Read + Send>,
    liveness: Live,
    /// The bytes after the last newline of the block before: the start of the next block.
    carry: Vec<u8>,
    next: NextBlock,
    /// A read error that ended the input, sent after the block read before it.
    pending_error: Option<BlockMessage>,
    ended: bool,
}

impl BlockCutter {
    pub fn new(reader: Box<dyn Read + Send>, liveness: Live) -> BlockCutter {
        BlockCutter {
            reader,
            liveness,
            carry: Vec::new(),
            next: NextBlock::default(),
            pending_error: None,
            ended: false,
        }
    }

    /// `bytes` as the next block.
    fn block(&mut self, bytes: Vec<u8>) -> BlockMessage {
        self.next.take(bytes.into())
    }
}

impl CutBlocks for BlockCutter {
    fn ended(&self) -> bool {
        self.ended && self.pending_error.is_none()
    }

    /// A live reader sends a block as soon as a read brings a complete line, instead of filling a whole
    /// block first: a pipe or a followed file is checked as it goes.
    fn next_block(&mut self, mut buf: Vec<u8>) -> Option<BlockMessage> {
        if let Some(error) = self.pending_error.take() {
            return Some(error);
        }
        if self.ended {
            return None;
        }
        let live = self.liveness != Live::Batch;
        // A pollable pipe can be asked for a whole block per read: fewer reads, less contention on the pipe
        // with a fast writer. Without a poll, a read as big as the pipe's buffer tells a full pipe from an
        // idle one.
        let read_limit = match self.liveness {
            Live::Lines { ready: Some(_) } => BLOCK_SIZE,
            _ => LIVE_READ,
        };
        buf.clear();
        // The first block grows as it is read, so that a small input (a test's, an editor's buffer) does not
        // allocate a whole block; later blocks reuse buffers of full size (see `spawn`).
        if self.next.seq > 0 {
            buf.reserve(BLOCK_SIZE + BLOCK_SIZE / 2);
        }
        buf.append(&mut self.carry);
        let mut searched = 0;
        loop {
            let need = if buf.len() < BLOCK_SIZE {
                BLOCK_SIZE - buf.len()
            } else if buf.len() < MAX_LINE && memchr::memchr(b'\n', &buf[searched..]).is_none() {
                // One line longer than the block: read on until it ends (or hits MAX_LINE).
                searched = buf.len();
                BLOCK_SIZE.min(MAX_LINE - buf.len())
            } else {
                break;
            };
            let read = if live {
                read_some(&mut self.reader, &mut buf, need.min(read_limit))
            } else {
                (&mut self.reader).take(need as u64).read_to_end(&mut buf)
            };
            match read {
                Ok(n) if (live && n == 0) || (!live && n < need) => {
                    self.ended = true;
                    return (!buf.is_empty()).then(|| self.block(buf));
                }
                Ok(n) => {
                    let drained = n < need.min(read_limit) && !self.liveness.more_waiting();
                    if live && drained && memchr::memchr(b'\n', &buf[buf.len() - n..]).is_some() {
                        break;
                    }
                }
                Err(e) => {
                    // Deliver what was read before the error, then the error.
                    self.ended = true;
                    let block = (!buf.is_empty()).then(|| self.block(buf));
                    let error = (self.next.seq, Err((self.next.offset, e)));
                    return match block {
                        Some(block) => {
                            self.pending_error = Some(error);
                            Some(block)
                        }
                        None => Some(error),
                    };
                }
            }
        }
        let cut = cut_point(&buf);
        self.carry.extend_from_slice(&buf[cut..]);
        buf.truncate(cut);
        Some(self.block(buf))
    }
}

/// What one live read asks for: a pipe's whole buffer (64 KiB on Linux), without zeroing a whole block
/// for every read. A read that fills it says more is waiting, so the block grows on; a shorter one says the
/// writer is idle, so the lines so far go out.
const LIVE_READ: usize = 64 * 1024;

/// One `read` call of at most `limit` bytes appended to `buf` (retrying on EINTR).
fn read_some(reader: &mut dyn Read, buf: &mut Vec<u8>, limit: usize) -> io::Result<usize> {
    let start = buf.len();
    buf.resize(start + limit, 0);
    loop {
        match reader.read(&mut buf[start..]) {
            Ok(n) => {
                buf.truncate(start + n);
                return Ok(n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                buf.truncate(start);
                return Err(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_file_names() {
        for n in [
            "ozone-hadoop-scm-scm1.log",
            "x.log.1",
            "x.log.12",
            "x.log.gz",
            "a.gz",
            "org.apache.TestFoo-output.txt",
        ] {
            assert!(is_log_file_name(n), "{n}");
        }
        for n in ["x.log.", "x.log.a", "x.txt", "x.out", "README.md"] {
            assert!(!is_log_file_name(n), "{n}");
        }
    }

    #[test]
    fn dated_rotations_are_log_files_and_sort_by_date_before_the_live_file() {
        assert!(is_log_file_name("ozone-hadoop-scm-scm3.log.2026-08-23"));
        assert!(is_log_file_name("ozone-hadoop-scm-scm3.log.2026-08-23-14"));
        assert!(!is_log_file_name("ozone-hadoop-scm-scm3.log.2026-8-23"));
        let mut v: Vec<PathBuf> = [
            "d/s.log",
            "d/s.log.2026-08-24",
            "d/s.log.2026-08-23",
            "d/om-audit.log",
            "d/om-audit-2026-08-23-2.log.gz",
            "d/om-audit-2026-08-23-1.log.gz",
            "d/om-audit-2026-08-22-3.log.gz",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        sort_rotated(&mut v);
        let names: Vec<_> = v.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        assert_eq!(
            names,
            [
                "d/om-audit-2026-08-22-3.log.gz",
                "d/om-audit-2026-08-23-1.log.gz",
                "d/om-audit-2026-08-23-2.log.gz",
                "d/om-audit.log",
                "d/s.log.2026-08-23",
                "d/s.log.2026-08-24",
                "d/s.log",
            ]
        );
    }

    /// Each file left out: its path, the file it repeats and why.
    fn skipped_of(r: &Resolved) -> Vec<(String, String, &'static str)> {
        r.skipped
            .iter()
            .map(|s| (s.path.clone(), s.same_as.clone(), s.reason))
            .collect()
    }

    /// The file names of the sources read.
    fn names_of(r: &Resolved) -> Vec<String> {
        r.sources.iter().map(|s| s.file_name().unwrap()).collect()
    }

    #[test]
    fn a_family_is_read_oldest_first_whatever_the_argument_order_and_copies_once() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
        std::fs::write(p("scm3.log"), b"live\n").unwrap();
        std::fs::write(p("scm3.log.1"), b"older\n").unwrap();
        std::fs::write(p("scm3.log.2"), b"oldest\n").unwrap();
        std::fs::write(p("copy.txt"), b"older\n").unwrap();
        let args = [
            p("scm3.log"),
            p("scm3.log.1"),
            p("scm3.log.2"),
            p("scm3.log"),
            p("copy.txt"),
        ];
        let r = resolve_all(&args, true).unwrap();
        assert_eq!(names_of(&r), ["scm3.log.2", "scm3.log.1", "scm3.log"]);
        assert_eq!(
            r.rotation[0].as_deref(),
            Some("part 1 of 3 of scm3.log, oldest first (by suffix .2)")
        );
        assert_eq!(
            r.rotation[2].as_deref(),
            Some("part 3 of 3 of scm3.log, oldest first (by live file, newest)")
        );
        let skipped = skipped_of(&r);
        assert_eq!(
            skipped,
            [
                (p("scm3.log"), p("scm3.log"), "same file"),
                (p("copy.txt"), p("scm3.log.1"), "same bytes"),
            ]
        );
        // A directory that also holds a file given explicitly: the file is read once.
        let r = resolve_all(
            &[p("scm3.log"), dir.path().to_string_lossy().into_owned()],
            true,
        )
        .unwrap();
        assert_eq!(r.sources.len(), 3);
        assert_eq!(r.skipped.len(), 1);
    }

    /// Files of one size are told apart by their first bytes, and past them by the whole file: a copy
    /// is left out, a file that differs only after its first bytes (or only in its last byte) is kept. A
    /// copy left out lends nothing to the file after it (its digests once did, by place, and a copy of that
    /// file went unnoticed).
    #[test]
    fn a_copy_is_left_out_and_a_file_that_differs_only_late_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
        let mut bytes = vec![b'a'; DIGEST_START * 3 + 17];
        std::fs::write(p("a.log"), &bytes).unwrap();
        std::fs::write(p("copy.log"), &bytes).unwrap();
        *bytes.last_mut().unwrap() = b'b';
        std::fs::write(p("late.log"), &bytes).unwrap();
        bytes[0] = b'c';
        std::fs::write(p("early.log"), &bytes).unwrap();
        // A file of a size of its own right after a copy left out, and a copy of it.
        std::fs::write(p("z.log"), b"zzz\n").unwrap();
        std::fs::write(p("z-copy.log"), b"zzz\n").unwrap();
        let args = [
            p("a.log"),
            p("late.log"),
            p("early.log"),
            p("copy.log"),
            p("z.log"),
            p("z-copy.log"),
        ];
        let r = resolve_all(&args, true).unwrap();
        assert_eq!(names_of(&r), ["a.log", "late.log", "early.log", "z.log"]);
        let skipped = skipped_of(&r);
        assert_eq!(
            skipped,
            [
                (p("copy.log"), p("a.log"), "same bytes"),
                (p("z-copy.log"), p("z.log"), "same bytes")
            ]
        );
    }

    #[test]
    fn a_permutation_puts_each_item_in_its_place() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        // Places 0, 2, 4 take the items now at 4, 0, 2.
        permute(&mut v, &[0, 2, 4], &[4, 0, 2]);
        assert_eq!(v, ['e', 'b', 'a', 'd', 'c']);
        let mut v = vec![1, 2, 3];
        permute(&mut v, &[0, 1, 2], &[1, 2, 0]);
        assert_eq!(v, [2, 3, 1]);
    }

    #[test]
    fn rotated_files_sort_oldest_first() {
        let mut v: Vec<PathBuf> = ["d/s.log", "d/s.log.1", "d/s.log.10", "d/s.log.2", "d/a.log"]
            .iter()
            .map(PathBuf::from)
            .collect();
        sort_rotated(&mut v);
        let names: Vec<_> = v.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        assert_eq!(
            names,
            ["d/a.log", "d/s.log.10", "d/s.log.2", "d/s.log.1", "d/s.log"]
        );
    }

    fn blocks_of(data: Vec<u8>) -> Vec<Block> {
        let (rx, permits) = spawn_cutter(
            Box::new(BlockCutter::new(
                Box::new(io::Cursor::new(data)),
                Live::Batch,
            )),
            2,
        );
        let mut out = Vec::new();
        for (seq, b) in rx {
            assert_eq!(seq, out.len() as u64);
            out.push(b.unwrap());
            let _ = permits.send(Vec::new());
        }
        out
    }

    /// (offset, bytes, continues_line) of each block of `data`, read.
    fn read_cut(data: &[u8]) -> Vec<(u64, Vec<u8>, bool)> {
        let mut cutter = BlockCutter::new(Box::new(io::Cursor::new(data.to_vec())), Live::Batch);
        std::iter::from_fn(|| cutter.next_block(Vec::new()))
            .map(|(_, b)| b.unwrap())
            .map(|b| (b.offset, b.bytes.to_vec(), b.continues_line))
            .collect()
    }

    /// The same, of `data` written to a file and mapped.
    fn mapped_cut(data: &[u8]) -> Vec<(u64, Vec<u8>, bool)> {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        io::Write::write_all(&mut file, data).unwrap();
        let opened = open_blocks(&Source::File(file.path().to_path_buf()), None).unwrap();
        let mut cutter = opened.cutter;
        let mut seqs = 0..;
        std::iter::from_fn(|| cutter.next_block(Vec::new()))
            .map(|(seq, b)| {
                assert_eq!(Some(seq), seqs.next());
                let b = b.unwrap();
                assert!(
                    matches!(b.bytes, BlockData::Mapped { .. }),
                    "{} bytes are mapped",
                    data.len()
                );
                (b.offset, b.bytes.to_vec(), b.continues_line)
            })
            .collect()
    }

    #[test]
    fn a_mapped_file_is_cut_into_the_blocks_a_read_of_it_gives() {
        let lines = |n: usize, from: usize| -> Vec<u8> {
            (from..from + n)
                .flat_map(|i| format!("line {i} {}\n", "x".repeat(i % 97)).into_bytes())
                .collect()
        };
        let mut shapes: Vec<(&str, Vec<u8>)> = Vec::new();
        shapes.push(("lines, a newline at the end", lines(60_000, 0)));
        let mut unended = lines(60_000, 0);
        unended.extend_from_slice(b"no newline at the end");
        shapes.push(("no newline at the end", unended));
        let mut exact = vec![b'a'; BLOCK_SIZE - 1];
        exact.push(b'\n');
        exact.extend_from_slice(&exact.clone());
        shapes.push(("two blocks exactly", exact));
        let mut long = lines(20_000, 0);
        long.extend(vec![b'y'; BLOCK_SIZE * 5 / 2]);
        long.push(b'\n');
        long.extend(lines(20_000, 1));
        shapes.push(("a line of two and a half blocks", long));
        let mut huge = lines(1_000, 0);
        huge.extend(vec![b'z'; MAX_LINE + BLOCK_SIZE / 3]);
        huge.extend(lines(1_000, 7));
        shapes.push(("a line longer than MAX_LINE", huge));
        let mut cri = Vec::new();
        while cri.len() < 3 * BLOCK_SIZE {
            cri.extend_from_slice(b"2026-08-23T09:00:01.000000000Z stdout P a part of a line\n");
            cri.extend_from_slice(b"2026-08-23T09:00:01.000000000Z stdout F and its end\n");
        }
        shapes.push(("CRI partial lines", cri));
        for (what, data) in shapes {
            assert!(data.len() > BLOCK_SIZE, "{what}: long enough to be mapped");
            let read = read_cut(&data);
            assert!(read.len() > 1, "{what}: more than one block");
            assert_eq!(mapped_cut(&data), read, "{what}");
        }
    }

    #[test]
    fn blocks_are_newline_aligned_and_cover_everything() {
        let mut data = Vec::new();
        for i in 0..200_000 {
            data.extend_from_slice(format!("line {i} {}\n", "x".repeat(i % 37)).as_bytes());
        }
        data.extend_from_slice(b"no final newline");
        let blocks = blocks_of(data.clone());
        assert!(blocks.len() > 3);
        let mut joined = Vec::new();
        for b in &blocks {
            assert_eq!(b.offset as usize, joined.len());
            assert!(!b.continues_line);
            joined.extend_from_slice(&b.bytes);
        }
        for b in &blocks[..blocks.len() - 1] {
            assert!(b.bytes.ends_with(b"\n"));
        }
        assert_eq!(joined, data);
    }

    #[test]
    fn huge_lines_are_cut_and_marked() {
        let mut data = vec![b'a'; MAX_LINE + 10];
        data.extend_from_slice(b"\nnext\n");
        let blocks = blocks_of(data.clone());
        assert_eq!(blocks[0].bytes.len(), MAX_LINE);
        assert!(blocks[1].continues_line);
        assert_eq!(
            blocks.iter().map(|b| b.bytes.len()).sum::<usize>(),
            data.len()
        );
    }

    #[test]
    fn gzip_is_recognised_by_magic_bytes() {
        use flate2::{write::GzEncoder, Compression};
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plain-name.log");
        let mut enc = GzEncoder::new(File::create(&path).unwrap(), Compression::fast());
        enc.write_all(b"hello\nworld\n").unwrap();
        enc.finish().unwrap();
        let mut s = String::new();
        open(&Source::File(path))
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        assert_eq!(s, "hello\nworld\n");
    }

    /// A reader that hands out its chunks one `read` at a time, then waits for the test to drop the sender.
    struct Chunks(std::sync::mpsc::Receiver<Vec<u8>>);
    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.recv() {
                Ok(c) => {
                    buf[..c.len()].copy_from_slice(&c);
                    Ok(c.len())
                }
                Err(_) => Ok(0),
            }
        }
    }

    #[test]
    fn an_input_that_fits_in_one_block_ends_with_it_so_no_reader_thread_is_needed() {
        let mut cutter =
            BlockCutter::new(Box::new(io::Cursor::new(b"a\nb\n".to_vec())), Live::Batch);
        let (seq, block) = cutter.next_block(Vec::new()).expect("one block");
        let block = block.unwrap();
        assert_eq!(
            (seq, block.offset, &block.bytes[..]),
            (0, 0, &b"a\nb\n"[..])
        );
        assert!(cutter.ended());
        assert!(cutter.next_block(Vec::new()).is_none());
        // An input of more than a block has more to give after the first.
        let big = b"0123456789abcde\n".repeat(BLOCK_SIZE / 16 + 1);
        let mut cutter = BlockCutter::new(Box::new(io::Cursor::new(big)), Live::Batch);
        assert!(cutter.next_block(Vec::new()).is_some());
        assert!(!cutter.ended());
    }

    /// Gives its bytes, then fails.
    struct FailsAfter(io::Cursor<Vec<u8>>);

    impl Read for FailsAfter {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(io::Error::other("disk gone")),
                n => Ok(n),
            }
        }
    }

    #[test]
    fn a_read_error_comes_after_the_block_read_before_it_at_the_offset_where_it_struck() {
        let mut cutter = BlockCutter::new(
            Box::new(FailsAfter(io::Cursor::new(b"one\ntwo\n".to_vec()))),
            Live::Batch,
        );
        let (seq, block) = cutter.next_block(Vec::new()).unwrap();
        assert_eq!((seq, &block.unwrap().bytes[..]), (0, &b"one\ntwo\n"[..]));
        assert!(!cutter.ended(), "the error is still to come");
        let (seq, error) = cutter.next_block(Vec::new()).unwrap();
        let (offset, e) = error.unwrap_err();
        assert_eq!(
            (seq, offset, e.to_string()),
            (1, 8, "disk gone".to_string())
        );
        assert!(cutter.ended());
        assert!(cutter.next_block(Vec::new()).is_none());
    }

    #[test]
    fn a_live_reader_sends_each_complete_line_without_waiting_for_a_full_block() {
        let (feed, chunks) = std::sync::mpsc::channel();
        let (rx, permits) = spawn_cutter(
            Box::new(BlockCutter::new(
                Box::new(Chunks(chunks)),
                Live::Lines { ready: None },
            )),
            2,
        );
        feed.send(b"first line\nsecond ".to_vec()).unwrap();
        let (_, b) = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("a block before EOF");
        assert_eq!(&b.unwrap().bytes[..], b"first line\n");
        let _ = permits.send(Vec::new());
        feed.send(b"half\n".to_vec()).unwrap();
        let (_, b) = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("the rest of the line");
        let b = b.unwrap();
        assert_eq!(&b.bytes[..], b"second half\n");
        assert_eq!(b.offset, 11);
        drop(feed);
    }

    /// Reads from `r` on a thread until `want` bytes came, or 5 s passed.
    fn read_until(mut r: FollowReader, want: usize) -> Vec<u8> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match r.read(&mut buf) {
                    Ok(n) if tx.send(buf[..n].to_vec()).is_ok() => {}
                    _ => return,
                }
            }
        });
        let mut got = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while got.len() < want {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(c) => got.extend(c),
                Err(_) => break,
            }
        }
        got
    }

    #[test]
    fn follow_reads_on_across_rotation_by_rename_and_by_copytruncate() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scm.log");
        std::fs::write(&path, b"one\n").unwrap();
        let r = FollowReader::open(&path).unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let pause = || std::thread::sleep(std::time::Duration::from_millis(300));
                pause();
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                f.write_all(b"two\n").unwrap();
                pause();
                // log4j's rename rotation: the old file moves away, a new one takes the name.
                std::fs::rename(&path, path.with_extension("log.1")).unwrap();
                std::fs::write(&path, b"three\n").unwrap();
                pause();
                pause();
                // copytruncate: the file is emptied in place and written from the start.
                std::fs::write(&path, b"").unwrap();
                pause();
                pause();
                std::fs::write(&path, b"four\n").unwrap();
            })
        };
        let got = read_until(r, "one\ntwo\nthree\nfour\n".len());
        writer.join().unwrap();
        assert_eq!(String::from_utf8_lossy(&got), "one\ntwo\nthree\nfour\n");
    }
}
