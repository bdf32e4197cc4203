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
/// keys are sorted in parts, by their hash's top bits, each part written to a file and read back alone, so
/// the pass holds one part's keys and a bit per record, not a map entry per record.
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

/// At most this many parts (files) the keys are sorted in.
const MAX_PARTS: usize = 256;

/// For each input with repeated records: a bit per record (set: a repeat) and the inputs that told them first.
type Repeats = Vec<Option<(Vec<u64>, std::collections::BTreeSet<u32>)>>;

/// The repeated records of every input, its keys sorted in `parts` parts (one: in memory). Keys that cannot
/// go to their temporary files or come back (a full disk) are sorted again in memory: correct, only larger.
fn repeated_records(per_input: &[InputEvents], parts: usize) -> Repeats {
    repeated_records_by(per_input, KeySorter::new(parts))
}

/// [`repeated_records`] with the keys sorted by `sorter` (in memory again if its files fail).
fn repeated_records_by(per_input: &[InputEvents], sorter: KeySorter) -> Repeats {
    sorted_repeats(per_input, sorter).unwrap_or_else(|e| {
        crate::timings::note(&format!(
            "repeated records: the keys' temporary files failed ({e}); sorted in memory"
        ));
        sorted_repeats(per_input, KeySorter::new(1)).expect("keys in memory need no file")
    })
}

/// The repeated records of every input, the keys sorted by `sorter`.
fn sorted_repeats(per_input: &[InputEvents], mut sorter: KeySorter) -> std::io::Result<Repeats> {
    use std::hash::{Hash, Hasher};
    let mut found: Repeats = (0..per_input.len()).map(|_| None).collect();
    for (i, events) in per_input.iter().enumerate() {
        for (j, h) in events.heads.iter().enumerate() {
            let mut hasher = rustc_hash::FxHasher::default();
            // Names, not numbers: node and thread numbers are the input's own.
            h.node()
                .map(|n| &events.nodes[n as usize])
                .hash(&mut hasher);
            h.time().map(|t| t.millis).hash(&mut hasher);
            events.data.threads[h.thread as usize].hash(&mut hasher);
            h.excerpt_hash.hash(&mut hasher);
            sorter.push((hasher.finish(), i as u32, j as u32))?;
        }
    }
    sorter.each_part(|keys| {
        keys.sort_unstable();
        for group in keys.chunk_by(|a, b| a.0 == b.0) {
            let first = group[0].1;
            for &(_, input, at) in &group[1..] {
                let len = per_input[input as usize].len();
                let (bits, from) = found[input as usize]
                    .get_or_insert_with(|| (vec![0; len.div_ceil(64)], Default::default()));
                bits[at as usize / 64] |= 1 << (at % 64);
                from.insert(first);
            }
        }
    })?;
    Ok(found)
}

/// Keys sorted in parts: in memory when there is one part, else each part in its own temporary file.
struct KeySorter {
    memory: Vec<(u64, u32, u32)>,
    files: Vec<std::io::BufWriter<std::fs::File>>,
}

impl KeySorter {
    fn new(parts: usize) -> KeySorter {
        let files = if parts > 1 {
            // No temporary directory: one part, in memory (correct, only larger).
            (0..parts)
                // Large buffers (a sixty-fourth of the keys' share of the budget, split between the parts):
                // each key is 16 bytes, and a small buffer made a write call per 512 keys.
                .map(|_| {
                    let buffer = (crate::memory::budget() / 4 / 64 / parts).clamp(8 << 10, 1 << 20);
                    tempfile::tempfile().map(|f| std::io::BufWriter::with_capacity(buffer, f))
                })
                .collect::<Result<Vec<_>, _>>()
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        KeySorter {
            memory: Vec::new(),
            files,
        }
    }

    fn push(&mut self, key: (u64, u32, u32)) -> std::io::Result<()> {
        use std::io::Write;
        if self.files.is_empty() {
            self.memory.push(key);
            return Ok(());
        }
        let part = ((key.0 >> 32) as usize * self.files.len()) >> 32;
        let mut bytes = [0u8; KEY_BYTES];
        bytes[..8].copy_from_slice(&key.0.to_le_bytes());
        bytes[8..12].copy_from_slice(&key.1.to_le_bytes());
        bytes[12..].copy_from_slice(&key.2.to_le_bytes());
        self.files[part].write_all(&bytes)
    }

    /// Calls `f` with each part's keys (a part holds every key with its hash); an error if a part could not
    /// be written or read back.
    fn each_part(self, mut f: impl FnMut(&mut Vec<(u64, u32, u32)>)) -> std::io::Result<()> {
        use std::io::{Read, Seek};
        if self.files.is_empty() {
            let mut keys = self.memory;
            f(&mut keys);
            return Ok(());
        }
        for file in self.files {
            let mut file = file.into_inner().map_err(|e| e.into_error())?;
            let len = file.metadata().map_or(0, |m| m.len() as usize);
            let mut bytes = Vec::with_capacity(len);
            file.rewind()?;
            file.read_to_end(&mut bytes)?;
            let mut keys: Vec<(u64, u32, u32)> = bytes
                .chunks_exact(KEY_BYTES)
                .map(|b| {
                    let u32_ = |r: std::ops::Range<usize>| {
                        u32::from_le_bytes(b[r].try_into().expect("4 bytes"))
                    };
                    (
                        u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
                        u32_(8..12),
                        u32_(12..16),
                    )
                })
                .collect();
            drop(bytes);
            f(&mut keys);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::testkit::ev;
    use crate::vocab::EventKind;

    /// A sorter of `parts` parts whose files are `/dev/full`: every write fails as on a full disk.
    fn sorter_on_a_full_disk(parts: usize) -> KeySorter {
        let full = || {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/full")
                .map(|f| std::io::BufWriter::with_capacity(8 << 10, f))
                .unwrap()
        };
        KeySorter {
            memory: Vec::new(),
            files: (0..parts).map(|_| full()).collect(),
        }
    }

    #[test]
    fn keys_that_cannot_go_to_their_files_are_an_error_and_are_found_in_memory_instead() {
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
        let failed = sorted_repeats(&inputs, sorter_on_a_full_disk(4));
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
        let after_the_failure = repeated_records_by(&inputs, sorter_on_a_full_disk(4));
        assert_eq!(after_the_failure, in_memory);
    }
}
