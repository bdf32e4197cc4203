//! A run of event heads that moves to disk past the memory budget: what lets `check` keep the same memory
//! whatever the number of events.
//!
//! Heads are kept in chunks of [`CHUNK`]. A full chunk stays in memory while every run of the process
//! together holds at most the heads' share of the budget ([`crate::memory::heads_budget`]); past it, it is
//! written to the run's unlinked temporary file. Reading a head on disk reads its whole chunk into a small
//! cache of decoded chunks ([`crate::memory::cache_budget`]), least recently used first out, so reads
//! that go forwards (every pass over a run, and the merged order, which reads each chain forwards) cost one
//! file read per chunk. A head written to a chunk on disk is written to its cached copy, which goes back to
//! the file when it leaves the cache.
//!
//! Below the budget nothing is written: a run is its chunks in memory.

use crate::event::{NodeSource, Span};
use crate::layout::Level;
use crate::time::Timestamp;
use crate::vocab::{Component, EventKind};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A head's node when the event has none.
pub const NO_NODE: u32 = u32::MAX;

/// What the timeline keeps of an event (in memory, or on disk in a [`HeadRun`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    pub span: Span,
    /// Milliseconds of the record's time; `i64::MIN` when it has none.
    pub(crate) millis: i64,
    pub excerpt_hash: u64,
    /// Where its packed fields and excerpt start in its input's arena.
    pub(crate) data: u64,
    /// A node number ([`NO_NODE`]: none): in an [`crate::event_store::InputEvents`] the input's own, in
    /// the merge the run's ([`crate::event_store::EventStore::head`] gives the node key).
    pub node: u32,
    /// The thread name's number in its input's thread table.
    pub thread: u32,
    pub rule: u32,
    pub message_offset: u32,
    pub kind: EventKind,
    pub component: Component,
    pub node_from: Option<NodeSource>,
    pub level: Option<Level>,
    pub(crate) has_date: bool,
}

/// Bytes of a head on disk ([`Head::encode`]).
pub const HEAD_BYTES: usize = 74;

/// Where a head's node came from, as one byte on disk (0: none).
pub(crate) const NODE_SOURCES: [NodeSource; 9] = [
    NodeSource::Cli,
    NodeSource::FileName,
    NodeSource::DockerPrefix,
    NodeSource::Banner,
    NodeSource::ThreadPrefix,
    NodeSource::RatisMember,
    NodeSource::Context,
    NodeSource::IpcPort,
    NodeSource::Wrapper,
];

pub(crate) const COMPONENTS: [Component; 5] = [
    Component::Scm,
    Component::Datanode,
    Component::Recon,
    Component::Om,
    Component::Any,
];

/// One byte for an optional value from `all` (0: none).
fn code_of<T: PartialEq>(value: Option<T>, all: &[T]) -> u8 {
    value
        .and_then(|v| all.iter().position(|a| *a == v))
        .map_or(0, |p| p as u8 + 1)
}

