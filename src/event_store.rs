//! Events kept by the million: a fixed-size head per event ([`crate::head_run`]: in memory, or on disk past
//! the memory budget), its fields and excerpt packed ([`crate::packed`]) in a byte arena that moves to an
//! unlinked temporary file once the run's arenas hold more than their share of the budget
//! ([`crate::memory::packed_budget`]).
//!
//! The merge needs every event of a run before it can order them, and the passes before it (banners,
//! aliases, repeated records, services, causal edges) read heads and the fields of a few kinds. A model
//! step reads one event's fields, once, in merged order. So the passes read heads (80 bytes: kind, node,
//! thread, time, span, ...) and the fields are read back when an event is stepped or reported: a
//! `check` of an event-dense 1.2 GB log holds about 3.4 million heads instead of as many `Event`s of
//! 300-600 bytes each. Node and thread names are interned: a head holds their numbers.

use crate::event::Event;
use crate::head_run::HeadRun;
pub use crate::head_run::{Head, NO_NODE};
use crate::packed::{self, Reader};
use crate::spill::{Run, CHUNK};
use crate::value::Value;
use rustc_hash::FxHashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// An arena writes to its file in pieces of at least this size (when the budget is spent).
const FLUSH_AT: usize = 1 << 20;
/// Bytes read from a spill file at once: replay reads an input's events nearly in file order.
const READ_WINDOW: usize = 256 << 10;

/// Packed bytes held in memory by every arena of the process.
static IN_MEMORY: AtomicUsize = AtomicUsize::new(0);

/// Gives the memory freed since the last call back to the system. glibc keeps the blocks a phase freed
/// (the scan's buffers and in-flight records, the merge's graph) in its per-thread arenas, where the next
/// phase's large vectors cannot reuse them: on a 1.2 GB log that is over 100 MB of resident garbage.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the system; no pointer is touched.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Packed bytes, in memory and, past the budget, in an unlinked temporary file.
#[derive(Debug)]
struct Arena {
    /// Bytes from `flushed` on.
    tail: Vec<u8>,
    /// How many bytes are in `file`.
    flushed: u64,
    file: Option<File>,
    /// The last window read from `file`, for readers without a window of their own.
    window: Mutex<Window>,
    /// False where no temporary file can be made: everything stays in memory.
    may_spill: bool,
    /// Spill whenever a piece is ready, whatever the budget (tests).
    always_spill: bool,
}

impl Arena {
    fn new() -> Arena {
        Arena {
            tail: Vec::new(),
            flushed: 0,
            file: None,
            window: Mutex::new(Window::default()),
            may_spill: true,
            always_spill: false,
        }
    }

    fn len(&self) -> u64 {
        self.flushed + self.tail.len() as u64
    }

    /// Appends one record (its length first); returns where it starts.
    fn push(&mut self, record: &[u8]) -> u64 {
        let at = self.len();
        let before = self.tail.len();
        packed::put_uvarint(&mut self.tail, record.len() as u64);
        self.tail.extend_from_slice(record);
        let grown = self.tail.len() - before;
        let total = IN_MEMORY.fetch_add(grown, Ordering::Relaxed) + grown;
        if self.may_spill
            && self.tail.len() >= if self.always_spill { 1 } else { FLUSH_AT }
            && (self.always_spill || total > crate::memory::packed_budget())
        {
            self.spill();
        }
        at
    }

    /// Moves the in-memory bytes to the file (made on first use).
    fn spill(&mut self) {
        if self.file.is_none() {
            match tempfile::tempfile() {
                Ok(f) => self.file = Some(f),
                Err(_) => {
                    // No temporary directory to write to: correct, only larger.
                    self.may_spill = false;
                    return;
                }
            }
        }
        let file = self.file.as_ref().expect("made above");
        if file.write_all_at(&self.tail, self.flushed).is_err() {
            // A full disk: keep what is not written in memory from now on.
            self.may_spill = false;
            return;
        }
        self.flushed += self.tail.len() as u64;
        IN_MEMORY.fetch_sub(self.tail.len(), Ordering::Relaxed);
        self.tail.clear();
        if self.tail.capacity() > FLUSH_AT * 2 {
            self.tail.shrink_to(FLUSH_AT);
        }
    }

