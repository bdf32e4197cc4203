//! `scm-secret-keys`: the inverse of [`super::witness`], printing each step of
//! `ScmSecretKeys` as SCM lines (`ozone-hadoop-scm-scmN.log`).
//!
//! Key `k` is a `SecretKey(id = <uuid>, creation at: <the step that made it>, expire at: ...)`; a key the
//! behaviour expires (`ExpireKey(k)` at step `j`) expires one second before step `j`'s time, so the lines
//! after it see it expired and the ones before do not; any other key expires 9 days after its creation.
//!
//! | action | lines |
//! |---|---|
//! | `BecomeLeader(s)` | `current SCM <scmId> becomes leader of term T`; with no keys in memory `Initializing SecretKeys.` then `Keys reloaded: [...]` (the key file's unexpired keys) or `No valid key has been loaded. A new key is generated: ...` |
//! | `RotateKey` | `SecretKey rotation is happening, new key generated ...` (leader) |
//! | `ReplicateKeys(s)` | `Updating keys with [...]`, `Current key updated ...`, `Saved [...] to file ...` |
//! | `NotifyInstall(s)` | `Received install snapshot notification from SCM leader ...`, `Downloaded checkpoint from Leader ...` |
//! | `FetchKeys(s)` | `Got secret keys from leaders [...]` |
//! | `ReplaceDb(s)` | `<scmId>: Install checkpoint T#N`, `Replaced DB with checkpoint, term: T, index: N` |
//! | `SaveKeys(s)` | (unpatched: `SCMStateMachine is reinitializing. newTermIndex = ...`), `Updating keys with [...]`, `Current key updated ...`, `Saved [...] to file ...` |
//! | `FailSave(s)` | ERROR `Failed to reinitialize SCMStateMachine.`, `... caught a Throwable.`, `Terminating with exit status 0: ...`, `SHUTDOWN_MSG` |
//! | `Stop(s)` | `RECEIVED SIGNAL 15: SIGTERM`, `Stopping SCM HA services.`, `SHUTDOWN_MSG` |
//! | `Restart(s)` | `STARTUP_MSG` banner, `Updated lastAppliedTermIndex ...` |
//! | `ExpireKey(k)`, `PurgeLog`, `Crash(s)` | nothing (hidden) |

use super::mirror::{Action, KeySet, ScmSecretKeys, State};
use crate::mirror::{Constants, Step};
use crate::refinement::scm::{self, HAM, STARTER};
use crate::refinement::{host_of, startup_banner, Behaviour, Logs, Render, Rng};
use crate::tla::value::TlaValue;

pub const MAX_LEN: usize = 40;

const SKM: &str = "org.apache.hadoop.hdds.security.symmetric.SecretKeyManager";
const SKS: &str = "org.apache.hadoop.hdds.security.symmetric.SecretKeyStateImpl";
const LKS: &str = "org.apache.hadoop.hdds.security.symmetric.LocalSecretKeyStore";
const SSM: &str = "org.apache.hadoop.hdds.scm.ha.SCMStateMachine";
const GROUP: &str = "group-9F3A1C2B4D5E";
const KEY_FILE: &str = "/data/metadata/scm/keys/secret_keys.json";
const NINE_DAYS_MS: i64 = 9 * 86_400_000;

struct Scm {
    value: String,
    host: String,
    ip: String,
    id: String,
    file: usize,
}

#[derive(Clone, Default)]
struct Key {
    uuid: String,
    created: i64,
    expires: Option<i64>,
}

pub struct Renderer {
    scms: Vec<Scm>,
    patched: bool,
    term: u64,
    /// Key `k` is `keys[k - 1]`.
    keys: Vec<Key>,
    /// Ratis index of log entry 0.
    base: u64,
}

/// `2026-08-23T11:00:00.000Z`, as `java.time.Instant` prints.
fn instant(ms: i64) -> String {
    let t = crate::refinement::ts_text(ms);
    format!("{}T{}.{}Z", &t[..10], &t[11..19], &t[20..23])
}

