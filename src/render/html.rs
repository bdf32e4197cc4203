//! `check --report FILE.html`: one self-contained page that shows what happened in the cluster.
//!
//! Per run: the verdicts, the inputs, and a picture: one swim lane per node (SCMs, OMs, Recon, datanodes)
//! along the merged order of the timeline, every event the models read as a mark on its node's lane (the
//! model that reads it gives its colour), starts, stops and crashes as their own shapes, and each shown
//! violation's causal chain drawn as arrows across the lanes to its primary line. Every mark links to its
//! row in the log-line table below (file:line and the line as logged). Then the spec coverage, each action of
//! each spec as a chip: witnessed, inferred or never.
//!
//! The page carries no script at all and a Content-Security-Policy that forbids any (and every load from
//! elsewhere): log text is untrusted, and is written only as escaped element text or quoted attribute values
//! ([`text`]), after [`sanitize`] has made control characters visible.
//!
//! A run's section is rendered while its timeline is alive ([`HtmlReport::add_run`]) and the page is written
//! at the end. Past [`MAX_MARKS`] events a run's picture is thinned (violations' chains and lifecycle steps
//! always stay), with a note that says so: a 1 GB log makes a page of a few hundred kilobytes.

use crate::check::ModelReport;
use crate::coverage::{RunCoverage, Status};
use crate::lifecycle::LifeStep;
use crate::monitor::Verdict;
use crate::render::safe::sanitize_cow;
use crate::render::{chain, verdict_detail, verdict_name, Run};
use crate::timeline::Timeline;
use crate::vocab::{Component, EventKind};
use std::fmt::Write as _;
use std::io::{self, Write};

/// At most this many marks a run: the page stays small and quick to draw whatever the log's size.
pub const MAX_MARKS: usize = 3000;

/// The policy the page declares: nothing may run, nothing may be fetched, only the inline style applies.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// The models' colours, in registry order; events no model of the run reads (context) are grey.
const MODEL_COLOURS: [&str; 6] = [
    "#2563eb", "#7c3aed", "#0d9488", "#d97706", "#db2777", "#4b5563",
];

/// Which models read which event kinds: (model, one flag per [`EventKind::ALL`]).
pub type Reads = Vec<(&'static str, Vec<bool>)>;

/// The page as it is built: each run's section, rendered while its timeline is alive.
#[derive(Default)]
pub struct HtmlReport {
    sections: Vec<String>,
    /// Every model's verdict of every run, for the headline.
    verdicts: Vec<Verdict>,
}

/// What the page says about itself at the top.
pub struct Meta {
    /// `0.1.0 (git 4c71921)`.
    pub version: String,
    /// `2026-12-05 01:30 UTC`.
    pub date: String,
    /// The command line's inputs, as given.
    pub inputs: Vec<String>,
}

impl Meta {
    /// This build's version and the current date (or `SOURCE_DATE_EPOCH`'s, for reproducible pages).
    pub fn now(inputs: Vec<String>) -> Meta {
        let secs = std::env::var("SOURCE_DATE_EPOCH")
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64)
            });
        Meta {
            version: format!(
                "{} (git {})",
                env!("CARGO_PKG_VERSION"),
                env!("OZONE_CONFORM_GIT_REV")
            ),
            date: utc_date(secs),
            inputs,
        }
    }
}

/// `2026-12-05 01:30 UTC` of seconds since the epoch.
fn utc_date(secs: i64) -> String {
    let (y, m, d) = crate::time::civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60
    )
}

/// Log text (or any text) as HTML element content or a double-quoted attribute value: the markup
/// characters as entities, control and bidi characters as visible escapes; nothing in it can open a tag,
/// close the `<svg>`, end an attribute or run.
pub fn text(s: &str) -> String {
    let s = sanitize_cow(s);
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// [`text`] of several lines: the line breaks kept (a tooltip shows them), everything else escaped.
fn text_lines(s: &str) -> String {
    s.split('\n').map(text).collect::<Vec<_>>().join("&#10;")
}

/// [`text`], with each `quoted` span as `<code>`.
fn code_spans(s: &str) -> String {
    backticks_as_code(&text(s))
}

/// Escaped text with each `quoted` span as `<code>` (the backticks the reasons and notes use).
pub(crate) fn backticks_as_code(escaped: &str) -> String {
    escaped
        .split('`')
        .enumerate()
        .map(|(k, part)| {
            if k % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                part.to_string()
            }
        })
        .collect()
}

/// One mark's place in the picture.
struct Mark {
    index: usize,
    x: f64,
    lane: usize,
}

/// What a mark stands for, which decides its shape.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Event,
    Start,
    Stop,
}

const LANE_HEIGHT: f64 = 46.0;
const AXIS_HEIGHT: f64 = 46.0;
const PAD: f64 = 44.0;
/// The width the picture aims at: a laptop screen less the lane labels.
const FIT_WIDTH: f64 = 1080.0;
/// Extra room where the clocks jump (a gap of more than [`GAP_MS`] between neighbouring marks, and more than
/// the usual step).
const GAP_WIDTH: f64 = 32.0;
const GAP_MS: i64 = 5_000;

impl HtmlReport {
    pub fn new() -> HtmlReport {
        HtmlReport::default()
    }

    /// Renders one run's section: its verdicts, inputs, picture, violations, coverage and log lines.
    pub fn add_run(
        &mut self,
        run: &Run,
        all: bool,
        reads: &Reads,
        coverage: Option<&RunCoverage>,
    ) -> io::Result<()> {
        let id = self.sections.len();
        let mut s = String::new();
        section(&mut s, id, run, all, reads, coverage).map_err(io::Error::other)?;
        self.verdicts.extend(run.reports.iter().map(|r| r.verdict));
        self.sections.push(s);
        Ok(())
    }

