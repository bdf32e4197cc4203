//! Each node's clock, as the logs show it: the offset between its log time (log4j prints local time) and UTC,
//! and whether its clock can order its lines against other nodes' lines.
//!
//! The offset is per node, since one host can be left on another zone or slip at a DST change. Where it comes
//! from, strongest first: `--log-utc-offset NODE=±HH:MM`; the node's own key-generation lines (the local time
//! of the line minus the key's `creation at` instant, to the quarter hour); `--log-utc-offset ±HH:MM` for all
//! nodes; the offset the other nodes' generation lines agree on. An offset that was not read off the node's
//! own lines is checked against them: a node cannot list a key before the key's `creation at`, so a key list
//! at local time `t` holding a key created at `c` bounds the offset by `t − c`. A node whose lines break that
//! bound has a clock or zone off: its offset is unknown, with a warning that names the node and the skew.
//!
//! Causal edges that run backwards in time by more than the skew tolerance (a key used before the line that
//! generated it, by the clocks) make both nodes' clocks suspect: orders between them that rest on clocks alone
//! are not certain.

use crate::event_store::{EventStore, Head};
use crate::value::Value;
use crate::vocab::EventKind;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The widest offset from UTC any time zone has (UTC+14).
pub const MAX_UTC_OFFSET_MS: i64 = 14 * 3_600_000;

const QUARTER_HOUR_MS: i64 = 15 * 60_000;

/// Offsets the user gave with `--log-utc-offset`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GivenOffsets {
    /// `±HH:MM`: every node.
    pub all: Option<i64>,
    /// `NODE=±HH:MM`: one node, whatever its lines say.
    pub by_node: BTreeMap<String, i64>,
}

impl GivenOffsets {
    /// One offset for every node.
    pub fn all(ms: i64) -> GivenOffsets {
        GivenOffsets {
            all: Some(ms),
            by_node: BTreeMap::new(),
        }
    }
}

/// A node's offset from UTC as far as it is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offset {
    Known(i64),
    /// Not known; the reason says why (empty: no line or flag tells any offset).
    Unknown(String),
}

/// What one node's own lines say about its offset.
#[derive(Clone, Debug, Default)]
struct NodeLines {
    /// Read off its own key-generation line: (offset, line index).
    own: Option<(i64, usize)>,
    /// The tightest bound its key lists put on the offset: (bound, line index, key id, local time of the line,
    /// the key's creation instant), all in ms.
    bound: Option<(i64, usize, String, i64, i64)>,
}

/// The clocks of every node of a run.
#[derive(Clone, Debug, Default)]
pub struct Clocks {
    given: GivenOffsets,
    names: Vec<Arc<str>>,
    lines: Vec<NodeLines>,
    /// The offset the nodes' own generation lines agree on, with the node it was read from.
    common: Option<(i64, Arc<str>)>,
    /// Why each node's clock cannot order its lines against other nodes' (by node key).
    suspect: Vec<Option<String>>,
    tolerance_ms: i64,
}

fn format_offset(ms: i64) -> String {
    let sign = if ms < 0 { '-' } else { '+' };
    let m = ms.abs() / 60_000;
    format!("{sign}{:02}:{:02}", m / 60, m % 60)
}

