package org.apache.ozone.conform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.hdds.scm.server.StorageContainerManager;
import org.apache.hadoop.hdds.security.symmetric.ManagedSecretKey;
import org.apache.hadoop.hdds.security.symmetric.SecretKeyManager;
import org.apache.ozone.test.GenericTestUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * keys-healthy: TestSecretKeySnapshot's run, then the follower that installed the snapshot is restarted cleanly
 * and leadership is transferred to it. Every unexpired key must survive (the healthy twin of HDDS-16923's run).
 */
public class TestKeysHealthy {
  private static final Logger LOG = LoggerFactory.getLogger(TestKeysHealthy.class);

  @TempDir
  private File workDir;

  @Test
  public void keysSurviveSnapshotInstallRestartAndLeadershipTransfer() throws Exception {
    ScenarioResult result = new ScenarioResult("keys-healthy");
    try (SecureScmHa ha = new SecureScmHa(workDir)) {
      StorageContainerManager leader = ha.cluster.getScmLeader();
      assertNotNull(leader);
      String followerId = ha.cluster.getInactiveSCM().next().getSCMNodeId();
      StorageContainerManager follower = ha.cluster.getSCM(followerId);
      SecretKeyManager leaderKeys = leader.getSecretKeyManager();
      LOG.info("ozone-conform: leader {} ({}), inactive follower {} ({})", leader.getSCMNodeId(),
          leader.getScmId(), followerId, follower.getScmId());

      GenericTestUtils.waitFor(() -> leaderKeys.getSortedKeys().size() >= 2,
          SecureScmHa.ROTATE_CHECK_DURATION_MS, SecureScmHa.ROTATE_DURATION_MS * 2);
      SecureScmHa.writeToIncreaseLogIndex(leader, 200);
      List<ManagedSecretKey> keysBefore = leaderKeys.getSortedKeys();
      result.evidence("leader %s keys before install: %s", leader.getSCMNodeId(), ids(keysBefore));

      LOG.info("ozone-conform: starting the inactive SCM {}", followerId);
      ha.cluster.startInactiveSCM(followerId);
      GenericTestUtils.waitFor(() -> SecureScmHa.appliedIndex(follower) >= 200, 100, 30_000);
      GenericTestUtils.waitFor(() -> follower.getSecretKeyManager().getSortedKeys().containsAll(keysBefore),
          100, 30_000);
      result.evidence("follower %s applied index %d after install, keys %s", followerId,
          SecureScmHa.appliedIndex(follower), ids(follower.getSecretKeyManager().getSortedKeys()));
      assertTrue(SecureScmHa.secretKeyFile(follower).toFile().isFile(), "follower key file saved");

      LOG.info("ozone-conform: restarting the follower {} cleanly", followerId);
      StorageContainerManager restarted = ha.cluster.restartStorageContainerManager(follower, false);
      GenericTestUtils.waitFor(() -> SecureScmHa.appliedIndex(restarted) >= SecureScmHa.appliedIndex(leader) - 1,
          500, 60_000);

      LOG.info("ozone-conform: transferring leadership to {} ({})", followerId, restarted.getScmId());
      leader.getClientProtocolServer().transferLeadership(restarted.getScmId());
      GenericTestUtils.waitFor(restarted::checkLeader, 500, 60_000);
      GenericTestUtils.waitFor(() -> restarted.getSecretKeyManager().isInitialized(), 500, 60_000);
      // Let the new leader's key state replicate to the others.
      Thread.sleep(3_000);

      List<ManagedSecretKey> newLeaderKeys = restarted.getSecretKeyManager().getSortedKeys();
      result.evidence("new leader %s keys: %s", followerId, ids(newLeaderKeys));
      boolean allKept = true;
      for (ManagedSecretKey k : keysBefore) {
        boolean kept = restarted.getSecretKeyManager().getSecretKey(k.getId()) != null
            && leader.getSecretKeyManager().getSecretKey(k.getId()) != null;
        result.evidence("key %s (expires %s): %s", k.getId(), k.getExpiryTime(), kept ? "kept on both" : "DROPPED");
        allKept &= kept;
      }
      result.write("n/a", allKept ? "healthy: every unexpired key kept after install, restart and transfer"
          : "UNEXPECTED: an unexpired key was dropped on the healthy path");
      assertTrue(allKept);
      assertThat(newLeaderKeys).containsAll(keysBefore);
      assertEquals(restarted.getScmId(), ha.cluster.getScmLeader().getScmId());
    }
  }

  static String ids(List<ManagedSecretKey> keys) {
    return keys.stream().map(k -> k.getId().toString()).collect(Collectors.joining(", ", "[", "]"));
  }
}
