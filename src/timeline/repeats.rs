//! Inputs and records read once: a test-output file that retells the per-node logs given with it, and
//! records repeated within an input (a file given twice, a byte-identical copy), each with a warning.

use crate::event_store::{Head, InputEvents};
use crate::head_run::HeadRun;
use crate::scan::InputStats;
use crate::value::Value;
use std::collections::HashMap;

/// What an event says, without where, when and on which thread it was said: what tells that a test-output
/// file and per-node daemon logs describe the same story. Host names and addresses differ between the two
/// layouts (`ci-runner-7` vs `scm1`), so they are left out.
fn story_fingerprint(events: &InputEvents, h: &Head) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let all = events.data.fields(h);
    let fields: Vec<_> = all
        .iter()
        .filter(|(n, v)| !matches!(v, Value::HostIp { .. }) && !matches!(*n, "host" | "address"))
        .collect();
    if fields.is_empty() {
        return None;
    }
    let mut hasher = rustc_hash::FxHasher::default();
    h.kind.name().hash(&mut hasher);
    format!("{fields:?}").hash(&mut hasher);
    Some(hasher.finish())
}

/// The share of a test-output input's distinct event contents that, when also in the per-node daemon logs
/// of the same run, makes it a second telling of their story (the fixtures' `merged/` copies share 54-100%;
/// unrelated runs share next to nothing, the ids being random UUIDs).
const SAME_STORY_SHARE: f64 = 0.5;

/// The distinct event contents a one-node test-output input needs before [`SAME_STORY_SHARE`] may call it a
/// retelling (the fixtures' one-node `merged/` copies have more; a mid-run daemon log of one SCM has 5).
const MIN_ONE_NODE_STORY: usize = 8;

/// A single-JVM test-output input whose events mostly repeat the per-node daemon logs of the same run (a
/// case directory holding both, as the scenario fixtures do) is the same story told twice: replaying both
/// would double every event, so the test output is left out, and the warning says so.
pub(super) fn drop_repeated_story(
    inputs: &mut [InputStats],
    per_input: &mut [InputEvents],
    test_output: &[bool],
) {
    let is_test = |i: usize| test_output.get(i).copied().unwrap_or(false);
    let daemon: Vec<usize> = (0..per_input.len()).filter(|&i| !is_test(i)).collect();
    if daemon.is_empty() || daemon.len() == per_input.len() {
        return;
    }
    let mut told: HashMap<u64, Vec<usize>> = HashMap::new();
    for &i in &daemon {
        let events = &per_input[i];
        for f in events
            .heads
            .iter()
            .filter_map(|h| story_fingerprint(events, &h))
        {
            let by = told.entry(f).or_default();
            if by.last() != Some(&i) {
                by.push(i);
            }
        }
    }
    for i in (0..per_input.len()).filter(|&i| is_test(i)) {
        let events = &per_input[i];
        let mine: std::collections::HashSet<u64> = events
            .heads
            .iter()
            .filter_map(|h| story_fingerprint(events, &h))
            .collect();
        // A short log of one process in the test layout (a daemon with the test pattern, starting mid-run)
        // shares a few cluster-wide facts with its peers' logs (the leader they all saw elected): that is
        // no retelling. A retelling has several nodes in it, or a story long enough for the share to mean it.
        let nodes: std::collections::HashSet<u32> =
            events.heads.iter().filter_map(|h| h.node()).collect();
        if nodes.len() < 2 && mine.len() < MIN_ONE_NODE_STORY {
            continue;
        }
        let shared: Vec<&u64> = mine.iter().filter(|f| told.contains_key(f)).collect();
        if mine.len() < 3 || (shared.len() as f64) < SAME_STORY_SHARE * mine.len() as f64 {
            continue;
        }
        let mut by: Vec<usize> = shared
            .iter()
            .flat_map(|f| told[f].iter().copied())
            .collect();
        by.sort_unstable();
        by.dedup();
        let names: Vec<&str> = by.iter().map(|&j| inputs[j].path.as_str()).collect();
        // One line: which per-node logs they are is for `stats` to list (a fixture's `merged/` copy is met
        // on a first run, and three paths made a wall of text of it).
        let note = format!(
            "{}: single-JVM test output that tells the story of the per-node logs also given ({} of its {} distinct events are theirs, from {} log(s)); read once, from the per-node logs",
            inputs[i].path,
            shared.len(),
            mine.len(),
            names.len()
        );
        let names = names.join(", ");
        inputs[i].repeats = Some(names);
        inputs[i].warnings.push(note);
        per_input[i].heads = HeadRun::new();
    }
}