    /// Calls `f` with the record that starts at `at`, read through the arena's own window.
    fn with_record<R>(&self, at: u64, f: impl FnOnce(&[u8]) -> R) -> R {
        if at >= self.flushed {
            return self.with_record_in(at, &mut Window::default(), f);
        }
        let mut window = self.window.lock().unwrap_or_else(|p| p.into_inner());
        self.with_record_in(at, &mut window, f)
    }

    /// [`Arena::with_record`] through a reader's own window: readers on several threads do not take turns
    /// with one window (each would read it again for nearly every record).
    fn with_record_in<R>(&self, at: u64, window: &mut Window, f: impl FnOnce(&[u8]) -> R) -> R {
        if at >= self.flushed {
            let mut r = Reader::new(&self.tail[(at - self.flushed) as usize..]);
            let len = r.uvarint() as usize;
            return f(r.bytes(len));
        }
        let file = self.file.as_ref().expect("flushed bytes are in the file");
        let (start, bytes) = (&mut window.0, &mut window.1);
        if !record_inside(at, *start, bytes) {
            // The length prefix (at most 10 bytes), then a window that holds at least the whole record.
            let mut prefix = [0u8; 10];
            let avail = (self.flushed - at).min(10) as usize;
            file.read_exact_at(&mut prefix[..avail], at)
                .expect("reading back the events' spill file");
            let mut r = Reader::new(&prefix[..avail]);
            let len = r.uvarint() as usize + (avail - r.remaining());
            let size = len.max(READ_WINDOW).min((self.flushed - at) as usize);
            bytes.resize(size, 0);
            file.read_exact_at(bytes, at)
                .expect("reading back the events' spill file");
            *start = at;
        }
        let mut r = Reader::new(&bytes[(at - *start) as usize..]);
        let len = r.uvarint() as usize;
        f(r.bytes(len))
    }
}

/// The last window read from an arena's file: its offset and its bytes.
#[derive(Debug, Default)]
pub struct Window(u64, Vec<u8>);

/// Does the window of `bytes` read at `start` hold the whole record at `at`, its length prefix included?
fn record_inside(at: u64, start: u64, bytes: &[u8]) -> bool {
    let Some(off) = at.checked_sub(start).and_then(|o| usize::try_from(o).ok()) else {
        return false;
    };
    let Some(rest) = bytes.get(off..) else {
        return false;
    };
    let mut r = Reader::new(rest);
    r.try_uvarint()
        .is_some_and(|len| len <= r.remaining() as u64)
}

impl Drop for Arena {
    fn drop(&mut self) {
        IN_MEMORY.fetch_sub(self.tail.len(), Ordering::Relaxed);
    }
}