impl Head {
    /// Writes the head into `out` ([`HEAD_BYTES`] bytes), little-endian, field by field.
    pub fn encode(&self, out: &mut [u8]) {
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            out[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        put(&self.span.input.to_le_bytes());
        put(&self.span.line.to_le_bytes());
        put(&self.span.byte_offset.to_le_bytes());
        put(&self.span.byte_len.to_le_bytes());
        put(&self.millis.to_le_bytes());
        put(&self.excerpt_hash.to_le_bytes());
        put(&self.data.to_le_bytes());
        put(&self.node.to_le_bytes());
        put(&self.thread.to_le_bytes());
        put(&self.rule.to_le_bytes());
        put(&self.message_offset.to_le_bytes());
        put(&(self.kind.index() as u16).to_le_bytes());
        put(&[
            code_of(Some(self.component), &COMPONENTS),
            code_of(self.node_from, &NODE_SOURCES),
            code_of(self.level, &Level::ALL),
            u8::from(self.has_date),
        ]);
    }

    /// The head [`Head::encode`] wrote.
    pub fn decode(bytes: &[u8]) -> Head {
        let mut at = 0;
        let mut take = |n: usize| {
            let b = &bytes[at..at + n];
            at += n;
            b
        };
        let u32_ = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
        let u64_ = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let input = u32_(take(4));
        let line = u64_(take(8));
        let byte_offset = u64_(take(8));
        let byte_len = u64_(take(8));
        let millis = u64_(take(8)) as i64;
        let excerpt_hash = u64_(take(8));
        let data = u64_(take(8));
        let node = u32_(take(4));
        let thread = u32_(take(4));
        let rule = u32_(take(4));
        let message_offset = u32_(take(4));
        let kind = EventKind::at(u16::from_le_bytes(take(2).try_into().expect("2 bytes")));
        let codes = take(4);
        let pick = |code: u8, n: usize| (code as usize).checked_sub(1).filter(|&c| c < n);
        Head {
            span: Span {
                input,
                line,
                byte_offset,
                byte_len,
            },
            millis,
            excerpt_hash,
            data,
            node,
            thread,
            rule,
            message_offset,
            kind,
            component: pick(codes[0], COMPONENTS.len()).map_or(Component::Any, |c| COMPONENTS[c]),
            node_from: pick(codes[1], NODE_SOURCES.len()).map(|c| NODE_SOURCES[c]),
            level: pick(codes[2], Level::ALL.len()).map(|c| Level::ALL[c]),
            has_date: codes[3] == 1,
        }
    }

    pub fn time(&self) -> Option<Timestamp> {
        (self.millis != i64::MIN).then_some(Timestamp {
            millis: self.millis,
            has_date: self.has_date,
        })
    }

    /// The same head with this node, told by `from`.
    pub fn with_node(self, node: u32, from: Option<NodeSource>) -> Head {
        Head {
            node,
            node_from: from,
            ..self
        }
    }

    pub fn has_node(&self) -> bool {
        self.node != NO_NODE
    }

    /// The node number, if any.
    pub fn node(&self) -> Option<u32> {
        self.has_node().then_some(self.node)
    }
}

/// Heads per chunk: 18.5 KiB on disk.
pub const CHUNK: usize = 256;

/// Bytes of heads every run of the process holds in memory (chunks not on disk; the caches are counted by
/// their own budget).
static IN_MEMORY: AtomicUsize = AtomicUsize::new(0);

const CHUNK_BYTES: usize = CHUNK * std::mem::size_of::<Head>();

#[derive(Debug)]
enum Chunk {
    Memory(Vec<Head>),
    /// `CHUNK` heads at this offset of the run's file.
    Disk(u64),
}

/// Chunks every run of the process holds decoded in its cache.
static CACHED: AtomicUsize = AtomicUsize::new(0);

/// A chunk read from the file, decoded.
#[derive(Debug)]
struct Slot {
    chunk: usize,
    heads: Vec<Head>,
    /// Written since it was read: it goes back to the file when it leaves the cache.
    dirty: bool,
    /// When it was last used (the cache's clock).
    used: u64,
}

/// A run's decoded chunks. The process's caches together hold the budget's share
/// ([`crate::memory::cache_budget`]); past it, a run reuses its least recently used slot, so every run
/// keeps at least one.
#[derive(Debug, Default)]
struct Cache {
    slots: Vec<Slot>,
    /// Which slot holds a chunk.
    by_chunk: rustc_hash::FxHashMap<usize, usize>,
    clock: u64,
    /// The slot used last: reads go forwards, so most reads are of its chunk.
    last: usize,
}

impl Drop for Cache {
    fn drop(&mut self) {
        CACHED.fetch_sub(self.slots.len(), Ordering::Relaxed);
    }
}

/// A sequence of heads, in memory up to the budget and on disk past it.
#[derive(Debug, Default)]
pub struct HeadRun {
    chunks: Vec<Chunk>,
    len: usize,
    file: Option<Arc<File>>,
    file_len: u64,
    cache: Mutex<Cache>,
    /// Spill every full chunk whatever the budget (tests of the disk path).
    always_spill: bool,
    /// Chunks the cache holds, if not the budget's share (tests of eviction).
    cache_chunks: Option<usize>,
}

impl Drop for HeadRun {
    fn drop(&mut self) {
        let held = self
            .chunks
            .iter()
            .filter(|c| matches!(c, Chunk::Memory(_)))
            .count();
        IN_MEMORY.fetch_sub(held * CHUNK_BYTES, Ordering::Relaxed);
    }
}

impl HeadRun {
    pub fn new() -> HeadRun {
        HeadRun::default()
    }