/// A record that repeats an earlier record of the same node (same time, thread and first line), in this
/// input or an earlier one, is replayed once: `cat a.log a.log`, a copy of a log in another form (gzip), or
/// copytruncate rotation's overlap.
///
/// Every record is keyed by one hash of node, time, thread and line, and the keys are sorted: of the records
/// with one key, the first (by input, then place in it) stays. Past their share of the memory budget the
/// keys are sorted in parts, by their hash's top bits: each key goes to its part's blocks of a temporary
/// file once, and each part is read back alone ([`KeyHashes`]), so the pass holds one part's keys and a bit
/// per record, not a map entry per record.
pub(super) fn drop_repeated_records(inputs: &mut [InputStats], per_input: &mut [InputEvents]) {
    let total: usize = per_input.iter().map(InputEvents::len).sum();
    let parts = (total * KEY_BYTES)
        .div_ceil((crate::memory::budget() / 4).max(1))
        .clamp(1, MAX_PARTS);
    crate::timings::note(&format!(
        "repeated records: {total} keys sorted in {parts} part(s)"
    ));
    let repeats = repeated_records(per_input, parts);
    for (i, found) in repeats.into_iter().enumerate() {
        let Some((dropped, from)) = found else {
            continue;
        };
        let events = &mut per_input[i];
        let count = dropped
            .iter()
            .map(|w| u64::from(w.count_ones()))
            .sum::<u64>();
        let heads = std::mem::take(&mut events.heads);
        events.heads = heads.filtered(|j, _| dropped[j / 64] & (1 << (j % 64)) == 0);
        let names: Vec<String> = from
            .iter()
            .map(|&j| {
                if j as usize == i {
                    "earlier in this input".to_string()
                } else {
                    inputs[j as usize].path.clone()
                }
            })
            .collect();
        inputs[i].repeated_records += count;
        let note = format!(
            "{}: {count} record(s) repeat earlier records of the same node (same time, thread and text; {}); each is replayed once",
            inputs[i].path,
            names.join(", ")
        );
        inputs[i].warnings.push(note);
    }
}

/// Bytes of one record's key: hash, input, place.
const KEY_BYTES: usize = 16;

/// At most this many parts the keys are sorted in (each has a buffer while the keys are made).
const MAX_PARTS: usize = 256;

/// For each input with repeated records: a bit per record (set: a repeat) and the inputs that told them first.
type Repeats = Vec<Option<(Vec<u64>, std::collections::BTreeSet<u32>)>>;

/// The repeated records of every input, its keys sorted in `parts` parts (one: in memory). Keys that cannot
/// go to their temporary file or come back (a full disk) are sorted again in memory: correct, only larger.
fn repeated_records(per_input: &[InputEvents], parts: usize) -> Repeats {
    repeated_records_by(per_input, KeyHashes::new(parts))
}

/// [`repeated_records`] with the keys kept by `keys` (in memory again if its file fails).
fn repeated_records_by(per_input: &[InputEvents], keys: KeyHashes) -> Repeats {
    sorted_repeats(per_input, keys).unwrap_or_else(|e| {
        crate::timings::note(&format!(
            "repeated records: the keys' temporary file failed ({e}); sorted in memory"
        ));
        sorted_repeats(per_input, KeyHashes::new(1)).expect("keys in memory need no file")
    })
}

/// The repeated records of every input, the keys kept by `keys`.
fn sorted_repeats(per_input: &[InputEvents], mut keys: KeyHashes) -> std::io::Result<Repeats> {
    use std::hash::{Hash, Hasher};
    for events in per_input {
        // Names, not numbers: node and thread numbers are the input's own. Each name is hashed once.
        let name_hash = |name: &str| {
            let mut hasher = rustc_hash::FxHasher::default();
            name.hash(&mut hasher);
            hasher.finish()
        };
        let nodes: Vec<u64> = events.nodes.iter().map(|n| name_hash(n)).collect();
        let threads: Vec<u64> = events.data.threads.iter().map(|t| name_hash(t)).collect();
        for h in events.heads.iter() {
            let mut hasher = rustc_hash::FxHasher::default();
            h.node().map(|n| nodes[n as usize]).hash(&mut hasher);
            h.time().map(|t| t.millis).hash(&mut hasher);
            threads[h.thread as usize].hash(&mut hasher);
            h.excerpt_hash.hash(&mut hasher);
            keys.push(hasher.finish())?;
        }
    }
    let lens: Vec<usize> = per_input.iter().map(InputEvents::len).collect();
    // Where each input's records start in the numbering of all records, input by input.
    let starts: Vec<usize> = lens
        .iter()
        .scan(0, |next, &len| {
            let start = *next;
            *next += len;
            Some(start)
        })
        .collect();
    let place = |record: u32| {
        let input = starts.partition_point(|&s| s <= record as usize) - 1;
        (input, record as usize - starts[input])
    };
    let mut found: Repeats = (0..per_input.len()).map(|_| None).collect();
    keys.each_part(|keys| {
        // In place on every CPU; the keys are distinct, so any sort gives the same order: by hash, then by
        // record, so that the first of a group is the one told first.
        rayon::slice::ParallelSliceMut::par_sort_unstable(keys.as_mut_slice());
        for group in keys.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
            let (first, _) = place(group[0].1);
            for &(_, record) in &group[1..] {
                let (input, at) = place(record);
                let (bits, from) = found[input]
                    .get_or_insert_with(|| (vec![0; lens[input].div_ceil(64)], Default::default()));
                bits[at / 64] |= 1 << (at % 64);
                from.insert(first as u32);
            }
        }
    })?;
    Ok(found)
}