    /// The whole page.
    pub fn write(&self, out: &mut dyn Write, meta: &Meta) -> io::Result<()> {
        let mut worst = Verdict::Conforms;
        let (mut violated, mut conforms, mut inconclusive) = (0, 0, 0);
        for v in &self.verdicts {
            match v {
                Verdict::Violated => violated += 1,
                Verdict::Conforms => conforms += 1,
                Verdict::Inconclusive => inconclusive += 1,
            }
            worst = match (worst, v) {
                (Verdict::Violated, _) | (_, Verdict::Violated) => Verdict::Violated,
                (Verdict::Inconclusive, _) | (_, Verdict::Inconclusive) => Verdict::Inconclusive,
                _ => Verdict::Conforms,
            };
        }
        if conforms + violated == 0 {
            worst = Verdict::Inconclusive;
        }
        let headline = match worst {
            Verdict::Violated => "A model was violated",
            Verdict::Inconclusive if conforms == 0 => "Nothing could be checked",
            Verdict::Inconclusive => "No violation; some models inconclusive",
            Verdict::Conforms => "Every model conforms",
        };
        write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>ozone-conform: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header class=\"top {}\">\n\
             <div class=\"brand\">ozone-conform check report</div>\n<h1>{}</h1>\n\
             <p class=\"counts\"><span class=\"badge violated\">{violated} violated</span> \
             <span class=\"badge conforms\">{conforms} conform</span> \
             <span class=\"badge inconclusive\">{inconclusive} inconclusive</span></p>\n\
             <dl class=\"meta\"><dt>inputs</dt><dd>{}</dd><dt>tool</dt><dd>ozone-conform {}</dd>\
             <dt>generated</dt><dd>{}</dd></dl>\n</header>\n<main>\n",
            headline,
            verdict_name(worst),
            headline,
            inputs_line(&meta.inputs),
            text(&meta.version),
            text(&meta.date),
        )?;
        for s in &self.sections {
            out.write_all(s.as_bytes())?;
        }
        write!(
            out,
            "</main>\n<footer>Written by ozone-conform {}: no scripts, nothing loaded from elsewhere. \
             Marks link to their log lines; hover a mark for its line.</footer>\n</body>\n</html>\n",
            text(&meta.version)
        )
    }
}

/// The command line's inputs: a few as they are; many (a shell's glob) as their count and the directory
/// they share, the whole list on hover.
fn inputs_line(inputs: &[String]) -> String {
    if inputs.len() <= 3 {
        return inputs
            .iter()
            .map(|i| format!("<code>{}</code>", text(i)))
            .collect::<Vec<_>>()
            .join(" ");
    }
    let dirs: Vec<&str> = inputs
        .iter()
        .map(|i| i.rfind('/').map_or("", |at| &i[..=at]))
        .collect();
    let shared = if dirs.iter().all(|d| *d == dirs[0]) && !dirs[0].is_empty() {
        format!(" in <code>{}</code>", text(dirs[0]))
    } else {
        String::new()
    };
    format!(
        "<span title=\"{}\">{} inputs{shared}</span>",
        text_lines(&inputs.join("\n")),
        inputs.len()
    )
}

/// One run's section.
fn section(
    s: &mut String,
    id: usize,
    run: &Run,
    all: bool,
    reads: &Reads,
    coverage: Option<&RunCoverage>,
) -> std::fmt::Result {
    let t = run.timeline;
    writeln!(s, "<section class=\"run\" id=\"run{id}\">")?;
    if let Some(name) = run.name {
        writeln!(s, "<h2 class=\"runname\">{}</h2>", text(name))?;
    }
    verdicts(s, t, run.reports)?;
    inputs(s, t)?;
    let shown: Vec<(usize, &ModelReport, &crate::monitor::Violation)> = run
        .reports
        .iter()
        .flat_map(|r| Run::shown(r, all).into_iter().map(move |v| (r, v)))
        .enumerate()
        .map(|(k, (r, v))| (k, r, v))
        .collect();
    let picked = pick(t, &shown);
    writeln!(s, "<h3>What happened</h3>")?;
    if let Some(total) = picked.thinned_from {
        writeln!(
            s,
            "<p class=\"note\">The picture shows {} of {} events: every event of a violation's causal chain, \
             every start and stop, and an even sample of the rest. <code>ozone-conform events</code> lists them all.</p>",
            picked.indices.len(),
            total
        )?;
    }
    legend(s, reads)?;
    let whole = Drawing {
        run_id: id,
        id: format!("r{id}"),
        mark_class: "mark",
        numbered: false,
        fit: FIT_WIDTH,
        max_step: 16.0,
    };
    picture(s, run, reads, &picked, &shown, &whole)?;
    violations(s, id, run, reads, &shown, all)?;
    if let Some(c) = coverage {
        coverage_chips(s, c)?;
    }
    log_lines(s, id, t, reads, &picked.indices)?;
    writeln!(s, "</section>")
}

fn verdicts(s: &mut String, t: &Timeline, reports: &[ModelReport]) -> std::fmt::Result {
    writeln!(s, "<div class=\"verdicts\">")?;
    for r in reports {
        let v = verdict_name(r.verdict);
        // A model that read nothing here is quiet: its reason is a line or three (all of it on hover).
        let idle = r.verdict == Verdict::Inconclusive && r.events == 0;
        let detail = verdict_detail(r);
        let first = r
            .first()
            .map(|f| {
                let at = crate::render::loc(t, f.primary);
                format!(
                    "<div class=\"first\"><span class=\"code\">{}</span> {} at <code>{}:{}</code></div>",
                    text(f.invariant.code),
                    text(f.invariant.name),
                    text(at.path.rsplit(['/', '\\']).next().unwrap_or(at.path)),
                    at.line
                )
            })
            .unwrap_or_default();
        writeln!(
            s,
            "<div class=\"card {v}{}\"><div class=\"model\"><span class=\"swatch\" data-colour=\"{}\"></span>{}</div>\
             <div class=\"verdict\">{v}</div>{first}<div class=\"detail\" title=\"{}\">{}</div>\
             <div class=\"spec\">{} · <code>{}</code> · {} event(s) read</div></div>",
            if idle { " idle" } else { "" },
            colour_index(r.model()),
            text(r.model()),
            text(&detail),
            text(&detail),
            text(r.spec().issue),
            text(r.spec().path),
            r.events
        )?;
    }
    writeln!(s, "</div>")
}