/// An event's fields and excerpt, read back from its input's arena.
pub type Unpacked = (Vec<(&'static str, Value)>, Option<Arc<str>>);

/// What unpacks an input's events: its arena, thread names and field names.
#[derive(Debug)]
pub struct InputData {
    arena: Arena,
    pub threads: Vec<Arc<str>>,
    thread_ids: FxHashMap<Arc<str>, u32>,
    field_names: Vec<&'static str>,
    field_ids: FxHashMap<&'static str, u32>,
    /// Reused to pack one record.
    scratch: Vec<u8>,
}

impl InputData {
    fn new() -> InputData {
        InputData {
            arena: Arena::new(),
            threads: Vec::new(),
            thread_ids: FxHashMap::default(),
            field_names: Vec::new(),
            field_ids: FxHashMap::default(),
            scratch: Vec::new(),
        }
    }

    fn thread_id(&mut self, name: &Arc<str>) -> u32 {
        if let Some(&id) = self.thread_ids.get(name) {
            return id;
        }
        let id = self.threads.len() as u32;
        self.threads.push(name.clone());
        self.thread_ids.insert(name.clone(), id);
        id
    }

    fn pack(&mut self, fields: &[(&'static str, Value)], excerpt: Option<&str>) -> u64 {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        packed::put_uvarint(&mut out, fields.len() as u64);
        for (name, value) in fields {
            let id = match self.field_ids.get(name) {
                Some(&id) => id,
                None => {
                    let id = self.field_names.len() as u32;
                    self.field_names.push(name);
                    self.field_ids.insert(name, id);
                    id
                }
            };
            packed::put_uvarint(&mut out, u64::from(id));
            packed::put_value(&mut out, value);
        }
        match excerpt {
            Some(text) => {
                out.push(1);
                packed::put_uvarint(&mut out, text.len() as u64);
                out.extend_from_slice(text.as_bytes());
            }
            None => out.push(0),
        }
        let at = self.arena.push(&out);
        self.scratch = out;
        at
    }

    /// The fields and excerpt of the event with this head.
    pub fn unpack(&self, head: &Head) -> Unpacked {
        self.arena
            .with_record(head.data, |bytes| self.unpack_record(bytes))
    }

    /// [`InputData::unpack`] through a reader's own window on the arena.
    fn unpack_in(&self, head: &Head, window: &mut Window) -> Unpacked {
        self.arena
            .with_record_in(head.data, window, |bytes| self.unpack_record(bytes))
    }

    fn unpack_record(&self, bytes: &[u8]) -> Unpacked {
        let mut r = Reader::new(bytes);
        let n = r.uvarint() as usize;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.field_names[r.uvarint() as usize];
            fields.push((name, r.value()));
        }
        let excerpt = (r.byte() == 1).then(|| Arc::from(r.str()));
        (fields, excerpt)
    }

    /// The fields of the event with this head.
    pub fn fields(&self, head: &Head) -> Vec<(&'static str, Value)> {
        self.unpack(head).0
    }

    /// One field of the event with this head.
    pub fn field(&self, head: &Head, name: &str) -> Option<Value> {
        self.fields(head)
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }
}

/// An input's events as it was scanned: heads in input order, with node numbers of the input's own
/// ([`InputEvents::nodes`]) until the timeline gives them the run's.
#[derive(Debug)]
pub struct InputEvents {
    pub heads: HeadRun,
    pub data: InputData,
    /// The input's node names, by head node number.
    pub nodes: Vec<Arc<str>>,
    node_ids: FxHashMap<Arc<str>, u32>,
    /// What its heads may hold: lets a pass that could change nothing here skip reading them back.
    pub facts: HeadFacts,
}

/// What an input's heads may hold, kept as they are pushed, so that the timeline's passes over each input
/// (past the memory budget each one reads every head back from disk) run only where they can change
/// something. A fact is never unset while the heads stay: a pass that gives heads a node or takes it away
/// sets what it made true, and heads that are dropped leave their facts behind (a fact that no longer holds
/// costs a pass, never a result).
#[derive(Debug, Clone, Default)]
pub struct HeadFacts {
    /// Bit `k`: some head is of the kind at index `k` of [`crate::vocab::EventKind::ALL`].
    kinds: Vec<u64>,
    /// Some head has no node.
    pub nodeless: bool,
    /// Some head's node comes from a banner ([`crate::event::NodeSource::Banner`]).
    pub banner_named: bool,
}

impl HeadFacts {
    fn saw(&mut self, h: &Head) {
        let k = h.kind.index();
        if self.kinds.len() <= k / 64 {
            self.kinds.resize(k / 64 + 1, 0);
        }
        self.kinds[k / 64] |= 1 << (k % 64);
        self.nodeless |= !h.has_node();
        self.banner_named |= h.node_from == Some(crate::event::NodeSource::Banner);
    }

    /// May some head be of this kind?
    pub fn may_hold(&self, kind: crate::vocab::EventKind) -> bool {
        let k = kind.index();
        self.kinds
            .get(k / 64)
            .is_some_and(|w| w & (1 << (k % 64)) != 0)
    }
}

impl Default for InputEvents {
    fn default() -> Self {
        InputEvents::new()
    }
}

impl InputEvents {
    pub fn new() -> InputEvents {
        InputEvents {
            heads: HeadRun::new(),
            data: InputData::new(),
            nodes: Vec::new(),
            node_ids: FxHashMap::default(),
            facts: HeadFacts::default(),
        }
    }

    /// Every packed record and every full chunk of heads goes to its temporary file at once (tests of the
    /// file path).
    #[cfg(test)]
    pub fn spilling() -> InputEvents {
        let mut s = InputEvents::new();
        s.data.arena.always_spill = true;
        s.heads = HeadRun::spilling();
        s
    }

    /// An input's node number for `name`.
    pub fn node_id(&mut self, name: &Arc<str>) -> u32 {
        if let Some(&id) = self.node_ids.get(name) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(name.clone());
        self.node_ids.insert(name.clone(), id);
        id
    }

    pub fn push(&mut self, e: Event) {
        let node = match &e.node {
            Some(n) => self.node_id(n),
            None => NO_NODE,
        };
        let thread = self.data.thread_id(&e.thread);
        let data = self.data.pack(&e.fields, e.excerpt.as_deref());
        let head = Head {
            span: e.span,
            millis: e.time.map_or(i64::MIN, |t| t.millis),
            has_date: e.time.is_some_and(|t| t.has_date),
            excerpt_hash: e.excerpt_hash,
            data,
            node,
            thread,
            rule: e.rule,
            message_offset: e.message_offset,
            kind: e.kind,
            component: e.component,
            node_from: e.node_from,
            level: e.level,
        };
        self.facts.saw(&head);
        self.heads.push(head);
    }

    pub fn from_events(events: Vec<Event>) -> InputEvents {
        let mut s = InputEvents::new();
        for e in events {
            s.push(e);
        }
        s
    }

    pub fn len(&self) -> usize {
        self.heads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// Numbers every event's input `input` (`Span::input`): the input's place in the run.
    pub fn set_input(&mut self, input: u32) {
        self.heads.update(|h| h.span.input = input);
    }

    pub fn thread(&self, head: &Head) -> &str {
        &self.data.threads[head.thread as usize]
    }

    pub fn node_name(&self, head: &Head) -> Option<&Arc<str>> {
        head.node().map(|n| &self.nodes[n as usize])
    }

    /// The whole event `i`, named by the input's own node table. It has no node key yet (`u32::MAX`): the
    /// timeline gives those.
    pub fn event(&self, i: usize) -> Event {
        Event {
            node_key: u32::MAX,
            ..materialize(&self.heads.get(i), &self.data, &self.nodes)
        }
    }

    /// A copy of these events (a live check looks at what has arrived while more arrives). Each event is
    /// read back and kept again, so the copy keeps to the memory budget as the original does.
    pub fn copy(&self) -> InputEvents {
        let mut out = InputEvents::new();
        for h in self.heads.iter() {
            out.push(materialize(&h, &self.data, &self.nodes));
        }
        out
    }

    /// Every event, in input order (tests and the passes that need whole events).
    pub fn events(&self) -> Vec<Event> {
        (0..self.len()).map(|i| self.event(i)).collect()
    }
}

fn materialize(h: &Head, data: &InputData, names: &[Arc<str>]) -> Event {
    event_from(h, data, names, data.unpack(h))
}

/// The whole event of a head, with its fields and excerpt read back.
fn event_from(
    h: &Head,
    data: &InputData,
    names: &[Arc<str>],
    (fields, excerpt): Unpacked,
) -> Event {
    let node = h.node().map(|n| names[n as usize].clone());
    Event {
        kind: h.kind,
        rule: h.rule,
        component: h.component,
        node_key: if node.is_some() { h.node } else { u32::MAX },
        node,
        node_from: h.node_from,
        time: h.time(),
        level: h.level,
        thread: data.threads[h.thread as usize].clone(),
        fields,
        span: h.span,
        excerpt,
        excerpt_hash: h.excerpt_hash,
        message_offset: h.message_offset,
    }
}

/// Every input's heads, numbered one after the other (each input's a contiguous range, in input order):
/// the merge's numbering of the events. A head read from it carries the run's node number: each input's
/// own numbers are mapped as its heads are read, so that the heads need not be rewritten (on disk, that
/// would be a read and a write of every chunk).
#[derive(Debug, Default)]
pub struct Gathered {
    runs: Vec<HeadRun>,
    /// Per run, the run's node number of each of its input's node numbers.
    node_maps: Vec<Vec<u32>>,
    /// Where each run's heads start in the numbering.
    starts: Vec<usize>,
    len: usize,
}

impl Gathered {
    /// Appends a run: its heads are numbered from [`Gathered::len`] on, and its node `n` reads as
    /// `node_map[n]`.
    pub fn append(&mut self, run: HeadRun, node_map: Vec<u32>) {
        self.starts.push(self.len);
        self.len += run.len();
        self.runs.push(run);
        self.node_maps.push(node_map);
    }

    /// Appends a run whose heads carry the run's node numbers already (tests).
    #[cfg(test)]
    pub fn append_as_is(&mut self, run: HeadRun) {
        let nodes = run
            .iter()
            .filter_map(|h| h.node())
            .max()
            .map_or(0, |n| n + 1);
        self.append(run, (0..nodes).collect());
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Which run holds head `i` of the numbering, and its place there.
    #[inline]
    fn locate(&self, i: usize) -> (usize, usize) {
        let r = self.starts.partition_point(|&s| s <= i) - 1;
        (r, i - self.starts[r])
    }

    /// A head of run `r` with the run's node number.
    #[inline]
    fn mapped(&self, r: usize, mut h: Head) -> Head {
        if h.has_node() {
            h.node = self.node_maps[r][h.node as usize];
        }
        h
    }

    /// Head `i` of the numbering.
    #[inline]
    pub fn get(&self, i: usize) -> Head {
        let (r, local) = self.locate(i);
        self.mapped(r, self.runs[r].get(local))
    }

    /// How many heads live on disk.
    pub fn on_disk(&self) -> usize {
        self.runs.iter().map(HeadRun::on_disk).sum()
    }

    /// How many chunks of heads were read back from disk so far.
    pub fn chunks_read(&self) -> usize {
        self.runs.iter().map(HeadRun::chunks_read).sum()
    }

    /// A reader of heads by number that holds the chunks each run was last read in.
    pub fn reader(&self) -> GatheredReader<'_> {
        GatheredReader {
            all: self,
            held: (0..self.runs.len()).map(|_| Vec::new()).collect(),
        }
    }

    /// Every head in the numbering's order.
    pub fn iter(&self) -> impl Iterator<Item = Head> + '_ {
        self.runs
            .iter()
            .enumerate()
            .flat_map(move |(r, run)| run.iter().map(move |h| self.mapped(r, h)))
    }
}

/// Chunks a [`GatheredReader`] holds per run: an input holds a chain per node (and one of events with no
/// node), and the merged order reads each chain forwards, so it reads a run at a few places at once; one
/// chunk per run would read a chunk back from disk for nearly every head of an input with two chains.
const HELD_PER_RUN: usize = 8;

/// Reads heads of a [`Gathered`] by number, holding the last chunks each run was read in: reads that go
/// forwards in each chain (the merged order reads each chain forwards) take no lock and copy no chunk in
/// memory.
pub struct GatheredReader<'a> {
    all: &'a Gathered,
    /// Per run, up to [`HELD_PER_RUN`] chunks (chunk number, heads), the one read last first.
    held: Vec<Vec<(usize, std::borrow::Cow<'a, [Head]>)>>,
}

impl GatheredReader<'_> {
    /// Head `i` of the numbering.
    #[inline]
    pub fn get(&mut self, i: usize) -> Head {
        let (r, local) = self.all.locate(i);
        let (c, at) = (local / CHUNK, local % CHUNK);
        let held = &mut self.held[r];
        match held.iter().position(|(chunk, _)| *chunk == c) {
            // Most reads are of the chunk read last.
            Some(0) => {}
            Some(k) => {
                let slot = held.remove(k);
                held.insert(0, slot);
            }
            None => {
                // The least recently read one goes.
                held.truncate(HELD_PER_RUN - 1);
                held.insert(0, (c, self.all.runs[r].chunk(c)));
            }
        }
        self.all.mapped(r, held[0].1[at])
    }
}

/// A run's events in the merged order: heads ([`Gathered`], in memory or on disk), the rest read back per
/// event.
///
/// The heads stay where they were gathered (input by input) and are read through `order`, the merged order
/// of their places: read in merged order, they are a few runs, one per chain, each read forwards. A head
/// keeps the run's node number; [`EventStore::head`] gives it the node key, which numbers nodes in the
/// order the merged timeline meets them.
#[derive(Debug, Default)]
pub struct EventStore {
    heads: Gathered,
    /// `order[i]`: where event `i` of the merged order is in `heads`.
    order: Run<u32>,
    /// The node key of each run node number.
    key_of_run_node: Vec<u32>,
    /// What unpacks each input's events, by `Span::input`.
    inputs: Vec<Arc<InputData>>,
    /// Node names by node key.
    node_names: Vec<Arc<str>>,
}

impl EventStore {
    /// `order` lists the places in `heads` in merged order; it is a permutation of them. `key_of_run_node`
    /// gives each head's node its key (an index of `node_names`).
    pub fn new(
        heads: Gathered,
        order: Run<u32>,
        key_of_run_node: Vec<u32>,
        inputs: Vec<Arc<InputData>>,
        node_names: Vec<Arc<str>>,
    ) -> Self {
        assert_eq!(heads.len(), order.len(), "one place in the order per head");
        EventStore {
            heads,
            order,
            key_of_run_node,
            inputs,
            node_names,
        }
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The head of event `i` of the merged order.
    #[inline]
    pub fn head(&self, i: usize) -> Head {
        self.keyed(self.heads.get(self.order.get(i) as usize))
    }

    /// A gathered head with its node's key in place of its run node number.
    #[inline]
    fn keyed(&self, mut h: Head) -> Head {
        if h.has_node() {
            h.node = self.key_of_run_node[h.node as usize];
        }
        h
    }

    /// Every head, in merged order.
    pub fn heads(&self) -> impl Iterator<Item = Head> + '_ {
        self.heads_in(0..self.len())
    }

    /// The heads of events `range`, in merged order (a reader that goes forwards: no lock per head).
    pub fn heads_in(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = Head> + '_ {
        let mut reader = self.heads.reader();
        self.order
            .iter_from(range.start)
            .take(range.end.saturating_sub(range.start))
            .map(move |at| self.keyed(reader.get(at as usize)))
    }

    fn data(&self, h: &Head) -> &InputData {
        &self.inputs[h.span.input as usize]
    }

    /// Event `i`, whole.
    pub fn get(&self, i: usize) -> Event {
        self.event_of(&self.head(i))
    }

    /// The whole event of a head this store gave ([`EventStore::heads`]): no head is read again.
    pub fn event_of(&self, h: &Head) -> Event {
        materialize(h, self.data(h), &self.node_names)
    }

    /// [`EventStore::event_of`] through a reader's own windows on the inputs' arenas
    /// ([`EventStore::windows`]), for readers on several threads at once.
    pub fn event_in(&self, h: &Head, windows: &mut [Window]) -> Event {
        let data = self.data(h);
        let unpacked = data.unpack_in(h, &mut windows[h.span.input as usize]);
        event_from(h, data, &self.node_names, unpacked)
    }

    /// A window per input for [`EventStore::event_in`].
    pub fn windows(&self) -> Vec<Window> {
        self.inputs.iter().map(|_| Window::default()).collect()
    }

    /// Event `i`, or `None` past the end.
    pub fn try_get(&self, i: usize) -> Option<Event> {
        (i < self.len()).then(|| self.get(i))
    }

    /// Every event in merged order, each read back as it is reached.
    pub fn iter(&self) -> impl Iterator<Item = Event> + '_ {
        self.heads().map(|h| self.event_of(&h))
    }

    /// The name of the node of event `i`.
    pub fn node_name(&self, i: usize) -> Option<&Arc<str>> {
        self.head(i).node().map(|n| &self.node_names[n as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Span;
    use crate::head_run::{COMPONENTS, NODE_SOURCES};
    use crate::layout::Level;
    use crate::monitor::testkit::{ev, key, keys, on_thread, text};
    use crate::spill::Record;
    use crate::vocab::EventKind;

    fn sample() -> Vec<Event> {
        let mut a = on_thread(
            ev(
                EventKind::SecretKeysUpdated,
                "scm1",
                5,
                vec![("keys", keys(&[("k1", 10), ("k2", 20)]))],
            ),
            "scm1-SecretKeyManagerService",
        );
        a.excerpt = Some("2026-01-01 00:00:00,005 [scm1-x] INFO updated".into());
        a.span = Span {
            input: 0,
            line: 7,
            byte_offset: 120,
            byte_len: 44,
        };
        a.excerpt_hash = 99;
        a.message_offset = 30;
        let mut b = ev(
            EventKind::ProcessStarted,
            "dn1",
            6,
            vec![("service", text("HddsDatanodeService"))],
        );
        b.time = None;
        let c = ev(
            EventKind::SecretKeyGenerated,
            "scm2",
            7,
            vec![("key", key("k3", 30))],
        );
        vec![a, b, c]
    }

    fn round_trip(mut store: InputEvents) {
        let events = sample();
        for e in events.clone() {
            store.push(e);
        }
        for (i, e) in events.iter().enumerate() {
            assert_eq!(&store.event(i), e, "event {i}");
        }
    }

    #[test]
    fn an_event_reads_back_whole_from_memory() {
        round_trip(InputEvents::new());
    }

    #[test]
    fn an_event_reads_back_whole_from_the_spill_file() {
        let store = InputEvents::spilling();
        round_trip(store);
    }

    #[test]
    fn a_long_spilled_arena_reads_back_in_any_order() {
        let mut store = InputEvents::spilling();
        let n = 20_000;
        for i in 0..n {
            store.push(ev(
                EventKind::SecretKeysUpdated,
                "scm1",
                i,
                vec![("keys", keys(&[(&format!("key-{i}"), i)]))],
            ));
        }
        assert!(
            store.data.arena.flushed > READ_WINDOW as u64,
            "more than one window on disk"
        );
        for i in [0, n - 1, 7, n / 2, 3, n - 2, 1] {
            let e = store.event(i as usize);
            assert_eq!(e.fields, vec![("keys", keys(&[(&format!("key-{i}"), i)]))]);
            assert_eq!(
                e.time.map(|t| t.millis),
                ev(EventKind::SecretKeysUpdated, "scm1", i, vec![])
                    .time
                    .map(|t| t.millis)
            );
        }
    }

    /// The store keeps its heads where they were gathered and reads them through the merged order.
    #[test]
    fn a_store_reads_its_events_in_the_merged_order() {
        let mut input = InputEvents::new();
        for e in sample() {
            input.push(e);
        }
        let heads: Vec<Head> = input.heads.iter().collect();
        let names = input.nodes.clone();
        let mut gathered = Gathered::default();
        gathered.append_as_is(input.heads);
        let store = EventStore::new(
            gathered,
            [2, 0, 1].into_iter().collect(),
            (0..names.len() as u32).collect(),
            vec![Arc::new(input.data)],
            names,
        );
        let want = sample();
        let merged = [&want[2], &want[0], &want[1]];
        assert_eq!(store.len(), 3);
        for (i, e) in merged.iter().enumerate() {
            assert_eq!(store.get(i).fields, e.fields, "event {i}");
            assert_eq!(store.node_name(i), e.node.as_ref());
        }
        assert_eq!(store.head(0), heads[2]);
        let kinds: Vec<EventKind> = store.heads().map(|h| h.kind).collect();
        assert_eq!(kinds, merged.map(|e| e.kind));
        let tail: Vec<EventKind> = store.heads_in(1..3).map(|h| h.kind).collect();
        assert_eq!(tail, [want[0].kind, want[1].kind]);
        assert_eq!(store.heads_in(2..2).count(), 0);
        assert_eq!(store.iter().map(|e| e.kind).collect::<Vec<_>>(), kinds);
        assert!(store.try_get(3).is_none());
    }

    /// Every field of a head, every value of its small ones, goes to disk and back unchanged.
    #[test]
    fn a_head_reads_back_from_its_bytes() {
        let mut input = InputEvents::new();
        for e in sample() {
            input.push(e);
        }
        let base = input.heads.get(0);
        let sources = NODE_SOURCES.iter().copied().map(Some).chain([None]);
        let levels = Level::ALL.iter().copied().map(Some).chain([None]);
        // A chunk of one head, packed as on disk, and read back.
        let round_trip = |h: Head| {
            let mut bytes = Vec::new();
            Head::encode_chunk(&[h], &mut bytes);
            let mut back = Vec::new();
            Head::decode_chunk(&bytes, &mut back).expect("a chunk encode_chunk wrote");
            back[0]
        };
        for (((from, level), component), millis) in sources
            .zip(levels.cycle())
            .zip(COMPONENTS.iter().cycle())
            .zip([i64::MIN, -5, 0, i64::MAX].iter().cycle())
        {
            let h = Head {
                node_from: from,
                level,
                component: *component,
                millis: *millis,
                has_date: *millis > 0,
                node: NO_NODE,
                kind: EventKind::ALL[EventKind::ALL.len() - 1],
                ..base
            };
            assert_eq!(round_trip(h), h);
        }
        assert_eq!(round_trip(input.heads.get(2)), input.heads.get(2));
    }

    #[test]
    fn an_input_says_what_its_heads_may_hold_as_they_are_pushed() {
        let mut input = InputEvents::new();
        for e in sample() {
            input.push(e);
        }
        assert!(input.facts.may_hold(EventKind::SecretKeysUpdated));
        assert!(input.facts.may_hold(EventKind::ProcessStarted));
        assert!(!input.facts.may_hold(EventKind::RaftRoleChanged));
        assert!(!input.facts.nodeless && !input.facts.banner_named);
        let mut nodeless = ev(EventKind::RaftRoleChanged, "scm1", 8, vec![]);
        nodeless.node = None;
        input.push(nodeless);
        assert!(input.facts.may_hold(EventKind::RaftRoleChanged));
        assert!(input.facts.nodeless && !input.facts.banner_named);
        let mut banner = ev(EventKind::ProcessStarted, "scm1", 9, vec![]);
        banner.node_from = Some(crate::event::NodeSource::Banner);
        input.push(banner);
        assert!(input.facts.banner_named);
    }

    #[test]
    fn a_reader_of_heads_on_disk_reads_each_chunk_of_two_chains_of_one_input_once() {
        // Two chains of one input (a node's events and the node-less ones, say), read in turn as the merged
        // order reads them: each holds its own chunk.
        let mut heads = HeadRun::spilling();
        let mut input = InputEvents::new();
        input.push(sample().remove(0));
        for _ in 0..4 * CHUNK {
            heads.push(input.heads.get(0));
        }
        let mut all = Gathered::default();
        all.append(heads, vec![0]);
        assert_eq!(all.on_disk(), 4 * CHUNK);
        let mut reader = all.reader();
        for i in 0..2 * CHUNK {
            assert_eq!(reader.get(i), input.heads.get(0));
            assert_eq!(reader.get(2 * CHUNK + i), input.heads.get(0));
        }
        assert_eq!(all.runs[0].chunks_read(), 4);
    }

    #[test]
    fn gathered_heads_read_with_the_runs_node_numbers_and_stay_as_written() {
        let mut input = InputEvents::spilling();
        for i in 0..3 * CHUNK {
            let node = ["scm1", "scm2"][i % 2];
            input.push(ev(EventKind::SecretKeysUpdated, node, i as i64, vec![]));
        }
        let mut all = Gathered::default();
        // The input's scm1 (0) and scm2 (1) are the run's nodes 5 and 2.
        all.append(input.heads, vec![5, 2]);
        let expect = |i: usize| [5, 2][i % 2];
        for (i, h) in all.iter().enumerate() {
            assert_eq!(h.node, expect(i), "iter, head {i}");
        }
        let mut reader = all.reader();
        for i in (0..3 * CHUNK).rev() {
            assert_eq!(all.get(i).node, expect(i), "get, head {i}");
            assert_eq!(reader.get(i).node, expect(i), "reader, head {i}");
        }
        assert_eq!(all.runs[0].on_disk(), 3 * CHUNK);
        assert_eq!(
            all.runs[0].get(1).node,
            1,
            "the run keeps the input's numbers"
        );
    }

    #[test]
    fn a_head_is_small() {
        assert!(
            std::mem::size_of::<Head>() <= 80,
            "{}",
            std::mem::size_of::<Head>()
        );
    }
}
