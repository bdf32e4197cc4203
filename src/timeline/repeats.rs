//! Inputs and records read once: a test-output file that retells the per-node logs given with it, and
//! records repeated within an input (a file given twice, a byte-identical copy), each with a warning.

use crate::event_store::{Head, InputEvents};
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
            .filter_map(|h| story_fingerprint(events, h))
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
            .filter_map(|h| story_fingerprint(events, h))
            .collect();
        // A short log of one process in the test layout (a daemon with the test pattern, starting mid-run)
        // shares a few cluster-wide facts with its peers' logs (the leader they all saw elected): that is
        // no retelling. A retelling has several nodes in it, or a story long enough for the share to mean it.
        let nodes: std::collections::HashSet<u32> =
            events.heads.iter().filter_map(Head::node).collect();
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
        per_input[i].heads = Vec::new();
    }
}

/// A record that repeats an earlier record of the same node (same time, thread and first line), in this
/// input or an earlier one, is replayed once: `cat a.log a.log`, a copy of a log in another form (gzip), or
/// copytruncate rotation's overlap.
pub(super) fn drop_repeated_records(inputs: &mut [InputStats], per_input: &mut [InputEvents]) {
    use std::hash::{Hash, Hasher};
    // Keyed by one hash of node, time, thread and line: a map entry per event, so it is kept small.
    let mut seen: rustc_hash::FxHashMap<u64, u32> = Default::default();
    for (i, events) in per_input.iter_mut().enumerate() {
        let mut from: std::collections::BTreeSet<u32> = Default::default();
        let before = events.len();
        let InputEvents {
            heads, data, nodes, ..
        } = events;
        heads.retain(|h| {
            let mut hasher = rustc_hash::FxHasher::default();
            // Names, not numbers: node and thread numbers are the input's own.
            h.node().map(|n| &nodes[n as usize]).hash(&mut hasher);
            h.time().map(|t| t.millis).hash(&mut hasher);
            data.threads[h.thread as usize].hash(&mut hasher);
            h.excerpt_hash.hash(&mut hasher);
            match seen.entry(hasher.finish()) {
                std::collections::hash_map::Entry::Occupied(o) => {
                    from.insert(*o.get());
                    false
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(i as u32);
                    true
                }
            }
        });
        let dropped = (before - events.len()) as u64;
        if dropped > 0 {
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
            inputs[i].repeated_records += dropped;
            let note = format!(
                "{}: {dropped} record(s) repeat earlier records of the same node (same time, thread and text; {}); each is replayed once",
                inputs[i].path,
                names.join(", ")
            );
            inputs[i].warnings.push(note);
        }
    }
}