fn inputs(s: &mut String, t: &Timeline) -> std::fmt::Result {
    writeln!(
        s,
        "<details class=\"inputs\"><summary>{} input(s), {} events</summary><table>\n\
         <tr><th>input</th><th>layout</th><th>nodes</th><th class=\"n\">records</th><th class=\"n\">events</th><th class=\"n\">unparsed</th></tr>",
        t.inputs.len(),
        t.events.len()
    )?;
    for i in &t.inputs {
        let nodes: Vec<&str> = i.nodes.keys().map(String::as_str).collect();
        writeln!(
            s,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            text(&i.path),
            text(i.layout.as_deref().unwrap_or("none")),
            text(&nodes.join(", ")),
            i.records,
            i.events,
            i.unparsed
        )?;
    }
    writeln!(s, "</table></details>")
}

/// The events a run's picture shows, in timeline order, and why some were left out.
struct Picked {
    indices: Vec<usize>,
    /// `Some(total)` when the picture is thinned.
    thinned_from: Option<usize>,
}

/// Every event up to [`MAX_MARKS`]; past it, the events of the shown violations' chains, every lifecycle
/// step, and an even sample of the rest.
fn pick(t: &Timeline, shown: &[(usize, &ModelReport, &crate::monitor::Violation)]) -> Picked {
    let n = t.events.len();
    if n <= MAX_MARKS {
        return Picked {
            indices: (0..n).collect(),
            thinned_from: None,
        };
    }
    let mut keep: Vec<usize> = Vec::new();
    for i in t.life.indices() {
        keep.push(i);
        // A crash is drawn after its run's last event: keep that event beside the restart.
        if let Some(LifeStep::Started {
            crashed: Some(last),
        }) = t.life[i]
        {
            keep.push(last);
        }
    }
    for (_, _, v) in shown {
        keep.extend(chain(v).into_iter().map(|(i, _)| i));
    }
    keep.sort_unstable();
    keep.dedup();
    let budget = MAX_MARKS.saturating_sub(keep.len()).max(1);
    let stride = n.div_ceil(budget);
    keep.extend((0..n).step_by(stride.max(1)));
    keep.sort_unstable();
    keep.dedup();
    Picked {
        indices: keep,
        thinned_from: Some(n),
    }
}

fn lane_order(c: Option<Component>) -> u8 {
    match c {
        Some(Component::Scm) => 0,
        Some(Component::Om) => 1,
        Some(Component::Recon) => 2,
        Some(Component::Datanode) => 3,
        _ => 4,
    }
}

fn service_name(c: Option<Component>) -> &'static str {
    match c {
        Some(Component::Scm) => "SCM",
        Some(Component::Om) => "OM",
        Some(Component::Recon) => "Recon",
        Some(Component::Datanode) => "datanode",
        _ => "service unknown",
    }
}

fn colour_index(model: &str) -> usize {
    crate::bugs::BUGS
        .iter()
        .position(|b| b.name() == model)
        .unwrap_or(MODEL_COLOURS.len() - 1)
        .min(MODEL_COLOURS.len() - 1)
}

/// The first model of the run that reads `kind`.
fn reader(reads: &Reads, kind: EventKind) -> Option<&'static str> {
    reads
        .iter()
        .find(|(_, r)| r.get(kind.index()).copied().unwrap_or(false))
        .map(|(m, _)| *m)
}

fn readers(reads: &Reads, kind: EventKind) -> Vec<&'static str> {
    reads
        .iter()
        .filter(|(_, r)| r.get(kind.index()).copied().unwrap_or(false))
        .map(|(m, _)| *m)
        .collect()
}

/// `08:59:47.903` of an event (the date is in the log-line table).
fn clock(t: &Timeline, i: usize) -> String {
    match t.events.head(i).time() {
        Some(ts) => {
            let full = ts.to_string();
            full.split_once('T')
                .map_or(full.clone(), |(_, time)| time.to_string())
        }
        None => "no time".into(),
    }
}

