package dev.floe.testing.hdfs;

import java.io.File;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * A one-machine HDFS for tests: Hadoop's {@link MiniDFSCluster} (a NameNode and one DataNode in
 * this JVM) with its storage under a given directory, the NameNode's RPC port picked by the system
 * and every address on 127.0.0.1.
 *
 * <p>Arguments: {@code BASE_DIRECTORY}. Prints {@code HDFS serving on hdfs://127.0.0.1:PORT} once
 * the cluster is up and out of safe mode; runs until killed (SIGTERM shuts the cluster down).
 */
public final class HdfsServerMain {

  /** What the server prints when it serves, followed by its file system URI. */
  public static final String READY = "HDFS serving on ";

  private HdfsServerMain() {}

  public static void main(String[] arguments) throws Exception {
    if (arguments.length != 1) {
      System.err.println("usage: HdfsServerMain BASE_DIRECTORY");
      System.exit(2);
    }
    File base = new File(arguments[0]);
    Configuration configuration = new Configuration();
    configuration.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.getAbsolutePath());
    // the DataNode's web server is not needed; its port would be one more chance of a clash
    configuration.set("dfs.datanode.http.address", "127.0.0.1:0");
    MiniDFSCluster cluster =
        new MiniDFSCluster.Builder(configuration, base)
            .nameNodePort(0)
            .nameNodeHttpPort(0)
            .numDataNodes(1)
            .format(true)
            .build();
    cluster.waitActive();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  cluster.shutdown();
                  stopped.countDown();
                },
                "hdfs-shutdown"));
    System.out.println(READY + "hdfs://127.0.0.1:" + cluster.getNameNodePort());
    System.out.flush();
    stopped.await();
  }
}