impl Renderer {
    fn idx(&self, v: &TlaValue) -> usize {
        let v = v.to_string();
        self.scms
            .iter()
            .position(|n| n.value == v)
            .expect("an SCM of the constants")
    }

    fn key(&self, k: u8) -> String {
        let key = &self.keys[usize::from(k) - 1];
        format!(
            "SecretKey(id = {}, creation at: {}, expire at: {})",
            key.uuid,
            instant(key.created),
            instant(key.expires.unwrap_or(key.created + NINE_DAYS_MS))
        )
    }

    fn list(&self, set: KeySet, newest_first: bool) -> String {
        let mut ks: Vec<u8> = set.iter().collect();
        if newest_first {
            ks.reverse();
        }
        let v: Vec<String> = ks.iter().map(|k| self.key(*k)).collect();
        format!("[{}]", v.join(", "))
    }

    fn updater(&self, s: usize) -> String {
        format!("{}@{GROUP}-StateMachineUpdater", self.scms[s].id)
    }

    /// `Updating keys with`, `Current key updated`, `Saved ... to file`: keys applied to memory and file.
    fn apply_keys(&self, s: usize, set: KeySet, logs: &mut Logs) {
        let (f, t) = (self.scms[s].file, self.updater(s));
        logs.record(
            f,
            &t,
            "INFO",
            SKS,
            &format!("Updating keys with {}", self.list(set, false)),
        );
        if let Some(newest) = set.iter().last() {
            logs.record(
                f,
                &t,
                "INFO",
                SKS,
                &format!("Current key updated {}", self.key(newest)),
            );
        }
        logs.record(
            f,
            &t,
            "INFO",
            LKS,
            &format!("Saved {} to file {KEY_FILE}", self.list(set, true)),
        );
    }

    fn start_lines(&self, s: usize, index: u64, logs: &mut Logs) {
        let n = &self.scms[s];
        logs.record(
            n.file,
            "main",
            "INFO",
            STARTER,
            &startup_banner("StorageContainerManager", &n.host, &n.ip, "hdds.block.token.enabled=true, hdds.secret.key.expiry.duration=9d, hdds.secret.key.rotate.duration=1d"),
        );
        logs.record(
            n.file,
            "main",
            "INFO",
            STARTER,
            "registered UNIX signal handlers for [SIGHUP, SIGINT, SIGTERM]",
        );
        logs.record(
            n.file,
            "main",
            "INFO",
            "org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl",
            &format!("starting Raft server for scm:{}", n.id),
        );
        logs.record(
            n.file,
            "main",
            "INFO",
            SSM,
            &format!(
                "Updated lastAppliedTermIndex {}#{index} with transactionInfo term andIndex",
                self.term
            ),
        );
    }

    fn stop_banner(&self, s: usize, logs: &mut Logs) {
        let n = &self.scms[s];
        scm::shutdown(logs, n.file, &n.host, &n.ip);
    }
}