fn duration(ms: i64) -> String {
    let s = ms / 1000;
    if s >= 86_400 {
        format!("{} d {} h", s / 86_400, s % 86_400 / 3600)
    } else if s >= 3600 {
        format!("{} h {} min", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{} min {} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

/// The swim lanes.
/// How a picture is drawn: the run's whole picture, or the close-up of one violation.
struct Drawing<'a> {
    run_id: usize,
    /// Unique among the page's pictures (the arrowhead's id).
    id: String,
    /// The marks' class: the run's picture has one `mark` per event, close-ups their own.
    mark_class: &'a str,
    /// Number the chain's steps as the violation's list does.
    numbered: bool,
    /// The width the picture aims at, and the room each mark gets at most.
    fit: f64,
    max_step: f64,
}

fn picture(
    s: &mut String,
    run: &Run,
    reads: &Reads,
    picked: &Picked,
    shown: &[(usize, &ModelReport, &crate::monitor::Violation)],
    d: &Drawing,
) -> std::fmt::Result {
    let t = run.timeline;
    let run_id = d.run_id;
    // Lanes: one per node that has a shown event, SCMs first; events of no known node get a lane of their own.
    let mut lane_keys: Vec<Option<u32>> = Vec::new();
    for &i in &picked.indices {
        let node = t.events.head(i).node();
        if !lane_keys.contains(&node) {
            lane_keys.push(node);
        }
    }
    let name_of = |k: Option<u32>| -> String {
        k.and_then(|k| t.node_names.get(k as usize))
            .map_or_else(|| "(no node)".to_string(), |n| n.to_string())
    };
    lane_keys.sort_by_key(|k| {
        (
            lane_order(k.and_then(|k| t.service_of_key(k))),
            k.is_none(),
            natural(&name_of(*k)),
        )
    });
    let lane_of = |node: Option<u32>| lane_keys.iter().position(|k| *k == node).unwrap_or(0);
    let n = picked.indices.len();
    // A clock jump is a gap of more than 5 s, and of more than ten times the usual step between marks (a
    // thinned picture's neighbours are far apart everywhere: that is no jump).
    let times: Vec<i64> = picked
        .indices
        .iter()
        .filter_map(|&i| t.events.head(i).time().map(|ts| ts.millis))
        .collect();
    let mut steps: Vec<i64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    steps.sort_unstable();
    let usual = steps.get(steps.len() / 2).copied().unwrap_or(0);
    let gap_ms = GAP_MS.max(usual.saturating_mul(10));
    let gap_count = times.windows(2).filter(|w| w[1] - w[0] > gap_ms).count();
    // Fit a laptop's width where the events allow; past that the lanes scroll sideways.
    let step = ((d.fit - GAP_WIDTH * gap_count as f64) / n.max(1) as f64).clamp(5.0, d.max_step);
    // x along the merged order, with room (and a label) where the clocks jump.
    let mut marks: Vec<Mark> = Vec::with_capacity(n);
    let mut gaps: Vec<(f64, i64)> = Vec::new();
    let mut x = PAD;
    let mut last_time: Option<i64> = None;
    for &i in &picked.indices {
        let h = t.events.head(i);
        if let (Some(prev), Some(now)) = (last_time, h.time().map(|ts| ts.millis)) {
            if now - prev > gap_ms {
                gaps.push((x + GAP_WIDTH / 2.0 - step / 2.0, now - prev));
                x += GAP_WIDTH;
            }
        }
        if let Some(ts) = h.time() {
            last_time = Some(ts.millis);
        }
        marks.push(Mark {
            index: i,
            x,
            lane: lane_of(h.node()),
        });
        x += step;
    }
    // Room on the right for the last violation's code.
    let width = x + PAD + 80.0;
    let height = AXIS_HEIGHT + LANE_HEIGHT * lane_keys.len() as f64 + 8.0;
    let y_of = |lane: usize| AXIS_HEIGHT + LANE_HEIGHT * lane as f64 + LANE_HEIGHT / 2.0;
    let x_of = |i: usize| marks.iter().find(|m| m.index == i).map(|m| m.x);

    writeln!(s, "<div class=\"lanes\">\n<div class=\"labels\">")?;
    writeln!(s, "<div class=\"axislabel\">time →</div>")?;
    for k in &lane_keys {
        let service = k.and_then(|k| t.service_of_key(k));
        writeln!(
            s,
            "<div class=\"lanelabel s{}\"><b>{}</b><span>{}</span></div>",
            lane_order(service),
            text(&name_of(*k)),
            service_name(service)
        )?;
    }
    writeln!(s, "</div>\n<div class=\"scroll\">")?;
    writeln!(
        s,
        "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\" aria-label=\"events by node along time\">"
    )?;
    writeln!(
        s,
        "<defs><marker id=\"arrow{}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
         <path d=\"M0,0 L10,5 L0,10 z\" class=\"arrowhead\"/></marker></defs>",
        d.id
    )?;
    // Lane backgrounds.
    for (l, _) in lane_keys.iter().enumerate() {
        let y = AXIS_HEIGHT + LANE_HEIGHT * l as f64;
        writeln!(
            s,
            "<rect class=\"lane{}\" x=\"0\" y=\"{y:.0}\" width=\"{width:.0}\" height=\"{LANE_HEIGHT:.0}\"/>\
             <line class=\"laneline\" x1=\"0\" y1=\"{:.1}\" x2=\"{width:.0}\" y2=\"{:.1}\"/>",
            l % 2,
            y + LANE_HEIGHT / 2.0,
            y + LANE_HEIGHT / 2.0
        )?;
    }
    // Time ticks: about one every 110 px, at a mark, with that mark's clock.
    let every = ((110.0 / step).ceil() as usize).max(1);
    let mut last_tick = f64::MIN;
    for (k, m) in marks.iter().enumerate() {
        if k % every == 0 && m.x - last_tick > 90.0 {
            last_tick = m.x;
            writeln!(
                s,
                "<line class=\"tick\" x1=\"{:.1}\" y1=\"{:.0}\" x2=\"{:.1}\" y2=\"{height:.0}\"/>\
                 <text class=\"ticklabel\" x=\"{:.1}\" y=\"17\">{}</text>",
                m.x,
                AXIS_HEIGHT - 6.0,
                m.x,
                m.x,
                text(&clock(t, m.index))
            )?;
        }
    }
    // Clock jumps: a grey band through the lanes, its length on the axis's second row (where the labels
    // would overlap, only in the band's tooltip).
    let mut last_label = f64::MIN;
    for (gx, ms) in &gaps {
        let label = if gx - last_label > 64.0 {
            last_label = *gx;
            format!(
                "<text x=\"{gx:.1}\" y=\"{:.0}\">+{}</text>",
                AXIS_HEIGHT - 12.0,
                duration(*ms)
            )
        } else {
            String::new()
        };
        writeln!(
            s,
            "<g class=\"gap\"><title>{} with no event</title><rect x=\"{:.1}\" y=\"{:.0}\" width=\"{:.1}\" height=\"{:.0}\"/>{label}</g>",
            duration(*ms),
            gx - GAP_WIDTH / 2.0 + 5.0,
            AXIS_HEIGHT - 8.0,
            GAP_WIDTH - 10.0,
            height - AXIS_HEIGHT + 8.0,
        )?;
    }
    // Crashes: where a run ended with no shutdown, right after its last event.
    for m in &marks {
        if let Some(LifeStep::Started {
            crashed: Some(last),
        }) = t.life[m.index]
        {
            let h = t.events.head(last);
            let cx = x_of(last).unwrap_or(m.x - step) + step * 0.6;
            let cy = y_of(lane_of(h.node()));
            writeln!(
                s,
                "<g class=\"crash\"><title>{}</title><path d=\"M{:.1},{:.1} l8,8 m0,-8 l-8,8\"/></g>",
                text(&format!(
                    "{} crashed: its run ended with no shutdown after {} (restarted at {})",
                    name_of(h.node()),
                    clock(t, last),
                    clock(t, m.index)
                )),
                cx - 4.0,
                cy - 4.0
            )?;
        }
    }
    // Chains: an arrow from each step to the next, the last one into the primary line.
    let in_chain: std::collections::HashMap<usize, usize> = shown
        .iter()
        .flat_map(|(k, _, v)| chain(v).into_iter().map(move |(i, _)| (i, *k)))
        .collect();
    for (k, _, v) in shown {
        let steps = chain(v);
        for w in steps.windows(2) {
            let (a, b) = (w[0].0, w[1].0);
            let (Some(xa), Some(xb)) = (x_of(a), x_of(b)) else {
                continue;
            };
            let ya = y_of(lane_of(t.events.head(a).node()));
            let yb = y_of(lane_of(t.events.head(b).node()));
            let (ya, yb) = (ya, if yb > ya { yb - 8.0 } else { yb + 8.0 });
            let path = if (ya - yb).abs() < 1.0 {
                // Along one lane: an arc above it.
                format!(
                    "M{xa:.1},{:.1} C{xa:.1},{:.1} {xb:.1},{:.1} {:.1},{:.1}",
                    ya - 6.0,
                    ya - 30.0,
                    ya - 30.0,
                    xb - 1.0,
                    ya - 7.0
                )
            } else {
                let mid = (xa + xb) / 2.0;
                format!("M{xa:.1},{ya:.1} C{mid:.1},{ya:.1} {mid:.1},{yb:.1} {xb:.1},{yb:.1}")
            };
            writeln!(
                s,
                "<path class=\"chain v{k}\" d=\"{path}\" marker-end=\"url(#arrow{})\"/>",
                d.id
            )?;
        }
    }
    // The marks.
    for m in &marks {
        let h = t.events.head(m.index);
        let y = y_of(m.lane);
        let shape = match t.life[m.index] {
            Some(LifeStep::Started { .. }) => Shape::Start,
            Some(LifeStep::Stopping) => Shape::Stop,
            None => Shape::Event,
        };
        let model = reader(reads, h.kind);
        let colour = model.map_or("ctx".to_string(), |m| format!("c{}", colour_index(m)));
        let primary = shown.iter().find(|(_, _, v)| v.primary == m.index);
        let link = format!("r{run_id}e{}", m.index);
        let loc = crate::render::loc(t, m.index);
        // The tooltip has the message only, cut short: the row it links to has the whole line.
        let excerpt = t.excerpt(m.index);
        let message = excerpt
            .text
            .get(excerpt.message_offset..)
            .unwrap_or(&excerpt.text);
        let title = format!(
            "{} {} {}\n{}:{}\n{}",
            clock(t, m.index),
            name_of(h.node()),
            h.kind,
            // The file's name: its directory is in the row.
            loc.path.rsplit(['/', '\\']).next().unwrap_or(loc.path),
            loc.line,
            shorten(message, TOOLTIP_CHARS)
        );
        write!(
            s,
            "<a class=\"{}\" href=\"#{link}\" data-event=\"{}\"><title>{}</title>",
            d.mark_class,
            m.index,
            text_lines(&title)
        )?;
        if let Some(&k) = in_chain.get(&m.index) {
            let r = if primary.is_some() { 13.0 } else { 9.0 };
            writeln!(
                s,
                "<circle class=\"{} v{k}\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"{r}\"/>",
                if primary.is_some() { "halo" } else { "ring" },
                m.x
            )?;
        }
        match shape {
            Shape::Start => write!(
                s,
                "<path class=\"start\" d=\"M{:.1},{:.1} l6,11 h-12 z\"/>",
                m.x,
                y - 7.0
            )?,
            Shape::Stop => write!(
                s,
                "<rect class=\"stop\" x=\"{:.1}\" y=\"{:.1}\" width=\"9\" height=\"9\"/>",
                m.x - 4.5,
                y - 4.5
            )?,
            Shape::Event if primary.is_some() => write!(
                s,
                "<circle class=\"primary\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"6.5\"/>",
                m.x
            )?,
            Shape::Event => write!(
                s,
                "<circle class=\"{colour}\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"{}\"/>",
                m.x,
                if model.is_some() { 4.5 } else { 3.2 }
            )?,
        }
        writeln!(s, "</a>")?;
        if d.numbered {
            if let Some(no) = shown
                .iter()
                .find_map(|(_, _, v)| chain(v).iter().position(|(i, _)| *i == m.index))
            {
                writeln!(
                    s,
                    "<text class=\"stepno\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                    m.x,
                    y + 24.0,
                    no + 1
                )?;
            }
        }
        if let Some((k, _, v)) = primary {
            writeln!(
                s,
                "<text class=\"flag v{k}\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                m.x + 10.0,
                y - 10.0,
                text(v.invariant.code)
            )?;
        }
    }
    writeln!(s, "</svg>\n</div>\n</div>")
}

/// At most this many characters of a message in a mark's tooltip.
const TOOLTIP_CHARS: usize = 120;

/// `text` cut to `max` characters, with an ellipsis where it was cut.
fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]).into(),
        None => text.into(),
    }
}

