//! From bytes to events: records, continuation lines, and the rules that name them.
//!
//! An input is read as newline-aligned blocks. Blocks are scanned in parallel (header match, logger lookup,
//! rule match for records a rule wants), then folded in order: lines that open a block before its first
//! header belong to the previous block's last record (or, at the very start, to no record: they are counted
//! as unparsed). docker-compose output interleaves several containers, so every container prefix is its own
//! stream with its own "current record".

use crate::block_bytes::BlockBytes;
use crate::event::{Event, NodeSource, Span};
use crate::grammar::{Grammar, Rejected, RuleMatch};
use crate::input::{self, Block, Source};
use crate::layout::{builtin_layouts, Layout, Level};
use crate::node;
use crate::time::Timestamp;
use crate::value::Value;
use crate::vocab::EventKind;
use crate::wrapper::{self, Wrapper};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

/// Text kept per record for matching; longer records keep their span but are matched on this prefix.
const MAX_RECORD_TEXT: usize = 1 << 20;
/// Rejected records listed in the stats (all are counted).
pub const MAX_REJECTED_SHOWN: usize = 20;
/// Lines inspected to detect an input's layout.
const DETECT_LINES: usize = 2000;

/// Why a line belongs to no record.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum UnparsedReason {
    /// docker-compose's own lines: `Attaching to ...`, `x_1 exited with code N`.
    DockerCompose,
    /// The JVM's own stderr output (`WARNING: ...`, `Picked up ...`, `OpenJDK ...`).
    JvmMessage,
    /// The logging framework's own messages (`log4j:WARN`, `SLF4J:`, `ERROR StatusLogger`).
    LoggingFramework,
    /// An empty line before the first record.
    Blank,
    /// The input fits no known layout.
    NoLayout,
    /// Anything else before the first record of its stream.
    BeforeFirstRecord,
    /// A record of a rule's statement with a field that fails validation (a key id that is not a UUID, a
    /// number with a letter in it): not evidence of anything. The reason is in `UnparsedLine::detail`.
    InvalidField,
    /// A line its wrapper cannot take apart (broken JSON, a CRI line without its tag) or the wrapper's own
    /// line (`-- Boot ... --`); the reason is in `UnparsedLine::detail`.
    Wrapper,
}

impl UnparsedReason {
    fn classify(line: &[u8]) -> UnparsedReason {
        let t = line.trim_ascii();
        if t.is_empty() {
            UnparsedReason::Blank
        } else if t.starts_with(b"Attaching to ") || is_compose_exit(t) {
            UnparsedReason::DockerCompose
        } else if t.starts_with(b"WARNING: ")
            || t.starts_with(b"Picked up ")
            || t.starts_with(b"OpenJDK ")
            || t.starts_with(b"Java HotSpot")
        {
            UnparsedReason::JvmMessage
        } else if t.starts_with(b"log4j:")
            || t.starts_with(b"SLF4J:")
            || t.starts_with(b"SLF4J(")
            || t.starts_with(b"ERROR StatusLogger")
            || t.starts_with(b"WARN StatusLogger")
        {
            UnparsedReason::LoggingFramework
        } else {
            UnparsedReason::BeforeFirstRecord
        }
    }
}

/// `ozone_scm_1 exited with code 143`.
fn is_compose_exit(t: &[u8]) -> bool {
    let Some(i) = memchr::memmem::find(t, b" exited with code ") else {
        return false;
    };
    i > 0 && !t[..i].contains(&b' ') && t[i + 18..].iter().all(u8::is_ascii_digit)
}

/// A line that belongs to no record, reported with `--verbose`.
#[derive(Clone, Debug)]
pub struct UnparsedLine {
    pub line: u64,
    pub byte_offset: u64,
    pub text: String,
    pub reason: UnparsedReason,
    /// Why, for [`UnparsedReason::InvalidField`]: the rule and the field that failed.
    pub detail: Option<String>,
}

/// Per-input counters: nothing is dropped without being counted here.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct InputStats {
    pub path: String,
    pub layout: Option<String>,
    pub pattern: Option<String>,
    /// How the layout was chosen: `detected`, `given` (`--layout`) or `none`.
    pub layout_from: String,
    pub docker_prefixes: bool,
    /// What collected the log, taken off before the layout (`cri`, `kubectl`, `journald-json`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrapper: Option<String>,
    pub nodes: BTreeMap<String, String>,
    pub bytes: u64,
    pub lines: u64,
    pub records: u64,
    pub continuation_lines: u64,
    pub unparsed: u64,
    pub unparsed_by_reason: BTreeMap<UnparsedReason, u64>,
    /// Records whose line began with bytes that are no text (NUL padding, a partial binary line) before the
    /// header; the record is read from its header on, and a warning names the first such line.
    #[serde(skip_serializing_if = "is_zero")]
    pub junk_before_header: u64,
    /// The first [`MAX_REJECTED_SHOWN`] records rejected by validation: `line N: Rule: field f: why`.
    pub rejected: Vec<String>,
    /// Records in another layout than the input's (e.g. log4j2 fallback lines in test output).
    pub records_in_other_layouts: BTreeMap<String, u64>,
    pub events: u64,
    pub events_by_kind: BTreeMap<String, u64>,
    pub levels: BTreeMap<Level, u64>,
    /// Lines longer than the 16 MiB line limit (matched on their beginning only).
    pub long_lines: u64,
    pub errors: Vec<String>,
    /// What the user should know but that does not stop the check (repeated records, a part with no record).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The file whose records' first lines are read back for reports, when its events keep none
    /// ([`ScanOptions::read_back`]).
    #[serde(skip)]
    pub read_back: Option<std::path::PathBuf>,
    /// Records left out because they repeat an earlier record of the same node (replayed once).
    #[serde(skip_serializing_if = "is_zero")]
    pub repeated_records: u64,
    /// The inputs this one's story repeats, when it was left out for that.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats: Option<String>,
    /// Where this input sits in its rotation family, and by what it was ordered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Options that apply to every input of a run.
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    /// `--layout`: a pattern (or a builtin layout name) that replaces detection.
    pub layout: Option<Layout>,
    /// `--node`: the node of every record (for stdin).
    pub node: Option<String>,
    /// A progress bar advanced by the bytes read (`check` on a terminal).
    pub progress: Option<indicatif::ProgressBar>,
    /// Events of a plain file keep no excerpt: a report reads the lines it shows back from the file
    /// ([`crate::excerpt`]). Inputs that cannot be read again keep theirs.
    pub read_back: bool,
    /// `--wrapper`: what collected the logs; detected per input when not given.
    pub wrapper: Option<Wrapper>,
    /// `--max-skew`: how far a wrapper's receive time may be from a log4j time it makes exact (default
    /// [`crate::time::DEFAULT_MAX_SKEW_MS`]).
    pub max_skew_ms: Option<i64>,
}

/// The layouts an input may use and the grammar to match; shared by every block.
struct Setup<'a> {
    primary: Option<Layout>,
    others: Vec<Layout>,
    grammar: &'a Grammar,
    docker: bool,
    /// How `primary` was chosen: `detected`, `given` or `none`.
    from: &'static str,
    /// What collected the log, taken off every line before the layout.
    wrapper: Option<Wrapper>,
    /// The primary layout prints whole seconds or no date: a wrapper's receive time makes it exact.
    coarse_clock: bool,
    max_skew_ms: i64,
}

#[derive(Clone, Copy, Debug)]
struct LineRef {
    start: u32,
    end: u32,
    line_idx: u32,
}

/// A record that some rule may want. Its bytes are ranges of its block until it outlives the block
/// ([`Candidate::detach`]): a record allocates when it becomes an event, not before.
#[derive(Debug)]
struct Candidate {
    stream: u16,
    start: u64,
    end: u64,
    line: u64,
    time: Option<Timestamp>,
    level: Option<Level>,
    thread: BlockBytes,
    logger: BlockBytes,
    text: BlockBytes,
    /// The record's first physical line, shown (capped, [`crate::excerpt::of_line`]) in diagnostics
    /// without re-reading the input.
    first_line: BlockBytes,
    /// Where the message starts in the excerpt of `first_line`.
    message_offset: u32,
    /// [`crate::excerpt::hash`] of that excerpt, taken while the line is at hand in a worker.
    excerpt_hash: u64,
    open: bool,
    result: Option<RuleMatch>,
    /// Set when no rule matched but a rule's template fit and a field failed validation.
    rejected: Option<Rejected>,
}

impl Candidate {
    /// Copies the bytes out of `block`, which is about to be reused.
    fn detach(&mut self, block: &[u8]) {
        for b in [
            &mut self.thread,
            &mut self.logger,
            &mut self.text,
            &mut self.first_line,
        ] {
            b.detach(block);
        }
    }
}

