//! Node identity: which node wrote each line. The scan names a line's node from what the line or its input
//! says (`--node`, the file name, a docker prefix, thread names); here the inputs are read together: a
//! process's own log takes its node from its banners, concatenated logs end a banner where another node's log
//! begins, aliases (an SCM's scmId and Ratis peer id) resolve to one node, rotated files inherit their
//! family's node, and one JVM's IPC handler lines go to the SCM serving that port.

use super::field;
use crate::event::NodeSource;
use crate::event_store::{Head, InputEvents, NO_NODE};
use crate::scan::InputStats;
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use std::collections::HashMap;
use std::sync::Arc;

/// Names every line's node, reading the inputs together. Gives which inputs are one JVM's output (several
/// processes in one file, no banner of their own), whose whole order is the truth.
pub(super) fn name_nodes(
    inputs: &mut [InputStats],
    per_input: &mut [InputEvents],
    test_output: Vec<bool>,
    max_skew_ms: i64,
    clock: &mut std::time::Instant,
) -> Vec<bool> {
    // Which inputs are one process's own log, whose banners start and stop it, in any layout. In the test layout
    // such an input takes its node from its banners here, as a daemon layout does while it is scanned.
    let mut test_output = test_output;
    for ((events, stats), single_jvm) in per_input
        .iter_mut()
        .zip(inputs.iter_mut())
        .zip(&mut test_output)
    {
        let own = banners_are_own(*single_jvm, events);
        if own && *single_jvm {
            attribute_to_banner_host(events, stats);
        }
        *single_jvm = !own;
    }
    crate::timings::phase("merge: identity: one process per input", clock);
    // One process's log per input, unless per-node logs were concatenated: a banner stops naming lines where
    // another node's log begins.
    for (i, events) in per_input.iter_mut().enumerate() {
        if !test_output.get(i).copied().unwrap_or(false) {
            end_banner_where_another_log_begins(events, max_skew_ms);
        }
    }
    crate::timings::phase("merge: identity: where another log begins", clock);
    let aliases = learn_aliases(per_input);
    crate::timings::phase("merge: identity: aliases", clock);
    for events in per_input.iter_mut() {
        resolve_nodes(events, &aliases);
    }
    crate::timings::phase("merge: identity: resolving nodes", clock);
    // The inputs' node lists name each SCM once, by its node id (not also by its scmId, as its Ratis threads do).
    for stats in inputs.iter_mut() {
        if stats.nodes.keys().any(|n| aliases.contains_key(n.as_str())) {
            let named = std::mem::take(&mut stats.nodes);
            for (n, from) in named {
                let canonical = aliases.get(n.as_str()).map_or(n, |c| c.to_string());
                stats.nodes.entry(canonical).or_insert(from);
            }
        }
    }
    inherit_family_nodes(inputs, per_input, &test_output);
    for events in per_input.iter_mut() {
        attribute_single_component(events);
    }
    crate::timings::phase(
        "merge: identity: rotated families, single components",
        clock,
    );
    test_output
}

/// Is this input one process's own log, so that its banners start and stop that process (a `STARTUP_MSG` with no
/// shutdown since the previous one is a crash)? `test_layout`: the input uses the test log4j pattern.
///
/// * A `failed to register any UNIX signal loggers` after a banner says the JVM had printed a banner before: an
///   in-JVM restart (MiniOzoneCluster's Recon), whose SHUTDOWN_MSGs come only at JVM exit. Never one process.
/// * Daemon layouts are one process per file (or per docker-compose stream).
/// * In the test layout, MiniOzoneCluster output holds every component in one file (and its SCMs and datanodes
///   print no banners), while a daemon run with the test pattern holds one: the input is one process when its
///   banners all name one service and host and no line comes from another component.
fn banners_are_own(test_layout: bool, events: &InputEvents) -> bool {
    if events
        .facts
        .may_hold(EventKind::SignalHandlersNotRegistered)
        && events
            .heads
            .iter()
            .any(|e| e.kind == EventKind::SignalHandlersNotRegistered)
    {
        return false;
    }
    if !test_layout {
        return true;
    }
    let mut banner: Option<(String, Option<String>)> = None;
    for h in events
        .heads
        .iter()
        .filter(|e| e.kind == EventKind::ProcessStarted)
    {
        let fields = events.data.fields(&h);
        let this = (
            field(&fields, "service")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            banner_host(&fields).map(String::from),
        );
        match &banner {
            None => banner = Some(this),
            Some(b) if *b == this => {}
            Some(_) => return false,
        }
    }
    let Some(component) = banner.and_then(|(service, _)| service_component(&service)) else {
        return false;
    };
    events.heads.iter().all(|e| {
        e.component == Component::Any || e.component == component || logged_by_every_process(e.kind)
    })
}

