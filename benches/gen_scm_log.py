#!/usr/bin/env python3
"""Generate a large, realistic INFO-level SCM daemon log for throughput benchmarks.

    python3 benches/gen_scm_log.py --size 1G --out /tmp/scm-large.log
    python3 benches/gen_scm_log.py --mix dense --size 1G --out /tmp/scm-dense.log

Layout: Ozone's RollingFileAppender pattern `%d{ISO8601} [%t] %p %c: %m%n` (full logger FQCN).
Content: the leader SCM (scm1) of a 3-SCM / 30-datanode cluster. Almost every line comes from loggers
no conformance rule reads (Ratis, pipelines, container reports, replication, block deletion, safe mode,
IPC, node state). About 1 line in 60 comes from a logger some rule listens to (most of them Ratis
StateMachineUpdater and SCMStateMachine takeSnapshot lines that make no event), plus occasional stack traces, key
rotations, a step-down with snapshot install, and restarts with STARTUP_MSG banners (graceful ones
with SIGTERM/SHUTDOWN_MSG, crashes without). Message texts are Ozone / Ratis log templates
(see /work/shared/research/ozone-log-templates.jsonl and the Ozone source).
--mix dense is a busy SCM: about 59 % of the lines come from rule loggers (SCMStateMachine takeSnapshot,
Ratis 3.x StateMachineUpdater snapshot and updateIncreasingly lines) whose messages no rule matches,
with SegmentedRaftLogWorker segment lines beside them and the usual events.

Speed: one-minute blocks are rendered once from templates (a pool), with two placeholders left in
the bytes: the "yyyy-MM-dd HH:mm" timestamp prefix and a block counter that prefixes Raft indices.
Writing a block is two bytes.replace() calls and one large write, so the output runs at several
hundred MB/s. Timestamps increase monotonically; Raft indices increase with the block counter.
Deterministic for a given --seed and --size. Python 3 standard library only.
"""

import argparse
import bisect
import datetime
import itertools
import os
import random
import sys
import time
import uuid

PH_T = '\x01T\x01'          # replaced by "yyyy-MM-dd HH:mm" of the block's minute
PH_B = '\x01B\x01'          # replaced by the block number (monotonic prefix of Raft indices)
PH_T_B = PH_T.encode()
PH_B_B = PH_B.encode()

# logger FQCNs ------------------------------------------------------------------------------------
STARTER = 'org.apache.hadoop.hdds.scm.server.StorageContainerManagerStarter'
SCMM = 'org.apache.hadoop.hdds.scm.server.StorageContainerManager'
HA = 'org.apache.hadoop.hdds.scm.ha.SCMHAManagerImpl'                       # rule logger
SM = 'org.apache.hadoop.hdds.scm.ha.SCMStateMachine'                        # rule logger
SKS = 'org.apache.hadoop.hdds.security.symmetric.SecretKeyStateImpl'        # rule logger
LSKS = 'org.apache.hadoop.hdds.security.symmetric.LocalSecretKeyStore'      # rule logger
CVM = 'org.apache.hadoop.ozone.upgrade.ComponentVersionManager'             # rule logger
SKM = 'org.apache.hadoop.hdds.security.symmetric.SecretKeyManager'
SNAP = 'org.apache.hadoop.hdds.scm.ha.SCMSnapshotProvider'
CTX = 'org.apache.hadoop.hdds.scm.ha.SCMContext'
RATIS_SRV = 'org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl'
SEQ = 'org.apache.hadoop.hdds.scm.ha.SequenceIdGenerator'
DIV = 'org.apache.ratis.server.RaftServer$Division'
RSRV = 'org.apache.ratis.server.RaftServer'
SIH = 'org.apache.ratis.server.impl.SnapshotInstallationHandler'
SMU = 'org.apache.ratis.server.impl.StateMachineUpdater'
ROLE = 'org.apache.ratis.server.impl.RoleInfo'
LE = 'org.apache.ratis.server.impl.LeaderElection'
SRLW = 'org.apache.ratis.server.raftlog.segmented.SegmentedRaftLogWorker'
RLOG = 'org.apache.ratis.server.raftlog.RaftLog'
GLA = 'org.apache.ratis.grpc.server.GrpcLogAppender'
CRH = 'org.apache.hadoop.hdds.scm.container.ContainerReportHandler'
ICRH = 'org.apache.hadoop.hdds.scm.container.IncrementalContainerReportHandler'
CCEH = 'org.apache.hadoop.hdds.scm.container.CloseContainerEventHandler'
CMI = 'org.apache.hadoop.hdds.scm.container.ContainerManagerImpl'
PMI = 'org.apache.hadoop.hdds.scm.pipeline.PipelineManagerImpl'
PRH = 'org.apache.hadoop.hdds.scm.pipeline.PipelineReportHandler'
RPP = 'org.apache.hadoop.hdds.scm.pipeline.RatisPipelineProvider'
BPC = 'org.apache.hadoop.hdds.scm.pipeline.BackgroundPipelineCreator'
RM = 'org.apache.hadoop.hdds.scm.container.replication.ReplicationManager'
URP = 'org.apache.hadoop.hdds.scm.container.replication.UnhealthyReplicationProcessor'
ROH = 'org.apache.hadoop.hdds.scm.container.replication.RatisOverReplicationHandler'
SBDS = 'org.apache.hadoop.hdds.scm.block.SCMBlockDeletingService'
SDBT = 'org.apache.hadoop.hdds.scm.block.SCMDeletedBlockTransactionStatusManager'
SBPS = 'org.apache.hadoop.hdds.scm.server.SCMBlockProtocolServer'
NM = 'org.apache.hadoop.hdds.scm.node.SCMNodeManager'
NSM = 'org.apache.hadoop.hdds.scm.node.NodeStateManager'
STALE = 'org.apache.hadoop.hdds.scm.node.StaleNodeHandler'
DEAD = 'org.apache.hadoop.hdds.scm.node.DeadNodeHandler'
HBD = 'org.apache.hadoop.hdds.scm.server.SCMDatanodeHeartbeatDispatcher'
SAFE = 'org.apache.hadoop.hdds.scm.safemode.SCMSafeModeManager'
HPSR = 'org.apache.hadoop.hdds.scm.safemode.HealthyPipelineSafeModeRule'
IPC = 'org.apache.hadoop.ipc.Server'
CQM = 'org.apache.hadoop.ipc.CallQueueManager'

