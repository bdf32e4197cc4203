package org.apache.ozone.conform;

import static org.apache.hadoop.fs.CommonConfigurationKeysPublic.HADOOP_SECURITY_AUTHENTICATION;
import static org.apache.hadoop.hdds.HddsConfigKeys.HDDS_BLOCK_TOKEN_ENABLED;
import static org.apache.hadoop.hdds.HddsConfigKeys.HDDS_DATANODE_KERBEROS_KEYTAB_FILE_KEY;
import static org.apache.hadoop.hdds.HddsConfigKeys.HDDS_DATANODE_KERBEROS_PRINCIPAL_KEY;
import static org.apache.hadoop.hdds.HddsConfigKeys.HDDS_SECRET_KEY_EXPIRY_DURATION;
import static org.apache.hadoop.hdds.HddsConfigKeys.HDDS_SECRET_KEY_ROTATE_CHECK_DURATION;
import static org.apache.hadoop.hdds.HddsConfigKeys.HDDS_SECRET_KEY_ROTATE_DURATION;
import static org.apache.hadoop.hdds.scm.ScmConfig.ConfigStrings.HDDS_SCM_KERBEROS_KEYTAB_FILE_KEY;
import static org.apache.hadoop.hdds.scm.ScmConfig.ConfigStrings.HDDS_SCM_KERBEROS_PRINCIPAL_KEY;
import static org.apache.hadoop.hdds.scm.ScmConfigKeys.OZONE_SCM_CLIENT_ADDRESS_KEY;
import static org.apache.hadoop.hdds.scm.server.SCMHTTPServerConfig.ConfigStrings.HDDS_SCM_HTTP_KERBEROS_KEYTAB_FILE_KEY;
import static org.apache.hadoop.hdds.scm.server.SCMHTTPServerConfig.ConfigStrings.HDDS_SCM_HTTP_KERBEROS_PRINCIPAL_KEY;
import static org.apache.hadoop.ozone.OzoneConfigKeys.OZONE_ADMINISTRATORS;
import static org.apache.hadoop.ozone.OzoneConfigKeys.OZONE_SECURITY_ENABLED_KEY;
import static org.apache.hadoop.ozone.om.OMConfigKeys.DELEGATION_REMOVER_SCAN_INTERVAL_KEY;
import static org.apache.hadoop.ozone.om.OMConfigKeys.DELEGATION_TOKEN_MAX_LIFETIME_KEY;
import static org.apache.hadoop.ozone.om.OMConfigKeys.OZONE_OM_HTTP_KERBEROS_KEYTAB_FILE;
import static org.apache.hadoop.ozone.om.OMConfigKeys.OZONE_OM_HTTP_KERBEROS_PRINCIPAL_KEY;
import static org.apache.hadoop.ozone.om.OMConfigKeys.OZONE_OM_KERBEROS_KEYTAB_FILE_KEY;
import static org.apache.hadoop.ozone.om.OMConfigKeys.OZONE_OM_KERBEROS_PRINCIPAL_KEY;
import static org.apache.hadoop.security.UserGroupInformation.AuthenticationMethod.KERBEROS;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Properties;
import org.apache.hadoop.hdds.HddsConfigKeys;
import org.apache.hadoop.hdds.client.RatisReplicationConfig;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.hdds.protocol.proto.HddsProtos.ReplicationFactor;
import org.apache.hadoop.hdds.scm.ScmConfig;
import org.apache.hadoop.hdds.scm.ScmConfigKeys;
import org.apache.hadoop.hdds.scm.ha.SCMStateMachine;
import org.apache.hadoop.hdds.scm.ha.SequenceIdType;
import org.apache.hadoop.hdds.scm.server.SCMHTTPServerConfig;
import org.apache.hadoop.hdds.scm.server.StorageContainerManager;
import org.apache.hadoop.hdds.security.symmetric.SecretKeyConfig;
import org.apache.hadoop.hdds.utils.IOUtils;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.ozone.MiniOzoneCluster;
import org.apache.hadoop.ozone.MiniOzoneHAClusterImpl;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.ratis.util.ExitUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The secure SCM HA mini cluster of Ozone's TestSecretKeySnapshot (hadoop-ozone/integration-test, ozone-2.2.0):
 * MiniKdc, 3 SCMs of which 2 start, 1 OM, 1 datanode, Raft log purge after 100 entries, snapshot every 100.
 * The rotation is slower than TestSecretKeySnapshot's 30 s and the expiry long (1 h), so that a key that is
 * dropped is far from expiring, and the steps after the second key fit before the third.
 */