#[derive(Debug, Default)]
struct StreamPart {
    name: Box<[u8]>,
    leading: Vec<Leading>,
    has_header: bool,
}

/// A line before its stream's first header in a block.
#[derive(Clone, Debug)]
struct Leading {
    /// Its (first) physical line.
    line: LineRef,
    /// The log's own line when a wrapper was taken off (the physical line is the wrapped one).
    content: Option<Box<[u8]>>,
    /// Where it ends in the block: past its last physical line, when CRI partial lines were joined.
    end: u32,
}

/// A stream's CRI `P` lines so far, waiting for the line that finishes them.
#[derive(Debug)]
struct Partial {
    first: LineRef,
    /// Where its last physical line so far ends in the block.
    last_end: u32,
    text: Vec<u8>,
    time: Option<Vec<u8>>,
}

/// What scanning one block found; offsets and lines are relative to the block until folded.
#[derive(Debug, Default)]
struct BlockScan {
    lines: u64,
    records: u64,
    continuation_lines: u64,
    other_layout_records: Vec<(usize, u64)>,
    levels: [u64; 6],
    streams: Vec<StreamPart>,
    candidates: Vec<Candidate>,
    /// The block began inside a line cut for length: bytes up to the first newline continue it.
    cut_tail: Option<LineRef>,
    long_lines: u64,
    /// Lines the wrapper could not take apart, with why.
    malformed: Vec<(LineRef, String)>,
    /// Record lines with junk before their header: how many, and the first one's line (in the block).
    junk_before_header: u64,
    first_junk_line: Option<u32>,
}

/// The UTF-8 byte order mark some editors and Windows tools put at the start of a file.
const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// How far into a line a header is looked for behind junk bytes.
const MAX_JUNK: usize = 64 * 1024;

/// A byte no log text starts with: ASCII control bytes other than tab, and bytes of a BOM or of broken UTF-8
/// (all ≥ 0x80; a line of real non-ASCII text that fits no header is searched in vain, and stays as it was).
fn is_junk_byte(b: u8) -> bool {
    (b < 0x20 && b != b'\t') || b == 0x7F || b >= 0x80
}

