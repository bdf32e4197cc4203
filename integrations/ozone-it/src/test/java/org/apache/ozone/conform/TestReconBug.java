package org.apache.ozone.conform;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.io.FileUtils;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.utils.db.DBCheckpoint;
import org.apache.hadoop.ozone.MiniOzoneCluster;
import org.apache.hadoop.ozone.client.ObjectStore;
import org.apache.hadoop.ozone.client.OzoneBucket;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.om.OMConfigKeys;
import org.apache.hadoop.ozone.om.OMMetadataManager;
import org.apache.hadoop.ozone.om.OzoneManager;
import org.apache.hadoop.ozone.recon.ReconServerConfigKeys;
import org.apache.hadoop.ozone.recon.tasks.OMUpdateEventBatch;
import org.apache.hadoop.ozone.recon.tasks.ReconOmTask;
import org.apache.ozone.test.GenericTestUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * recon-bug, HDDS-16462 as its report's steps describe: Recon follows OM; OM is restored from an earlier checkpoint
 * of its DB (a DR restore: om.db replaced, its Raft log dropped), so its sequence number is lower than what Recon
 * has processed; Recon's next delta fetch fails and it falls back to a full snapshot, which persists the cursors at
 * the new, lower sequence number and queues the derived-task reprocess; Recon stops ("crashes") before that
 * reprocess completes; on restart the strict-less-than reconciliation judges the derived tasks caught up.
 *
 * Harness hook (the only timing aid): a Recon task registered with Recon's task controller whose reprocess, once
 * armed, blocks until Recon is stopped, which holds the queued all-or-nothing reprocess in the window. In one JVM the
 * "crash" is ReconService.stop().
 */
public class TestReconBug {
  private static final Logger LOG = LoggerFactory.getLogger(TestReconBug.class);

  @TempDir
  private File workDir;

  @Test
  public void derivedTablesStayOnTheOldLineage() throws Exception {
    ScenarioResult result = new ScenarioResult("recon-bug");
    OzoneConfiguration conf = new OzoneConfiguration();
    conf.setLong(ReconServerConfigKeys.RECON_OM_DELTA_UPDATE_LIMIT, 10);
    TestReconHealthy.scheduleSyncs(conf);
    ConformReconService recon = new ConformReconService(conf);
    MiniOzoneCluster cluster = MiniOzoneCluster.newBuilder(conf).setNumDatanodes(1).addService(recon).build();
    AtomicBoolean armed = new AtomicBoolean(false);
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (OzoneClient client = cluster.newClient()) {
      cluster.waitForClusterToBeReady();
      cluster.getStorageContainerManager().exitSafeMode();
      ObjectStore store = client.getObjectStore();
      store.createVolume("vol1");
      store.getVolume("vol1").createBucket("bucket1");
      OzoneBucket bucket = store.getVolume("vol1").getBucket("bucket1");
      TestReconHealthy.writeKeys(bucket, "a", 3);
      TestReconHealthy.sync(recon);
      long container = bucket.getKey("a-key-0").getOzoneKeyLocations().get(0).getContainerID();

      OzoneManager om = cluster.getOzoneManager();
      DBCheckpoint cp = om.getMetadataManager().getStore().getCheckpoint(true);
      File saved = new File(workDir, "om-db-earlier");
      FileUtils.copyDirectory(cp.getCheckpointLocation().toFile(), saved);
      result.evidence("OM checkpoint (the earlier lineage) at sequence number %d", cp.getLatestSequenceNumber());

      TestReconHealthy.writeKeys(bucket, "b", 10);
      TestReconHealthy.sync(recon);
      TestReconHealthy.sync(recon);
      long before = recon.getReconServer().getReconContainerMetadataManager().getKeyCountForContainer(container);
      result.evidence("Recon's container %d key count on the old lineage: %d", container, before);

      // Register the hook now (the earlier reprocesses ran without it).
      recon.getReconServer().getReconTaskController().registerTask(new ReconOmTask() {
        @Override
        public String getTaskName() {
          return "ConformHoldReprocess";
        }

        @Override
        public TaskResult process(OMUpdateEventBatch events, Map<String, Integer> seek) {
          return new TaskResult.Builder().setTaskName(getTaskName()).setTaskSuccess(true).build();
        }

        @Override
        public TaskResult reprocess(OMMetadataManager omMetadataManager) {
          if (armed.compareAndSet(true, false)) {
            LOG.info("ozone-conform: holding the derived-task reprocess until Recon stops");
            held.countDown();
            try {
              release.await(120, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return new TaskResult.Builder().setTaskName(getTaskName()).setTaskSuccess(false).build();
          }
          return new TaskResult.Builder().setTaskName(getTaskName()).setTaskSuccess(true).build();
        }
      });

      // Armed before the restore: Recon's scheduler may run the failing delta fetch as soon as OM is back.
      armed.set(true);
      // OM restored from the earlier checkpoint: om.db replaced, its Raft log dropped (nothing to replay).
      File dbDir = om.getMetadataManager().getStore().getDbLocation();
      File ratisDir = new File(om.getConfiguration().get(OMConfigKeys.OZONE_OM_RATIS_STORAGE_DIR));
      LOG.info("ozone-conform: restoring OM from the earlier checkpoint: {} <- {}, dropping {}", dbDir, saved, ratisDir);
      om.stop();
      om.join();
      FileUtils.deleteDirectory(dbDir);
      FileUtils.copyDirectory(saved, dbDir);
      FileUtils.cleanDirectory(ratisDir);
      om.restart();
      GenericTestUtils.waitFor(om::isRunning, 500, 60_000);
      Thread.sleep(5000);
      OMMetadataManager omMeta = om.getMetadataManager();
      long omKeys = omMeta.countRowsInTable(omMeta.getKeyTable(bucket.getBucketLayout()));
      result.evidence("OM after the restore: %d keys", omKeys);

      LOG.info("ozone-conform: waiting for Recon's next sync after the OM restore");
      boolean wasHeld = held.await(60, TimeUnit.SECONDS);
      result.evidence("derived-task reprocess held after the full snapshot: %s", wasHeld);
      LOG.info("ozone-conform: stopping Recon before the reprocess completes");
      Thread stopper = new Thread(recon::stop, "conform-recon-stop");
      stopper.start();
      stopper.join(60_000);
      release.countDown();
      stopper.join(60_000);

      LOG.info("ozone-conform: restarting Recon");
      recon.start(conf);
      GenericTestUtils.waitFor(() -> recon.getReconServer() != null
          && recon.getReconServer().getOzoneManagerServiceProvider().getOMMetadataManagerInstance() != null,
          500, 60_000);
      TestReconHealthy.sync(recon);
      Thread.sleep(5000);
      long after = recon.getReconServer().getReconContainerMetadataManager().getKeyCountForContainer(container);
      // OM's restored lineage has omKeys keys in all; Recon serving more than that for one container means rows of
      // the old lineage (the keys may spread over containers, so this is a lower bound on the stale rows).
      long omInContainer = omKeys;
      result.evidence("after the restart: Recon's container %d key count %d, OM's current lineage has %d keys",
          container, after, omInContainer);
      boolean reproduced = wasHeld && after > omInContainer;
      result.write(reproduced ? "yes" : "no", reproduced
          ? "HDDS-16462 reproduced: Recon serves " + after + " keys for container " + container
              + ", OM's lineage has " + omInContainer
          : "not reproduced (see evidence)");
      assertTrue(reproduced, "HDDS-16462 reproduction");
    } finally {
      release.countDown();
      cluster.shutdown();
    }
  }
}