/// Sort key that orders `dn2` before `dn10`.
fn natural(name: &str) -> (String, u64) {
    let digits: String = name
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let stem = name[..name.len() - digits.len()].to_string();
    (stem, digits.parse().unwrap_or(0))
}

fn legend(s: &mut String, reads: &Reads) -> std::fmt::Result {
    write!(s, "<ul class=\"legend\">")?;
    for (m, _) in reads {
        write!(
            s,
            "<li><svg width=\"12\" height=\"12\"><circle class=\"c{}\" cx=\"6\" cy=\"6\" r=\"4.5\"/></svg>read by {}</li>",
            colour_index(m),
            text(m)
        )?;
    }
    writeln!(
        s,
        "<li><svg width=\"12\" height=\"12\"><circle class=\"ctx\" cx=\"6\" cy=\"6\" r=\"3.2\"/></svg>context</li>\
         <li><svg width=\"14\" height=\"14\"><path class=\"start\" d=\"M7,1 l6,11 h-12 z\"/></svg>start</li>\
         <li><svg width=\"12\" height=\"12\"><rect class=\"stop\" x=\"1.5\" y=\"1.5\" width=\"9\" height=\"9\"/></svg>stop</li>\
         <li><svg width=\"12\" height=\"12\" class=\"crash\"><path d=\"M2,2 l8,8 m0,-8 l-8,8\"/></svg>crash (no shutdown logged)</li>\
         <li><svg width=\"16\" height=\"16\"><circle class=\"halo\" cx=\"8\" cy=\"8\" r=\"7\"/><circle class=\"primary\" cx=\"8\" cy=\"8\" r=\"4\"/></svg>violation</li>\
         <li><svg width=\"26\" height=\"12\"><path class=\"chain\" d=\"M1,6 H24\"/></svg>causal chain</li></ul>"
    )
}

