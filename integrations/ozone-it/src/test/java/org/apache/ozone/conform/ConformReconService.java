package org.apache.ozone.conform;

import static org.apache.hadoop.hdds.recon.ReconConfigKeys.OZONE_RECON_ADDRESS_KEY;
import static org.apache.hadoop.hdds.recon.ReconConfigKeys.OZONE_RECON_DATANODE_ADDRESS_KEY;
import static org.apache.hadoop.hdds.recon.ReconConfigKeys.OZONE_RECON_HTTP_ADDRESS_KEY;
import static org.apache.hadoop.hdds.recon.ReconConfigKeys.OZONE_RECON_TASK_SAFEMODE_WAIT_THRESHOLD;
import static org.apache.hadoop.ozone.OzoneConfigKeys.OZONE_METADATA_DIRS;
import static org.apache.hadoop.ozone.recon.ReconServerConfigKeys.OZONE_RECON_DB_DIR;
import static org.apache.hadoop.ozone.recon.ReconServerConfigKeys.OZONE_RECON_OM_SNAPSHOT_DB_DIR;
import static org.apache.hadoop.ozone.recon.ReconServerConfigKeys.OZONE_RECON_SCM_DB_DIR;
import static org.apache.ozone.test.GenericTestUtils.PortAllocator.localhostWithFreePort;

import java.io.File;
import java.util.Objects;
import org.apache.hadoop.hdds.conf.OzoneConfiguration;
import org.apache.hadoop.ozone.MiniOzoneCluster;
import org.apache.hadoop.ozone.recon.ConfigurationProvider;
import org.apache.hadoop.ozone.recon.ReconServer;
import org.apache.hadoop.ozone.recon.ReconSqlDbConfig;

/**
 * Recon in a MiniOzoneCluster: a copy of Ozone 2.2.0's ReconService (hadoop-ozone/integration-test-recon, a test
 * class that is not published to Maven Central).
 */
final class ConformReconService implements MiniOzoneCluster.Service {
  private static final String[] NO_ARGS = new String[0];
  private final String httpAddress;
  private final String datanodeAddress;
  private ReconServer reconServer;

  ConformReconService(OzoneConfiguration conf) {
    httpAddress = localhostWithFreePort();
    datanodeAddress = localhostWithFreePort();
    setReconAddress(conf);
  }

  @Override
  public void start(OzoneConfiguration conf) {
    if (reconServer != null) {
      throw new IllegalStateException("Recon already started");
    }
    ConfigurationProvider.resetConfiguration();
    ConfigurationProvider.setConfiguration(conf);
    configureRecon(conf);
    reconServer = new ReconServer();
    reconServer.execute(NO_ARGS);
  }

  @Override
  public void stop() {
    ReconServer instance = Objects.requireNonNull(reconServer, "Recon not running");
    instance.stop();
    instance.join();
    reconServer = null;
  }

  ReconServer getReconServer() {
    return reconServer;
  }

  private void configureRecon(OzoneConfiguration conf) {
    String metadataDir = Objects.requireNonNull(conf.get(OZONE_METADATA_DIRS), OZONE_METADATA_DIRS + " must be set");
    File dir = new File(metadataDir, "recon");
    conf.set(OZONE_RECON_DB_DIR, dir.getAbsolutePath());
    conf.set(OZONE_RECON_OM_SNAPSHOT_DB_DIR, dir.getAbsolutePath());
    conf.set(OZONE_RECON_SCM_DB_DIR, dir.getAbsolutePath());
    ReconSqlDbConfig dbConfig = conf.getObject(ReconSqlDbConfig.class);
    dbConfig.setJdbcUrl("jdbc:derby:" + dir.getAbsolutePath() + "/ozone_recon_derby.db");
    conf.setFromObject(dbConfig);
    conf.set(OZONE_RECON_TASK_SAFEMODE_WAIT_THRESHOLD, "10s");
    setReconAddress(conf);
  }

  private void setReconAddress(OzoneConfiguration conf) {
    conf.set(OZONE_RECON_ADDRESS_KEY, datanodeAddress);
    conf.set(OZONE_RECON_DATANODE_ADDRESS_KEY, datanodeAddress);
    conf.set(OZONE_RECON_HTTP_ADDRESS_KEY, httpAddress);
  }
}