# Loggers some grammar rule listens to (`ozone-conform grammar`), for the generator's own count.
RULE_LOGGERS = (HA, SM, SKS, LSKS, CVM, SMU, DIV, LE, SIH, STARTER, SNAP, CTX, NM, HBD, RATIS_SRV, SCMM)

# cluster -------------------------------------------------------------------------------------------
GROUP_UUID = '7c1d4e2a-8b3f-4a6e-b5d2-9f3a1c2b4d5e'
GROUP = 'group-9F3A1C2B4D5E'
SCM1 = '2f3c8a91-6d4e-4b7a-9c1f-0e5d7b3a21e9'
SCM2 = '8b1e4f70-3a2c-4d9e-a6b5-7c0f9e2d1a34'
SCM3 = 'd4a7c2e5-91b8-4f3a-8e6d-5b2c0a9f7e16'
M1 = SCM1 + '@' + GROUP
PEERS = f'[{SCM1}|scm1:9894, {SCM2}|scm2:9894, {SCM3}|scm3:9894]'
SMU_T = M1 + '-StateMachineUpdater'
LOGW_T = M1 + '-SegmentedRaftLogWorker'
RATIS_DIR = f'/data/metadata/scm-ha/{GROUP_UUID}/current'
KEYFILE = '/data/metadata/scm/keys/secret_keys.json'
HOST = 'scm1/172.18.0.4'
CLASSPATH = ('/opt/ozone/etc/hadoop:/opt/ozone/share/ozone/lib/hdds-server-scm-2.2.0-SNAPSHOT.jar:'
             '/opt/ozone/share/ozone/lib/hdds-server-framework-2.2.0-SNAPSHOT.jar:'
             '/opt/ozone/share/ozone/lib/ratis-server-3.2.1.jar:/opt/ozone/share/ozone/lib/rocksdbjni-7.7.3.jar:'
             '/opt/ozone/share/ozone/lib/slf4j-reload4j-2.0.18.jar:/opt/ozone/share/ozone/lib/reload4j-1.2.26.jar')
CONF = ('{hdds.datanode.dir=/data/hdds, hdds.secret.key.expiry.duration=3d, hdds.secret.key.rotate.duration=4h, '
        'ozone.metadata.dirs=/data/metadata, ozone.scm.nodes.scmservice=scm1,scm2,scm3, '
        'ozone.scm.service.ids=scmservice, ozone.security.enabled=true}')
SIGNALS = 'registered UNIX signal handlers for [SIGHUP, SIGINT, SIGTERM]'


def prepare(block):
    """Split a rendered minute on both placeholders once, so that filling it in is a few bytes.join()
    calls (much faster than bytes.replace() on every block)."""
    return [seg.split(PH_T_B) for seg in block.split(PH_B_B)]


def fill(segs, tprefix, bno):
    return bno.join([tprefix.join(parts) for parts in segs])


def parse_size(s):
    s = s.strip().upper()
    mult = 1
    if s and s[-1] == 'B':
        s = s[:-1]
    if s and s[-1] in 'KMG':
        mult = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}[s[-1]]
        s = s[:-1]
    try:
        n = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f'bad size {s!r}: use e.g. 20M, 512K, 1G')
    if n <= 0:
        raise argparse.ArgumentTypeError('size must be positive')
    return int(n * mult)


def ri(r, a, b=None):
    """random.randrange(a, b) for the hot paths, without randrange's argument checking."""
    if b is None:
        a, b = 0, a
    return a + int(r.random() * (b - a))


class Cluster:
    """Random but fixed (seeded) identities: datanodes, pipelines, containers."""

    def __init__(self, rnd):
        self.rnd = rnd
        self.dns = []
        for i in range(1, 31):
            u = self.uuid()
            self.dns.append((u, f'{u}(dn{i}/172.18.1.{i + 10})'))
        self.pipes = [self.uuid() for _ in range(40)]
        self.pipe_nodes = {p: rnd.sample(range(len(self.dns)), 3) for p in self.pipes}

    def uuid(self):
        return str(uuid.UUID(int=self.rnd.getrandbits(128), version=4))

    def dn(self):
        return self.dns[int(self.rnd.random() * len(self.dns))]

    def pipe(self):
        return self.pipes[int(self.rnd.random() * len(self.pipes))]


class Minute:
    """Collects the events of one minute; renders them sorted by time with the placeholders left in."""

    def __init__(self):
        self.ev = []

    def add(self, ms, thread, level, logger, msg):
        self.ev.append((ms, len(self.ev), thread, level, logger, msg))

    def render(self):
        self.ev.sort()
        out = []
        for ms, _, th, lvl, lg, msg in self.ev:
            ms = min(ms, 59999)
            out.append(f'{PH_T}:{ms // 1000:02d},{ms % 1000:03d} [{th}] {lvl} {lg}: {msg}\n')
        return ''.join(out).encode('utf-8')

    def rule_lines(self):
        return sum(1 for e in self.ev if e[4] in RULE_LOGGERS)