/// A text field of the event with head `h`.
fn text_field(events: &InputEvents, h: &Head, name: &str) -> Option<String> {
    match events.data.field(h, name) {
        Some(Value::Str(s)) => Some(s),
        _ => None,
    }
}

/// The host a `STARTUP_MSG` names (`host = scm1/172.18.0.4`).
fn banner_host<'f>(fields: &'f [(&'static str, Value)]) -> Option<&'f str> {
    match field(fields, "host") {
        Some(Value::HostIp { host, .. }) => Some(host.as_str()),
        _ => None,
    }
}

/// The component of a banner's `Starting <service>`.
fn service_component(service: &str) -> Option<Component> {
    Some(match service {
        "StorageContainerManager" => Component::Scm,
        "HddsDatanodeService" => Component::Datanode,
        "ReconServer" => Component::Recon,
        "OzoneManager" => Component::Om,
        _ => return None,
    })
}

/// Lines every kind of process logs: their rule's component says nothing about the process.
fn logged_by_every_process(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::VersionManagerInitialized | EventKind::VersionFinalized
    )
}

/// One process's log in the test layout: from each banner on, every line belongs to the node its `host =`
/// names, as in a daemon layout (no thread of a one-process log names another node; its Ratis threads name the
/// same process by its peer id). A stronger source (`--node`, file name, docker prefix) stays. Lines before the
/// first banner keep what their threads say. The input's node list is redone to match.
fn attribute_to_banner_host(events: &mut InputEvents, stats: &mut InputStats) {
    let mut host: Option<u32> = None;
    let mut changed = false;
    for i in 0..events.len() {
        let h = events.heads.get(i);
        if h.kind == EventKind::ProcessStarted {
            let fields = events.data.fields(&h);
            if let Some(name) = banner_host(&fields) {
                host = Some(events.node_id(&Arc::from(name)));
            }
        }
        let strong = matches!(
            h.node_from,
            Some(
                NodeSource::Cli
                    | NodeSource::FileName
                    | NodeSource::DockerPrefix
                    | NodeSource::Wrapper
            )
        );
        if let (Some(n), false) = (host, strong) {
            events
                .heads
                .set(i, h.with_node(n, Some(NodeSource::Banner)));
            changed = true;
        }
    }
    if changed {
        events.facts.banner_named = true;
        stats.nodes.clear();
        for h in events.heads.iter() {
            if let (Some(n), Some(from)) = (events.node_name(&h), h.node_from) {
                stats.nodes.entry(n.to_string()).or_insert_with(|| {
                    serde_json::to_value(from)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                });
            }
        }
    }
}

/// In a daemon-layout input, a banner's `host =` names the node of the lines after it, up to the next banner.
/// Per-node logs concatenated into one input break that when a part has no banner of its own (a log that
/// starts mid-run): its lines would be taken for the previous node's. Another node's log begins where a
/// thread names a process identity (Ratis peer, node-id prefix) not seen since the banner while the clock
/// goes back by more than the skew tolerance, or where a thread names a peer UUID other than the process's
/// own (its `starting Raft server for scm:<id>`, else the first UUID its threads name: SCM and datanode
/// threads carry only their own). From there on, up to the next banner, lines get only the node their thread
/// names (or none), never the banner's.
pub(super) fn end_banner_where_another_log_begins(events: &mut InputEvents, max_skew_ms: i64) {
    // Only lines a banner named are looked at.
    if !events.facts.banner_named {
        return;
    }
    let mut seen: std::collections::HashSet<Arc<str>> = Default::default();
    let mut latest: Option<i64> = None;
    let mut unnamed = false;
    let mut own_uuid: Option<Arc<str>> = None;
    let is_uuid = |s: &str| crate::value::is_uuid(s.as_bytes());
    // What a thread name names, asked once per thread.
    let mut named_by_thread: HashMap<u32, Option<(Arc<str>, NodeSource)>> = HashMap::new();
    for i in 0..events.len() {
        let h = events.heads.get(i);
        if h.kind == EventKind::ProcessStarted {
            seen.clear();
            latest = None;
            unnamed = false;
            own_uuid = None;
        }
        if h.kind == EventKind::ScmRaftServerCreated && !unnamed {
            if let Some(id) = text_field(events, &h, "scm_id") {
                own_uuid = Some(id.as_str().into());
            }
        }
        if h.node_from != Some(NodeSource::Banner) {
            continue;
        }
        let named = named_by_thread
            .entry(h.thread)
            .or_insert_with(|| crate::node::from_thread(events.thread(&h), &[]))
            .clone();
        if !unnamed {
            // By more than the skew tolerance: an async appender's lines may be a few ms out of order.
            let went_back =
                matches!((latest, h.time()), (Some(l), Some(t)) if l - t.millis > max_skew_ms);
            if let Some((id, _)) = &named {
                let other_peer = is_uuid(id) && own_uuid.as_ref().is_some_and(|o| o != id);
                if other_peer || (went_back && !seen.contains(id)) {
                    unnamed = true;
                } else {
                    if is_uuid(id) && own_uuid.is_none() {
                        own_uuid = Some(id.clone());
                    }
                    seen.insert(id.clone());
                }
            }
            if let Some(t) = h.time() {
                latest = Some(latest.map_or(t.millis, |l| l.max(t.millis)));
            }
        }
        if unnamed {
            let (node, from) = match named {
                Some((n, from)) => (events.node_id(&n), Some(from)),
                None => (NO_NODE, None),
            };
            events.facts.nodeless |= node == NO_NODE;
            events.heads.set(i, h.with_node(node, from));
        }
    }
}

/// The rotated parts of one log (consecutive inputs with the same live file, as `input::resolve` orders
/// them) are one process's output: a part without a banner (the banner is in an older part) keeps the node
/// the family's banner named, instead of falling back to thread-name prefixes that split one node in two.
fn inherit_family_nodes(
    inputs: &[InputStats],
    per_input: &mut [InputEvents],
    test_output: &[bool],
) {
    let family = |i: usize| -> Option<std::path::PathBuf> {
        let path = &inputs[i].path;
        (path != "-" && !test_output.get(i).copied().unwrap_or(false))
            .then(|| crate::input::rotation_base(std::path::Path::new(path)))
    };
    let mut start = 0;
    while start < inputs.len() {
        let base = family(start);
        let mut end = start + 1;
        while end < inputs.len() && base.is_some() && family(end) == base {
            end += 1;
        }
        if end - start > 1 {
            let weak = |from: Option<NodeSource>| {
                matches!(
                    from,
                    None | Some(
                        NodeSource::ThreadPrefix
                            | NodeSource::RatisMember
                            | NodeSource::Context
                            | NodeSource::IpcPort
                    )
                )
            };
            // Before the first banner of the family, its host is the best word there is.
            let mut current: Option<Arc<str>> = per_input[start..end].iter().find_map(|events| {
                events
                    .heads
                    .iter()
                    .find(|e| e.node_from == Some(NodeSource::Banner))
                    .and_then(|h| events.node_name(&h).cloned())
            });
            for events in &mut per_input[start..end] {
                let mut current_id: Option<(Arc<str>, u32)> = None;
                for i in 0..events.len() {
                    let h = events.heads.get(i);
                    if h.node_from == Some(NodeSource::Banner) {
                        current = events.node_name(&h).cloned();
                    } else if let Some(host) = current.as_ref().filter(|_| weak(h.node_from)) {
                        let id = match &current_id {
                            Some((name, id)) if name == host => *id,
                            _ => {
                                let id = events.node_id(host);
                                current_id = Some((host.clone(), id));
                                id
                            }
                        };
                        events
                            .heads
                            .set(i, h.with_node(id, Some(NodeSource::Banner)));
                        events.facts.banner_named = true;
                    }
                }
            }
        }
        start = end;
    }
}

/// scmId → SCM node id, from `Found matching SCM address ... SCMNodeId: N` followed on the same thread by
/// `starting Raft server for scm:<scmId>` (SCM construction).
fn learn_aliases(per_input: &[InputEvents]) -> HashMap<Arc<str>, Arc<str>> {
    let mut aliases = HashMap::new();
    for events in per_input {
        if !events.facts.may_hold(EventKind::ScmRaftServerCreated) {
            continue;
        }
        let mut pending: HashMap<u32, Arc<str>> = HashMap::new();
        for h in events.heads.iter() {
            match h.kind {
                EventKind::ScmNodeIdentified => {
                    if let Some(id) = text_field(events, &h, "node_id") {
                        pending.insert(h.thread, id.as_str().into());
                    }
                }
                EventKind::ScmRaftServerCreated => {
                    if let (Some(node_id), Some(scm_id)) =
                        (pending.remove(&h.thread), text_field(events, &h, "scm_id"))
                    {
                        aliases.insert(Arc::<str>::from(scm_id.as_str()), node_id);
                    }
                }
                _ => {}
            }
        }
    }
    aliases
}

/// Gives node-less events of single-JVM output the node their context names, and every node its canonical
/// name (the SCM node id rather than its scmId).
fn resolve_nodes(events: &mut InputEvents, aliases: &HashMap<Arc<str>, Arc<str>>) {
    // A head with a node keeps it unless an alias renames it; contexts and ports name only node-less heads.
    if !events.facts.nodeless && !events.nodes.iter().any(|n| aliases.contains_key(n)) {
        return;
    }
    let canonical = |n: &Arc<str>| aliases.get(n).cloned().unwrap_or_else(|| n.clone());
    // Thread numbers are the input's own: contexts are kept by thread number.
    let mut context: HashMap<u32, Arc<str>> = HashMap::new();
    // Threads with an SCM context on which another component has since been built (MiniOzoneCluster starts
    // datanodes on `main` after the SCMs): the version-manager lines every process logs are no longer the SCM's.
    let mut other_built: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut ports: HashMap<u16, Arc<str>> = HashMap::new();
    let mut port_of_thread: HashMap<u32, Option<u16>> = HashMap::new();
    // The canonical node number of each of the input's node numbers, as found.
    let mut canonical_id: Vec<Option<u32>> = Vec::new();
    for i in 0..events.len() {
        let h = events.heads.get(i);
        match h.kind {
            EventKind::ScmNodeIdentified => {
                if let Some(id) = text_field(events, &h, "node_id") {
                    context.insert(h.thread, id.as_str().into());
                    other_built.remove(&h.thread);
                }
            }
            EventKind::HarnessScmShutdown => {
                if let Some(id) = text_field(events, &h, "scm_id") {
                    context.insert(h.thread, canonical(&Arc::from(id.as_str())));
                    other_built.remove(&h.thread);
                }
            }
            _ => {}
        }
        // A banner of another service on an SCM's thread (a datanode started on `main` by its own main
        // method) is that service's line: it starts no SCM.
        let other_banner = h.kind == EventKind::ProcessStarted
            && text_field(events, &h, "service")
                .is_some_and(|s| s.as_str() != "StorageContainerManager");
        if (other_banner
            || matches!(
                h.component,
                Component::Datanode | Component::Recon | Component::Om
            ))
            && context.contains_key(&h.thread)
        {
            other_built.insert(h.thread);
        }
        let mut node = h.node;
        let mut node_from = h.node_from;
        if node == NO_NODE {
            let every_process = matches!(
                h.kind,
                EventKind::VersionManagerInitialized | EventKind::VersionFinalized
            );
            let port = *port_of_thread
                .entry(h.thread)
                .or_insert_with(|| ipc_port(events.thread(&h)));
            if let Some(n) = port.and_then(|p| ports.get(&p)) {
                node = events.node_id(n);
                node_from = Some(NodeSource::IpcPort);
            } else if let Some(n) = context
                .get(&h.thread)
                .filter(|_| !(every_process && other_built.contains(&h.thread)))
            {
                if matches!(h.component, Component::Scm | Component::Any) && !other_banner {
                    node = events.node_id(n);
                    node_from = Some(NodeSource::Context);
                }
            }
        }
        if node != NO_NODE {
            let k = node as usize;
            if canonical_id.len() <= k {
                canonical_id.resize(k + 1, None);
            }
            node = match canonical_id[k] {
                Some(c) => c,
                None => {
                    let name = canonical(&events.nodes[k]);
                    let c = events.node_id(&name);
                    canonical_id[k] = Some(c);
                    c
                }
            };
        }
        events.heads.set(i, h.with_node(node, node_from));
        if h.kind == EventKind::RpcServerListening && node != NO_NODE {
            if let Some(addr) = text_field(events, &h, "address") {
                if let Some(port) = addr.rsplit(':').next().and_then(|p| p.trim().parse().ok()) {
                    ports.insert(port, events.nodes[node as usize].clone());
                }
            }
        }
    }
}

/// In one input, a node-less event of a component that has exactly one node there belongs to that node
/// (Recon's unprefixed `ReconTaskThread-N` threads in test output, with one Recon).
fn attribute_single_component(events: &mut InputEvents) {
    if !events.facts.nodeless {
        return;
    }
    // Every kind of process logs the version-manager lines: their rule's component says nothing.
    let shared = |k: EventKind| {
        matches!(
            k,
            EventKind::VersionManagerInitialized | EventKind::VersionFinalized
        )
    };
    let mut nodes: HashMap<Component, std::collections::BTreeSet<u32>> = HashMap::new();
    for h in events.heads.iter() {
        if let (Some(n), c) = (h.node(), h.component) {
            if c != Component::Any && !shared(h.kind) {
                nodes.entry(c).or_default().insert(n);
            }
        }
    }
    events.heads.update(|h| {
        if h.has_node() || shared(h.kind) {
            return;
        }
        if let Some(&only) = nodes
            .get(&h.component)
            .filter(|s| s.len() == 1)
            .and_then(|s| s.iter().next())
        {
            h.node = only;
            h.node_from = Some(NodeSource::Context);
        }
    });
}

/// `IPC Server handler 3 on default port 15062` / `IPC Server handler 3 on 9861`: the port.
pub(super) fn ipc_port(thread: &str) -> Option<u16> {
    let rest = thread.strip_prefix("IPC Server handler ")?;
    let (_, port) = rest.rsplit_once(' ')?;
    port.parse().ok()
}

/// The service of each node: from its file name or banner, else from the rules its events came from.
pub(super) fn learn_services(
    inputs: &[InputStats],
    per_input: &[InputEvents],
) -> rustc_hash::FxHashMap<Arc<str>, Component> {
    let mut services = rustc_hash::FxHashMap::default();
    for (stats, events) in inputs.iter().zip(per_input) {
        let from_name = std::path::Path::new(&stats.path)
            .file_name()
            .and_then(|n| crate::node::from_file_name(&n.to_string_lossy()))
            .and_then(|(_, service)| Component::from_name(&service));
        // A node keeps the first service found for it: once each of the input's nodes has one, the rest of
        // its heads can tell nothing (a file-named daemon log is decided by its first head).
        let mut decided: Vec<bool> = events
            .nodes
            .iter()
            .map(|n| services.contains_key(n))
            .collect();
        let mut open = decided.iter().filter(|d| !**d).count();
        for h in events.heads.iter() {
            if open == 0 {
                break;
            }
            let Some(n) = h.node() else {
                continue;
            };
            if decided[n as usize] {
                continue;
            }
            let service = from_name.or_else(|| match h.kind {
                EventKind::ProcessStarted => match text_field(events, &h, "service").as_deref() {
                    Some("StorageContainerManager") => Some(Component::Scm),
                    Some("HddsDatanodeService") => Some(Component::Datanode),
                    Some("ReconServer") => Some(Component::Recon),
                    Some("OzoneManager") => Some(Component::Om),
                    _ => None,
                },
                // Logged by every kind of process: they tell nothing.
                EventKind::VersionManagerInitialized | EventKind::VersionFinalized => None,
                _ => Some(h.component).filter(|c| *c != Component::Any),
            });
            if let Some(s) = service {
                services.insert(events.nodes[n as usize].clone(), s);
                decided[n as usize] = true;
                open -= 1;
            }
        }
    }
    services
}