/// Where a header may start in a line that starts with junk bytes: each end of a run of them (none for a line
/// that starts with text).
fn junk_ends(line: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let starts_with_junk = line.first().is_some_and(|&b| is_junk_byte(b));
    let limit = if starts_with_junk {
        line.len().min(MAX_JUNK)
    } else {
        0
    };
    (1..limit).filter(move |&i| is_junk_byte(line[i - 1]) && !is_junk_byte(line[i]))
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

impl<'a> Setup<'a> {
    /// Detects the wrapper, the layout and docker prefixes from an input's first block (or takes `--wrapper`
    /// and `--layout`). The layout is detected on the lines with their wrapper taken off.
    fn new(first_block: &[u8], grammar: &'a Grammar, options: &ScanOptions) -> Setup<'a> {
        let wrapper = options
            .wrapper
            .clone()
            .or_else(|| wrapper::detect(first_block));
        let (primary, docker, from) = match &wrapper {
            Some(w) => {
                let (primary, _, from) =
                    detect(&unwrapped_text(w, first_block), options.layout.as_ref());
                (primary, false, from)
            }
            None => detect(first_block, options.layout.as_ref()),
        };
        // A layout given with --layout is the user's word: no fallback to the builtin ones.
        let others = match options.layout {
            Some(_) => Vec::new(),
            None => builtin_layouts()
                .into_iter()
                .filter(|l| Some(&l.pattern) != primary.as_ref().map(|p| &p.pattern))
                .collect(),
        };
        let coarse_clock = primary.as_ref().is_some_and(Layout::has_coarse_clock);
        Setup {
            primary,
            others,
            grammar,
            docker,
            from,
            wrapper,
            coarse_clock,
            max_skew_ms: options
                .max_skew_ms
                .unwrap_or(crate::time::DEFAULT_MAX_SKEW_MS),
        }
    }
}

/// The log's own lines of a block, their wrapper taken off (lines it cannot take apart left out), for
/// detecting the layout.
fn unwrapped_text(w: &Wrapper, block: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(block.len());
    // Partial lines joined per stream, as the scan joins them.
    type StreamKey = (Option<String>, wrapper::Channel, Option<Vec<u8>>);
    let mut partial: HashMap<StreamKey, Vec<u8>> = HashMap::new();
    for line in block.split(|&b| b == b'\n').take(DETECT_LINES) {
        let Ok(u) = w.unwrap(strip_cr(line)) else {
            continue;
        };
        let key = (
            u.node.as_deref().map(String::from),
            u.channel,
            u.process.as_deref().map(<[u8]>::to_vec),
        );
        let so_far = partial.entry(key).or_default();
        so_far.extend_from_slice(&u.text);
        if !u.partial {
            out.append(so_far);
            out.push(b'\n');
        }
    }
    out
}

/// Where `message` (decoded from a JSON string) starts in the wrapped line: where the line holds it
/// unescaped, else at the line's start.
fn message_in(raw: &[u8], message: &[u8]) -> usize {
    let probe = &message[..message.len().min(32)];
    if probe.is_empty() {
        return 0;
    }
    memchr::memmem::find(raw, probe).unwrap_or(0)
}

/// One logical line as the block scan takes it: where it is, its stream, and the log's own text.
struct LogicalLine<'b> {
    /// Its first physical line, extended to the end of its last (CRI partial lines joined).
    line: LineRef,
    /// The first physical line, as the file holds it (the excerpt reports show).
    first_raw: &'b [u8],
    stream: usize,
    /// The log's own line.
    content: &'b [u8],
    /// Where `content` starts in `first_raw`, when it is a slice of it.
    content_at: Option<usize>,
    /// The wrapper's receive time, as written.
    received: Option<&'b [u8]>,
}

impl Setup<'_> {
    fn stream_of(&self, line: &[u8]) -> (Box<[u8]>, usize) {
        if self.docker {
            if let Some((name, rest)) = node::split_docker_prefix(line) {
                return (name.into(), line.len() - rest.len());
            }
        }
        (Box::default(), 0)
    }

    /// The index of the stream named `name` in this block, added if new.
    fn stream_index(
        scan: &mut BlockScan,
        current: &mut Vec<Option<usize>>,
        partials: &mut Vec<Option<Partial>>,
        name: &[u8],
    ) -> usize {
        match scan.streams.iter().position(|s| &*s.name == name) {
            Some(i) => i,
            None => {
                scan.streams.push(StreamPart {
                    name: name.into(),
                    ..StreamPart::default()
                });
                current.push(None);
                partials.push(None);
                scan.streams.len() - 1
            }
        }
    }

    /// Scans one block: classifies every line, matches the records a rule wants.
    fn scan_block(&self, block: &Block) -> BlockScan {
        let bytes = &block.bytes[..];
        let mut scan = BlockScan::default();
        // Index of the stream's open candidate (in scan.candidates) and whether it has seen a header.
        let mut current: Vec<Option<usize>> = Vec::new();
        // Per stream, the CRI partial lines waiting for their end.
        let mut partials: Vec<Option<Partial>> = Vec::new();
        // The stream key of a wrapped line (node, NUL, channel), reused so that no line allocates one.
        let mut key: Vec<u8> = Vec::new();
        let mut pos = 0usize;
        let mut line_idx = 0u32;
        if block.continues_line {
            let end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i);
            scan.cut_tail = Some(LineRef {
                start: 0,
                end: end as u32,
                line_idx: 0,
            });
            // The tail was counted with its line in the previous block.
            pos = (end + 1).min(bytes.len());
        }
        while pos < bytes.len() {
            let nl = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
            let raw = strip_cr(&bytes[pos..nl]);
            if nl == bytes.len() && nl - pos >= input::MAX_LINE {
                scan.long_lines += 1;
            }
            let this = LineRef {
                start: pos as u32,
                end: (pos + raw.len()) as u32,
                line_idx,
            };
            line_idx += 1;
            pos = nl + 1;

            if let Some(w) = &self.wrapper {
                let u = match w.unwrap(raw) {
                    Ok(u) => u,
                    Err(why) => {
                        scan.malformed.push((this, why));
                        continue;
                    }
                };
                key.clear();
                if let Some(n) = &u.node {
                    key.extend_from_slice(n.as_bytes());
                }
                key.push(0);
                key.extend_from_slice(u.channel.name().as_bytes());
                if let Some(process) = &u.process {
                    key.push(0);
                    key.extend_from_slice(process);
                }
                let stream = Self::stream_index(&mut scan, &mut current, &mut partials, &key);
                if u.partial {
                    // The start of a line: kept until the line that finishes it.
                    match &mut partials[stream] {
                        Some(p) => {
                            p.text.extend_from_slice(&u.text);
                            p.last_end = this.end;
                            scan.continuation_lines += 1;
                        }
                        slot @ None => {
                            *slot = Some(Partial {
                                first: this,
                                last_end: this.end,
                                text: u.text.into_owned(),
                                time: u.time.map(|t| t.into_owned()),
                            })
                        }
                    }
                    continue;
                }
                match partials[stream].take() {
                    Some(mut p) => {
                        p.text.extend_from_slice(&u.text);
                        // Its first physical line counts as the line; the others continue it.
                        scan.continuation_lines += 1;
                        self.take_partial(
                            &mut scan,
                            &mut current,
                            bytes,
                            block,
                            stream,
                            p,
                            this.end,
                        );
                    }
                    None => {
                        let logical = LogicalLine {
                            line: this,
                            first_raw: raw,
                            stream,
                            content: &u.text,
                            content_at: u.text_at,
                            received: u.time.as_deref(),
                        };
                        self.take_line(&mut scan, &mut current, block, logical);
                    }
                }
                continue;
            }

            let (stream, skip) = if self.docker {
                let (name, skip) = self.stream_of(raw);
                (
                    Self::stream_index(&mut scan, &mut current, &mut partials, &name),
                    skip,
                )
            } else {
                if scan.streams.is_empty() {
                    Self::stream_index(&mut scan, &mut current, &mut partials, b"");
                }
                (0, 0)
            };
            let logical = LogicalLine {
                line: this,
                first_raw: raw,
                stream,
                content: &raw[skip..],
                content_at: Some(skip),
                received: None,
            };
            self.take_line(&mut scan, &mut current, block, logical);
        }
        // Partial lines never finished in this block (the input ends, or a run longer than a block): each
        // is the line it has so far.
        for (stream, p) in std::mem::take(&mut partials).into_iter().enumerate() {
            if let Some(p) = p {
                let end = p.last_end;
                self.take_partial(&mut scan, &mut current, bytes, block, stream, p, end);
            }
        }
        scan.lines = line_idx as u64;
        scan
    }

    /// A joined run of CRI partial lines, as one logical line that ends at `end`.
    #[allow(clippy::too_many_arguments)]
    fn take_partial(
        &self,
        scan: &mut BlockScan,
        current: &mut [Option<usize>],
        bytes: &[u8],
        block: &Block,
        stream: usize,
        p: Partial,
        end: u32,
    ) {
        let first_raw = &bytes[p.first.start as usize..p.first.end as usize];
        let logical = LogicalLine {
            line: LineRef { end, ..p.first },
            first_raw,
            stream,
            content: &p.text,
            content_at: None,
            received: p.time.as_deref(),
        };
        self.take_line(scan, current, block, logical);
    }

    /// Classifies one logical line: a record's header, its continuation, or a line before its stream's first
    /// record.
    fn take_line(
        &self,
        scan: &mut BlockScan,
        current: &mut [Option<usize>],
        block: &Block,
        l: LogicalLine<'_>,
    ) {
        let LogicalLine {
            line: this,
            first_raw: raw,
            stream,
            mut content,
            mut content_at,
            received,
        } = l;
        let mut header = self.match_any_header(content);
        if header.is_none() {
            // Bytes that are no text before a header on the same line (a UTF-8 BOM, the NUL padding a
            // crash leaves, a partial binary line): the header and message start after them, and the record
            // keeps its whole physical line.
            if let Some((cut, h)) = self.header_after_junk(content) {
                let wrapped = self.wrapper.is_some();
                let is_bom = !wrapped
                    && block.offset + this.start as u64 == 0
                    && content[..cut] == UTF8_BOM[..];
                if !is_bom {
                    // Part of this record's first line (counted once, as a record), not an unparsed line nor
                    // the previous record's text.
                    scan.junk_before_header += 1;
                    scan.first_junk_line.get_or_insert(this.line_idx);
                }
                content = &content[cut..];
                content_at = content_at.map(|at| at + cut);
                header = Some(h);
            }
        }
        let Some((h, other)) = header else {
            // A continuation line (or one before any record of its stream).
            let part = &mut scan.streams[stream];
            if !part.has_header {
                let first_end = this.start + raw.len() as u32;
                part.leading.push(Leading {
                    line: LineRef {
                        end: first_end,
                        ..this
                    },
                    // docker-compose lines are taken apart again when folded; a wrapped one keeps its text.
                    content: self.wrapper.is_some().then(|| content.into()),
                    end: this.end,
                });
                return;
            }
            scan.continuation_lines += 1;
            if let Some(ci) = current[stream] {
                let c = &mut scan.candidates[ci];
                if c.text.len() < MAX_RECORD_TEXT {
                    c.text.push_line(&block.bytes, content);
                }
                c.end = block.offset + this.end as u64;
            }
            return;
        };
        scan.records += 1;
        if let Some(i) = other {
            match scan.other_layout_records.iter_mut().find(|(k, _)| *k == i) {
                Some(e) => e.1 += 1,
                None => scan.other_layout_records.push((i, 1)),
            }
        }
        if let Some(lv) = h.level {
            scan.levels[lv as usize] += 1;
        }
        scan.streams[stream].has_header = true;
        if let Some(ci) = current[stream].take() {
            self.close(&mut scan.candidates[ci], &block.bytes);
        }
        let logger = h.logger(content);
        let message = &content[h.message_start as usize..];
        if self.grammar.wants(logger, message) {
            let message_at = match content_at {
                Some(at) => at + h.message_start as usize,
                // Decoded from JSON: the message where the wrapped line holds it as is, else the line's start.
                None => message_in(raw, message),
            };
            // The excerpt borrows the line (valid UTF-8): only its hash and message offset are kept.
            let excerpt = crate::excerpt::borrowed_of_line(raw);
            let message_offset = crate::excerpt::message_offset(raw, &excerpt, message_at);
            let excerpt_hash = crate::excerpt::hash(&excerpt);
            let bytes = &block.bytes[..];
            let time = match (h.time, received.and_then(wrapper::parse_time)) {
                (Some(t), Some(utc)) if self.coarse_clock => {
                    Some(wrapper::refine(t, utc, self.max_skew_ms))
                }
                (t, _) => t,
            };
            scan.candidates.push(Candidate {
                stream: stream as u16,
                start: block.offset + this.start as u64,
                end: block.offset + this.end as u64,
                line: this.line_idx as u64,
                time,
                level: h.level,
                thread: BlockBytes::of(bytes, h.thread(content)),
                logger: BlockBytes::of(bytes, logger),
                text: BlockBytes::of(bytes, &message[..message.len().min(MAX_RECORD_TEXT)]),
                first_line: BlockBytes::of(bytes, raw),
                message_offset,
                excerpt_hash,
                open: true,
                result: None,
                rejected: None,
            });
            current[stream] = Some(scan.candidates.len() - 1);
        }
    }

    /// The header `content` starts with, in the input's layout or (for a line that starts like a header: a
    /// digit or `[`) another builtin one.
    fn match_any_header(&self, content: &[u8]) -> Option<(crate::layout::Header, Option<usize>)> {
        let header = self
            .primary
            .as_ref()
            .and_then(|l| l.match_header(content).map(|h| (h, None)));
        header.or_else(|| {
            // Stack traces and banner lines never start with a digit or `[`, so this stays off the common path.
            match content.first() {
                Some(c) if c.is_ascii_digit() || *c == b'[' => self
                    .others
                    .iter()
                    .enumerate()
                    .find_map(|(i, l)| l.match_header(content).map(|h| (h, Some(i)))),
                _ => None,
            }
        })
    }

    /// A line that starts with bytes that are no text (a BOM, NULs, control or invalid UTF-8 bytes) and holds a
    /// header after them: where the header starts, and the header. Only lines that start that way are
    /// searched (no record's continuation line does), and only up to [`MAX_JUNK`] bytes.
    fn header_after_junk(
        &self,
        content: &[u8],
    ) -> Option<(usize, (crate::layout::Header, Option<usize>))> {
        junk_ends(content).find_map(|i| self.match_any_header(&content[i..]).map(|h| (i, h)))
    }

    /// Matches a record that is complete; `block` is the block its bytes are in (any, once detached).
    fn close(&self, c: &mut Candidate, block: &[u8]) {
        c.open = false;
        match self
            .grammar
            .match_or_reject(c.logger.get(block), c.level, c.text.get(block))
        {
            Ok(m) => c.result = Some(m),
            Err(rejected) => c.rejected = rejected,
        }
    }
}