fn violations(
    s: &mut String,
    run_id: usize,
    run: &Run,
    reads: &Reads,
    shown: &[(usize, &ModelReport, &crate::monitor::Violation)],
    all: bool,
) -> std::fmt::Result {
    let (t, reports) = (run.timeline, run.reports);
    if shown.is_empty() {
        return Ok(());
    }
    writeln!(s, "<h3>Violations</h3>")?;
    for &(k, r, v) in shown {
        let primary = crate::render::loc(t, v.primary);
        writeln!(
            s,
            "<article class=\"violation v{k}\"><h4><span class=\"code\">{}</span> {} <span class=\"model\">{}</span></h4>\
             <p class=\"message\">{}</p>",
            text(v.invariant.code),
            text(v.invariant.name),
            text(r.model()),
            text(&v.message)
        )?;
        // A close-up: the nodes of the chain, from its first step to the violation, marks numbered as
        // the list below.
        let close_up = Drawing {
            run_id,
            id: format!("r{run_id}v{k}"),
            mark_class: "fmark",
            numbered: true,
            fit: FIT_WIDTH - 40.0,
            max_step: 34.0,
        };
        writeln!(s, "<div class=\"closeup\">")?;
        picture(s, run, reads, &close_up_of(t, v), &[(k, r, v)], &close_up)?;
        writeln!(s, "</div><ol class=\"chainlist\">")?;
        for (i, label) in chain(v) {
            let l = crate::render::loc(t, i);
            let node = t
                .events
                .head(i)
                .node()
                .and_then(|k| t.node_names.get(k as usize))
                .map_or_else(|| "(no node)".to_string(), |n| n.to_string());
            writeln!(
                s,
                "<li{}><span class=\"when\">{}</span> <b>{}</b> {} <a href=\"#r{run_id}e{i}\"><code>{}:{}</code></a></li>",
                if i == v.primary { " class=\"last\"" } else { "" },
                text(&clock(t, i)),
                text(&node),
                text(label),
                text(l.path),
                l.line
            )?;
        }
        writeln!(
            s,
            "</ol><p class=\"help\">{}</p><p class=\"at\">Primary line: <a href=\"#r{run_id}e{}\"><code>{}:{}</code></a></p></article>",
            text(&crate::render::help(r, v)),
            v.primary,
            text(primary.path),
            primary.line
        )?;
    }
    let hidden: usize = reports
        .iter()
        .map(|r| r.violations.len().saturating_sub(Run::shown(r, all).len()))
        .sum();
    if hidden > 0 {
        writeln!(
            s,
            "<p class=\"note\">{hidden} more violation(s) (later instances or invariants) are not drawn: \
             <code>check --all --report FILE.html</code> shows every one.</p>"
        )?;
    }
    Ok(())
}

/// The events of a violation's close-up: those of its chain's nodes from its first step to the violation
/// (at most [`CLOSE_UP_MARKS`]: the chain, starts and stops, and an even sample of the rest).
fn close_up_of(t: &Timeline, v: &crate::monitor::Violation) -> Picked {
    let steps = chain(v);
    let nodes: Vec<Option<u32>> = steps
        .iter()
        .map(|(i, _)| t.events.head(*i).node())
        .collect();
    let (from, to) = (steps.first().map_or(v.primary, |s| s.0), v.primary);
    let all: Vec<usize> = (from..=to)
        .filter(|&i| nodes.contains(&t.events.head(i).node()))
        .collect();
    if all.len() <= CLOSE_UP_MARKS {
        return Picked {
            indices: all,
            thinned_from: None,
        };
    }
    let mut keep: Vec<usize> = steps.iter().map(|(i, _)| *i).collect();
    keep.extend(all.iter().copied().filter(|&i| t.life[i].is_some()));
    let stride = all
        .len()
        .div_ceil(CLOSE_UP_MARKS.saturating_sub(keep.len()).max(1));
    keep.extend(all.iter().copied().step_by(stride.max(1)));
    keep.sort_unstable();
    keep.dedup();
    Picked {
        indices: keep,
        thinned_from: Some(all.len()),
    }
}

/// At most this many marks in a violation's close-up.
const CLOSE_UP_MARKS: usize = 60;

