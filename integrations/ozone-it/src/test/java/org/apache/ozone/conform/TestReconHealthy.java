package org.apache.ozone.conform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.OutputStream;
import java.util.HashMap;
import org.apache.hadoop.hdds.client.RatisReplicationConfig;
import org.apache.hadoop.hdds.protocol.proto.HddsProtos.ReplicationFactor;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.ozone.MiniOzoneCluster;
import org.apache.hadoop.ozone.client.ObjectStore;
import org.apache.hadoop.ozone.client.OzoneBucket;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.om.OMMetadataManager;
import org.apache.hadoop.ozone.recon.ReconServerConfigKeys;
import org.apache.ozone.test.GenericTestUtils;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * recon-healthy: the healthy twin of HDDS-16462's story, set up as Ozone 2.2.0's TestReconWithOzoneManager (one
 * datanode, Recon as a MiniOzoneCluster service, delta limit 10), with Recon's scheduled sync every 5 s. Recon takes its first
 * full snapshot, follows OM by deltas, is restarted cleanly (startup reconciliation with equal cursors) and follows
 * OM again; its OM DB copy ends at OM's key count.
 */
public class TestReconHealthy {
  private static final Logger LOG = LoggerFactory.getLogger(TestReconHealthy.class);

  @Test
  public void reconFollowsOmAcrossRestart() throws Exception {
    ScenarioResult result = new ScenarioResult("recon-healthy");
    OzoneConfiguration conf = new OzoneConfiguration();
    conf.setLong(ReconServerConfigKeys.RECON_OM_DELTA_UPDATE_LIMIT, 10);
    scheduleSyncs(conf);
    ConformReconService recon = new ConformReconService(conf);
    MiniOzoneCluster cluster = MiniOzoneCluster.newBuilder(conf).setNumDatanodes(1).addService(recon).build();
    try (OzoneClient client = cluster.newClient()) {
      cluster.waitForClusterToBeReady();
      cluster.getStorageContainerManager().exitSafeMode();
      ObjectStore store = client.getObjectStore();
      store.createVolume("vol1");
      store.getVolume("vol1").createBucket("bucket1");
      OzoneBucket bucket = store.getVolume("vol1").getBucket("bucket1");
      writeKeys(bucket, "a", 5);
      sync(recon);
      writeKeys(bucket, "b", 5);
      sync(recon);
      LOG.info("ozone-conform: restarting Recon");
      recon.stop();
      recon.start(conf);
      GenericTestUtils.waitFor(() -> recon.getReconServer() != null
          && recon.getReconServer().getOzoneManagerServiceProvider().getOMMetadataManagerInstance() != null,
          500, 60_000);
      writeKeys(bucket, "c", 5);
      sync(recon);
      OMMetadataManager om = cluster.getOzoneManager().getMetadataManager();
      OMMetadataManager reconOm = recon.getReconServer().getOzoneManagerServiceProvider()
          .getOMMetadataManagerInstance();
      long omKeys = om.countRowsInTable(om.getKeyTable(bucket.getBucketLayout()));
      long reconKeys = reconOm.countRowsInTable(reconOm.getKeyTable(bucket.getBucketLayout()));
      result.evidence("OM keys %d, Recon's OM DB keys %d", omKeys, reconKeys);
      result.write("n/a", omKeys == reconKeys ? "healthy: Recon follows OM across a clean restart"
          : "UNEXPECTED: Recon's OM DB differs from OM");
      assertEquals(omKeys, reconKeys);
    } finally {
      cluster.shutdown();
    }
  }

  static void writeKeys(OzoneBucket bucket, String prefix, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      byte[] data = (prefix + i).getBytes(StandardCharsets.UTF_8);
      try (OutputStream out = bucket.createKey(prefix + "-key-" + i, data.length,
          RatisReplicationConfig.getInstance(ReplicationFactor.ONE), new HashMap<>())) {
        out.write(data);
      }
    }
  }

  /** Recon's own scheduler (every 5 s here) syncs; wait for two rounds and the derived tasks. */
  static void sync(ConformReconService recon) throws Exception {
    Thread.sleep(12_000);
  }

  /**
   * Recon syncs on its own schedule, as a deployed Recon does (initial delay and interval 5 s), not by the test
   * calling syncDataFromOM() as TestReconWithOzoneManager does: only the scheduled sync prints "Last known sequence
   * number before sync" / "Sequence number after sync", which recon-om-sync reads.
   */
  static void scheduleSyncs(OzoneConfiguration conf) {
    conf.set(ReconServerConfigKeys.OZONE_RECON_OM_SNAPSHOT_TASK_INITIAL_DELAY, "5s");
    conf.set(ReconServerConfigKeys.OZONE_RECON_OM_SNAPSHOT_TASK_INTERVAL_DELAY, "5s");
  }
}