/// Per-stream state carried across blocks.
#[derive(Default)]
struct StreamState {
    has_record: bool,
    /// Sequence number (in `pending`) of this stream's record that is still open.
    open: Option<u64>,
    docker_name: Option<Arc<str>>,
    banner_host: Option<Arc<str>>,
}

/// The in-order state of one input: streams, open records, counters.
struct InputScan<'a> {
    input_id: u32,
    setup: &'a Setup<'a>,
    stats: InputStats,
    /// Each stream's state, by the stream's number (its place in `stream_names`): a record finds its
    /// stream's state without hashing its name.
    streams: Vec<StreamState>,
    stream_names: Vec<Box<[u8]>>,
    pending: VecDeque<Candidate>,
    pending_base: u64,
    /// Stream of the last line folded (for lines cut by length).
    last_stream: Box<[u8]>,
    lines_before: u64,
    cli_node: Option<Arc<str>>,
    /// The node the input's name gives, and whether a daemon log's or a Kubernetes log file's name gave it.
    file_node: Option<(Arc<str>, NodeSource)>,
    /// Integration-test output: all components share one JVM, one file and one host name.
    single_jvm: bool,
    /// Lines before any record that do not look like the rest of a record (a stack trace, a wrapped message).
    stray_lines: u64,
    /// Do events keep their excerpt, or is it read back from the file ([`ScanOptions::read_back`])?
    keep_excerpts: bool,
    /// Thread and node names, shared by the events that carry them.
    interned: rustc_hash::FxHashSet<Arc<str>>,
    /// Thread names by the bytes the records hold them in: a record's thread is found without checking
    /// its UTF-8 again (a tenth of the folding thread's time on an event-dense log, thread names being
    /// long: `<uuid>-ContainerOp-<uuid>-0`).
    threads: rustc_hash::FxHashMap<Box<[u8]>, Arc<str>>,
    /// Events per kind (by [`EventKind::index`]), counted here and named in the stats at the end: a lookup
    /// by name in the stats' map for every event was a twentieth of the folding thread's time.
    events_per_kind: Vec<u64>,
    /// Why the first line the wrapper could not take apart was not in it.
    first_not_wrapped: Option<String>,
    /// The first line (1-based) whose record began after junk bytes.
    first_junk_line: Option<u64>,
}

/// Does this line look like the continuation of a record whose first line is elsewhere: a stack frame, a
/// `Caused by:`, `... 12 more`, an exception's `pkg.Class: message` line, or blank? A rotated part or a
/// truncated file that holds only such lines cut from the part before it is no input error.
fn looks_like_continuation(line: &[u8]) -> bool {
    let line = strip_cr(line);
    if line.is_empty() || line[0] == b' ' || line[0] == b'\t' {
        return true;
    }
    if line.starts_with(b"Caused by: ")
        || line.starts_with(b"Suppressed: ")
        || line.starts_with(b"...")
    {
        return true;
    }
    let head = match memchr::memchr(b':', line) {
        Some(i) => &line[..i],
        None => line,
    };
    // `java.io.IOException`, `org.apache.ratis.protocol.exceptions.NotLeaderException`.
    head.contains(&b'.')
        && head
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'.' || b == b'$' || b == b'_')
        && head
            .rsplit(|&b| b == b'.')
            .next()
            .is_some_and(|c| c.first().is_some_and(u8::is_ascii_uppercase))
}

/// Detects docker prefixes and the layout from an input's first block.
fn detect(bytes: &[u8], given: Option<&Layout>) -> (Option<Layout>, bool, &'static str) {
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .take(DETECT_LINES)
        .map(strip_cr)
        .filter(|l| !l.is_empty())
        .collect();
    let prefixed = lines
        .iter()
        .filter(|l| node::split_docker_prefix(l).is_some())
        .count();
    let docker = !lines.is_empty() && prefixed * 2 > lines.len();
    let contents: Vec<&[u8]> = lines
        .iter()
        .map(|l| {
            if docker {
                node::split_docker_prefix(l).map_or(*l, |(_, rest)| rest)
            } else {
                l
            }
        })
        .collect();
    if let Some(layout) = given {
        return (Some(layout.clone()), docker, "given");
    }
    let mut best: Option<(usize, Layout)> = None;
    for layout in builtin_layouts() {
        let fits = |l: &[u8]| {
            layout.match_header(l).is_some()
                || junk_ends(l).any(|i| layout.match_header(&l[i..]).is_some())
        };
        let n = contents.iter().filter(|l| fits(l)).count();
        if n > 0 && best.as_ref().is_none_or(|(m, _)| n > *m) {
            best = Some((n, layout));
        }
    }
    match best {
        Some((_, l)) => (Some(l), docker, "detected"),
        None => (None, docker, "none"),
    }
}

/// Scans `source` completely. `on_event` receives events in input order; `on_unparsed` every line that
/// belongs to no record.
pub fn scan_input(
    input_id: u32,
    source: &Source,
    grammar: &Grammar,
    options: &ScanOptions,
    on_event: impl FnMut(Event),
    on_unparsed: impl FnMut(&UnparsedLine),
) -> InputStats {
    match input::open_blocks(source, options.progress.as_ref()) {
        Ok(opened) => scan_opened(
            input_id,
            source,
            opened,
            grammar,
            options,
            on_event,
            on_unparsed,
        ),
        Err(e) => {
            let path = source.display();
            InputStats {
                path: path.clone(),
                layout_from: "none".into(),
                errors: vec![format!("{path}: cannot open: {e}")],
                ..InputStats::default()
            }
        }
    }
}

/// [`scan_input`] of an input already opened.
fn scan_opened(
    input_id: u32,
    source: &Source,
    opened: input::OpenedBlocks,
    grammar: &Grammar,
    options: &ScanOptions,
    mut on_event: impl FnMut(Event),
    mut on_unparsed: impl FnMut(&UnparsedLine),
) -> InputStats {
    let path = source.display();
    let live = opened.live != input::Live::Batch;
    let mut cutter = opened.cutter;
    let mut errors = Vec::new();
    let read_error = |offset: u64, e: std::io::Error| {
        let what = if e.kind() == std::io::ErrorKind::UnexpectedEof {
            "the input ends early (truncated gzip stream)".to_string()
        } else {
            e.to_string()
        };
        format!("{path}: read error at byte {offset} of the decompressed input: {what}; the records before it were checked")
    };
    // The first block decides the layout; it is read and scanned on this thread, and an input that fits
    // in it (most inputs of a test, an editor's buffer) needs no other thread.
    let empty = || Block {
        offset: 0,
        bytes: Vec::new().into(),
        continues_line: false,
    };
    // A mapped file that shrank under the scan: its whole lines before the new end are folded, then the
    // truncation is reported and the scan ends.
    let truncated = |new_len: u64, cut: &Block| {
        format!(
            "{path}: the file shrank to {new_len} bytes while it was read (truncated in place, as logrotate's copytruncate does); the records before byte {} were checked",
            cut.offset + cut.bytes.len() as u64
        )
    };
    let mut ended = false;
    let first = match cutter.next_block(Vec::new()) {
        Some((_, Ok(block))) => block,
        Some((_, Err((offset, e)))) => {
            errors.push(read_error(offset, e));
            ended = true;
            empty()
        }
        None => {
            ended = true;
            empty()
        }
    };
    let first = match first.cut_at_truncation() {
        Some((cut, new_len)) => {
            errors.push(truncated(new_len, &cut));
            ended = true;
            cut
        }
        None => first,
    };
    let setup = Setup::new(&first.bytes, grammar, options);
    let mut sc = InputScan::new(input_id, &setup, path.clone(), source.file_name(), options);
    // Only a plain file read whole from its start can be read again where its records are.
    if let (true, Source::File(p), input::Live::Batch, false) =
        (options.read_back, source, opened.live, opened.gzip)
    {
        sc.keep_excerpts = false;
        sc.stats.read_back = Some(p.clone());
    }
    let first_scan = setup.scan_block(&first);
    sc.fold(&first, first_scan, &mut on_event, &mut on_unparsed);
    // The first block decides the layout for good: when none fits it, every later line is unparsed the same
    // way. A live input may never end (`cat /dev/urandom | check -`), so it stops at this bounded prefix,
    // with the error a file of those bytes gets.
    if setup.primary.is_none() && !first.bytes.is_empty() && live {
        ended = true;
    }

    if !ended && !cutter.ended() {
        // Workers scan blocks in parallel; this thread folds their results back in input order.
        let workers = workers();
        let (rx, permits) = input::spawn_cutter(cutter, workers * 3);
        let shared_rx = std::sync::Mutex::new(rx);
        let (scan_tx, scan_rx) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let scan_tx = scan_tx.clone();
                let (shared_rx, setup) = (&shared_rx, &setup);
                scope.spawn(move || loop {
                    let msg = match shared_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((seq, msg)) = msg else { return };
                    let out = msg.map(|block| {
                        let scan = setup.scan_block(&block);
                        (block, scan)
                    });
                    if scan_tx.send((seq, out)).is_err() {
                        return;
                    }
                });
            }
            drop(scan_tx);
            let mut waiting = BTreeMap::new();
            let mut next = 1u64;
            'recv: for (seq, out) in scan_rx.iter() {
                waiting.insert(seq, out);
                while let Some(out) = waiting.remove(&next) {
                    next += 1;
                    match out {
                        Ok((block, scan)) => {
                            if let Some((cut, new_len)) = block.cut_at_truncation() {
                                let scan = setup.scan_block(&cut);
                                sc.fold(&cut, scan, &mut on_event, &mut on_unparsed);
                                errors.push(truncated(new_len, &cut));
                                break 'recv;
                            }
                            sc.fold(&block, scan, &mut on_event, &mut on_unparsed);
                            let _ = permits.send(block.bytes.into_buffer());
                        }
                        Err((offset, e)) => {
                            errors.push(read_error(offset, e));
                            break 'recv;
                        }
                    }
                }
            }
            // Unblock the reader and workers if we stopped early.
            drop(permits);
            for _ in scan_rx.iter() {}
        });
    }
    sc.stats.errors.extend(errors);
    sc.end(&mut on_event, &mut on_unparsed)
}