fn coverage_chips(s: &mut String, c: &RunCoverage) -> std::fmt::Result {
    writeln!(
        s,
        "<h3>Spec coverage</h3><p class=\"sub\">Each action of each spec's <code>Next</code>: \
         <span class=\"chip witnessed\">witnessed</span> a log line shows it, \
         <span class=\"chip inferred\">inferred</span> the behaviour built from the logs takes it with no line of its own, \
         <span class=\"chip never\">never</span> neither.</p>"
    )?;
    // Without --coverage the inferred steps are not counted: said once, not under every spec.
    let not_inferred = |m: &&crate::coverage::ModelCoverage| {
        m.note.as_deref() == Some(crate::coverage::NOT_INFERRED)
    };
    if c.models.iter().any(|m| not_inferred(&m)) {
        writeln!(
            s,
            "<p class=\"note\">Only witnessed actions here: {}.</p>",
            code_spans(crate::coverage::NOT_INFERRED)
        )?;
    }
    writeln!(s, "<div class=\"coverage\">")?;
    // A spec none of whose actions showed up is one line, not a row of grey chips.
    let (seen, unseen): (Vec<_>, Vec<_>) = c
        .models
        .iter()
        .partition(|m| m.actions.iter().any(|a| a.status() != Status::Never));
    for m in seen {
        let count = |st: Status| m.actions.iter().filter(|a| a.status() == st).count();
        writeln!(
            s,
            "<div class=\"spec\"><div class=\"spechead\"><b>{}</b> <code>{}</code> <span>{} witnessed · {} inferred · {} never</span></div>\
             <div class=\"bar\">",
            text(m.module),
            text(m.spec),
            count(Status::Witnessed),
            count(Status::Inferred),
            count(Status::Never)
        )?;
        for a in &m.actions {
            let st = a.status();
            let n = match st {
                Status::Witnessed => format!(" ×{}", a.witnessed),
                Status::Inferred => format!(" ×{}", a.inferred),
                Status::Never => String::new(),
            };
            write!(
                s,
                "<span class=\"chip {}\" title=\"{}\">{}<small>{}</small></span>",
                st.name(),
                text(&format!(
                    "{}: {} witnessed, {} inferred{}",
                    a.action,
                    a.witnessed,
                    a.inferred,
                    if a.inferable {
                        "; the model may infer it"
                    } else {
                        ""
                    }
                )),
                text(a.action),
                n
            )?;
        }
        writeln!(s, "</div>")?;
        if let Some(note) = m.note.as_deref().filter(|_| !not_inferred(&m)) {
            writeln!(s, "<p class=\"note\">note: {}</p>", code_spans(note))?;
        }
        writeln!(s, "</div>")?;
    }
    if !unseen.is_empty() {
        let names: Vec<String> = unseen
            .iter()
            .map(|m| format!("<b>{}</b> ({} actions)", text(m.module), m.actions.len()))
            .collect();
        writeln!(
            s,
            "<p class=\"unseen\">No action witnessed or inferred: {}.</p>",
            names.join(", ")
        )?;
    }
    writeln!(s, "</div>")
}

fn log_lines(
    s: &mut String,
    run_id: usize,
    t: &Timeline,
    reads: &Reads,
    indices: &[usize],
) -> std::fmt::Result {
    writeln!(
        s,
        "<h3>Log lines</h3><table class=\"lines\">\n<tr><th>time</th><th>node</th><th>event</th><th>read by</th><th>where</th><th>line</th></tr>"
    )?;
    for &i in indices {
        let h = t.events.head(i);
        let loc = crate::render::loc(t, i);
        let node = h
            .node()
            .and_then(|k| t.node_names.get(k as usize))
            .map_or_else(|| "(no node)".to_string(), |n| n.to_string());
        let models = readers(reads, h.kind);
        let life = match t.life[i] {
            Some(LifeStep::Started { crashed: Some(_) }) => " (restart after a crash)",
            Some(LifeStep::Started { crashed: None }) => " (start)",
            Some(LifeStep::Stopping) => " (stop)",
            None => "",
        };
        writeln!(
            s,
            "<tr id=\"r{run_id}e{i}\"><td class=\"when\">{}</td><td>{}</td><td>{}{}</td><td>{}</td><td><code>{}:{}</code></td><td><code>{}</code></td></tr>",
            text(&h.time().map_or_else(|| "no time".into(), |ts| ts.to_string())),
            text(&node),
            h.kind,
            life,
            text(&models.join(", ")),
            text(loc.path),
            loc.line,
            text(&t.excerpt(i).text)
        )?;
    }
    writeln!(s, "</table>")
}