# ------------------------------------------------------------------------------------------- noise
def n_container_report(m, c, ms):
    r = c.rnd
    cid = ri(r, 1, 60000)
    sid = ri(r, 10, 90000)
    u, d = c.dn()
    origin = c.dn()[0]
    kind = r.random()
    if kind < 0.45:
        m.add(ms, 'EventQueue-IncrementalContainerReportForIncrementalContainerReportHandler', 'INFO', ICRH,
              f'FINALIZE (i.e. CLOSING) Container #{cid} (OPEN, sid={sid}) r0 (CLOSING, bcsid={sid}, origin={origin}, non-empty) from dn {d}')
    elif kind < 0.85:
        m.add(ms, 'EventQueue-IncrementalContainerReportForIncrementalContainerReportHandler', 'INFO', ICRH,
              f'CLOSE Container #{cid} (CLOSING, sid={sid}) r0 (CLOSED, bcsid={sid}, origin={origin}, non-empty) from dn {d}')
    elif kind < 0.95:
        m.add(ms, 'EventQueue-ContainerReportForContainerReportHandler', 'INFO', CRH,
              f'QUASI_CLOSE Container #{cid} (CLOSING, sid={sid}) r0 (QUASI_CLOSED, bcsid={sid}, origin={origin}, non-empty) from dn {d}')
    else:
        m.add(ms, 'EventQueue-ContainerReportForContainerReportHandler', 'WARN', CRH,
              f'Replica BCSID mismatched for Container #{cid} (CLOSED, sid={sid}) r0 (QUASI_CLOSED, bcsid={sid - 3}, origin={origin}, non-empty) from dn {d} ')


def n_close_container(m, c, ms):
    cid = c.rnd.randrange(1, 60000)
    m.add(ms, 'EventQueue-CloseContainerForCloseContainerEventHandler', 'INFO', CCEH,
          f'Close container Event triggered for container : #{cid}, current state: OPEN')
    m.add(ms + 1, 'EventQueue-CloseContainerForCloseContainerEventHandler', 'INFO', PMI,
          f'Container #{cid} closed for pipeline=Pipeline-{c.pipe()}')


def n_pipeline(m, c, ms):
    r = c.rnd
    p = c.pipe()
    kind = r.random()
    if kind < 0.4:
        for k, i in enumerate(c.pipe_nodes[p]):
            m.add(ms + k, 'scm1-RatisPipelineUtilsThread - 0', 'INFO', RPP,
                  f'Sending CreatePipelineCommand for pipeline:Pipeline-{p} to datanode:{c.dns[i][0]}')
    elif kind < 0.7:
        m.add(ms, 'EventQueue-PipelineReportForPipelineReportHandler', 'INFO', PRH, f'Opened pipeline Pipeline-{p}')
    elif kind < 0.85:
        nodes = ''.join(f' {{{c.dns[i][1]}, ReplicaIndex: 0}},' for i in c.pipe_nodes[p])
        m.add(ms, 'scm1-BackgroundPipelineCreator', 'INFO', BPC,
              f'Created new pipeline Pipeline{{ Id: {p}, Nodes: [{nodes}], ReplicationConfig: RATIS/THREE, '
              f'State:ALLOCATED, leaderId:, CreationTimestamp2026-08-23T10:{ri(r, 60):02d}:{ri(r, 60):02d}.{ri(r, 1000):03d}Z[UTC]}}')
    else:
        m.add(ms, 'EventQueue-PipelineActionsForPipelineActionHandler', 'INFO', PMI, f'Pipeline Pipeline-{p} moved to CLOSED state')
        m.add(ms + 2, 'EventQueue-PipelineActionsForPipelineActionHandler', 'INFO', RPP,
              f'Send pipeline:Pipeline-{p} close command to datanode {c.dns[c.pipe_nodes[p][0]][0]}')


def n_replication(m, c, ms):
    r = c.rnd
    kind = r.random()
    if kind < 0.35:
        m.add(ms, 'scm1-ReplicationMonitor', 'INFO', RM,
              f'Replication Monitor Thread took {ri(r, 1, 400)} milliseconds for processing {ri(r, 20000, 60000)} containers.')
    elif kind < 0.7:
        n = ri(r, 1, 40)
        m.add(ms, 'scm1-UnderReplicatedProcessor', 'INFO', URP,
              f'Processed {n} containers with health state counts {{UNDER_REPLICATED={n}}}, failed processing 0, deferred due to load {ri(r, 3)}')
    elif kind < 0.85:
        cid = ri(r, 1, 60000)
        m.add(ms, 'scm1-OverReplicatedProcessor', 'INFO', ROH,
              f'Container #{cid} is over replicated. Actual replica count is 4, with 0 pending delete(s). Expected replica count is 3.')
    else:
        cid = ri(r, 1, 60000)
        u, d = c.dn()
        dl = 1787479200000 + ri(r, 10 ** 8)
        m.add(ms, 'scm1-OverReplicatedProcessor', 'INFO', RM,
              f'Sending command [deleteContainerCommand: containerID: {cid}, replicaIndex: 0, force: false] for container '
              f'#{cid} to {d} with datanode deadline {dl} and scm deadline {dl + 30000}')


def n_block_deletion(m, c, ms):
    r = c.rnd
    kind = r.random()
    if kind < 0.5:
        m.add(ms, 'scm1-SCMBlockDeletingService#0', 'INFO', SBDS,
              f'Totally added {ri(r, 0, 5000)} blocks to be deleted for {ri(r, 1, 30)} datanodes / 30 totalnodes, '
              f'limit per iteration : 500000blocks, task elapsed time: {ri(r, 1, 90)}ms')
    elif kind < 0.8:
        keys = ri(r, 1, 500)
        m.add(ms, f'IPC Server handler {ri(r, 100)} on default port 9863', 'INFO', SBPS,
              f'SCM is informed by OM to delete {keys} keys. Total blocks to deleted {keys * ri(r, 1, 4)}.')
        m.add(ms + 3, f'IPC Server handler {ri(r, 100)} on default port 9863', 'INFO', SBPS,
              f'Total number of blocks ACK by SCM in this cycle: {keys}')
    else:
        m.add(ms, f'IPC Server handler {ri(r, 100)} on default port 9861', 'WARN', SDBT,
              f'Got failed ACK for TXID {ri(r, 10 ** 6, 10 ** 7)}, prepare to resend the TX in next interval')