/// How many threads scan an input's blocks: the CPUs this process may use, asked once (the answer reads
/// cgroup files, and a test or an editor checks many small inputs).
pub(crate) fn workers() -> usize {
    static WORKERS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *WORKERS.get_or_init(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// An input held in memory, for [`scan_bytes`].
#[derive(Clone, Copy, Debug)]
pub struct InMemory<'a> {
    /// The path reports name (its file name may name the node, as a file's does).
    pub path: &'a str,
    pub bytes: &'a [u8],
    /// About how many bytes each folded block holds.
    pub block_size: usize,
}

/// Scans an input held in memory on this thread, folding it in newline-aligned blocks of about
/// `block_size` bytes (a line longer than that is one block). The layout is detected on the first block
/// [`scan_input`] would read (the first [`input::BLOCK_SIZE`] bytes, up to a newline), so the result is
/// [`scan_input`]'s whatever `block_size` is: the fuzz targets and tests use it to vary the cuts.
pub fn scan_bytes(
    input_id: u32,
    memory: InMemory<'_>,
    grammar: &Grammar,
    options: &ScanOptions,
    mut on_event: impl FnMut(Event),
    mut on_unparsed: impl FnMut(&UnparsedLine),
) -> InputStats {
    let InMemory {
        path,
        bytes,
        block_size,
    } = memory;
    let detect_end = block_end(bytes, 0, input::BLOCK_SIZE);
    let setup = Setup::new(&bytes[..detect_end], grammar, options);
    let file_name = std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let mut sc = InputScan::new(input_id, &setup, path.to_string(), file_name, options);
    let mut start = 0;
    while start < bytes.len() {
        let end = block_end(bytes, start, block_size.max(1));
        let block = Block {
            offset: start as u64,
            bytes: bytes[start..end].to_vec().into(),
            continues_line: false,
        };
        let scan = setup.scan_block(&block);
        sc.fold(&block, scan, &mut on_event, &mut on_unparsed);
        start = end;
    }
    sc.end(&mut on_event, &mut on_unparsed)
}

/// Where a block that starts at `start` ends: after the last newline within `size` bytes, or after the
/// first newline beyond them when a line is longer, or at the end of `bytes`.
fn block_end(bytes: &[u8], start: usize, size: usize) -> usize {
    let limit = start.saturating_add(size);
    if limit >= bytes.len() {
        return bytes.len();
    }
    let mut end = match memchr::memrchr(b'\n', &bytes[start..limit]) {
        Some(i) => start + i + 1,
        None => memchr::memchr(b'\n', &bytes[limit..]).map_or(bytes.len(), |i| limit + i + 1),
    };
    // A CRI partial line stays in the block of the line that finishes it (the reader moves its cut back
    // instead, having read no further).
    while end < bytes.len() && wrapper::unfinished_partial(&bytes[start..end]).is_some() {
        end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i + 1);
    }
    end
}

impl<'a> InputScan<'a> {
    fn new(
        input_id: u32,
        setup: &'a Setup<'a>,
        path: String,
        file_name: Option<String>,
        options: &ScanOptions,
    ) -> InputScan<'a> {
        let path_for_pod = &path.clone();
        InputScan {
            input_id,
            setup,
            stats: InputStats {
                path,
                layout: setup.primary.as_ref().map(|l| l.name.clone()),
                pattern: setup.primary.as_ref().map(|l| l.pattern.clone()),
                layout_from: setup.from.to_string(),
                docker_prefixes: setup.docker,
                wrapper: setup.wrapper.as_ref().map(Wrapper::name),
                ..InputStats::default()
            },
            streams: Vec::new(),
            stream_names: Vec::new(),
            pending: VecDeque::new(),
            pending_base: 0,
            last_stream: Box::default(),
            lines_before: 0,
            cli_node: options.node.as_deref().map(Arc::<str>::from),
            single_jvm: setup.primary.as_ref().is_some_and(|l| l.name == "test"),
            file_node: file_name
                .as_deref()
                .and_then(node::from_file_name)
                .map(|(host, _)| (Arc::<str>::from(host), NodeSource::FileName))
                .or_else(|| {
                    // A Kubernetes log file names its pod: `<pod>_<namespace>_<container>-<id>.log`.
                    let pod = wrapper::pod_of_path(std::path::Path::new(path_for_pod))?;
                    setup
                        .wrapper
                        .is_some()
                        .then(|| (Arc::<str>::from(pod), NodeSource::Wrapper))
                }),
            stray_lines: 0,
            keep_excerpts: true,
            interned: Default::default(),
            threads: Default::default(),
            events_per_kind: vec![0; EventKind::ALL.len()],
            first_not_wrapped: None,
            first_junk_line: None,
        }
    }

    /// Closes the records still open and says what the input as a whole lacked.
    fn end(
        mut self,
        on_event: &mut impl FnMut(Event),
        on_unparsed: &mut impl FnMut(&UnparsedLine),
    ) -> InputStats {
        self.finish(on_event, on_unparsed);
        for (kind, &n) in EventKind::ALL.iter().zip(&self.events_per_kind) {
            if n > 0 {
                *self
                    .stats
                    .events_by_kind
                    .entry(kind.name().to_string())
                    .or_default() += n;
            }
        }
        if let (1.., Some(line)) = (self.stats.junk_before_header, self.first_junk_line) {
            let n = self.stats.junk_before_header;
            let path = &self.stats.path;
            let warning = format!(
                "{path}: {n} record(s) begin after bytes that are no text on their line (NUL padding, a partial binary line; the first at line {line}); each is read from its header on"
            );
            self.stats.warnings.push(warning);
        }
        let path = &self.stats.path;
        let not_wrapped = self
            .stats
            .unparsed_by_reason
            .get(&UnparsedReason::Wrapper)
            .copied()
            .unwrap_or(0);
        if let (Some(w), 0, true) = (
            &self.setup.wrapper,
            self.stats.records,
            self.stats.lines > 0 && not_wrapped == self.stats.lines,
        ) {
            // Not a layout's fault: the lines are not in the wrapper (a wrong `--wrapper`).
            let error = format!(
                "{path}: no line of this input is in the wrapper `{}` ({}); name the right one with --wrapper ({}), or leave it out to detect it",
                w.name(),
                self.first_not_wrapped.as_deref().unwrap_or("?"),
                wrapper::NAMES
            );
            self.stats.errors.push(error);
        } else if self.stats.records == 0 && self.stats.lines > 0 && self.stray_lines == 0 {
            let warning = format!(
                "{path}: holds only continuation lines ({} line(s): the rest of a record whose first line is in another part, or a truncated file); nothing in it to check",
                self.stats.lines
            );
            self.stats.warnings.push(warning);
        } else if let (Some(layout), 0, 1..) =
            (&self.setup.primary, self.stats.records, self.stats.lines)
        {
            let error = format!(
                "{path}: the layout `{}` fits no line of this input",
                layout.pattern
            );
            self.stats.errors.push(error);
        } else if self.setup.primary.is_none() && self.stats.lines > 0 {
            let error = format!("{path}: no known log layout fits this input; pass its log4j ConversionPattern with --layout");
            self.stats.errors.push(error);
        }
        self.stats
    }
}