/// The page's style: light, quiet lanes, strong colours only for what matters.
const STYLE: &str = r#"
:root{--bg:#f6f7f9;--ink:#1f2937;--muted:#6b7280;--line:#e5e7eb;--red:#dc2626;--green:#16a34a;--amber:#d97706}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
header.top{padding:20px 32px 16px;background:#fff;border-bottom:1px solid var(--line);border-top:6px solid var(--green)}
header.top.violated{border-top-color:var(--red)}
header.top.inconclusive{border-top-color:var(--amber)}
.brand{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.08em}
h1{margin:4px 0 8px;font-size:24px}
h2.runname{font-size:16px;margin:0 0 12px;word-break:break-all}
h3{font-size:15px;margin:22px 0 8px}
.counts{margin:0 0 10px}
.badge{display:inline-block;padding:2px 10px;border-radius:999px;font-weight:600;font-size:12px;margin-right:4px}
.badge.violated{background:#fee2e2;color:#991b1b}.badge.conforms{background:#dcfce7;color:#166534}.badge.inconclusive{background:#fef3c7;color:#92400e}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0;color:var(--muted);font-size:13px}
dl.meta dt{font-weight:600}dl.meta dd{margin:0;word-break:break-all}
main{padding:18px 32px}
section.run{background:#fff;border:1px solid var(--line);border-radius:10px;padding:18px 20px;margin-bottom:22px}
.verdicts{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:10px}
.card{border:1px solid var(--line);border-left:5px solid var(--muted);border-radius:8px;padding:10px 12px}
.card.violated{border-left-color:var(--red);background:#fff5f5}.card.conforms{border-left-color:var(--green)}.card.inconclusive{border-left-color:var(--amber)}
.card .model{font-weight:600}.card .verdict{font-size:18px;font-weight:700;text-transform:uppercase;letter-spacing:.03em}
.card.violated .verdict{color:var(--red)}.card.conforms .verdict{color:var(--green)}.card.inconclusive .verdict{color:var(--amber)}
.card .detail{font-size:13px;margin:4px 0;overflow-wrap:anywhere}
.card.idle{background:#fcfcfd}.card.idle .verdict{font-size:14px}
.card.idle .detail{color:var(--muted);font-size:12px;display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden}
.card .first{font-size:12px;margin:4px 0;overflow-wrap:anywhere}.card .first .code{font-size:11px}.card .spec{color:var(--muted);font-size:12px;overflow-wrap:anywhere}
.swatch{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px;background:#9ca3af}
.swatch[data-colour="0"]{background:#2563eb}.swatch[data-colour="1"]{background:#7c3aed}.swatch[data-colour="2"]{background:#0d9488}.swatch[data-colour="3"]{background:#d97706}
details.inputs{margin:12px 0 0;color:var(--muted)}details.inputs summary{cursor:pointer}
table{border-collapse:collapse;width:100%;margin-top:6px}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600}td.n,th.n{text-align:right}
ul.legend{list-style:none;padding:0;margin:0 0 8px;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;color:var(--muted)}
ul.legend li{display:flex;align-items:center;gap:5px}
.lanes{display:flex;border:1px solid var(--line);border-radius:8px;overflow:hidden;background:#fff}
.labels{flex:none;width:150px;border-right:1px solid var(--line);background:#fafafa}
.axislabel{height:46px;padding:8px 10px;color:var(--muted);font-size:12px}
.lanelabel{height:46px;padding:5px 10px;border-left:4px solid #9ca3af;display:flex;flex-direction:column;justify-content:center}
.lanelabel b{font-size:13px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}.lanelabel span{font-size:11px;color:var(--muted)}
.lanelabel.s0{border-left-color:#2563eb}.lanelabel.s1{border-left-color:#db2777}.lanelabel.s2{border-left-color:#d97706}.lanelabel.s3{border-left-color:#0d9488}
.scroll{overflow-x:auto;flex:1}
svg.timeline{display:block}
.lane0{fill:#fff}.lane1{fill:#f9fafb}.laneline{stroke:#e5e7eb;stroke-width:1}
.tick{stroke:#eef0f3;stroke-width:1}.ticklabel{font:11px ui-monospace,monospace;fill:#6b7280;text-anchor:middle}
.gap rect{fill:#f3f4f6}.gap text{font:italic 10px system-ui,sans-serif;fill:#9ca3af;text-anchor:middle}
.c0{fill:#2563eb}.c1{fill:#7c3aed}.c2{fill:#0d9488}.c3{fill:#d97706}.c4{fill:#db2777}.c5{fill:#4b5563}
.ctx{fill:#cbd5e1}
circle,rect.stop,path.start{stroke:#fff;stroke-width:1.2}
.start{fill:var(--green)}.stop{fill:#374151}
.crash path{stroke:var(--red);stroke-width:2.6;stroke-linecap:round;fill:none}
.primary{fill:var(--red)}
.halo{fill:rgba(220,38,38,.16);stroke:var(--red);stroke-width:1.5}
.ring{fill:none;stroke:#f97316;stroke-width:2}
.chain{fill:none;stroke:#f97316;stroke-width:2;opacity:.85}
.arrowhead{fill:#f97316}
.flag{font:600 11px system-ui,sans-serif;fill:var(--red)}
.stepno{font:700 10px system-ui,sans-serif;fill:#c2410c;text-anchor:middle}
.closeup{margin:8px 0 10px}.closeup .lanes{border-color:#fecaca}
a.fmark:hover circle,a.fmark:hover path,a.fmark:hover rect{stroke:#111;stroke-width:2}
a.mark:hover circle,a.mark:hover path,a.mark:hover rect{stroke:#111;stroke-width:2}
a.mark:focus{outline:none}a.mark:focus circle{stroke:#111;stroke-width:2}
article.violation{border:1px solid #fecaca;background:#fff7f7;border-radius:8px;padding:10px 14px;margin:8px 0}
article.violation h4{margin:0 0 4px;font-size:14px}
.code{background:var(--red);color:#fff;border-radius:4px;padding:1px 6px;font-size:12px;margin-right:4px}
article .model{color:var(--muted);font-weight:400;font-size:12px}
.message{margin:4px 0 8px;font-weight:500}
ol.chainlist{margin:0 0 8px;padding-left:22px}ol.chainlist li{margin:2px 0}ol.chainlist li.last{color:var(--red);font-weight:600}
.when{font:12px ui-monospace,monospace;color:var(--muted);white-space:nowrap}
.help{color:#374151;font-size:13px;margin:6px 0}.at{font-size:12px;color:var(--muted);margin:0}
.note,.sub{color:var(--muted);font-size:12px}
.unseen{color:var(--muted);font-size:13px;margin:2px 0}
.coverage{display:grid;gap:10px}
.spec .spechead{margin-bottom:4px}.spec .spechead span{color:var(--muted);font-size:12px;margin-left:6px}
.bar{display:flex;flex-wrap:wrap;gap:4px}
.chip{display:inline-block;border-radius:6px;padding:2px 8px;font-size:12px;border:1px solid transparent}
.chip small{opacity:.75;margin-left:2px}
.chip.witnessed{background:#dcfce7;color:#166534;border-color:#86efac}
.chip.inferred{background:#fef3c7;color:#92400e;border-color:#fcd34d;border-style:dashed}
.chip.never{background:#f3f4f6;color:#9ca3af;border-color:#e5e7eb}
table.lines td{font-size:12px}table.lines td code{white-space:pre-wrap;word-break:break-all}
table.lines tr:target{background:#fef9c3;outline:2px solid #facc15}
footer{padding:6px 32px 28px;color:var(--muted);font-size:12px}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_leaves_no_markup_and_no_control_characters() {
        let line = "<script>alert(\"x\")</script></svg>'\u{1b}[31m\u{7}&";
        let out = text(line);
        assert_eq!(
            out,
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;/svg&gt;&#39;\\u{1b}[31m\\u{7}&amp;"
        );
        assert!(!out.contains('<') && !out.contains('"') && !out.chars().any(char::is_control));
    }

    #[test]
    fn utc_dates_and_durations() {
        assert_eq!(utc_date(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_date(1_796_347_800), "2026-12-04 01:30 UTC");
        assert_eq!(duration(4_000), "4 s");
        assert_eq!(duration(125_000), "2 min 5 s");
        assert_eq!(duration(3_600_000 * 26), "1 d 2 h");
    }

    #[test]
    fn lanes_sort_naturally() {
        let mut v = vec!["dn10", "dn2", "dn1"];
        v.sort_by_key(|n| natural(n));
        assert_eq!(v, ["dn1", "dn2", "dn10"]);
    }
}