    /// A run that writes every full chunk to disk and caches two (tests of the disk path).
    pub fn spilling() -> HeadRun {
        let mut run = HeadRun::default();
        run.always_spill = true;
        run.cache_chunks = Some(2);
        run
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Does some of it live on disk?
    pub fn spilled(&self) -> bool {
        self.on_disk() > 0
    }

    /// How many of its heads live on disk.
    pub fn on_disk(&self) -> usize {
        CHUNK
            * self
                .chunks
                .iter()
                .filter(|c| matches!(c, Chunk::Disk(_)))
                .count()
    }

    pub fn push(&mut self, head: Head) {
        if self.len % CHUNK == 0 {
            IN_MEMORY.fetch_add(CHUNK_BYTES, Ordering::Relaxed);
            self.chunks.push(Chunk::Memory(Vec::with_capacity(CHUNK)));
        }
        if let Some(Chunk::Memory(heads)) = self.chunks.last_mut() {
            heads.push(head);
        }
        self.len += 1;
        if self.len % CHUNK == 0
            && (self.always_spill
                || IN_MEMORY.load(Ordering::Relaxed) > crate::memory::heads_budget())
        {
            self.spill_last();
        }
    }

    /// Writes the last (full) chunk to the file; keeps it in memory where no file can be written.
    fn spill_last(&mut self) {
        let Some(Chunk::Memory(heads)) = self.chunks.last() else {
            return;
        };
        if self.file.is_none() {
            match tempfile::tempfile() {
                Ok(f) => self.file = Some(Arc::new(f)),
                // No temporary directory: correct, only larger.
                Err(_) => return,
            }
        }
        let Some(file) = &self.file else { return };
        let bytes = encode(heads);
        if file.write_all_at(&bytes, self.file_len).is_err() {
            // A full disk: this chunk stays in memory.
            return;
        }
        let at = self.file_len;
        self.file_len += bytes.len() as u64;
        if let Some(last) = self.chunks.last_mut() {
            *last = Chunk::Disk(at);
        }
        IN_MEMORY.fetch_sub(CHUNK_BYTES, Ordering::Relaxed);
    }

    /// Head `i`. Panics past the end, as a slice does.
    pub fn get(&self, i: usize) -> Head {
        assert!(i < self.len, "head {i} of a run of {}", self.len);
        match &self.chunks[i / CHUNK] {
            Chunk::Memory(heads) => heads[i % CHUNK],
            Chunk::Disk(_) => self.with_cached(i / CHUNK, |heads, _| heads[i % CHUNK]),
        }
    }

    /// Sets head `i`.
    pub fn set(&mut self, i: usize, head: Head) {
        assert!(i < self.len, "head {i} of a run of {}", self.len);
        if let Chunk::Memory(heads) = &mut self.chunks[i / CHUNK] {
            heads[i % CHUNK] = head;
            return;
        }
        self.with_cached(i / CHUNK, |heads, dirty| {
            heads[i % CHUNK] = head;
            *dirty = true;
        })
    }

    /// Calls `f` with each head, in order, and keeps what it makes of it.
    pub fn update(&mut self, mut f: impl FnMut(&mut Head)) {
        for c in 0..self.chunks.len() {
            if let Chunk::Memory(heads) = &mut self.chunks[c] {
                heads.iter_mut().for_each(&mut f);
                continue;
            }
            self.with_cached(c, |heads, dirty| {
                heads.iter_mut().for_each(&mut f);
                *dirty = true;
            });
        }
    }

    /// Every head, in order: a chunk on disk is read (or copied from the cache) once.
    pub fn iter(&self) -> impl Iterator<Item = Head> + '_ {
        self.chunks.iter().enumerate().flat_map(move |(c, chunk)| {
            let heads: std::borrow::Cow<'_, [Head]> = match chunk {
                Chunk::Memory(heads) => std::borrow::Cow::Borrowed(heads),
                Chunk::Disk(_) => std::borrow::Cow::Owned(self.with_cached(c, |h, _| h.clone())),
            };
            (0..heads.len()).map(move |i| heads[i])
        })
    }

    /// The run of the heads for which `keep` holds, in order (`keep` is given each head's index too).
    pub fn filtered(self, mut keep: impl FnMut(usize, &Head) -> bool) -> HeadRun {
        let mut out = HeadRun::default();
        out.always_spill = self.always_spill;
        out.cache_chunks = self.cache_chunks;
        for (i, h) in self.iter().enumerate() {
            if keep(i, &h) {
                out.push(h);
            }
        }
        out
    }