def n_ipc(m, c, ms):
    r = c.rnd
    h = ri(r, 100)
    port, proto, meth = r.choice([
        (9863, 'org.apache.hadoop.hdds.scm.protocol.ScmBlockLocationProtocol', 'send'),
        (9860, 'org.apache.hadoop.hdds.scm.protocol.StorageContainerLocationProtocol', 'submitRequest'),
        (9861, 'org.apache.hadoop.ozone.protocol.StorageContainerDatanodeProtocol', 'submitRequest'),
    ])
    ip = f'172.18.{r.choice((0, 1))}.{ri(r, 2, 60)}:{ri(r, 32768, 60999)}'
    err = r.choice([
        'output error',
        'org.apache.hadoop.hdds.scm.exceptions.SCMException: SafeModePrecheck failed for allocateBlock',
        'java.io.IOException: Connection reset by peer',
    ])
    m.add(ms, f'IPC Server handler {h} on default port {port}', 'INFO', IPC,
          f'IPC Server handler {h} on default port {port}, call Call#{ri(r, 10 ** 6)} Retry#0 {proto}.{meth} from {ip}: {err}')


def n_nodes(m, c, ms):
    r = c.rnd
    u, d = c.dn()
    kind = r.random()
    if kind < 0.3:
        m.add(ms, f'IPC Server handler {ri(r, 100)} on default port 9861', 'INFO', HBD,
              f'SCM received heartbeat from an unregistered datanode {d}. Asking datanode to re-register.')
        m.add(ms + 40, f'IPC Server handler {ri(r, 100)} on default port 9861', 'INFO', NM, f'Registered datanode: {d}')
    elif kind < 0.6:
        m.add(ms, 'EventQueue-StaleNodeForStaleNodeHandler', 'INFO', STALE,
              f'Datanode {d} moved to stale state. Finalizing its pipelines [Pipeline-{c.pipe()}, Pipeline-{c.pipe()}]')
    elif kind < 0.8:
        m.add(ms, 'EventQueue-DeadNodeForDeadNodeHandler', 'INFO', DEAD, f'A dead datanode is detected. {d}')
        m.add(ms + 1, 'EventQueue-DeadNodeForDeadNodeHandler', 'INFO', DEAD, f'Clearing command queue of size {ri(r, 40)} for DN {d}')
    else:
        m.add(ms, 'scm1-SCMNodeHeartbeatProcessor', 'INFO', NSM,
              'Detected long delay in scheduling HB processing thread. Skipping heartbeat checks for one iteration.')


def n_ratis(m, c, ms):
    r = c.rnd
    k = ri(r, 100, 899)
    kind = r.random()
    if kind < 0.5:
        m.add(ms, LOGW_T, 'INFO', SRLW, f'{LOGW_T}: Rolling segment log_inprogress_{PH_B}{k:03d} to index:{PH_B}{k + 99:03d}')
        m.add(ms + 3, LOGW_T, 'INFO', SRLW,
              f'{LOGW_T}: Rolled log segment from {RATIS_DIR}/log_inprogress_{PH_B}{k:03d} to {RATIS_DIR}/log_{PH_B}{k:03d}-{PH_B}{k + 99:03d}')
        m.add(ms + 5, LOGW_T, 'INFO', SRLW, f'{LOGW_T}: created new log segment {RATIS_DIR}/log_inprogress_{PH_B}{k + 100:03d}')
    elif kind < 0.75:
        m.add(ms, LOGW_T, 'INFO', RLOG, f'{M1}-SegmentedRaftLog: purgeIndex: updateToMax old={PH_B}000, new={PH_B}{k:03d}, updated? true')
        m.add(ms + 2, LOGW_T, 'INFO', SRLW,
              f'{LOGW_T}: Purged RaftLog segment: info=log_{PH_B}000-{PH_B}{k:03d}, path={RATIS_DIR}/log_{PH_B}000-{PH_B}{k:03d}')
    else:
        f = r.choice((SCM2, SCM3))
        m.add(ms, f'{M1}->{f}-GrpcLogAppender-LogAppenderDaemon', 'INFO', GLA,
              f'{M1}->{f}-GrpcLogAppender: updateNextIndex {PH_B}{k:03d} for INCONSISTENCY')


TRACE_CNF = (
    'org.apache.hadoop.hdds.scm.container.ContainerNotFoundException: Container with id #{cid} not found.\n'
    '\tat org.apache.hadoop.hdds.scm.container.ContainerStateManagerImpl.getContainer(ContainerStateManagerImpl.java:318)\n'
    '\tat org.apache.hadoop.hdds.scm.container.ContainerManagerImpl.getContainer(ContainerManagerImpl.java:170)\n'
    '\tat org.apache.hadoop.hdds.scm.container.IncrementalContainerReportHandler.onMessage(IncrementalContainerReportHandler.java:98)\n'
    '\tat org.apache.hadoop.hdds.scm.container.IncrementalContainerReportHandler.onMessage(IncrementalContainerReportHandler.java:46)\n'
    '\tat org.apache.hadoop.hdds.server.events.FixedThreadPoolWithAffinityExecutor$ContainerReportProcessTask.run(FixedThreadPoolWithAffinityExecutor.java:280)\n'
    '\tat java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1144)\n'
    '\tat java.base/java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:642)\n'
    '\tat java.base/java.lang.Thread.run(Thread.java:1583)')
