package org.apache.ozone.conform;

import static org.apache.hadoop.hdds.scm.ScmConfigKeys.OZONE_SCM_CHUNK_SIZE_KEY;
import static org.apache.hadoop.hdds.scm.ScmConfigKeys.OZONE_SCM_PIPELINE_OWNER_CONTAINER_COUNT;
import static org.apache.hadoop.ozone.OzoneConfigKeys.OZONE_SCM_BLOCK_SIZE;
import static org.apache.hadoop.ozone.OzoneConsts.OZONE_OFS_URI_SCHEME;
import static org.apache.hadoop.ozone.om.OMConfigKeys.OZONE_DEFAULT_BUCKET_LAYOUT;
import static org.apache.hadoop.ozone.om.OMConfigKeys.OZONE_OM_ADDRESS_KEY;

import java.io.IOException;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.conf.StorageUnit;
import org.apache.hadoop.hdds.scm.OzoneClientConfig;
import org.apache.hadoop.ozone.MiniOzoneCluster;
import org.apache.hadoop.ozone.OzoneConfigKeys;
import org.apache.hadoop.ozone.client.BucketArgs;
import org.apache.hadoop.ozone.client.OzoneClient;
import org.apache.hadoop.ozone.client.ObjectStore;
import org.apache.hadoop.ozone.om.helpers.BucketLayout;

/**
 * The hsync mini cluster of Ozone's TestLeaseRecovery / TestHSync (ozone-2.2.0): 3 datanodes, hsync enabled,
 * incremental chunk list and PutBlock piggybacking (TestHSync's settings, so one hsync is one Ratis request),
 * lease soft limit 0 s, FSO bucket, small chunks and blocks (ClientConfigForTesting's values, set directly).
 */
final class HsyncCluster implements AutoCloseable {
  static final int CHUNK_SIZE = 16 << 10;
  static final int FLUSH_SIZE = 2 * CHUNK_SIZE;
  static final int MAX_FLUSH_SIZE = 2 * FLUSH_SIZE;
  static final int BLOCK_SIZE = 2 * MAX_FLUSH_SIZE;

  final OzoneConfiguration conf = new OzoneConfiguration();
  final MiniOzoneCluster cluster;
  final OzoneClient client;
  final Path dir;

  HsyncCluster() throws Exception {
    conf.setBoolean(OzoneConfigKeys.OZONE_HBASE_ENHANCEMENTS_ALLOWED, true);
    conf.setBoolean("ozone.client.hbase.enhancements.allowed", true);
    conf.setBoolean("fs." + OZONE_OFS_URI_SCHEME + ".impl.disable.cache", true);
    conf.setBoolean(OzoneConfigKeys.OZONE_FS_HSYNC_ENABLED, true);
    conf.set(OZONE_DEFAULT_BUCKET_LAYOUT, BucketLayout.FILE_SYSTEM_OPTIMIZED.name());
    conf.setInt("ozone.scm.ratis.pipeline.limit", 10);
    conf.set(OzoneConfigKeys.OZONE_OM_LEASE_SOFT_LIMIT, "0s");
    conf.setBoolean("ozone.client.stream.buffer.flush.delay", false);
    conf.setBoolean("ozone.client.incremental.chunk.list", true);
    conf.setBoolean("ozone.client.stream.putblock.piggybacking", true);
    conf.setInt("ozone.client.key.write.concurrency", -1);

    OzoneClientConfig clientConfig = conf.getObject(OzoneClientConfig.class);
    clientConfig.setStreamBufferSize(CHUNK_SIZE);
    clientConfig.setStreamBufferMaxSize(MAX_FLUSH_SIZE);
    clientConfig.setStreamBufferFlushSize(FLUSH_SIZE);
    conf.setFromObject(clientConfig);
    conf.setStorageSize(OZONE_SCM_CHUNK_SIZE_KEY, CHUNK_SIZE, StorageUnit.BYTES);
    conf.setStorageSize(OZONE_SCM_BLOCK_SIZE, BLOCK_SIZE, StorageUnit.BYTES);

    cluster = MiniOzoneCluster.newBuilder(conf).setNumDatanodes(3).build();
    cluster.waitForClusterToBeReady();
    client = cluster.newClient();
    ObjectStore store = client.getObjectStore();
    store.createVolume("vol1");
    store.getVolume("vol1").createBucket("bucket1",
        BucketArgs.newBuilder().setBucketLayout(BucketLayout.FILE_SYSTEM_OPTIMIZED).build());
    String rootPath = String.format("%s://%s/", OZONE_OFS_URI_SCHEME, conf.get(OZONE_OM_ADDRESS_KEY));
    conf.set(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY, rootPath);
    dir = new Path("/vol1/bucket1");
  }

  /** A new FileSystem client (the cache is disabled, so each call is its own client). */
  FileSystem newFs() throws IOException {
    return FileSystem.get(conf);
  }

  static byte[] data(int size, byte seed) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (seed + i);
    }
    return b;
  }

  @Override
  public void close() throws Exception {
    client.close();
    cluster.shutdown();
  }
}
