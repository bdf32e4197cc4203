//! Runs of fixed-size records (event heads, the merged order) that move to disk past the memory budget:
//! what lets `check` keep the same memory whatever the number of events.
//!
//! Records are kept in chunks of [`CHUNK`]. A full chunk stays in memory while every run of the process
//! together holds at most the runs' share of the budget ([`crate::memory::runs_budget`]); past it, it is
//! written to the run's unlinked temporary file. Reads that go forwards (every pass over a run, and the
//! merged order, which reads each chain forwards) take a chunk at a time ([`Run::chunk`]): one file read
//! per chunk. A single record read or written on disk goes through a small cache of decoded chunks
//! ([`crate::memory::cache_budget`] for all runs, least recently used out first); a written chunk goes back
//! to the file when it leaves the cache.
//!
//! Below the budget nothing is written: a run is its chunks in memory.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A record a [`Run`] keeps: copied in and out, and written to disk a chunk at a time.
pub trait Record: Copy + PartialEq + std::fmt::Debug {
    /// Records per chunk: what a pass reads from disk at once.
    const CHUNK: usize = CHUNK;

    /// Appends a full chunk's records in their form on disk (the heads pack theirs by [`crate::lanes`]).
    fn encode_chunk(records: &[Self], out: &mut Vec<u8>);

    /// Appends to `out` the records of a chunk [`Record::encode_chunk`] wrote (the bytes may run on past
    /// them: a chunk written back in place may be shorter than the one it replaced).
    fn decode_chunk(bytes: &[u8], out: &mut Vec<Self>) -> Result<(), crate::lanes::Malformed>;
}

impl Record for u32 {
    /// 16 KiB on disk: the merged order is read in passes (one read per chunk), and 256 of them (1 KiB) made
    /// a pass a read call per 256 events.
    const CHUNK: usize = 4096;

    /// Four bytes each, little-endian: a chunk written back keeps its size.
    fn encode_chunk(records: &[u32], out: &mut Vec<u8>) {
        out.extend(records.iter().flat_map(|r| r.to_le_bytes()));
    }

    fn decode_chunk(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), crate::lanes::Malformed> {
        out.extend(
            bytes
                .chunks_exact(4)
                .take(Self::CHUNK)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))),
        );
        Ok(())
    }
}

/// Records per chunk, unless a record says otherwise ([`Record::CHUNK`]): 18.5 KiB of event heads on disk.
pub const CHUNK: usize = 256;

/// Bytes every run of the process holds in memory (chunks not on disk; the caches are counted by their own
/// budget).
static IN_MEMORY: AtomicUsize = AtomicUsize::new(0);

/// A record's bytes in memory times the chunk.
const fn chunk_bytes<T: Record>() -> usize {
    T::CHUNK * std::mem::size_of::<T>()
}

#[derive(Debug)]
enum Chunk<T> {
    Memory(Vec<T>),
    /// `T::CHUNK` records in the run's file ([`Record::encode_chunk`]), where it was first written.
    Disk(Place),
}

/// Where a chunk's bytes are in its run's file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    at: u64,
    len: u32,
}

/// Bytes every run's cache holds decoded.
static CACHED: AtomicUsize = AtomicUsize::new(0);

/// Chunks every run of the process read back from disk and wrote to it so far (`OZONE_CONFORM_TIMINGS`
/// shows them per phase).
static READS: AtomicUsize = AtomicUsize::new(0);
static WRITES: AtomicUsize = AtomicUsize::new(0);

/// Chunks read back from disk and written to it by every run of the process so far.
pub fn disk_chunks() -> (usize, usize) {
    (
        READS.load(Ordering::Relaxed),
        WRITES.load(Ordering::Relaxed),
    )
}