impl InputScan<'_> {
    /// Folds one scanned block into the input's state, in input order.
    fn fold(
        &mut self,
        block: &Block,
        scan: BlockScan,
        on_event: &mut impl FnMut(Event),
        on_unparsed: &mut impl FnMut(&UnparsedLine),
    ) {
        let base_line = self.lines_before;
        self.stats.bytes += block.bytes.len() as u64;
        self.stats.lines += scan.lines;
        if let Some(idx) = scan.first_junk_line {
            self.first_junk_line
                .get_or_insert(base_line + u64::from(idx) + 1);
        }
        self.stats.junk_before_header += scan.junk_before_header;
        self.stats.records += scan.records;
        self.stats.continuation_lines += scan.continuation_lines;
        self.stats.long_lines += scan.long_lines;
        for (lv, n) in Level::ALL.iter().zip(scan.levels) {
            if n > 0 {
                *self.stats.levels.entry(*lv).or_default() += n;
            }
        }
        for (i, n) in scan.other_layout_records {
            *self
                .stats
                .records_in_other_layouts
                .entry(self.setup.others[i].name.clone())
                .or_default() += n;
        }
        if let Some(tail) = scan.cut_tail {
            // The rest of a line cut for length: part of whatever record that line was in.
            let name = self.last_stream.clone();
            self.extend_open(
                &name,
                &block.bytes[tail.start as usize..tail.end as usize],
                block.offset + tail.end as u64,
            );
        }
        // The lines before each stream's first header in this block, in input order across streams (the
        // unparsed ones are reported in that order however the input is cut into blocks).
        // Lines the wrapper could not take apart are unparsed wherever they are; they come in among the
        // leading lines in input order (stream `None`).
        let mut leading: Vec<(Option<usize>, Leading, Option<&str>)> = scan
            .streams
            .iter()
            .enumerate()
            .flat_map(|(i, part)| part.leading.iter().map(move |l| (Some(i), l.clone(), None)))
            .chain(scan.malformed.iter().map(|(l, why)| {
                let entry = Leading {
                    line: *l,
                    content: None,
                    end: l.end,
                };
                (None, entry, Some(why.as_str()))
            }))
            .collect();
        if scan.streams.len() > 1 || !scan.malformed.is_empty() {
            leading.sort_by_key(|(_, l, _)| l.line.line_idx);
        }
        for (i, entry, malformed) in leading {
            let l = entry.line;
            let text = &block.bytes[l.start as usize..l.end as usize];
            let Some(i) = i else {
                self.stats.unparsed += 1;
                *self
                    .stats
                    .unparsed_by_reason
                    .entry(UnparsedReason::Wrapper)
                    .or_default() += 1;
                self.stray_lines += 1;
                if self.first_not_wrapped.is_none() {
                    self.first_not_wrapped = malformed.map(String::from);
                }
                on_unparsed(&UnparsedLine {
                    line: base_line + l.line_idx as u64 + 1,
                    byte_offset: block.offset + l.start as u64,
                    text: String::from_utf8_lossy(text).into_owned(),
                    reason: UnparsedReason::Wrapper,
                    detail: malformed.map(String::from),
                });
                continue;
            };
            let part = &scan.streams[i];
            let id = self.stream_index(&part.name);
            let has_record = self.streams[id as usize].has_record;
            let skip = if self.setup.docker {
                self.setup.stream_of(text).1
            } else {
                0
            };
            let content: &[u8] = entry.content.as_deref().unwrap_or(&text[skip..]);
            if has_record {
                self.stats.continuation_lines += 1;
                let name = part.name.clone();
                self.extend_open(&name, content, block.offset + entry.end as u64);
            } else {
                if !looks_like_continuation(content) {
                    self.stray_lines += 1;
                }
                let reason = if self.setup.primary.is_none() {
                    UnparsedReason::NoLayout
                } else {
                    UnparsedReason::classify(content)
                };
                self.stats.unparsed += 1;
                *self.stats.unparsed_by_reason.entry(reason).or_default() += 1;
                on_unparsed(&UnparsedLine {
                    line: base_line + l.line_idx as u64 + 1,
                    byte_offset: block.offset + l.start as u64,
                    text: String::from_utf8_lossy(text).into_owned(),
                    reason,
                    detail: None,
                });
            }
        }
        for part in &scan.streams {
            if part.has_header {
                let id = self.stream_index(&part.name);
                let state = &mut self.streams[id as usize];
                state.has_record = true;
                if let Some(seq) = state.open.take() {
                    let idx = (seq - self.pending_base) as usize;
                    let c = &mut self.pending[idx];
                    // From an earlier block: detached when that block was folded.
                    self.setup.close(c, &[]);
                }
            }
        }
        if let Some(last) = scan.streams.last() {
            self.last_stream = last.name.clone();
        }
        let from_this_block = scan.candidates.len();
        // The input's index of each of the block's streams, looked up once per block, not per record.
        let ids: Vec<u16> = scan
            .streams
            .iter()
            .map(|p| self.stream_index(&p.name))
            .collect();
        for mut c in scan.candidates {
            c.line += base_line + 1;
            let seq = self.pending_base + self.pending.len() as u64;
            c.stream = ids[c.stream as usize];
            if c.open {
                self.streams[c.stream as usize].open = Some(seq);
            }
            self.pending.push_back(c);
        }
        self.lines_before += scan.lines;
        self.flush(&block.bytes, on_event, on_unparsed);
        // The records left waiting (open, or behind an open one) outlive the block: copy their bytes. The
        // earlier blocks' ones are at the front, copied already.
        let waiting = self.pending.len().min(from_this_block);
        for c in self.pending.iter_mut().rev().take(waiting) {
            c.detach(&block.bytes);
        }
    }

    fn stream_index(&mut self, name: &[u8]) -> u16 {
        match self.stream_names.iter().position(|n| &**n == name) {
            Some(i) => i as u16,
            None => {
                self.stream_names.push(name.into());
                self.streams.push(StreamState::default());
                (self.stream_names.len() - 1) as u16
            }
        }
    }

    fn extend_open(&mut self, stream: &[u8], text: &[u8], end: u64) {
        let known = self.stream_names.iter().position(|n| &**n == stream);
        let Some(seq) = known.and_then(|i| self.streams[i].open) else {
            return;
        };
        let c = &mut self.pending[(seq - self.pending_base) as usize];
        if c.text.len() < MAX_RECORD_TEXT {
            // An open record from an earlier block (this block's are not pending yet): detached.
            c.text.push_line(&[], text);
        }
        c.end = end;
    }

    /// Emits the matched records at the front of the queue, in input order. `block` is the block being folded
    /// (the records of earlier ones are detached from theirs).
    fn flush(
        &mut self,
        block: &[u8],
        on_event: &mut impl FnMut(Event),
        on_unparsed: &mut impl FnMut(&UnparsedLine),
    ) {
        while let Some(front) = self.pending.front() {
            if front.open {
                break;
            }
            let c = self.pending.pop_front().expect("front exists");
            self.pending_base += 1;
            if let Some(r) = &c.rejected {
                let rule = &self.setup.grammar.rules[r.rule as usize];
                let detail = format!("{}: {}", rule.id, r.reason);
                // Its first line moves from the records to the unparsed lines (each line is counted once).
                self.stats.records -= 1;
                self.stats.unparsed += 1;
                *self
                    .stats
                    .unparsed_by_reason
                    .entry(UnparsedReason::InvalidField)
                    .or_default() += 1;
                if self.stats.rejected.len() < MAX_REJECTED_SHOWN {
                    self.stats
                        .rejected
                        .push(format!("line {}: {detail}", c.line));
                }
                on_unparsed(&UnparsedLine {
                    line: c.line,
                    byte_offset: c.start,
                    text: crate::excerpt::of_line(c.first_line.get(block)),
                    reason: UnparsedReason::InvalidField,
                    detail: Some(detail),
                });
            }
            if c.result.is_some() {
                let event = self.make_event(c, block);
                self.stats.events += 1;
                self.events_per_kind[event.kind.index()] += 1;
                if let (Some(node), Some(from)) = (&event.node, event.node_from) {
                    if !self.stats.nodes.contains_key(&**node) {
                        let from = serde_json::to_value(from)
                            .ok()
                            .and_then(|v| v.as_str().map(String::from))
                            .unwrap_or_default();
                        self.stats.nodes.insert(node.to_string(), from);
                    }
                }
                on_event(event);
            }
        }
    }

    /// One copy of each thread and node name per input: a long log names a few hundred threads millions of
    /// times.
    fn intern(&mut self, s: Arc<str>) -> Arc<str> {
        match self.interned.get(&s) {
            Some(kept) => kept.clone(),
            None => {
                self.interned.insert(s.clone());
                s
            }
        }
    }

    /// [`InputScan::intern`] of a thread name as the record holds it: looked up by its bytes without a
    /// copy (invalid UTF-8 is replaced the first time).
    fn intern_bytes(&mut self, bytes: &[u8]) -> Arc<str> {
        if let Some(kept) = self.threads.get(bytes) {
            return kept.clone();
        }
        let name = match std::str::from_utf8(bytes) {
            Ok(s) => match self.interned.get(s) {
                Some(kept) => kept.clone(),
                None => self.intern(s.into()),
            },
            Err(_) => self.intern(String::from_utf8_lossy(bytes).into()),
        };
        self.threads.insert(bytes.into(), name.clone());
        name
    }

    fn make_event(&mut self, c: Candidate, block: &[u8]) -> Event {
        let Candidate {
            stream,
            start,
            end,
            line,
            time,
            level,
            thread,
            first_line,
            message_offset,
            excerpt_hash,
            result,
            ..
        } = c;
        let m = result.expect("only matched candidates become events");
        let rule = &self.setup.grammar.rules[m.rule as usize];
        let thread = self.intern_bytes(thread.get(block));
        let name = &self.stream_names[stream as usize];
        // Made when the block with the record's header was folded (as in `fold`).
        let state = &mut self.streams[stream as usize];
        // A wrapped line's stream is `node NUL channel [NUL process]`: the node names it (pod, host), when
        // there is one.
        let node_name = match self.setup.wrapper {
            Some(_) => name.split(|&b| b == 0).next().unwrap_or_default(),
            None => &name[..],
        };
        if state.docker_name.is_none() && !node_name.is_empty() {
            state.docker_name = Some(String::from_utf8_lossy(node_name).into());
        }
        if rule.event == EventKind::ProcessStarted {
            if let Some(Value::HostIp { host, .. }) =
                m.fields.iter().find(|(n, _)| *n == "host").map(|(_, v)| v)
            {
                state.banner_host = Some(host.as_str().into());
            }
        }
        let (node, node_from) = if let Some(n) = &self.cli_node {
            (Some(n.clone()), Some(NodeSource::Cli))
        } else if let Some((n, from)) = &self.file_node {
            (Some(n.clone()), Some(*from))
        } else if let Some(n) = &state.docker_name {
            let from = if self.setup.wrapper.is_some() {
                NodeSource::Wrapper
            } else {
                NodeSource::DockerPrefix
            };
            (Some(n.clone()), Some(from))
        } else if let Some(n) = state.banner_host.as_ref().filter(|_| !self.single_jvm) {
            // In single-JVM test output every banner names the same machine, not a node.
            (Some(n.clone()), Some(NodeSource::Banner))
        } else {
            match node::from_thread(&thread, &[]) {
                Some((n, from)) => (Some(self.intern(n)), Some(from)),
                None => (None, None),
            }
        };
        Event {
            kind: rule.event,
            rule: m.rule,
            component: rule.component,
            node,
            node_key: u32::MAX,
            node_from,
            time,
            level,
            thread,
            fields: m.fields,
            excerpt_hash,
            excerpt: self
                .keep_excerpts
                .then(|| crate::excerpt::borrowed_of_line(first_line.get(block)).into()),
            message_offset,
            span: Span {
                input: self.input_id,
                line,
                byte_offset: start,
                byte_len: end - start,
            },
        }
    }

    fn finish(
        &mut self,
        on_event: &mut impl FnMut(Event),
        on_unparsed: &mut impl FnMut(&UnparsedLine),
    ) {
        // Every record left is detached from its block.
        for c in self.pending.iter_mut() {
            if c.open {
                self.setup.close(c, &[]);
            }
        }
        for s in self.streams.iter_mut() {
            s.open = None;
        }
        self.flush(&[], on_event, on_unparsed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(text: &[u8]) -> (InputStats, Vec<Event>, Vec<UnparsedLine>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("input.log");
        std::fs::write(&path, text).unwrap();
        let grammar = Grammar::embedded().unwrap();
        let mut events = Vec::new();
        let mut unparsed = Vec::new();
        let stats = scan_input(
            0,
            &Source::File(path),
            &grammar,
            &ScanOptions::default(),
            |e| events.push(e),
            |u| unparsed.push(u.clone()),
        );
        (stats, events, unparsed)
    }

    /// A file that shrinks between its opening and its scan (logrotate's `copytruncate`): the records before
    /// its new end are checked, the truncation is an error, and the zeros the map reads past the end are no
    /// lines at all.
    #[test]
    fn a_file_that_shrinks_while_it_is_read_is_checked_to_its_last_whole_line_and_says_so() {
        let line = |i: usize| {
            format!("2026-08-23 10:00:03,000 [x] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 2, index: {i}\n")
        };
        let text: String = (0..30_000).map(line).collect();
        assert!(text.len() > 3 * input::BLOCK_SIZE);
        // Cut inside the first block (read on the calling thread) and inside the second (by a worker).
        for new_len in [input::BLOCK_SIZE / 2 + 11, input::BLOCK_SIZE * 3 / 2 + 37] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("scm.log");
            std::fs::write(&path, &text).unwrap();
            let source = Source::File(path.clone());
            let opened = input::open_blocks(&source, None).unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(new_len as u64)
                .unwrap();
            let grammar = Grammar::embedded().unwrap();
            let mut events = Vec::new();
            let stats = scan_opened(
                0,
                &source,
                opened,
                &grammar,
                &ScanOptions::default(),
                |e| events.push(e),
                |u| panic!("no line is unparsed, got {u:?}"),
            );
            let whole = text[..new_len].rfind('\n').unwrap() + 1;
            let lines_before = text[..whole].lines().count();
            assert_eq!(events.len(), lines_before, "cut at {new_len}");
            assert_eq!(stats.lines, lines_before as u64, "cut at {new_len}");
            assert_eq!(
                stats.errors,
                [format!(
                    "{}: the file shrank to {new_len} bytes while it was read (truncated in place, as logrotate's copytruncate does); the records before byte {whole} were checked",
                    path.display()
                )]
            );
        }
    }

    const BANNER: &str = "2026-08-23 10:00:01,234 [main] INFO org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter: STARTUP_MSG: \n/************************************************************\nSTARTUP_MSG: Starting StorageContainerManager\nSTARTUP_MSG:        host = scm1/172.18.0.4\nSTARTUP_MSG:     version = 2.2.0\n************************************************************/\n";

    #[test]
    fn folds_banner_and_stack_trace_lines() {
        let text = format!(
            "garbage before\n{BANNER}2026-08-23 10:00:02,000 [main] ERROR org.apache.hadoop.hdds.scm.ha.SCMStateMachine: Failed to reinitialize SCMStateMachine.\njava.io.IOException: boom\n\tat a.b(C.java:1)\n2026-08-23 10:00:03,000 [x] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 2, index: 202"
        );
        let (stats, events, unparsed) = scan_text(text.as_bytes());
        assert_eq!(stats.layout.as_deref(), Some("daemon"));
        assert_eq!(stats.records, 3);
        assert_eq!(stats.lines, 11);
        assert_eq!(stats.continuation_lines, 7);
        assert_eq!(stats.unparsed, 1);
        assert_eq!(unparsed[0].line, 1);
        let kinds: Vec<_> = events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EventKind::ProcessStarted,
                EventKind::StateMachineReinitializeFailed,
                EventKind::CheckpointInstalled
            ]
        );
        assert_eq!(events[0].span.line, 2);
        assert_eq!(events[0].node.as_deref(), Some("scm1"));
        assert_eq!(events[0].node_from, Some(NodeSource::Banner));
        let banner_len = BANNER.len() as u64 - 1;
        assert_eq!(events[0].span.byte_len, banner_len);
        assert_eq!(events[1].span.line, 8);
        assert_eq!(events[2].span.line, 11);
        assert_eq!(
            events[2].span.byte_offset as usize,
            text.rfind("2026-08-23 10:00:03").unwrap()
        );
        assert_eq!(
            events[2].span.byte_len as usize,
            text.len() - events[2].span.byte_offset as usize
        );
    }

    #[test]
    fn crlf_and_invalid_utf8() {
        let mut text = BANNER.replace('\n', "\r\n").into_bytes();
        text.extend_from_slice(b"2026-08-23 10:00:03,000 [x\xff] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 2, index: 202\r\n");
        let (stats, events, _) = scan_text(&text);
        assert_eq!(stats.records, 2);
        assert_eq!(events.len(), 2);
        assert_eq!(events[1].fields[1].1, Value::U64(202));
        assert_eq!(&*events[1].thread, "x\u{fffd}");
    }

    #[test]
    fn block_boundaries_do_not_change_results() {
        // Many records with a banner across the 1 MiB boundary.
        let filler =
            "2026-08-23 10:00:02,000 [main] INFO org.apache.ratis.Foo: nothing to see here\n";
        let mut text = String::new();
        while text.len() < input::BLOCK_SIZE - 100 {
            text.push_str(filler);
        }
        text.push_str(BANNER);
        for _ in 0..1000 {
            text.push_str(filler);
        }
        let (stats, events, unparsed) = scan_text(text.as_bytes());
        assert!(unparsed.is_empty());
        assert_eq!(events.len(), 1);
        assert_eq!(
            events[0].field("host"),
            Some(&Value::HostIp {
                host: "scm1".into(),
                ip: Some("172.18.0.4".into())
            })
        );
        assert_eq!(events[0].span.byte_len, BANNER.len() as u64 - 1);
        assert_eq!(stats.lines as usize, text.lines().count());
    }

    #[test]
    fn docker_streams_fold_per_container() {
        let text = "Attaching to a_1, b_1\n\
a_1  | 2026-08-23 10:00:01,234 [main] INFO server.StorageContainerManagerStarter: STARTUP_MSG: \n\
b_1  | WARNING: An illegal reflective access operation has occurred\n\
a_1  | /************************************************************\n\
b_1  | 2026-08-23 10:00:01,300 [main] INFO ozone.HddsDatanodeService: hello\n\
a_1  | STARTUP_MSG: Starting StorageContainerManager\n\
a_1  | STARTUP_MSG:   host = 41fda388584c/172.18.0.8\n";
        let (stats, events, unparsed) = scan_text(text.as_bytes());
        assert!(stats.docker_prefixes);
        assert_eq!(stats.records, 2);
        assert_eq!(
            unparsed.iter().map(|u| u.reason).collect::<Vec<_>>(),
            [UnparsedReason::DockerCompose, UnparsedReason::JvmMessage]
        );
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].node.as_deref(), Some("a_1"));
        assert_eq!(
            events[0].field("service"),
            Some(&Value::Str("StorageContainerManager".into()))
        );
    }

    #[test]
    fn journal_units_on_one_host_fold_apart_and_the_host_names_the_node() {
        let t = "2026-08-23T10:00:01+0000 host1";
        let text = format!(
            "-- Boot 0123456789abcdef --\n\
{t} ozone-scm[1]: 2026-08-23 10:00:01,234 [main] INFO server.StorageContainerManagerStarter: STARTUP_MSG: \n\
{t} ozone-recon[2]: 2026-08-23 10:00:01,300 [main] INFO recon.ReconServer: hello\n\
{t} ozone-scm[1]: /************************************************************\n\
{t} ozone-scm[1]: STARTUP_MSG: Starting StorageContainerManager\n\
{t} ozone-scm[1]: STARTUP_MSG:   host = scm1/172.18.0.4\n"
        );
        let (stats, events, unparsed) = scan_text(text.as_bytes());
        assert_eq!(stats.wrapper.as_deref(), Some("journald"));
        assert_eq!(stats.records, 2);
        assert_eq!(unparsed.len(), 1);
        assert_eq!(unparsed[0].reason, UnparsedReason::Wrapper);
        assert_eq!(unparsed[0].line, 1);
        assert!(unparsed[0]
            .detail
            .as_deref()
            .unwrap()
            .contains("journalctl's own line"));
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].node.as_deref(), Some("host1"));
        assert_eq!(events[0].node_from, Some(NodeSource::Wrapper));
        assert_eq!(
            events[0].field("service"),
            Some(&Value::Str("StorageContainerManager".into()))
        );
        assert_eq!(events[0].span.line, 2);
        assert_eq!(
            events[0].span.byte_offset as usize,
            text.find(&format!("{t} ozone-scm")).unwrap()
        );
        assert_eq!(
            events[0].span.byte_offset as usize + events[0].span.byte_len as usize,
            text.len() - 1
        );
    }

    #[test]
    fn cri_partial_lines_join_per_stream_into_one_record() {
        let line = "2026-08-23 10:00:03,000 [x] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 2, index: 202";
        let (a, rest) = line.split_at(40);
        let (b, c) = rest.split_at(50);
        let t = "2026-08-23T10:00:03.000000001Z";
        let text = format!(
            "{t} stdout P {a}\n{t} stderr F WARNING: an illegal reflective access\n{t} stdout P {b}\n{t} stdout F {c}\n"
        );
        let (stats, events, unparsed) = scan_text(text.as_bytes());
        assert_eq!(stats.wrapper.as_deref(), Some("cri"));
        assert_eq!(stats.lines, 4);
        assert_eq!(stats.records, 1);
        assert_eq!(stats.continuation_lines, 2);
        assert_eq!(unparsed.len(), 1);
        assert_eq!(unparsed[0].reason, UnparsedReason::JvmMessage);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].field("index"), Some(&Value::U64(202)));
        assert_eq!(events[0].span.line, 1);
        assert_eq!(events[0].span.byte_offset, 0);
        assert_eq!(events[0].span.byte_len as usize, text.len() - 1);
        // Cut into blocks anywhere, the parts stay together.
        for block_size in [1, 7, 64] {
            let grammar = Grammar::embedded().unwrap();
            let mut cut_events = Vec::new();
            let memory = InMemory {
                path: "cri.log",
                bytes: text.as_bytes(),
                block_size,
            };
            scan_bytes(
                0,
                memory,
                &grammar,
                &ScanOptions::default(),
                |e| cut_events.push(e),
                |_| {},
            );
            assert_eq!(cut_events.len(), 1, "blocks of {block_size}");
            assert_eq!(cut_events[0].span, events[0].span, "blocks of {block_size}");
        }
    }

    #[test]
    fn docker_json_entries_without_their_newline_join_the_next() {
        let line = "2026-08-23 10:00:03,000 [x] INFO org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl: Replaced DB with checkpoint, term: 2, index: 202";
        let (a, b) = line.split_at(60);
        let entry = |log: &str| {
            format!(
                "{{\"log\":{},\"stream\":\"stderr\",\"time\":\"2026-08-23T10:00:03.000000001Z\"}}\n",
                serde_json::to_string(log).unwrap()
            )
        };
        let text = [entry(a), entry(&format!("{b}\n"))].concat();
        let (stats, events, unparsed) = scan_text(text.as_bytes());
        assert_eq!(stats.wrapper.as_deref(), Some("docker-json"));
        assert!(unparsed.is_empty());
        assert_eq!((stats.records, stats.continuation_lines), (1, 1));
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].field("index"), Some(&Value::U64(202)));
        assert_eq!(events[0].span.byte_len as usize, text.len() - 1);
    }

    #[test]
    fn a_new_container_id_in_a_shippers_stream_starts_a_new_run_of_the_same_pod() {
        let entry = |id: &str, line: &str| {
            format!(
                "{{\"log\":{},\"kubernetes\":{{\"pod_name\":\"scm-0\",\"container_name\":\"scm\",\"docker_id\":\"{id}\"}}}}\n",
                serde_json::to_string(line).unwrap()
            )
        };
        let text = [
            entry("aaa", "2026-08-23 10:00:01,234 [main] INFO org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter: STARTUP_MSG: "),
            entry("aaa", "/************************************************************"),
            // The container restarted: its first line is no continuation of the last run's record.
            entry("bbb", "STARTUP_MSG: Starting StorageContainerManager"),
        ]
        .concat();
        let (stats, events, unparsed) = scan_text(text.as_bytes());
        assert_eq!(stats.wrapper.as_deref(), Some("ndjson:log"));
        assert_eq!(stats.records, 1);
        assert_eq!(stats.continuation_lines, 1);
        assert_eq!(unparsed.len(), 1);
        assert_eq!(unparsed[0].line, 3);
        assert_eq!(unparsed[0].reason, UnparsedReason::BeforeFirstRecord);
        // A banner cut off after its first lines is no start.
        assert!(events.is_empty());
    }

    #[test]
    fn no_layout_is_reported() {
        let (stats, events, unparsed) = scan_text(b"\x00\x01garbage\nmore garbage\n");
        assert!(events.is_empty());
        assert_eq!(stats.layout, None);
        assert_eq!(unparsed.len(), 2);
        assert!(unparsed
            .iter()
            .all(|u| u.reason == UnparsedReason::NoLayout));
        assert!(stats.errors[0].contains("--layout"));
    }
}