    /// Calls `f` with chunk `c` (on disk) read into the cache, and whether it was written since.
    fn with_cached<R>(&self, c: usize, f: impl FnOnce(&mut Vec<Head>, &mut bool) -> R) -> R {
        let Chunk::Disk(at) = self.chunks[c] else {
            unreachable!("only chunks on disk are cached")
        };
        let file = self.file.as_ref().expect("a chunk on disk has a file");
        let mut guard = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let cache = &mut *guard;
        cache.clock += 1;
        let slot = match cache.slots.get(cache.last) {
            Some(s) if s.chunk == c => cache.last,
            _ => match cache.by_chunk.get(&c) {
                Some(&s) => s,
                None => {
                    let capacity = self
                        .cache_chunks
                        .unwrap_or(crate::memory::cache_budget() / CHUNK_BYTES);
                    let full = match self.cache_chunks {
                        Some(_) => cache.slots.len() >= capacity.max(1),
                        None => CACHED.load(Ordering::Relaxed) >= capacity,
                    };
                    let mut bytes = vec![0u8; CHUNK * HEAD_BYTES];
                    file.read_exact_at(&mut bytes, at)
                        .expect("reading back the heads' spill file");
                    let fresh = Slot {
                        chunk: c,
                        heads: decode(&bytes),
                        dirty: false,
                        used: 0,
                    };
                    let reuse = (0..cache.slots.len())
                        .filter(|_| full)
                        .min_by_key(|&s| cache.slots[s].used);
                    let s = match reuse {
                        Some(s) => {
                            let old = std::mem::replace(&mut cache.slots[s], fresh);
                            cache.by_chunk.remove(&old.chunk);
                            if old.dirty {
                                self.write_back(old.chunk, &old.heads);
                            }
                            s
                        }
                        None => {
                            CACHED.fetch_add(1, Ordering::Relaxed);
                            cache.slots.push(fresh);
                            cache.slots.len() - 1
                        }
                    };
                    cache.by_chunk.insert(c, s);
                    s
                }
            },
        };
        cache.last = slot;
        let entry = &mut cache.slots[slot];
        entry.used = cache.clock;
        f(&mut entry.heads, &mut entry.dirty)
    }

    fn write_back(&self, c: usize, heads: &[Head]) {
        let Chunk::Disk(at) = self.chunks[c] else {
            return;
        };
        let file = self.file.as_ref().expect("a chunk on disk has a file");
        file.write_all_at(&encode(heads), at)
            .expect("writing back to the heads' spill file");
    }
}

fn encode(heads: &[Head]) -> Vec<u8> {
    let mut out = vec![0u8; heads.len() * HEAD_BYTES];
    for (h, bytes) in heads.iter().zip(out.chunks_exact_mut(HEAD_BYTES)) {
        h.encode(bytes);
    }
    out
}

fn decode(bytes: &[u8]) -> Vec<Head> {
    bytes.chunks_exact(HEAD_BYTES).map(Head::decode).collect()
}

impl FromIterator<Head> for HeadRun {
    fn from_iter<I: IntoIterator<Item = Head>>(iter: I) -> Self {
        let mut run = HeadRun::new();
        for h in iter {
            run.push(h);
        }
        run
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A head whose clock says which it is.
    fn head(i: usize) -> Head {
        Head {
            span: Span {
                input: 0,
                line: 1,
                byte_offset: 0,
                byte_len: 10,
            },
            millis: i as i64,
            excerpt_hash: 7,
            data: 0,
            node: 3,
            thread: 0,
            rule: 1,
            message_offset: 0,
            kind: EventKind::SecretKeysUpdated,
            component: Component::Scm,
            node_from: None,
            level: None,
            has_date: true,
        }
    }

    fn millis(h: &Head) -> i64 {
        h.time().map_or(-1, |t| t.millis)
    }

    #[test]
    fn heads_on_disk_read_back_written_and_filtered_in_any_order() {
        let n = CHUNK * 7 + 13;
        let mut run = HeadRun::spilling();
        let template = head(0);
        for i in 0..n {
            let mut h = template;
            h.span.line = i as u64;
            run.push(h);
        }
        assert!(run.spilled());
        assert_eq!(run.len(), n);
        for i in [0, n - 1, CHUNK, 5, n / 2, CHUNK * 3 + 1, 1] {
            assert_eq!(run.get(i).span.line, i as u64);
        }
        // Writes to chunks on disk survive their chunk leaving the two-chunk cache.
        for i in (0..n).step_by(CHUNK / 2 + 1) {
            let mut h = run.get(i);
            h.node = i as u32;
            run.set(i, h);
        }
        run.update(|h| h.thread = h.span.line as u32 * 2);
        for i in 0..n {
            let h = run.get(i);
            assert_eq!(h.thread, i as u32 * 2, "head {i}");
            let written = i % (CHUNK / 2 + 1) == 0;
            if written {
                assert_eq!(h.node, i as u32);
            } else {
                assert_eq!(h.node, template.node);
            }
        }
        let lines: Vec<u64> = run.iter().map(|h| h.span.line).collect();
        assert_eq!(lines, (0..n as u64).collect::<Vec<_>>());
        let odd = run.filtered(|i, h| i % 2 == 1 && h.span.line % 2 == 1);
        assert_eq!(odd.len(), n / 2);
        assert!(odd.iter().map(|h| h.span.line).eq((1..n as u64).step_by(2)));
    }

    #[test]
    fn below_the_budget_nothing_goes_to_disk() {
        let run: HeadRun = (0..CHUNK * 3).map(head).collect();
        assert!(!run.spilled());
        assert_eq!(
            millis(&run.get(CHUNK * 2 + 7)),
            millis(&head(CHUNK * 2 + 7))
        );
        assert_eq!(run.iter().count(), CHUNK * 3);
    }
}