/// Every record's key: the hash of what makes it a repeat, and its number (records numbered input by
/// input). Sorted in one part in memory, or, past the budget, in parts by the hash's top bits: each key
/// goes to its part's buffer as it is made, and a full buffer is written as a block of one temporary file,
/// so that each part is read back once, alone (reading every key once per part grew with the square of
/// the log).
struct KeyHashes {
    parts: usize,
    /// One part: every key in memory.
    memory: Vec<(u64, u32)>,
    file: Option<PartFile>,
    /// The next record's number.
    next: u32,
}

/// The parts' keys past the budget: a buffer per part, and the blocks each part wrote to the file.
struct PartFile {
    file: std::fs::File,
    len: u64,
    buffers: Vec<Vec<u8>>,
    /// Per part: (offset, bytes) of each of its blocks in the file.
    blocks: Vec<Vec<(u64, usize)>>,
    /// Bytes a part's buffer holds before it is written.
    block_bytes: usize,
}

/// Bytes of a key in the file: hash, record number.
const FILE_KEY_BYTES: usize = 12;

impl KeyHashes {
    fn new(parts: usize) -> KeyHashes {
        // No temporary directory: one part, in memory (correct, only larger).
        let file = (parts > 1)
            .then(|| tempfile::tempfile().ok())
            .flatten()
            .map(|file| {
                // The buffers together hold at most a sixteenth of the budget, and at most 1 MiB each.
                let share = crate::memory::budget() / 16 / parts;
                let block_bytes = share.clamp(4 << 10, 1 << 20) / FILE_KEY_BYTES * FILE_KEY_BYTES;
                PartFile {
                    file,
                    len: 0,
                    buffers: vec![Vec::new(); parts],
                    blocks: vec![Vec::new(); parts],
                    block_bytes,
                }
            });
        KeyHashes {
            parts: if file.is_some() { parts } else { 1 },
            memory: Vec::new(),
            file,
            next: 0,
        }
    }

    /// The part a hash is sorted in.
    fn part_of(&self, hash: u64) -> usize {
        ((hash >> 32) as usize * self.parts) >> 32
    }

    /// Adds the next record's key.
    fn push(&mut self, hash: u64) -> std::io::Result<()> {
        let record = self.next;
        self.next += 1;
        let part = self.part_of(hash);
        let Some(f) = &mut self.file else {
            self.memory.push((hash, record));
            return Ok(());
        };
        let buffer = &mut f.buffers[part];
        buffer.extend_from_slice(&hash.to_le_bytes());
        buffer.extend_from_slice(&record.to_le_bytes());
        if buffer.len() >= f.block_bytes {
            f.write_block(part)?;
        }
        Ok(())
    }

    /// Calls `f` with each part's keys (hash, record number). An error if the file could not be written or
    /// read back.
    fn each_part(self, mut f: impl FnMut(&mut Vec<(u64, u32)>)) -> std::io::Result<()> {
        let Some(mut file) = self.file else {
            let mut keys = self.memory;
            f(&mut keys);
            return Ok(());
        };
        // One vector for every part, so that each part reuses the memory the one before it had.
        let mut keys: Vec<(u64, u32)> = Vec::new();
        let mut bytes = Vec::new();
        for part in 0..self.parts {
            keys.clear();
            for &(at, len) in &file.blocks[part] {
                bytes.resize(len, 0);
                std::os::unix::fs::FileExt::read_exact_at(&file.file, &mut bytes, at)?;
                keys.extend(bytes.chunks_exact(FILE_KEY_BYTES).map(key_of));
            }
            keys.extend(file.buffers[part].chunks_exact(FILE_KEY_BYTES).map(key_of));
            file.buffers[part] = Vec::new();
            f(&mut keys);
        }
        Ok(())
    }
}