/// A span of time for a message: `1 h 2 min`, `45 s`.
pub fn format_span(ms: i64) -> String {
    let s = ms.abs() / 1000;
    match (s / 3600, (s % 3600) / 60, s % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, _) => format!("{m} min"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

/// What every node's key lines say about its clock, read an event at a time in merged order: the
/// timeline's renumbering pass reads every head already, so the clocks cost no pass of their own (past the
/// memory budget a pass reads every head back from disk).
#[derive(Debug, Default)]
pub struct KeyLines {
    lines: Vec<NodeLines>,
}

impl KeyLines {
    /// Event `i` of the merged order, whose head carries its node key; `fields` reads its fields (only
    /// those of key lines are read).
    pub fn observe(
        &mut self,
        i: usize,
        h: &Head,
        fields: impl FnOnce() -> Vec<(&'static str, Value)>,
    ) {
        let Some(key) = h.node() else { return };
        if !carries_keys(h.kind) {
            return;
        }
        let Some(t) = h.time().filter(|t| t.has_date) else {
            return;
        };
        let fields = fields();
        let keys: Vec<&crate::value::SecretKeyInfo> = fields
            .iter()
            .filter(|(n, _)| *n == "keys" || *n == "key")
            .flat_map(|(_, v)| match v {
                Value::SecretKeys(ks) => ks.iter().collect::<Vec<_>>(),
                Value::SecretKey(k) => vec![k],
                _ => Vec::new(),
            })
            .collect();
        if self.lines.len() <= key as usize {
            self.lines.resize(key as usize + 1, NodeLines::default());
        }
        let node = &mut self.lines[key as usize];
        if matches!(
            h.kind,
            EventKind::SecretKeyGenerated | EventKind::SecretKeyRotated
        ) && node.own.is_none()
        {
            if let Some(created) = keys.first().and_then(|k| k.created) {
                let raw = t.millis - created.millis;
                let offset = (raw as f64 / QUARTER_HOUR_MS as f64).round() as i64 * QUARTER_HOUR_MS;
                if offset.abs() <= MAX_UTC_OFFSET_MS {
                    node.own = Some((offset, i));
                }
            }
        }
        for k in &keys {
            let Some(created) = k.created else { continue };
            let bound = t.millis - created.millis;
            if node.bound.as_ref().is_none_or(|(b, ..)| bound < *b) {
                node.bound = Some((bound, i, k.id.clone(), t.millis, created.millis));
            }
        }
    }
}

impl Clocks {
    /// The clocks of the nodes `names` (by node key), from what their key lines said (`key_lines`, every
    /// event of `events` observed in order). `skew_warnings` are the causal edges that run backwards in time.
    pub fn new(
        key_lines: KeyLines,
        events: &EventStore,
        names: &[Arc<str>],
        skew_warnings: &[(usize, usize)],
        tolerance_ms: i64,
    ) -> Clocks {
        let mut lines = key_lines.lines;
        lines.resize(names.len(), NodeLines::default());
        // The zone the cluster's own generation lines show, where they agree.
        let mut seen: BTreeMap<i64, usize> = BTreeMap::new();
        for (k, l) in lines.iter().enumerate() {
            if let Some((o, _)) = l.own {
                seen.entry(o).or_insert(k);
            }
        }
        let common = match seen.len() {
            1 => seen
                .into_iter()
                .next()
                .and_then(|(o, k)| Some((o, names.get(k)?.clone()))),
            _ => None,
        };
        let mut suspect: Vec<Option<String>> = vec![None; names.len()];
        for &(a, b) in skew_warnings {
            let (x, y) = (events.head(a), events.head(b));
            let (Some(nx), Some(ny), Some(tx), Some(ty)) = (x.node(), y.node(), x.time(), y.time())
            else {
                continue;
            };
            if nx == ny {
                continue;
            }
            let (Some(name_x), Some(name_y)) = (names.get(nx as usize), names.get(ny as usize))
            else {
                continue;
            };
            let why = format!(
                "the clocks of {name_x} and {name_y} disagree by {}: {name_y}'s line {} follows {name_x}'s line {} (a key id or leader term the logs share) yet is stamped earlier",
                format_span(tx.millis - ty.millis),
                y.span.line,
                x.span.line
            );
            for n in [nx, ny] {
                if let Some(slot) = suspect.get_mut(n as usize) {
                    slot.get_or_insert_with(|| why.clone());
                }
            }
        }
        Clocks {
            given: GivenOffsets::default(),
            names: names.to_vec(),
            lines,
            common,
            suspect,
            tolerance_ms,
        }
    }

    /// Takes the user's `--log-utc-offset` values.
    pub fn set_given(&mut self, given: GivenOffsets) {
        self.given = given;
    }

    pub fn given(&self) -> &GivenOffsets {
        &self.given
    }

    /// Node `key`'s offset from UTC (its log time minus UTC).
    pub fn offset(&self, key: u32) -> Offset {
        let name = self.names.get(key as usize).map_or("?", |n| &**n);
        if let Some(&o) = self.given.by_node.get(name) {
            return Offset::Known(o);
        }
        let lines = self.lines.get(key as usize);
        if let Some((o, _)) = lines.and_then(|l| l.own) {
            return Offset::Known(o);
        }
        let (assumed, from) = match (&self.given.all, &self.common) {
            (Some(o), _) => (*o, "given with --log-utc-offset".to_string()),
            (None, Some((o, peer))) => (*o, format!("read off {peer}'s key-generation line")),
            (None, None) => return Offset::Unknown(String::new()),
        };
        match self.contradiction(key, assumed) {
            Some(why) => Offset::Unknown(format!(
                "{why}; so {name}'s offset is not {} ({from})",
                format_offset(assumed)
            )),
            None => Offset::Known(assumed),
        }
    }

    /// Why node `key`'s lines rule out `offset`: a key listed before its own creation.
    fn contradiction(&self, key: u32, offset: i64) -> Option<String> {
        let name = self.names.get(key as usize)?;
        let (bound, _, id, local, created) = self.lines.get(key as usize)?.bound.clone()?;
        if offset <= bound + self.tolerance_ms {
            return None;
        }
        Some(format!(
            "{name}'s clock or zone is off by at least {}: at its local time {} it lists key {id}, created at {} UTC, so at a UTC offset of {} it would list the key before the key existed",
            format_span(offset - bound),
            crate::time::Timestamp { millis: local, has_date: true },
            crate::time::Timestamp { millis: created, has_date: true },
            format_offset(offset),
        ))
    }

    /// Why node `key`'s clock cannot order its lines against other nodes' lines, if it cannot.
    pub fn suspect(&self, key: u32) -> Option<&str> {
        self.suspect.get(key as usize)?.as_deref()
    }

    /// The warnings a run prints about clocks, with the node each is about.
    pub fn warnings(&self) -> Vec<(u32, String)> {
        let mut out = Vec::new();
        for key in 0..self.names.len() as u32 {
            let own = self.lines.get(key as usize).and_then(|l| l.own);
            let flagged = self.given.by_node.contains_key(&*self.names[key as usize]);
            if let (Some(all), Some((o, _)), false) = (self.given.all, own, flagged) {
                if all != o {
                    out.push((key, format!(
                        "{}'s own key-generation line shows a UTC offset of {}, not the {} given for every node: its lines are read at {}",
                        self.names[key as usize], format_offset(o), format_offset(all), format_offset(o)
                    )));
                }
            }
            if let Offset::Unknown(why) = self.offset(key) {
                if !why.is_empty() {
                    out.push((
                        key,
                        format!(
                            "{why}; pass --log-utc-offset {}=±HH:MM to set it",
                            self.names[key as usize]
                        ),
                    ));
                }
            }
            if let Some(why) = self.suspect(key) {
                out.push((
                    key,
                    format!(
                        "{why}; orders that rest on {}'s clock alone are treated as unknown",
                        self.names[key as usize]
                    ),
                ));
            }
        }
        out
    }
}

/// Kinds whose fields list secret keys with their creation instants.
fn carries_keys(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::SecretKeyGenerated
            | EventKind::SecretKeyRotated
            | EventKind::SecretKeysUpdated
            | EventKind::CurrentSecretKeyUpdated
            | EventKind::SecretKeysSaved
            | EventKind::SecretKeysLoaded
            | EventKind::SecretKeysReloaded
            | EventKind::SecretKeysFetched
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_spans_read_as_people_write_them() {
        assert_eq!(format_offset(-3_600_000), "-01:00");
        assert_eq!(format_offset(19_800_000), "+05:30");
        assert_eq!(format_span(3_720_000), "1 h 2 min");
        assert_eq!(format_span(-45_000), "45 s");
        assert_eq!(format_span(1_800_000), "30 min");
    }
}