TRACE_ALLOC = (
    'org.apache.hadoop.hdds.scm.exceptions.SCMException: java.util.concurrent.TimeoutException\n'
    '\tat org.apache.hadoop.hdds.scm.ha.SCMHAInvocationHandler.translateException(SCMHAInvocationHandler.java:152)\n'
    '\tat org.apache.hadoop.hdds.scm.ha.SCMHAInvocationHandler.invokeRatis(SCMHAInvocationHandler.java:115)\n'
    '\tat jdk.proxy2/jdk.proxy2.$Proxy31.addContainer(Unknown Source)\n'
    '\tat org.apache.hadoop.hdds.scm.container.ContainerManagerImpl.allocateContainer(ContainerManagerImpl.java:372)\n'
    '\tat org.apache.hadoop.hdds.scm.pipeline.WritableRatisContainerProvider.getContainer(WritableRatisContainerProvider.java:88)\n'
    '\tat org.apache.hadoop.hdds.scm.block.BlockManagerImpl.allocateBlock(BlockManagerImpl.java:167)\n'
    '\tat org.apache.hadoop.hdds.scm.server.SCMBlockProtocolServer.allocateBlock(SCMBlockProtocolServer.java:208)\n'
    '\tat org.apache.hadoop.ipc.Server$Handler.run(Server.java:3233)\n'
    'Caused by: java.util.concurrent.TimeoutException\n'
    '\tat java.base/java.util.concurrent.CompletableFuture.timedGet(CompletableFuture.java:1960)\n'
    '\tat java.base/java.util.concurrent.CompletableFuture.get(CompletableFuture.java:2095)\n'
    '\tat org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl.submitRequest(SCMRatisServerImpl.java:236)\n'
    '\t... 6 more')


def n_trace(m, c, ms):
    r = c.rnd
    cid = ri(r, 60000, 70000)
    u, d = c.dn()
    if r.random() < 0.6:
        m.add(ms, 'EventQueue-IncrementalContainerReportForIncrementalContainerReportHandler', 'INFO', ICRH,
              f'Failed to process Container #{cid} (NOT_FOUND) r0 (CLOSED, bcsid=12, origin={u}, non-empty) from dn {d}\n'
              + TRACE_CNF.format(cid=cid))
    else:
        p = c.pipe()
        m.add(ms, f'IPC Server handler {ri(r, 100)} on default port 9863', 'WARN', CMI,
              f'Container allocation failed on pipeline=Pipeline-{p}\n' + TRACE_ALLOC)


NOISE = [  # (weight, generator)
    (34, n_container_report), (6, n_close_container), (8, n_pipeline), (10, n_replication), (9, n_block_deletion),
    (14, n_ipc), (3, n_nodes), (6, n_ratis), (0.06, n_trace),
]


_CUM = list(itertools.accumulate(w for w, _ in NOISE))
_GEN = [g for _, g in NOISE]


def fill_noise(m, c, n_events):
    rand = c.rnd.random
    total = _CUM[-1]
    for _ in range(n_events):
        _GEN[bisect.bisect(_CUM, rand() * total)](m, c, int(rand() * 60000))


def rule_snapshot(m, c, ms):
    """SCMStateMachine.takeSnapshot (rule logger) and its Ratis companion (noise)."""
    k = c.rnd.randrange(100, 999)
    m.add(ms, SMU_T, 'INFO', SM, f'Current Snapshot Index {PH_B}{k:03d}, takeSnapshot took {c.rnd.randrange(2, 40)} ms')
    m.add(ms + 1, SMU_T, 'INFO', SMU, f'{SMU_T}: Took a snapshot at index {PH_B}{k:03d}')


def busy_snapshot(m, c, ms):
    """A busy SCM's takeSnapshot round (Ozone SCMStateMachine.takeSnapshot, Ratis 3.x
    StateMachineUpdater.takeSnapshot and its RaftLogIndex.updateIncreasingly, SegmentedRaftLogWorker
    rolling the log): three lines from rule loggers that no rule turns into an event, one from Ratis's
    log worker (no rule logger)."""
    r = c.rnd
    k = ri(r, 100, 899)
    m.add(ms, SMU_T, 'INFO', SM, f'Current Snapshot Index {PH_B}{k:03d}, takeSnapshot took {ri(r, 2, 40)} ms')
    m.add(ms + 1, SMU_T, 'INFO', SMU, f'{SMU_T}: Took a snapshot at index {PH_B}{k:03d}')
    m.add(ms + 1, SMU_T, 'INFO', SMU, f'{SMU_T}: snapshotIndex: updateIncreasingly {PH_B}{k - 1:03d} -> {PH_B}{k:03d}')
    m.add(ms + 3, LOGW_T, 'INFO', SRLW, f'{LOGW_T}: created new log segment {RATIS_DIR}/log_inprogress_{PH_B}{k + 1:03d}')


def normal_minute(c, lines_per_minute):
    m = Minute()
    n = max(100, int(c.rnd.gauss(lines_per_minute, lines_per_minute * 0.15)))
    if c.dense:
        # About 3/4 of the lines are busy snapshot rounds (3 of their 4 lines from rule loggers), the rest
        # noise: ~56 % of all lines from rule loggers.
        for _ in range(int(n * 0.18)):
            busy_snapshot(m, c, int(c.rnd.random() * 60000))
        fill_noise(m, c, int(n * 0.15))
    else:
        fill_noise(m, c, int(n * 0.62))    # a noise event averages ~1.6 lines
    target = max(0, round(len(m.ev) / 2000 + c.rnd.uniform(-0.5, 0.5)))
    for _ in range(target):
        rule_snapshot(m, c, c.rnd.randrange(60000))
    return m


# ------------------------------------------------------------------------------------ specials
def skey(u, created, micros=False):
    """ManagedSecretKey.toString. Keys that went through protobuf carry milliseconds; the generating
    leader prints its fresh key with the microsecond Instant from Instant.now()."""
    exp = created + datetime.timedelta(days=3)
    if micros:
        f = lambda t: t.strftime('%Y-%m-%dT%H:%M:%S.') + f'{t.microsecond:06d}Z'
    else:
        f = lambda t: t.strftime('%Y-%m-%dT%H:%M:%S.') + f'{t.microsecond // 1000:03d}Z'
    return f'SecretKey(id = {u}, creation at: {f(created)}, expire at: {f(exp)})'


class State:
    def __init__(self, c, start):
        self.term = 2
        self.keys = [(c.uuid(), start - datetime.timedelta(hours=4 * i, minutes=7)) for i in range(3)]  # newest first


def key_list(keys):
    return '[' + ', '.join(skey(u, t) for u, t in keys) + ']'