/// A key as the file holds it: hash, then record number, little-endian.
fn key_of(bytes: &[u8]) -> (u64, u32) {
    let (hash, record) = bytes.split_at(8);
    (
        u64::from_le_bytes(hash.try_into().expect("8 bytes")),
        u32::from_le_bytes(record.try_into().expect("4 bytes")),
    )
}

impl PartFile {
    /// Writes part `part`'s buffer as a block at the end of the file.
    fn write_block(&mut self, part: usize) -> std::io::Result<()> {
        let buffer = &mut self.buffers[part];
        std::os::unix::fs::FileExt::write_all_at(&self.file, buffer, self.len)?;
        self.blocks[part].push((self.len, buffer.len()));
        self.len += buffer.len() as u64;
        buffer.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::testkit::ev;
    use crate::vocab::EventKind;

    /// Keys for `parts` parts whose file is `/dev/full`: every write fails as on a full disk.
    fn hashes_on_a_full_disk(parts: usize) -> KeyHashes {
        let full = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/full")
            .unwrap();
        KeyHashes {
            parts,
            memory: Vec::new(),
            file: Some(PartFile {
                file: full,
                len: 0,
                buffers: vec![Vec::new(); parts],
                blocks: vec![Vec::new(); parts],
                block_bytes: 8 * FILE_KEY_BYTES,
            }),
            next: 0,
        }
    }

    #[test]
    fn keys_that_cannot_go_to_their_file_are_an_error_and_are_found_in_memory_instead() {
        let mut inputs = vec![InputEvents::new(), InputEvents::new()];
        for (input, events) in inputs.iter_mut().enumerate() {
            for i in 0..3_000 {
                // The second input repeats the first one's first thousand records.
                let ms = if input == 1 && i >= 1_000 {
                    10_000 + i
                } else {
                    i
                };
                let mut e = ev(EventKind::ProcessStarted, "scm1", ms, Vec::new());
                e.excerpt_hash = ms as u64;
                events.push(e);
            }
        }
        let failed = sorted_repeats(&inputs, hashes_on_a_full_disk(4));
        assert!(failed.is_err(), "a full disk is an error, not a panic");
        let summary = |found: &Repeats| {
            let (bits, from) = found[1]
                .as_ref()
                .expect("the second input repeats the first");
            let repeats: u32 = bits.iter().map(|w| w.count_ones()).sum();
            (
                found[0].is_none(),
                repeats,
                from.iter().copied().collect::<Vec<_>>(),
            )
        };
        let in_memory = repeated_records(&inputs, 1);
        assert_eq!(summary(&in_memory), (true, 1_000, vec![0]));
        let after_the_failure = repeated_records_by(&inputs, hashes_on_a_full_disk(4));
        assert_eq!(after_the_failure, in_memory);
    }

    #[test]
    fn keys_sorted_in_parts_from_their_file_find_the_repeats_found_in_memory() {
        // Three inputs: the second repeats every third record of the first, the third every fifth record of
        // the second and some of its own; their hashes fall in every part.
        let mut inputs = vec![InputEvents::new(), InputEvents::new(), InputEvents::new()];
        for (input, events) in inputs.iter_mut().enumerate() {
            for i in 0..2_000i64 {
                let ms = match input {
                    1 if i % 3 == 0 => i,
                    2 if i % 5 == 0 => 100_000 + i,
                    2 if i % 7 == 0 => 200_000 + i % 50,
                    _ => 100_000 * input as i64 + i,
                };
                let mut e = ev(EventKind::ProcessStarted, "scm1", ms, Vec::new());
                e.excerpt_hash = ms as u64;
                events.push(e);
            }
        }
        let in_memory = repeated_records(&inputs, 1);
        // The oracle: a record repeats when one with its time (and node, thread, text: all alike here) came
        // before it, input by input.
        let mut seen = std::collections::HashSet::new();
        for (i, events) in inputs.iter().enumerate() {
            let want: Vec<usize> = (0..events.len())
                .filter(|&j| !seen.insert(events.heads.get(j).millis))
                .collect();
            let got: Vec<usize> = in_memory[i].as_ref().map_or(Vec::new(), |(bits, _)| {
                (0..events.len())
                    .filter(|&j| bits[j / 64] & (1 << (j % 64)) != 0)
                    .collect()
            });
            assert_eq!(got, want, "input {i}");
        }
        assert!(in_memory[1].is_some() && in_memory[2].is_some());
        for parts in [2, 4, 7] {
            let hashes = KeyHashes::new(parts);
            assert_eq!(hashes.parts, parts, "a temporary file is at hand");
            assert_eq!(
                repeated_records_by(&inputs, hashes),
                in_memory,
                "{parts} parts"
            );
        }
    }
}
