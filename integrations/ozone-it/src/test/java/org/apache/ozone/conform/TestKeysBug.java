package org.apache.ozone.conform;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.commons.io.FileUtils;
import org.apache.hadoop.hdds.scm.ha.SCMStateMachine;
import org.apache.hadoop.hdds.scm.server.StorageContainerManager;
import org.apache.hadoop.hdds.security.symmetric.ManagedSecretKey;
import org.apache.hadoop.hdds.security.symmetric.SecretKeyManager;
import org.apache.ozone.test.GenericTestUtils;
import org.apache.ratis.util.ExitUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * keys-bug, HDDS-16923's reproduction as its report describes it: TestSecretKeySnapshot's setup; the leader rotates
 * from K1 to K2 and its log is purged past index 200; a directory is created at the inactive SCM's key file path so
 * that the key save fails with an I/O error; the SCM is started, installs the snapshot and terminates with scm.db at
 * the checkpoint and no key file; the directory is removed, the SCM restarted and leadership transferred to it.
 * The defect is present when an unexpired key (K1, K2) is then gone from the SCMs.
 *
 * In-JVM harness steps (no real process exit): ExitUtils.disableSystemExit() so Ratis' terminate throws instead of
 * exiting; startInactiveSCM may throw because the SCM terminates while its start() is still running (the DB it
 * reads is closed); ExitUtils.clear() after the terminated SCM is stopped, so the cluster's later checks do not see it.
 */
public class TestKeysBug {
  private static final Logger LOG = LoggerFactory.getLogger(TestKeysBug.class);

  @TempDir
  private File workDir;

  @Test
  public void unexpiredKeysDroppedAfterInterruptedInstall() throws Exception {
    ScenarioResult result = new ScenarioResult("keys-bug");
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
      long k2Seen = System.currentTimeMillis();
      SecureScmHa.writeToIncreaseLogIndex(leader, 200);
      List<ManagedSecretKey> keysBefore = leaderKeys.getSortedKeys();
      result.evidence("leader %s keys before install: %s", leader.getSCMNodeId(), TestKeysHealthy.ids(keysBefore));

      // Block the inactive SCM's key file: a directory at its path makes LocalSecretKeyStore.save throw.
      Path keyFile = SecureScmHa.secretKeyFile(follower);
      Files.deleteIfExists(keyFile);
      Files.createDirectories(keyFile);
      result.evidence("blocked %s with a directory", keyFile);

      LOG.info("ozone-conform: starting the inactive SCM {}", followerId);
      try {
        ha.cluster.startInactiveSCM(followerId);
      } catch (Exception e) {
        // In one JVM the install (on the Ratis StateMachineUpdater thread) can terminate the SCM while
        // StorageContainerManager.start() is still running on this thread, which then fails on the closed DB.
        result.evidence("startInactiveSCM threw (the SCM terminated during its start): %s",
            e.toString().replace('\n', ' '));
      }
      SCMStateMachine followerSM = follower.getScmHAManager().getRatisServer().getSCMStateMachine();
      GenericTestUtils.waitFor(() -> ExitUtils.isTerminated() || follower.isStopped()
          || followerSM.getLifeCycleState().isClosingOrClosed(), 200, 60_000);
      result.evidence("follower %s after install: terminated=%s, state machine %s, applied index %d, key file %s",
          followerId, ExitUtils.isTerminated(), followerSM.getLifeCycleState(),
          followerSM.getLastAppliedTermIndex().getIndex(),
          Files.isDirectory(keyFile) ? "still a directory (no keys saved)" : Files.exists(keyFile) ? "a file" : "absent");

      // Harness: stop the terminated SCM, forget the exit, unblock the key file.
      LOG.info("ozone-conform: stopping the terminated SCM {}", followerId);
      try {
        follower.stop();
        follower.join();
      } catch (Exception e) {
        LOG.info("ozone-conform: stop of the terminated SCM threw", e);
      }
      // The SCM terminated inside start(), so stop() does not reach its HA manager: its inter-SCM gRPC server
      // (and Ratis server) would keep their ports and the restarted SCM could not bind them.
      try {
        follower.getScmHAManager().stop();
      } catch (Exception e) {
        LOG.info("ozone-conform: stop of the terminated SCM's HA manager threw", e);
      }
      ExitUtils.clear();
      FileUtils.deleteDirectory(keyFile.toFile());

      LOG.info("ozone-conform: restarting SCM {}", followerId);
      StorageContainerManager restarted = ha.cluster.restartStorageContainerManager(follower, false);
      long restartedApplied = SecureScmHa.appliedIndex(restarted);
      result.evidence("restarted %s: applied index at start %d, key file %s", followerId, restartedApplied,
          Files.exists(keyFile) ? "present" : "absent");
      GenericTestUtils.waitFor(() -> SecureScmHa.appliedIndex(restarted) >= SecureScmHa.appliedIndex(leader) - 1,
          500, 60_000);

      LOG.info("ozone-conform: transferring leadership to {} ({})", followerId, restarted.getScmId());
      leader.getClientProtocolServer().transferLeadership(restarted.getScmId());
      GenericTestUtils.waitFor(restarted::checkLeader, 500, 60_000);
      GenericTestUtils.waitFor(() -> restarted.getSecretKeyManager().isInitialized(), 500, 60_000);
      Thread.sleep(3_000);
      long elapsed = System.currentTimeMillis() - k2Seen;
      result.evidence("leadership on %s %d ms after K2 was seen (rotation every %d ms)", followerId, elapsed,
          SecureScmHa.ROTATE_DURATION_MS);

      List<ManagedSecretKey> newLeaderKeys = restarted.getSecretKeyManager().getSortedKeys();
      result.evidence("new leader %s keys: %s", followerId, TestKeysHealthy.ids(newLeaderKeys));
      result.evidence("old leader %s keys: %s", leader.getSCMNodeId(),
          TestKeysHealthy.ids(leader.getSecretKeyManager().getSortedKeys()));
      int dropped = 0;
      for (ManagedSecretKey k : keysBefore) {
        boolean onNew = restarted.getSecretKeyManager().getSecretKey(k.getId()) != null;
        boolean onOld = leader.getSecretKeyManager().getSecretKey(k.getId()) != null;
        result.evidence("getSecretKey(%s) (expires %s): new leader %s, old leader %s", k.getId(), k.getExpiryTime(),
            onNew ? "found" : "null", onOld ? "found" : "null");
        if (!onNew && !onOld && k.getExpiryTime().toEpochMilli() > System.currentTimeMillis()) {
          dropped++;
        }
      }
      boolean reproduced = dropped > 0;
      result.write(reproduced ? "yes" : "no", reproduced
          ? "HDDS-16923 reproduced: " + dropped + " unexpired key(s) gone from both SCMs"
          : "not reproduced: every unexpired key kept");
      assertTrue(reproduced, "HDDS-16923 reproduction: an unexpired key should be gone");
    }
  }
}
