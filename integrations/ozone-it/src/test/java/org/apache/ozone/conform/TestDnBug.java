package org.apache.ozone.conform;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdds.protocol.datanode.proto.ContainerProtos;
import org.apache.hadoop.hdds.protocol.datanode.proto.ContainerProtos.ContainerCommandRequestProto;
import org.apache.hadoop.hdds.ratis.ContainerCommandRequestMessage;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.util.CodeInjectionForTesting;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * dn-bug, HDDS-16828's Raft-path reproduction as its report describes it: the writer (incremental chunk list and
 * PutBlock piggybacking, so one hsync is one Ratis request) hsyncs 100 bytes, then writes 100 more and hsyncs while
 * another client runs recoverLease. Ratis' CodeInjectionForTesting at RaftServerImpl.appendTransaction holds the
 * writer's request after startTransaction returned until recoverLease has returned. Nothing else is injected and
 * FinalizeBlock is not delayed. The defect is present when the held hsync returns normally although the file was
 * closed at 100 bytes (the PutBlock is logged and applied after FinalizeBlock).
 */
public class TestDnBug {
  private static final Logger LOG = LoggerFactory.getLogger(TestDnBug.class);

  @Test
  public void hsyncAckedBeyondRecoveredLength() throws Exception {
    ScenarioResult result = new ScenarioResult("dn-bug");
    Field f = Class.forName("org.apache.ratis.server.impl.RaftServerImpl").getDeclaredField("APPEND_TRANSACTION");
    f.setAccessible(true);
    String appendTransaction = (String) f.get(null);
    AtomicBoolean armed = new AtomicBoolean(false);
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<String> heldWhat = new AtomicReference<>();
    CodeInjectionForTesting.put(appendTransaction, (localId, remoteId, args) -> {
      if (!armed.get() || args.length == 0 || !(args[0] instanceof RaftClientRequest)) {
        return false;
      }
      RaftClientRequest request = (RaftClientRequest) args[0];
      ContainerCommandRequestProto proto;
      try {
        proto = ContainerCommandRequestMessage.toProto(request.getMessage().getContent(), null);
      } catch (Exception e) {
        return false; // not a datanode request (the SCM's Ratis server shares the JVM)
      }
      boolean carriesPutBlock = proto.getCmdType() == ContainerProtos.Type.PutBlock
          || (proto.getCmdType() == ContainerProtos.Type.WriteChunk && proto.getWriteChunk().hasBlock());
      if (!carriesPutBlock || !armed.compareAndSet(true, false)) {
        return false;
      }
      heldWhat.set(proto.getCmdType() + " of " + (proto.getCmdType() == ContainerProtos.Type.PutBlock
          ? proto.getPutBlock().getBlockData().getBlockID() : proto.getWriteChunk().getBlockID()).toString()
          .replace('\n', ' ') + " on " + localId);
      LOG.info("ozone-conform: holding {} in appendTransaction until recoverLease returns", heldWhat.get());
      held.countDown();
      try {
        release.await(120, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      LOG.info("ozone-conform: releasing the held request");
      return false;
    });

    try (HsyncCluster hc = new HsyncCluster()) {
      FileSystem writerFs = hc.newFs();
      FileSystem recoveryFs = hc.newFs();
      Path file = new Path(hc.dir, "bug-file");
      FSDataOutputStream out = writerFs.create(file, true);
      out.write(HsyncCluster.data(100, (byte) 1));
      out.hsync();
      out.write(HsyncCluster.data(100, (byte) 2));
      armed.set(true);
      AtomicReference<Throwable> hsyncError = new AtomicReference<>();
      Thread writer = new Thread(() -> {
        try {
          out.hsync();
        } catch (Throwable t) {
          hsyncError.set(t);
        }
      }, "conform-writer-hsync");
      writer.start();
      boolean wasHeld = held.await(60, TimeUnit.SECONDS);
      result.evidence("writer's second hsync held in appendTransaction: %s (%s)", wasHeld, heldWhat.get());

      LOG.info("ozone-conform: recovering the lease from another client");
      boolean recovered = false;
      for (int i = 0; i < 15 && !recovered; i++) {
        recovered = ((LeaseRecoverable) recoveryFs).recoverLease(file);
        if (!recovered) {
          Thread.sleep(1000);
        }
      }
      long lenAtRecovery = recoveryFs.getFileStatus(file).getLen();
      result.evidence("recoverLease=%s, length %d", recovered, lenAtRecovery);
      release.countDown();
      writer.join(120_000);
      boolean hsyncOk = !writer.isAlive() && hsyncError.get() == null;
      result.evidence("held hsync %s", hsyncOk ? "returned normally"
          : "failed: " + String.valueOf(hsyncError.get()).replace('\n', ' '));
      long lenAfter = recoveryFs.getFileStatus(file).getLen();
      int readable = 0;
      try (FSDataInputStream in = recoveryFs.open(file)) {
        byte[] buf = new byte[4096];
        int n;
        while ((n = in.read(buf)) > 0) {
          readable += n;
        }
      }
      result.evidence("file length %d, readable bytes %d", lenAfter, readable);
      try {
        out.close();
      } catch (Exception e) {
        LOG.info("ozone-conform: close of the recovered writer failed: {}", e.toString());
      }
      boolean reproduced = wasHeld && recovered && hsyncOk && lenAfter == 100;
      result.write(reproduced ? "yes" : "no", reproduced
          ? "HDDS-16828 reproduced: the held hsync of 200 bytes returned normally, the file is closed at 100"
          : "not reproduced (see evidence)");
      assertTrue(reproduced, "HDDS-16828 reproduction");
    } finally {
      CodeInjectionForTesting.remove(appendTransaction);
    }
  }
}