final class SecureScmHa implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SecureScmHa.class);
  static final long SNAPSHOT_THRESHOLD = 100;
  static final int LOG_PURGE_GAP = 100;
  static final int ROTATE_CHECK_DURATION_MS = 1_000;
  static final int ROTATE_DURATION_MS = 40_000;
  static final int EXPIRY_DURATION_MS = 3_600_000;

  final OzoneConfiguration conf = new OzoneConfiguration();
  final MiniKdc miniKdc;
  final MiniOzoneHAClusterImpl cluster;

  SecureScmHa(File workDir) throws Exception {
    conf.set(OZONE_SCM_CLIENT_ADDRESS_KEY, "localhost");
    ExitUtils.disableSystemExit();

    Properties securityProperties = MiniKdc.createConf();
    miniKdc = new MiniKdc(securityProperties, workDir);
    miniKdc.start();

    conf.setBoolean(OZONE_SECURITY_ENABLED_KEY, true);
    String host = InetAddress.getLocalHost().getCanonicalHostName().toLowerCase();
    conf.set(HADOOP_SECURITY_AUTHENTICATION, KERBEROS.name());
    conf.set(OZONE_ADMINISTRATORS, UserGroupInformation.getCurrentUser().getUserName());
    String hostAndRealm = host + "@" + miniKdc.getRealm();
    conf.set(HDDS_SCM_KERBEROS_PRINCIPAL_KEY, "scm/" + hostAndRealm);
    conf.set(HDDS_SCM_HTTP_KERBEROS_PRINCIPAL_KEY, "HTTP_SCM/" + hostAndRealm);
    conf.set(OZONE_OM_KERBEROS_PRINCIPAL_KEY, "scm/" + hostAndRealm);
    conf.set(OZONE_OM_HTTP_KERBEROS_PRINCIPAL_KEY, "HTTP_OM/" + hostAndRealm);
    conf.set(HDDS_DATANODE_KERBEROS_PRINCIPAL_KEY, "scm/" + hostAndRealm);
    File ozoneKeytab = new File(workDir, "scm.keytab");
    File spnegoKeytab = new File(workDir, "http.keytab");
    conf.set(HDDS_SCM_KERBEROS_KEYTAB_FILE_KEY, ozoneKeytab.getAbsolutePath());
    conf.set(HDDS_SCM_HTTP_KERBEROS_KEYTAB_FILE_KEY, spnegoKeytab.getAbsolutePath());
    conf.set(OZONE_OM_KERBEROS_KEYTAB_FILE_KEY, ozoneKeytab.getAbsolutePath());
    conf.set(OZONE_OM_HTTP_KERBEROS_KEYTAB_FILE, spnegoKeytab.getAbsolutePath());
    conf.set(HDDS_DATANODE_KERBEROS_KEYTAB_FILE_KEY, ozoneKeytab.getAbsolutePath());
    conf.setBoolean(HDDS_BLOCK_TOKEN_ENABLED, true);

    ScmConfig scmConfig = conf.getObject(ScmConfig.class);
    SCMHTTPServerConfig httpServerConfig = conf.getObject(SCMHTTPServerConfig.class);
    miniKdc.createPrincipal(ozoneKeytab, scmConfig.getKerberosPrincipal());
    miniKdc.createPrincipal(spnegoKeytab, httpServerConfig.getKerberosPrincipal());

    conf.setBoolean(ScmConfigKeys.OZONE_SCM_HA_RAFT_LOG_PURGE_ENABLED, true);
    conf.setInt(ScmConfigKeys.OZONE_SCM_HA_RAFT_LOG_PURGE_GAP, LOG_PURGE_GAP);
    conf.setLong(ScmConfigKeys.OZONE_SCM_HA_RATIS_SNAPSHOT_THRESHOLD, SNAPSHOT_THRESHOLD);
    conf.set(HDDS_SECRET_KEY_ROTATE_CHECK_DURATION, ROTATE_CHECK_DURATION_MS + "ms");
    conf.set(HDDS_SECRET_KEY_ROTATE_DURATION, ROTATE_DURATION_MS + "ms");
    conf.set(HDDS_SECRET_KEY_EXPIRY_DURATION, EXPIRY_DURATION_MS + "ms");
    conf.set(DELEGATION_TOKEN_MAX_LIFETIME_KEY, ROTATE_DURATION_MS + "ms");
    conf.set(DELEGATION_REMOVER_SCAN_INTERVAL_KEY, ROTATE_CHECK_DURATION_MS + "ms");

    MiniOzoneHAClusterImpl.Builder builder = MiniOzoneCluster.newHABuilder(conf);
    builder.setSCMServiceId("SCMServiceId")
        .setNumOfStorageContainerManagers(3)
        .setNumOfActiveSCMs(2)
        .setNumOfOzoneManagers(1)
        .setNumDatanodes(1);
    cluster = builder.build();
    cluster.waitForClusterToBeReady();
  }

  /**
   * Advances the leader's Raft log past target with one replicated write per step: a new batch of the SCM's
   * localId sequence (SequenceIdGenerator, @Replicate). TestSecretKeySnapshot allocates containers instead, but on
   * this machine most allocations never reach the log: each reserves a container's size (5 GB) on the one datanode
   * and checkSpaceAndRecordAllocation refuses it without a Raft entry (measured: ~1 entry per 4 s), and with small
   * containers the RATIS/ONE pipeline runs out ("Cannot create pipeline RATIS/ONE using 0 nodes").
   */
  static void writeToIncreaseLogIndex(StorageContainerManager scm, long targetLogIndex) throws Exception {
    SCMStateMachine stateMachine = scm.getScmHAManager().getRatisServer().getSCMStateMachine();
    long logIndex = stateMachine.getLastAppliedTermIndex().getIndex();
    while (logIndex <= targetLogIndex) {
      scm.getSequenceIdGen().invalidateBatch();
      scm.getSequenceIdGen().getNextId(SequenceIdType.localId);
      logIndex = stateMachine.getLastAppliedTermIndex().getIndex();
    }
  }

  /** The SCM's local secret key file: hdds.metadata.dir (or ozone.metadata.dirs)/scm/keys/secret_keys.json. */
  static Path secretKeyFile(StorageContainerManager scm) {
    return new SecretKeyConfig(scm.getConfiguration(), "scm").getLocalSecretKeyFile();
  }

  static long appliedIndex(StorageContainerManager scm) {
    return scm.getScmHAManager().getRatisServer().getSCMStateMachine().getLastAppliedTermIndex().getIndex();
  }

  @Override
  public void close() {
    LOG.info("ozone-conform: stopping the cluster");
    IOUtils.closeQuietly(cluster);
    miniKdc.stop();
  }
}