thread_local! {
    /// The bytes of the chunk a thread read last ([`Run::read_chunk`]).
    static READ_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A chunk read from the file, decoded.
#[derive(Debug)]
struct Slot<T> {
    chunk: usize,
    records: Vec<T>,
    /// Written since it was read: it goes back to the file when it leaves the cache.
    dirty: bool,
    /// When it was last used (the cache's clock).
    used: u64,
}

/// A run's decoded chunks. The process's caches together hold the budget's share
/// ([`crate::memory::cache_budget`]); past it, a run reuses its least recently used slot, so every run
/// keeps at least one.
#[derive(Debug)]
struct Cache<T: Record> {
    slots: Vec<Slot<T>>,
    /// Which slot holds a chunk.
    by_chunk: rustc_hash::FxHashMap<usize, usize>,
    clock: u64,
    /// The slot used last: reads go forwards, so most reads are of its chunk.
    last: usize,
    /// Chunks written back longer than they were first written: they moved to the end of the file.
    moved: rustc_hash::FxHashMap<usize, Place>,
    /// Bytes in the run's file.
    file_len: u64,
}

impl<T: Record> Cache<T> {
    /// Where chunk `c` (first written at `first`) is now.
    fn place(&self, c: usize, first: Place) -> Place {
        if self.moved.is_empty() {
            return first;
        }
        self.moved.get(&c).copied().unwrap_or(first)
    }
}

impl<T: Record> Drop for Cache<T> {
    fn drop(&mut self) {
        CACHED.fetch_sub(self.slots.len() * chunk_bytes::<T>(), Ordering::Relaxed);
    }
}

/// A sequence of records, in memory up to the budget and on disk past it.
#[derive(Debug)]
pub struct Run<T: Record> {
    chunks: Vec<Chunk<T>>,
    len: usize,
    file: Option<Arc<File>>,
    cache: Mutex<Cache<T>>,
    /// Spill every full chunk whatever the budget (tests of the disk path).
    always_spill: bool,
    /// Chunks the cache holds, if not the budget's share ([`Run::with_own_cache`], tests of eviction).
    cache_chunks: Option<usize>,
    /// Chunks read back from the file so far.
    reads: AtomicUsize,
}

impl<T: Record> Default for Run<T> {
    fn default() -> Self {
        Run {
            chunks: Vec::new(),
            len: 0,
            file: None,
            cache: Mutex::new(Cache {
                slots: Vec::new(),
                by_chunk: Default::default(),
                clock: 0,
                last: 0,
                moved: Default::default(),
                file_len: 0,
            }),
            always_spill: false,
            cache_chunks: None,
            reads: AtomicUsize::new(0),
        }
    }
}

impl<T: Record> Drop for Run<T> {
    fn drop(&mut self) {
        let held = self
            .chunks
            .iter()
            .filter(|c| matches!(c, Chunk::Memory(_)))
            .count();
        IN_MEMORY.fetch_sub(held * chunk_bytes::<T>(), Ordering::Relaxed);
    }
}

impl<T: Record> Run<T> {
    pub fn new() -> Run<T> {
        Run::default()
    }

    /// A run whose cache holds up to `bytes` of decoded chunks of its own, whatever the other runs' caches
    /// hold: for records read at many places at once, where a share of the shared cache that other runs
    /// filled first (as little as one chunk) would read a chunk from disk for nearly every record.
    pub fn with_own_cache(bytes: usize) -> Run<T> {
        let mut run = Run::default();
        run.cache_chunks = Some((bytes / chunk_bytes::<T>()).max(1));
        run
    }

    /// A run that writes every full chunk to disk and caches two (tests of the disk path).
    pub fn spilling() -> Run<T> {
        let mut run = Run::default();
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

    /// How many chunks were read back from disk so far.
    pub fn chunks_read(&self) -> usize {
        self.reads.load(Ordering::Relaxed)
    }

    /// How many of its records live on disk.
    pub fn on_disk(&self) -> usize {
        T::CHUNK
            * self
                .chunks
                .iter()
                .filter(|c| matches!(c, Chunk::Disk(_)))
                .count()
    }

    pub fn push(&mut self, record: T) {
        if self.len % T::CHUNK == 0 {
            IN_MEMORY.fetch_add(chunk_bytes::<T>(), Ordering::Relaxed);
            self.chunks
                .push(Chunk::Memory(Vec::with_capacity(T::CHUNK)));
        }
        if let Some(Chunk::Memory(records)) = self.chunks.last_mut() {
            records.push(record);
        }
        self.len += 1;
        if self.len % T::CHUNK == 0
            && (self.always_spill
                || IN_MEMORY.load(Ordering::Relaxed) > crate::memory::runs_budget())
        {
            self.spill_last();
        }
    }

    /// Writes the last (full) chunk to the file; keeps it in memory where no file can be written.
    fn spill_last(&mut self) {
        let Some(Chunk::Memory(records)) = self.chunks.last() else {
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
        let bytes = encode(records);
        WRITES.fetch_add(1, Ordering::Relaxed);
        let file_len = &mut self
            .cache
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .file_len;
        if file.write_all_at(&bytes, *file_len).is_err() {
            // A full disk: this chunk stays in memory.
            return;
        }
        let place = Place {
            at: *file_len,
            len: bytes.len() as u32,
        };
        *file_len += bytes.len() as u64;
        if let Some(last) = self.chunks.last_mut() {
            *last = Chunk::Disk(place);
        }
        IN_MEMORY.fetch_sub(chunk_bytes::<T>(), Ordering::Relaxed);
    }

    /// Record `i`. Panics past the end, as a slice does.
    pub fn get(&self, i: usize) -> T {
        assert!(i < self.len, "record {i} of a run of {}", self.len);
        match &self.chunks[i / T::CHUNK] {
            Chunk::Memory(records) => records[i % T::CHUNK],
            Chunk::Disk(_) => self.with_cached(i / T::CHUNK, |records, _| records[i % T::CHUNK]),
        }
    }

    /// Sets record `i`.
    pub fn set(&mut self, i: usize, record: T) {
        assert!(i < self.len, "record {i} of a run of {}", self.len);
        if let Chunk::Memory(records) = &mut self.chunks[i / T::CHUNK] {
            records[i % T::CHUNK] = record;
            return;
        }
        // A chunk whose records do not change is not written back.
        self.with_cached(i / T::CHUNK, |records, dirty| {
            if records[i % T::CHUNK] != record {
                records[i % T::CHUNK] = record;
                *dirty = true;
            }
        })
    }

    /// Calls `f` with each record, in order, and keeps what it makes of it.
    pub fn update(&mut self, mut f: impl FnMut(&mut T)) {
        for c in 0..self.chunks.len() {
            if let Chunk::Memory(records) = &mut self.chunks[c] {
                records.iter_mut().for_each(&mut f);
                continue;
            }
            self.with_cached(c, |records, dirty| {
                for r in records.iter_mut() {
                    let before = *r;
                    f(r);
                    *dirty |= *r != before;
                }
            });
        }
    }

    /// Every record, in order: a chunk on disk is read (or copied from the cache) once.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.iter_from(0)
    }

    /// The records from `start` on, in order.
    pub fn iter_from(&self, start: usize) -> impl Iterator<Item = T> + '_ {
        let first = start.min(self.len);
        (first / T::CHUNK..self.chunks.len()).flat_map(move |c| {
            let records = self.chunk(c);
            let from = if c == first / T::CHUNK {
                first % T::CHUNK
            } else {
                0
            };
            (from..records.len()).map(move |i| records[i])
        })
    }

    /// Chunk `c`'s records: borrowed when in memory, a copy when on disk. A pass that reads forwards reads
    /// each chunk once, so a chunk the cache does not hold is read from the file and not cached (the cache
    /// keeps what random reads and writes need).
    pub fn chunk(&self, c: usize) -> std::borrow::Cow<'_, [T]> {
        let first = match &self.chunks[c] {
            Chunk::Memory(records) => return std::borrow::Cow::Borrowed(records),
            Chunk::Disk(place) => *place,
        };
        let place = {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(&s) = cache.by_chunk.get(&c) {
                return std::borrow::Cow::Owned(cache.slots[s].records.clone());
            }
            cache.place(c, first)
        };
        std::borrow::Cow::Owned(self.read_chunk(place))
    }

    /// The chunk at `place` of the file, decoded.
    fn read_chunk(&self, place: Place) -> Vec<T> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        READS.fetch_add(1, Ordering::Relaxed);
        let file = self.file.as_ref().expect("a chunk on disk has a file");
        // One buffer per thread for the bytes: a fresh zeroed one per chunk cost as much as the read.
        READ_BUFFER.with_borrow_mut(|bytes| {
            bytes.resize(place.len as usize, 0);
            file.read_exact_at(bytes, place.at)
                .expect("reading back a spill file");
            let mut records = Vec::with_capacity(T::CHUNK);
            T::decode_chunk(bytes, &mut records).expect("a spill file's chunk as it was written");
            records
        })
    }

    /// The run of the records for which `keep` holds, in order (`keep` is given each record's index too).
    pub fn filtered(self, mut keep: impl FnMut(usize, &T) -> bool) -> Run<T> {
        let mut out = Run::default();
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
    fn with_cached<R>(&self, c: usize, f: impl FnOnce(&mut Vec<T>, &mut bool) -> R) -> R {
        let Chunk::Disk(first) = self.chunks[c] else {
            unreachable!("only chunks on disk are cached")
        };
        let mut guard = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let cache = &mut *guard;
        cache.clock += 1;
        let slot = match cache.slots.get(cache.last) {
            Some(s) if s.chunk == c => cache.last,
            _ => match cache.by_chunk.get(&c) {
                Some(&s) => s,
                None => {
                    let capacity = crate::memory::cache_budget();
                    let full = match self.cache_chunks {
                        Some(chunks) => cache.slots.len() >= chunks.max(1),
                        None => CACHED.load(Ordering::Relaxed) >= capacity,
                    };
                    let fresh = Slot {
                        chunk: c,
                        records: self.read_chunk(cache.place(c, first)),
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
                                self.write_back(cache, old.chunk, &old.records);
                            }
                            s
                        }
                        None => {
                            CACHED.fetch_add(chunk_bytes::<T>(), Ordering::Relaxed);
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
        f(&mut entry.records, &mut entry.dirty)
    }

    /// Writes chunk `c` back: where it was, or at the end of the file when it no longer fits there (a
    /// packed chunk grows when a value leaves its lane's range).
    fn write_back(&self, cache: &mut Cache<T>, c: usize, records: &[T]) {
        let Chunk::Disk(first) = self.chunks[c] else {
            return;
        };
        let file = self.file.as_ref().expect("a chunk on disk has a file");
        let bytes = encode(records);
        let mut place = cache.place(c, first);
        if bytes.len() > place.len as usize {
            place = Place {
                at: cache.file_len,
                len: bytes.len() as u32,
            };
            cache.file_len += bytes.len() as u64;
            cache.moved.insert(c, place);
        }
        WRITES.fetch_add(1, Ordering::Relaxed);
        file.write_all_at(&bytes, place.at)
            .expect("writing back to a spill file");
    }
}

fn encode<T: Record>(records: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    T::encode_chunk(records, &mut out);
    out
}

impl<T: Record> FromIterator<T> for Run<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut run = Run::new();
        for r in iter {
            run.push(r);
        }
        run
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U32_CHUNK: usize = <u32 as Record>::CHUNK;

    fn filled(mut run: Run<u32>) -> Run<u32> {
        run.always_spill = true;
        for i in 0..(4 * U32_CHUNK) as u32 {
            run.push(i);
        }
        run
    }

    /// Reads records of chunks 0, 1 and 2 in turn, as the merge reads three chains' links.
    fn read_around(run: &Run<u32>) {
        for k in 0..U32_CHUNK {
            for c in 0..3 {
                assert_eq!(run.get(c * U32_CHUNK + k), (c * U32_CHUNK + k) as u32);
            }
        }
    }

    /// A record packed by lanes ([`crate::lanes`]): a chunk of equal values takes a few bytes on disk.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Packed(u64);

    impl Record for Packed {
        fn encode_chunk(records: &[Packed], out: &mut Vec<u8>) {
            let lanes: Vec<[u64; 1]> = records.iter().map(|r| [r.0]).collect();
            crate::lanes::encode(&lanes, out);
        }
        fn decode_chunk(
            bytes: &[u8],
            out: &mut Vec<Packed>,
        ) -> Result<(), crate::lanes::Malformed> {
            crate::lanes::decode::<1>(bytes, |[v]| out.push(Packed(v)))
        }
    }

    #[test]
    fn a_packed_chunk_written_back_longer_moves_to_the_end_of_the_file_and_reads_back() {
        let mut run: Run<Packed> = Run::spilling();
        // Chunk 2 holds values 0 to 199 (a byte each), the others 7 (no byte).
        let first = |i: usize| Packed(if i / CHUNK == 2 { (i % 200) as u64 } else { 7 });
        for i in 0..4 * CHUNK {
            run.push(first(i));
        }
        assert_eq!(run.on_disk(), 4 * CHUNK);
        let file_len = |run: &Run<Packed>| run.cache.lock().unwrap().file_len;
        let packed_len = file_len(&run);
        assert!(packed_len < 4 * (CHUNK * 8) as u64, "equal values pack");
        // Chunk 1 grows (a value far from the others), chunk 2 keeps its size (a value in its range);
        // reading chunks 0 and 3 pushes both out of the two-chunk cache.
        run.set(CHUNK + 5, Packed(u64::MAX));
        run.set(2 * CHUNK, Packed(8));
        for i in [0, 3 * CHUNK, 0] {
            assert_eq!(run.get(i), Packed(7));
        }
        let moved = run.cache.lock().unwrap().moved.clone();
        assert_eq!(moved.keys().copied().collect::<Vec<_>>(), vec![1]);
        assert_eq!(moved[&1].at, packed_len, "appended at the end of the file");
        let want = |i: usize| match i {
            i if i == CHUNK + 5 => Packed(u64::MAX),
            i if i == 2 * CHUNK => Packed(8),
            _ => first(i),
        };
        assert!(run.iter().enumerate().all(|(i, r)| r == want(i)));
        for i in (0..4 * CHUNK).rev() {
            assert_eq!(run.get(i), want(i), "record {i}");
        }
        assert_eq!(
            run.chunk(1)[5],
            Packed(u64::MAX),
            "a pass reads the moved chunk"
        );
    }

    #[test]
    fn reads_at_places_apart_are_served_by_an_own_cache_that_holds_their_chunks() {
        let own = filled(Run::with_own_cache(4 * chunk_bytes::<u32>()));
        assert_eq!(own.on_disk(), 4 * U32_CHUNK);
        read_around(&own);
        assert_eq!(own.chunks_read(), 3, "each chunk read once");
        // A run left one slot of the shared cache reads a chunk for nearly every record.
        let mut one_slot = Run::new();
        one_slot.cache_chunks = Some(1);
        let one_slot = filled(one_slot);
        read_around(&one_slot);
        assert_eq!(one_slot.chunks_read(), 3 * U32_CHUNK);
    }
}
