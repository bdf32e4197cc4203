package org.apache.ozone.conform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * dn-healthy: the healthy twin of HDDS-16828's run. A writer hsyncs 100 bytes, writes and hsyncs 100 more, another
 * client recovers the lease (FinalizeBlock on the three datanodes) and the file closes at 200 bytes; the writer's
 * next hsync after the recovery is rejected (the datanode leader's BLOCK_ALREADY_FINALIZED check), as it should be.
 */
public class TestDnHealthy {
  private static final Logger LOG = LoggerFactory.getLogger(TestDnHealthy.class);

  @Test
  public void hsyncThenLeaseRecoveryThenRejectedHsync() throws Exception {
    ScenarioResult result = new ScenarioResult("dn-healthy");
    try (HsyncCluster hc = new HsyncCluster()) {
      FileSystem writerFs = hc.newFs();
      FileSystem recoveryFs = hc.newFs();
      Path file = new Path(hc.dir, "healthy-file");
      FSDataOutputStream out = writerFs.create(file, true);
      out.write(HsyncCluster.data(100, (byte) 1));
      out.hsync();
      out.write(HsyncCluster.data(100, (byte) 2));
      out.hsync();
      LOG.info("ozone-conform: writer hsynced 200 bytes; recovering the lease from another client");
      boolean recovered = false;
      for (int i = 0; i < 15 && !recovered; i++) {
        recovered = ((LeaseRecoverable) recoveryFs).recoverLease(file);
        if (!recovered) {
          Thread.sleep(1000);
        }
      }
      long len = recoveryFs.getFileStatus(file).getLen();
      result.evidence("recoverLease=%s, file closed=%s, length %d", recovered,
          ((LeaseRecoverable) recoveryFs).isFileClosed(file), len);
      out.write(HsyncCluster.data(100, (byte) 3));
      boolean rejected;
      try {
        out.hsync();
        rejected = false;
        result.evidence("hsync after the recovery returned normally (unexpected)");
      } catch (Exception e) {
        rejected = true;
        result.evidence("hsync after the recovery rejected: %s", e.toString().replace('\n', ' '));
      }
      try {
        out.close();
      } catch (Exception e) {
        LOG.info("ozone-conform: close of the recovered writer failed, as expected: {}", e.toString());
      }
      long lenAfter = recoveryFs.getFileStatus(file).getLen();
      result.evidence("file length after the writer's attempts: %d", lenAfter);
      boolean healthy = recovered && len == 200 && lenAfter == 200 && rejected;
      result.write("n/a", healthy ? "healthy: file closed at 200, the later hsync rejected"
          : "UNEXPECTED on the healthy path (see evidence)");
      assertTrue(recovered);
      assertEquals(200, lenAfter);
      assertTrue(rejected);
    }
  }
}