def special_rotation(c, st, when):
    m = normal_minute(c, 3000)
    u = c.uuid()
    created = when + datetime.timedelta(seconds=20, microseconds=c.rnd.randrange(980000, 999999))
    fresh = skey(u, created, micros=True)
    created = created.replace(microsecond=created.microsecond // 1000 * 1000)
    st.keys = [(u, created)] + [k for k in st.keys if created - k[1] < datetime.timedelta(days=3)][:17]
    m.add(21000, 'scm1-SecretKeyManagerService', 'INFO', SKM, f'SecretKey rotation is happening, new key generated {fresh}')
    m.add(21020, SMU_T, 'INFO', SKS, f'Updating keys with {key_list(st.keys)}')
    m.add(21020, SMU_T, 'INFO', SKS, f'Current key updated {skey(u, created)}')
    m.add(21031, SMU_T, 'INFO', LSKS, f'Saved {key_list(st.keys)} to file {KEYFILE}')
    return m


def special_install(c, st, when):
    """scm1 loses leadership, falls behind, installs the new leader's snapshot, later wins again."""
    m = normal_minute(c, 2000)
    t = st.term
    new_leader = SCM2
    ck = f'/data/metadata/snapshot/scm.db-scm2-{int(when.timestamp() * 1000) + 9000}'
    g = 'grpc-default-executor-3'
    ins = f'{PH_B}500'
    seq = [
        (1000, f'{M1}-LeaderStateImpl', 'INFO', DIV, f'{M1}: changes role from LEADER to FOLLOWER at term {t + 1} for stepDown'),
        (1001, f'{M1}-LeaderStateImpl', 'INFO', SM, f'SCM {SCM1} steps down from being leader.'),
        (1002, f'{M1}-LeaderStateImpl', 'INFO', CTX, f'update <isLeader,term> from <true,{t}> to <false,0>'),
        (1700, g, 'INFO', DIV, f'{M1}: change Leader from null to {new_leader} at term {t + 1} for appendEntries, leader elected after 700ms'),
        (1701, g, 'INFO', SM, f'Leader changed to {new_leader}, current SCM {SCM1} is still follower.'),
        (8000, g, 'INFO', SIH, f'{M1}: Received notification to install snapshot at index {PH_B}401'),
        (8001, g, 'INFO', SIH, f"{M1}: notifyInstallSnapshot: nextIndex is {PH_B}101 but the leader's first available index is {PH_B}401."),
        (8002, g, 'INFO', SM, f'Received install snapshot notification from SCM leader: scm2:9894 with term index: (t:{t + 1}, i:{PH_B}401)'),
        (8003, 'scm1-SCMInstallSnapshot-0', 'INFO', HA, 'Downloading checkpoint from leader SCM scm2 and reloading state from the checkpoint.'),
        (9800, 'scm1-SCMInstallSnapshot-0', 'INFO', SNAP, f'Successfully downloaded latest checkpoint from leader SCM: scm2 path {ck}'),
        (9802, 'scm1-SCMInstallSnapshot-0', 'INFO', HA, f'Downloaded checkpoint from Leader scm2 to the location {ck}'),
        (9803, 'scm1-SCMInstallSnapshot-0', 'INFO', HA, 'Getting secret keys from leader scm2.'),
        (9900, 'scm1-SCMInstallSnapshot-0', 'INFO', SM, f'Got secret keys from leaders {key_list(st.keys)}'),
        (9950, 'scm1-SCMInstallSnapshot-0', 'INFO', HA, f'{SCM1}: Verify checkpoint {t + 1}#{ins} from leader scm2'),
        (9951, 'scm1-SCMInstallSnapshot-0', 'INFO', SIH, f'{M1}: StateMachine successfully installed snapshot index {ins}. Reloading the StateMachine.'),
        (13000, g, 'INFO', SM, f'{SCM1}: Try to pause from current LifeCycle state SCMStateMachine:RUNNING'),
        (13002, g, 'INFO', SIH, f'{M1}: InstallSnapshot notification result: SNAPSHOT_INSTALLED, at index: (t:{t + 1}, i:{ins})'),
        (13010, SMU_T, 'INFO', HA, f'{SCM1}: Install checkpoint {t + 1}#{ins}'),
        (13230, SMU_T, 'INFO', HA, f'Replaced DB with checkpoint, term: {t + 1}, index: {ins}'),
        (13470, SMU_T, 'INFO', SEQ, 'reinitialize SequenceIdGenerator.'),
        (13820, SMU_T, 'INFO', HA, f'Reloaded SCM state with Term: {t + 1} and Index: {ins}'),
        (13821, SMU_T, 'INFO', SM, f'{SCM1}: SCMStateMachine is reinitializing. newTermIndex = (t:{t + 1}, i:{ins})'),
        (13833, SMU_T, 'INFO', SKS, f'Updating keys with {key_list(st.keys)}'),
        (13833, SMU_T, 'INFO', SKS, f'Current key updated {skey(*st.keys[0])}'),
        (13846, SMU_T, 'INFO', LSKS, f'Saved {key_list(st.keys)} to file {KEYFILE}'),
        (13848, SMU_T, 'INFO', SMU, f'{SMU_T}: snapshotIndex: setUnconditionally {PH_B}100 -> {ins}'),
        (13848, SMU_T, 'INFO', SMU, f'{SMU_T}: appliedIndex: setUnconditionally {PH_B}100 -> {ins}'),
        (41000, f'{M1}-LeaderElection7', 'INFO', LE,
         f'{M1}-LeaderElection7 ELECTION round 0: submit vote requests at term {t + 2} for conf: {{index: 12, cur=peers:{PEERS}|listeners:[], old=null}}'),
        (41040, f'{M1}-LeaderElection7', 'INFO', LE, f'{M1}-LeaderElection7 ELECTION round 0: result PASSED'),
        (41041, f'{M1}-LeaderElection7', 'INFO', DIV, f'{M1}: changes role from CANDIDATE to LEADER at term {t + 2} for changeToLeader'),
        (41043, f'{M1}-LeaderElection7', 'INFO', SM, f'current SCM {SCM1} becomes leader of term {t + 2}'),
        (41043, f'{M1}-LeaderElection7', 'INFO', CTX, f'update <isLeader,term> from <false,0> to <true,{t + 2}>'),
        (41120, SMU_T, 'INFO', DIV, f'Leader {M1} is ready since appliedIndex == startIndex == {PH_B}612'),
        (41121, SMU_T, 'INFO', CTX, 'update <isLeaderReady> from <false> to <true>'),
    ]
    for e in seq:
        m.add(*e)
    st.term = t + 2
    return m


def banner(kind, text):
    return (f'{kind}: \n/************************************************************\n' + text +
            '\n************************************************************/')


def special_restart(c, st, graceful, first=False):
    m = Minute()
    if not first:
        fill_noise(m, c, 600)   # the first 10 s of the minute, before the stop
        m.ev = [e for e in m.ev if e[0] < 10000]
    if graceful and not first:
        stop = [
            (10000, 'SIGTERM handler', 'ERROR', STARTER, 'RECEIVED SIGNAL 15: SIGTERM'),
            (10012, 'shutdown-hook-0', 'INFO', SCMM, 'Container Balancer is not running.'),
            (10013, 'shutdown-hook-0', 'INFO', SCMM, 'Stopping the Datanode Admin Monitor.'),
            (10014, 'shutdown-hook-0', 'INFO', SCMM, 'Stopping datanode service RPC server'),
            (10016, 'shutdown-hook-0', 'INFO', IPC, 'Stopping server on 9861'),
            (10030, 'shutdown-hook-0', 'INFO', SCMM, 'Stopping block service RPC server'),
            (10041, 'shutdown-hook-0', 'INFO', SCMM, 'Stopping the StorageContainerLocationProtocol RPC server'),
            (10077, 'shutdown-hook-0', 'INFO', SCMM, 'Stopping SCM HA services.'),
            (10078, 'shutdown-hook-0', 'INFO', RATIS_SRV, 'stopping ratis server scm1:9894'),
            (10080, 'shutdown-hook-0', 'INFO', RSRV, f'{SCM1}: close'),
            (10083, f'{SCM1}-impl-thread2', 'INFO', DIV, f'{M1}: shutdown'),
            (10094, SMU_T, 'INFO', SMU, f'{SMU_T}: Took a snapshot at index {PH_B}950'),
            (10130, 'shutdown-hook-0', 'INFO', SCMM, 'Stopping SCM MetadataStore.'),
            (10152, 'shutdown-hook-0', 'INFO', STARTER, banner('SHUTDOWN_MSG', f'SHUTDOWN_MSG: Shutting down StorageContainerManager at {HOST}')),
        ]
        for e in stop:
            m.add(*e)
    start = [
        (21000, 'main', 'INFO', STARTER, banner('STARTUP_MSG', '\n'.join([
            'STARTUP_MSG: Starting StorageContainerManager',
            f'STARTUP_MSG:        host = {HOST}',
            'STARTUP_MSG:     version = 2.2.0-SNAPSHOT',
            'STARTUP_MSG:       build = https://github.com/apache/ozone/78d5650c313f2fa0731bdf08b76d4604090dabca',
            'STARTUP_MSG:        java = 21.0.5',
            'STARTUP_MSG:        args = []',
            f'STARTUP_MSG:   classpath = {CLASSPATH}',
            f'STARTUP_MSG:        conf = {CONF}']))),
        (21007, 'main', 'INFO', STARTER, SIGNALS),
        (21390, 'main', 'WARN', 'org.apache.hadoop.hdds.server.ServerUtils',
         'ozone.scm.db.dirs is not configured. We recommend adding this setting. Falling back to ozone.metadata.dirs instead.'),
        (21880, 'main', 'INFO', CVM, 'Initializing version manager with apparent version ZDU (100) and software version ZDU (100)'),
        (22110, 'main', 'INFO', SM, f'Updated lastAppliedTermIndex {st.term}#{PH_B}960 with transactionInfo term andIndex'),
        (22150, 'main', 'INFO', RATIS_SRV, f'starting Raft server for scm:{SCM1}'),
        (22800, 'main', 'INFO', SCMM, 'SCM start with adminUsers: [hadoop]'),
        (22850, 'main', 'INFO', CQM, 'Using callQueue: class java.util.concurrent.LinkedBlockingQueue, queueCapacity: 10000, '
                                      'scheduler: class org.apache.hadoop.ipc.DefaultRpcScheduler, ipcBackoff: false, ipcFailOver: false.'),
        (22870, 'Socket Reader #1 for port 9861', 'INFO', IPC, 'Starting Socket Reader #1 for port 9861'),
        (22910, 'IPC Server listener on 9861', 'INFO', IPC, 'IPC Server listener on 9861: starting'),
        (23050, f'{SCM1}-impl-thread1', 'INFO', SM, f'{SCM1}: initialize {GROUP}'),
        (23062, f'{SCM1}-impl-thread1', 'INFO', DIV, f'{M1}: changes role from null to FOLLOWER at term {st.term} for startAsFollower'),
        (23064, f'{SCM1}-impl-thread1', 'INFO', ROLE, f'{SCM1}: start {M1}-FollowerState'),
        (23200, 'main', 'INFO', HA, f' scm role is FOLLOWER peers {PEERS}'),
        (25000, 'SCMSafeModeManager-PeriodicLogger', 'INFO', SAFE,
         '\nSCM SafeMode Status | state=INITIAL preCheckComplete=false validatedPreCheckRules=0/1 validatedRules=0/6'
         '\nSCM SafeMode Status | DataNodeSafeModeRule (waiting) registered datanodes (=0) >= required datanodes (=30)'
         '\nSCM SafeMode Status | HealthyPipelineSafeModeRule (waiting) healthy RATIS/THREE pipelines (=0) >= healthyPipelineThresholdCount (=4)'),
        (28400, f'{M1}-LeaderElection1', 'INFO', DIV, f'{M1}: changes role from CANDIDATE to LEADER at term {st.term + 1} for changeToLeader'),
        (28402, f'{M1}-LeaderElection1', 'INFO', SM, f'current SCM {SCM1} becomes leader of term {st.term + 1}'),
        (28402, f'{M1}-LeaderElection1', 'INFO', CTX, f'update <isLeader,term> from <false,0> to <true,{st.term + 1}>'),
        (31000, 'EventQueue-NodeRegistrationContainerReportForDataNodeSafeModeRule', 'INFO', SAFE, 'DataNodeSafeModeRule rule is successfully validated'),
        (33000, 'EventQueue-OpenPipelineForHealthyPipelineSafeModeRule', 'INFO', HPSR,
         'SCM in safe mode. Healthy pipelines: 4, threshold: 4, rule satisfied: true'),
        (33001, 'EventQueue-OpenPipelineForHealthyPipelineSafeModeRule', 'INFO', SAFE, 'HealthyPipelineSafeModeRule rule is successfully validated'),
        (34000, 'EventQueue-StateMachineReadyForStateMachineReadyRule', 'INFO', SAFE, 'ScmSafeModeManager, all rules are successfully validated'),
        (34000, 'EventQueue-StateMachineReadyForStateMachineReadyRule', 'INFO', SAFE, 'SCM exiting safe mode.'),
    ]
    for e in start:
        m.add(*e)
    st.term += 1
    n = Minute()                # container reports resume after safe mode exit
    fill_noise(n, c, 2000)
    m.ev.extend(e for e in n.ev if e[0] > 35000)
    return m


# ---------------------------------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--size', type=parse_size, default=parse_size('1G'), help='target size, e.g. 20M, 512K, 1G (default 1G)')
    ap.add_argument('--out', default='/tmp/scm-large.log', help='output file (default /tmp/scm-large.log); - for stdout')
    ap.add_argument('--seed', type=int, default=16923)
    ap.add_argument('--start', default='2026-08-23T00:00', help='timestamp of the first minute (yyyy-MM-ddTHH:mm)')
    ap.add_argument('--pool', type=int, default=24, help='distinct minute templates to cycle through (default 24)')
    ap.add_argument('--mix', choices=('sparse', 'dense'), default='sparse',
                    help='sparse: about 1 line in 2000 from a rule logger (default); dense: a busy SCM, at '
                         'least 45%% of the lines from rule loggers that no rule turns into an event')
    ap.add_argument('--lines-per-minute', type=int, default=6000, help='average log lines per minute (default 6000)')
    args = ap.parse_args()

    t0 = time.perf_counter()
    rnd = random.Random(args.seed)
    c = Cluster(rnd)
    c.dense = args.mix == 'dense'
    start = datetime.datetime.strptime(args.start, '%Y-%m-%dT%H:%M')
    st = State(c, start)

    pool = []
    want = args.pool
    while len(pool) < want:
        m = normal_minute(c, args.lines_per_minute)
        b = m.render()
        pool.append((prepare(b), b.count(b'\n'), m.rule_lines(), len(b)))
        if len(pool) == 1:      # small outputs need fewer distinct minutes
            want = max(1, min(args.pool, int(args.size / len(b)) + 1))
    avg = sum(p[3] for p in pool) / len(pool)
    n_blocks = int(args.size / avg) + 2
    # schedule of special minutes, proportional to the output size
    specials = {0: ('start',)}                          # the file starts with a STARTUP_MSG banner
    for k in range(240, n_blocks, 240):                 # key rotation every 4 hours of log
        specials[k] = ('rotation',)
    for k in range(400, n_blocks, 700):
        specials[k + 3] = ('install',)
    for j, k in enumerate(range(300, n_blocks, 300)):
        specials[k + 7] = ('restart', j % 2 == 1)      # alternate crash (kill -9: no SHUTDOWN_MSG) / graceful stop
    order = list(range(len(pool)))

    out = sys.stdout.buffer if args.out == '-' else open(args.out, 'wb')
    written = lines = blk = rule = 0
    done = False
    try:
        while written < args.size and not done:
            when = start + datetime.timedelta(minutes=blk)
            sp = specials.get(blk)
            if sp:
                if sp[0] == 'rotation':
                    m = special_rotation(c, st, when)
                elif sp[0] == 'install':
                    m = special_install(c, st, when)
                elif sp[0] == 'start':
                    m = special_restart(c, st, False, first=True)
                else:
                    m = special_restart(c, st, sp[1])
                segs, nl, r = prepare(m.render()), None, m.rule_lines()
            else:
                if blk % len(pool) == 0:
                    rnd.shuffle(order)
                segs, nl, r, _ = pool[order[blk % len(pool)]]
            data = fill(segs, when.strftime('%Y-%m-%d %H:%M').encode(), str(blk + 48).encode())
            room = args.size - written
            if len(data) > room:
                # stop at an event boundary: log4j never splits an event across a file end
                cut = data.rfind(b'\n' + when.strftime('%Y-').encode(), 0, room)
                if cut < 0:
                    break
                r = r * (cut + 1) // len(data)      # approximate for the truncated minute
                data = data[:cut + 1]
                nl = None
                done = True
            out.write(data)
            written += len(data)
            lines += nl if nl is not None else data.count(b'\n')
            rule += r
            blk += 1
    finally:
        if out is not sys.stdout.buffer:
            out.close()
    secs = time.perf_counter() - t0
    print(f'{lines} lines, {written} bytes, {blk} minutes of log written to {args.out} in {secs:.2f} s '
          f'({written / secs / 1e6:.0f} MB/s); ~{rule} lines from rule loggers (1 in {lines // max(rule, 1)})',
          file=sys.stderr if args.out == '-' else sys.stdout)


if __name__ == '__main__':
    main()
