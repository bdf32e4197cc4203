package org.apache.ozone.conform;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.protocol.proto.HddsProtos;
import org.apache.hadoop.hdds.scm.ScmConfigKeys;
import org.apache.hadoop.hdds.scm.container.common.helpers.ContainerWithPipeline;
import org.apache.hadoop.hdds.scm.protocol.StorageContainerLocationProtocol;
import org.apache.hadoop.hdds.scm.server.SCMStorageConfig;
import org.apache.hadoop.hdds.scm.server.StorageContainerManager;
import org.apache.hadoop.hdds.scm.server.upgrade.FinalizationCheckpoint;
import org.apache.hadoop.hdds.upgrade.HDDSLayoutFeature;
import org.apache.hadoop.ozone.HddsDatanodeService;
import org.apache.hadoop.ozone.MiniOzoneCluster;
import org.apache.hadoop.ozone.MiniOzoneHAClusterImpl;
import org.apache.hadoop.ozone.UniformDatanodesFactory;
import org.apache.ozone.test.GenericTestUtils;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * finalization-2.2.0: TestScmHAFinalization.testSnapshotFinalization of Ozone 2.2.0. Three SCMs (one inactive), one
 * OM, three datanodes, all at INITIAL_VERSION; the two running SCMs and the datanodes finalize; the log is advanced
 * and purged (gap 5, snapshot every 5); the third SCM starts, installs the leader's snapshot and finalizes from it.
 * HDDS-17089 is on the unreleased ZDU branch: this run is the released finalization, for the model's verdict on it.
 */
public class TestFinalization220 {
  private static final Logger LOG = LoggerFactory.getLogger(TestFinalization220.class);
  private static final String CLIENT_ID = UUID.randomUUID().toString();

  @Test
  public void snapshotFinalization() throws Exception {
    ScenarioResult result = new ScenarioResult("finalization-2.2.0");
    OzoneConfiguration conf = new OzoneConfiguration();
    conf.setBoolean(ScmConfigKeys.OZONE_SCM_HA_RAFT_LOG_PURGE_ENABLED, true);
    conf.setInt(ScmConfigKeys.OZONE_SCM_HA_RAFT_LOG_PURGE_GAP, 5);
    conf.setLong(ScmConfigKeys.OZONE_SCM_HA_RATIS_SNAPSHOT_THRESHOLD, 5);
    conf.setInt(SCMStorageConfig.TESTING_INIT_LAYOUT_VERSION_KEY, HDDSLayoutFeature.INITIAL_VERSION.layoutVersion());
    conf.set(ScmConfigKeys.OZONE_SCM_HA_RATIS_SERVER_RPC_FIRST_ELECTION_TIMEOUT, "5s");

    MiniOzoneHAClusterImpl.Builder builder = MiniOzoneCluster.newHABuilder(conf);
    builder.setNumOfStorageContainerManagers(3)
        .setNumOfActiveSCMs(2)
        .setSCMServiceId("scmservice")
        .setNumOfOzoneManagers(1)
        .setNumDatanodes(3)
        .setDatanodeFactory(UniformDatanodesFactory.newBuilder()
            .setLayoutVersion(HDDSLayoutFeature.INITIAL_VERSION.layoutVersion())
            .build());
    MiniOzoneHAClusterImpl cluster = builder.build();
    try {
      StorageContainerLocationProtocol scmClient = cluster.getStorageContainerLocationClient();
      cluster.waitForClusterToBeReady();
      StorageContainerManager inactive = cluster.getInactiveSCM().next();
      List<StorageContainerManager> active = new ArrayList<>();
      for (StorageContainerManager scm : cluster.getStorageContainerManagersList()) {
        if (!scm.getSCMNodeId().equals(inactive.getSCMNodeId())) {
          active.add(scm);
        }
      }
      LOG.info("ozone-conform: finalizing; inactive SCM {}", inactive.getSCMNodeId());
      try {
        scmClient.finalizeScmUpgrade(CLIENT_ID);
      } catch (Exception e) {
        LOG.info("ozone-conform: finalization client call failed", e);
      }
      for (StorageContainerManager scm : active) {
        waitForScmToFinalize(scm);
      }
      GenericTestUtils.waitFor(() -> cluster.getHddsDatanodes().stream().allMatch(dn ->
          dn.getDatanodeStateMachine().getLayoutVersionManager().getMetadataLayoutVersion()
              == dn.getDatanodeStateMachine().getLayoutVersionManager().getSoftwareLayoutVersion()), 1000, 120_000);
      for (HddsDatanodeService dn : cluster.getHddsDatanodes()) {
        result.evidence("datanode %s MLV %d", dn.getDatanodeDetails().getUuidString(),
            dn.getDatanodeStateMachine().getLayoutVersionManager().getMetadataLayoutVersion());
      }
      // TestScmHAFinalization allocates and closes 10 containers here; on this machine the allocation is refused
      // ("no suitable open pipeline with enough space": each reserves 5 GB), so the log is advanced with
      // replicated SequenceIdGenerator batches instead (see SecureScmHa.writeToIncreaseLogIndex).
      StorageContainerManager leader = cluster.getActiveSCM();
      SecureScmHa.writeToIncreaseLogIndex(leader, SecureScmHa.appliedIndex(leader) + 20);
      LOG.info("ozone-conform: starting the inactive SCM {}", inactive.getSCMNodeId());
      cluster.startInactiveSCM(inactive.getSCMNodeId());
      waitForScmToFinalize(inactive);
      for (StorageContainerManager scm : cluster.getStorageContainerManagersList()) {
        result.evidence("SCM %s MLV %d SLV %d checkpoint %s", scm.getSCMNodeId(),
            scm.getLayoutVersionManager().getMetadataLayoutVersion(),
            scm.getLayoutVersionManager().getSoftwareLayoutVersion(),
            scm.getScmContext().getFinalizationCheckpoint());
      }
      boolean ok = inactive.getLayoutVersionManager().getMetadataLayoutVersion()
          == inactive.getLayoutVersionManager().getSoftwareLayoutVersion();
      result.write("n/a", ok ? "healthy: all SCMs and datanodes finalized, the third SCM from the snapshot"
          : "UNEXPECTED: the snapshot-installed SCM did not finalize");
      assertTrue(ok);
    } finally {
      cluster.shutdown();
    }
  }

  private static void waitForScmToFinalize(StorageContainerManager scm) throws Exception {
    GenericTestUtils.waitFor(() -> !scm.isInSafeMode(), 500, 60_000);
    GenericTestUtils.waitFor(() -> {
      FinalizationCheckpoint checkpoint = scm.getScmContext().getFinalizationCheckpoint();
      LOG.info("Waiting for SCM {} (leader? {}) to finalize. Current finalization checkpoint is {}",
          scm.getSCMNodeId(), scm.checkLeader(), checkpoint);
      return checkpoint.hasCrossed(FinalizationCheckpoint.FINALIZATION_COMPLETE);
    }, 2_000, 120_000);
  }
}