impl Render<ScmSecretKeys> for Renderer {
    /// An SCM said to stop (or its logs to end) between the DB swap and the key save has, in its file, a
    /// `Replaced DB with checkpoint` that no `Saved [...]` follows before its next start. (The checkpoint's own
    /// key list is never logged: Ozone prints no line for it.)
    fn reason_holds(reason: &str, logs: &Logs) -> bool {
        const STARTUP: &str = "STARTUP_MSG: Starting";
        let file = |scm: &str| logs.text_of(&format!("ozone-hadoop-scm-{scm}.log"));
        if reason.starts_with("no snapshot install with secret keys") {
            // Nothing to check: no SCM fetched keys then swapped its DB, and no key set was applied with a key
            // in view before it (every `Updating keys with` is stamped at the first line that names a key).
            let scm_files = || {
                logs.files
                    .iter()
                    .filter(|f| f.name.starts_with("ozone-hadoop-scm-"))
            };
            let installed_with_keys = scm_files().any(|f| {
                f.text
                    .find("Got secret keys from leaders")
                    .is_some_and(|got| f.text[got..].contains("Replaced DB with checkpoint"))
            });
            let stamped = |needle: &str| -> Vec<i64> {
                scm_files()
                    .flat_map(|f| crate::refinement::stamped(&f.text, needle))
                    .collect()
            };
            let first_key = stamped("SecretKey(id = ").into_iter().min();
            let applied_after_history = stamped("Updating keys with")
                .into_iter()
                .any(|at| first_key.is_some_and(|first| first < at));
            return !installed_with_keys && !applied_after_history;
        }
        // The swap with no save after it, up to `upto` (the next start) or the end.
        let cut = |scm: &str, upto: Option<&str>| {
            crate::refinement::unfinished(
                file(scm),
                "Replaced DB with checkpoint",
                &["Saved ["],
                upto,
            )
        };
        let cut_before_restart = |scm: &str| cut(scm, Some(STARTUP));
        // A stop during the save: `Updating keys with` after the swap, then neither the save's line nor a
        // failure before the next start.
        let save_cut = |scm: &str| {
            crate::refinement::unfinished(
                file(scm),
                "Updating keys with",
                &["Saved [", "caught a Throwable"],
                Some(STARTUP),
            )
        };
        // A crash took `Replaced DB with checkpoint` with it: `Install checkpoint` is the install's last line
        // before the stop, the restart or the end.
        let swap_unseen = |scm: &str| {
            crate::refinement::unfinished(
                file(scm),
                "Install checkpoint",
                &["Replaced DB with checkpoint"],
                Some(STARTUP),
            )
        };
        // Each reason about one named SCM, and what that SCM's file must show for it to be true.
        type HoldsOf<'a> = &'a dyn Fn(&str) -> bool;
        let about_one_scm: [(&str, HoldsOf); 5] = [
            (
                "expired between its last line before the crash and its restart",
                &cut_before_restart,
            ),
            ("went down after `Install checkpoint`", &swap_unseen),
            ("an earlier save of them was cut off", &save_cut),
            ("whether its key file was written is not logged", &save_cut),
            (
                "stopped between `Replaced DB with checkpoint` and the key save",
                &cut_before_restart,
            ),
        ];
        let named = crate::refinement::named_after(reason, "SCM ");
        if about_one_scm
            .iter()
            .any(|(phrase, holds)| reason.contains(phrase) && named.iter().any(|scm| holds(scm)))
        {
            return true;
        }
        // The logs of some SCM end inside an install.
        let scms = ["scm1", "scm2", "scm3"];
        (reason.contains("logs end after `Install checkpoint`")
            && scms.iter().any(|scm| {
                crate::refinement::unfinished(
                    file(scm),
                    "Install checkpoint",
                    &["Replaced DB with checkpoint", STARTUP],
                    None,
                )
            }))
            || (reason.contains("logs end between `Replaced DB with checkpoint` and the key save")
                && scms.iter().any(|scm| cut(scm, None)))
    }
    /// A failed save ends with the SCM terminating: its last line shows the stop too.
    fn shows(witnessed: Action, took: Action) -> bool {
        witnessed == took || (witnessed == Action::Stop && took == Action::FailSave)
    }
    /// Purging the Raft log prints nothing and changes no key set; a key's expiry is shown by the instants
    /// the lines around it print.
    fn silent_and_irrelevant(action: Action) -> bool {
        matches!(action, Action::PurgeLog | Action::ExpireKey)
    }
    fn monitor() -> Box<dyn crate::monitor::Model> {
        Box::new(super::monitor::ScmSecretKeys::default())
    }
    fn causal_rules() -> &'static [&'static crate::timeline::causal::CausalRule] {
        crate::bugs::causal_rules()
    }

    fn start(
        _m: &ScmSecretKeys,
        constants: &Constants,
        _init: &State,
        rng: &mut Rng,
        logs: &mut Logs,
    ) -> Self {
        let scms: Vec<Scm> = crate::mirror::constants::model_values(constants, "Nodes")
            .expect("Nodes")
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let host = host_of(&TlaValue::model(v.as_str()), "scm");
                Scm {
                    value: v.clone(),
                    file: logs.file(&format!("ozone-hadoop-scm-{host}.log")),
                    host,
                    ip: format!("172.18.0.{}", 4 + i),
                    id: rng.uuid(),
                }
            })
            .collect();
        let max_keys = crate::mirror::constants::natural(constants, "MaxKeys").expect("MaxKeys");
        let r = Renderer {
            keys: (0..max_keys)
                .map(|_| Key {
                    uuid: rng.uuid(),
                    ..Key::default()
                })
                .collect(),
            scms,
            patched: crate::mirror::constants::boolean(constants, "SaveKeysBeforeDbSwap")
                .expect("SaveKeysBeforeDbSwap"),
            term: 1,
            base: rng.range(10, 60) as u64,
        };
        // Clusters run in every time zone: log time is local, key instants UTC, and the monitor must tell.
        const ZONES_MS: [i64; 6] = [0, 0, 3_600_000, -18_000_000, 19_800_000, 32_400_000];
        logs.utc_offset_ms = ZONES_MS[rng.below(ZONES_MS.len() as u64) as usize];
        for s in 0..r.scms.len() {
            r.start_lines(s, r.base, logs);
        }
        r
    }

    fn plan(&mut self, _m: &ScmSecretKeys, b: &Behaviour<State, Action>) {
        for (j, st) in b.steps.iter().enumerate() {
            let before = b.state(j);
            if st.next.last_key > before.last_key {
                self.keys[usize::from(st.next.last_key) - 1].created = Logs::step_start(j + 1);
            }
            if st.action == Action::ExpireKey {
                let k = st.params[0].as_i64().expect("a key id") as usize;
                self.keys[k - 1].expires = Some(Logs::step_start(j + 1) - 1_000);
            }
        }
    }

    fn weight(action: Action) -> u64 {
        match action {
            Action::PurgeLog
            | Action::NotifyInstall
            | Action::FetchKeys
            | Action::ReplaceDb
            | Action::FailSave => 8,
            Action::Crash => 2,
            Action::Stop => 1,
            _ => 4,
        }
    }

    fn step(
        &mut self,
        _m: &ScmSecretKeys,
        before: &State,
        step: &Step<State, Action>,
        _rng: &mut Rng,
        logs: &mut Logs,
    ) {
        let after = &step.next;
        match step.action {
            Action::BecomeLeader => {
                let s = self.idx(&step.params[0]);
                self.term += 1;
                let n = &self.scms[s];
                logs.record(
                    n.file,
                    &format!("{}@{GROUP}-LeaderElection{}", n.id, self.term),
                    "INFO",
                    SSM,
                    &format!("current SCM {} becomes leader of term {}", n.id, self.term),
                );
                if before.mem_keys[s].is_empty() {
                    let t = format!("{}-SecretKeyManagerService", n.host);
                    logs.record(n.file, &t, "INFO", SKM, "Initializing SecretKeys.");
                    let fresh = before.key_file[s].minus(before.expired);
                    if fresh.is_empty() {
                        let k = after.last_key;
                        logs.record(
                            n.file,
                            &t,
                            "INFO",
                            SKM,
                            &format!(
                                "No valid key has been loaded. A new key is generated: {}",
                                self.key(k)
                            ),
                        );
                    } else {
                        logs.record(
                            n.file,
                            &t,
                            "INFO",
                            SKM,
                            &format!("Keys reloaded: {}", self.list(fresh, false)),
                        );
                    }
                }
            }
            Action::RotateKey => {
                let l = before.leader.expect("RotateKey needs a leader");
                let n = &self.scms[l];
                logs.record(
                    n.file,
                    &format!("{}-SecretKeyManagerService", n.host),
                    "INFO",
                    SKM,
                    &format!(
                        "SecretKey rotation is happening, new key generated {}",
                        self.key(after.last_key)
                    ),
                );
            }
            Action::ReplicateKeys => {
                let s = self.idx(&step.params[0]);
                self.apply_keys(s, after.key_file[s], logs);
            }
            Action::NotifyInstall => {
                let s = self.idx(&step.params[0]);
                let l = before.leader.expect("NotifyInstall needs a leader");
                let idx = self.base + u64::from(after.ckpt_index[s]);
                let (n, ln) = (&self.scms[s], &self.scms[l]);
                logs.record(n.file, &format!("{}-server-thread1", n.id), "INFO", SSM, &format!("Received install snapshot notification from SCM leader: {}:9894 with term index: (t:{}, i:{idx})", ln.host, self.term));
                logs.record(n.file, &format!("{}-SCMInstallSnapshot-0", n.host), "INFO", HAM, &format!("Downloaded checkpoint from Leader {} to the location /data/metadata/snapshot/scm.db-{}-{}", ln.host, ln.host, Logs::step_start(0) + idx as i64));
            }
            Action::FetchKeys => {
                let s = self.idx(&step.params[0]);
                let n = &self.scms[s];
                logs.record(
                    n.file,
                    &format!("{}-SCMInstallSnapshot-0", n.host),
                    "INFO",
                    SSM,
                    &format!(
                        "Got secret keys from leaders {}",
                        self.list(after.fetched_keys[s], false)
                    ),
                );
            }
            Action::ReplaceDb => {
                let s = self.idx(&step.params[0]);
                let idx = self.base + u64::from(before.ckpt_index[s]);
                let (n, t) = (&self.scms[s], self.updater(s));
                scm::replace_db(logs, n.file, &t, &n.id, self.term, idx);
            }
            Action::SaveKeys => {
                let s = self.idx(&step.params[0]);
                if !self.patched {
                    let idx = self.base + u64::from(before.ckpt_index[s]);
                    let (n, t) = (&self.scms[s], self.updater(s));
                    logs.record(
                        n.file,
                        &t,
                        "INFO",
                        SSM,
                        &format!(
                            "{}: SCMStateMachine is reinitializing. newTermIndex = (t:{}, i:{idx})",
                            n.id, self.term
                        ),
                    );
                }
                self.apply_keys(s, after.key_file[s], logs);
            }
            Action::FailSave => {
                let s = self.idx(&step.params[0]);
                let (n, t) = (&self.scms[s], self.updater(s));
                logs.record(n.file, &t, "ERROR", SSM, &format!("Failed to reinitialize SCMStateMachine.\njava.io.IOException: Error saving SecretKeys to file {KEY_FILE}\n\tat org.apache.hadoop.hdds.security.symmetric.LocalSecretKeyStore.save(LocalSecretKeyStore.java:109)"));
                logs.record(
                    n.file,
                    &t,
                    "ERROR",
                    "org.apache.ratis.server.impl.StateMachineUpdater",
                    &format!("{}@{GROUP}-StateMachineUpdater caught a Throwable.", n.id),
                );
                logs.record(n.file, &t, "ERROR", "org.apache.hadoop.hdds.scm.server.StorageContainerManager", "Terminating with exit status 0: scm statemachine is closed by ratis, terminate SCM");
                self.stop_banner(s, logs);
            }
            Action::Stop => {
                let s = self.idx(&step.params[0]);
                scm::sigterm(logs, self.scms[s].file);
                self.stop_banner(s, logs);
            }
            Action::Restart => {
                let s = self.idx(&step.params[0]);
                self.start_lines(s, self.base + u64::from(before.db_index[s]), logs);
            }
            // Hidden: ExpireKey(k), PurgeLog, Crash(s).
            // Hidden: these print nothing.
            Action::ExpireKey | Action::PurgeLog | Action::Crash => {}
        }
    }
}
