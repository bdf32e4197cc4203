//! Abstract events: what a rule made of a record, and where that record is.

use crate::layout::Level;
use crate::time::Timestamp;
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};
use std::sync::Arc;

/// Where a record is: input, first line (1-based) and byte range in the (decompressed) input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub input: u32,
    pub line: u64,
    pub byte_offset: u64,
    pub byte_len: u64,
}

/// How an event's node was told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeSource {
    /// `--node NAME`.
    Cli,
    /// `ozone-<user>-<service>-<host>.log` and the audit/container log names.
    FileName,
    /// docker-compose's `name_1  | ` prefix.
    DockerPrefix,
    /// The `host = name/ip` line of the process's STARTUP_MSG banner.
    Banner,
    /// A node-id thread-name prefix (`scm1-SCMInstallSnapshot-0`), in single-JVM integration tests.
    ThreadPrefix,
    /// A Ratis member id (`<peer>@group-<hex>`) in the thread name or at the start of the message.
    RatisMember,
    /// A `main`-thread line inside an SCM's construction or harness stop, named by the line that opened it.
    Context,
    /// An `IPC Server handler N on port P` thread, P being the port a node's server listens on.
    IpcPort,
    /// What collected the log: kubectl's `[pod/NAME/...]`, a shipper's pod field, journald's host, a
    /// Kubernetes log file's name.
    Wrapper,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub kind: EventKind,
    /// Index of the rule in the grammar.
    pub rule: u32,
    pub component: Component,
    pub node: Option<Arc<str>>,
    /// The node's index in the run's node table (`u32::MAX` when the node is unknown); set by the timeline.
    pub node_key: u32,
    pub node_from: Option<NodeSource>,
    pub time: Option<Timestamp>,
    pub level: Option<Level>,
    pub thread: Arc<str>,
    pub fields: Vec<(&'static str, Value)>,
    pub span: Span,
    /// The record's first line as logged (capped at [`crate::excerpt::MAX_EXCERPT`] bytes), for diagnostics;
    /// `None` when a check of a plain file reads it back from the file for the report that shows it
    /// ([`crate::excerpt`]).
    pub excerpt: Option<Arc<str>>,
    /// [`crate::excerpt::hash`] of the first line: repeated records are told by it, and a line read back is
    /// shown only if it is still this one.
    pub excerpt_hash: u64,
    /// Byte offset of the message in the excerpt (after the layout's header).
    pub message_offset: u32,
}

impl Event {
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The JSON-lines form printed by `ozone-conform events`, serialized without building a JSON tree
    /// (this runs once per event on the thread that keeps the input in order). `rule` is the id of the
    /// rule that made it, which tells a reader the types of its fields ([`crate::event_stream`]).
    pub fn json_line<'a>(&'a self, path: &'a str, rule: &'a str) -> EventLine<'a> {
        EventLine {
            event: self,
            path,
            rule,
        }
    }
}

/// `{"event", "rule", "node", "node_from", "component", "time", "level", "thread", "fields", "source",
/// "excerpt", "message_offset"}`: everything `check` reads of an event (the contract of
/// [`crate::event_stream`]).
pub struct EventLine<'a> {
    event: &'a Event,
    path: &'a str,
    rule: &'a str,
}

struct Fields<'a>(&'a [(&'static str, Value)]);

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (name, value) in self.0 {
            m.serialize_entry(name, value)?;
        }
        m.end()
    }
}

struct Source<'a> {
    path: &'a str,
    span: Span,
}

impl Serialize for Source<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Source", 4)?;
        st.serialize_field("path", self.path)?;
        st.serialize_field("line", &self.span.line)?;
        st.serialize_field("byte_offset", &self.span.byte_offset)?;
        st.serialize_field("byte_len", &self.span.byte_len)?;
        st.end()
    }
}

impl Serialize for EventLine<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.event;
        let mut st = s.serialize_struct("Event", 12)?;
        st.serialize_field("event", e.kind.name())?;
        st.serialize_field("rule", self.rule)?;
        st.serialize_field("node", &e.node.as_deref())?;
        st.serialize_field("node_from", &e.node_from)?;
        st.serialize_field("component", &e.component)?;
        st.serialize_field("time", &e.time.map(|t| t.to_string()))?;
        st.serialize_field("level", &e.level)?;
        st.serialize_field("thread", &*e.thread)?;
        st.serialize_field("fields", &Fields(&e.fields))?;
        st.serialize_field(
            "source",
            &Source {
                path: self.path,
                span: e.span,
            },
        )?;
        st.serialize_field("excerpt", e.excerpt.as_deref().unwrap_or(""))?;
        st.serialize_field("message_offset", &e.message_offset)?;
        st.end()
    }
}
