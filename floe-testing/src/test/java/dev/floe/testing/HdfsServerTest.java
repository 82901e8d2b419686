package dev.floe.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;

class HdfsServerTest {

  @Test
  void aClientWritesAndReadsAFileOnLoopbackAndCloseStopsTheClusterAndRemovesIt() throws Exception {
    Path directory;
    int port;
    try (HdfsServer hdfs = HdfsServer.start()) {
      directory = hdfs.directory();
      port = hdfs.port();
      assertThat(hdfs.uri()).isEqualTo("hdfs://127.0.0.1:" + port);
      assertThat(hdfs.uri("/lake")).isEqualTo("hdfs://127.0.0.1:" + port + "/lake");
      Configuration configuration = new Configuration();
      // a fresh client, not one cached for another test's cluster on the same address
      configuration.setBoolean("fs.hdfs.impl.disable.cache", true);
      configuration.setInt("dfs.replication", 1);
      try (FileSystem client = FileSystem.get(URI.create(hdfs.uri()), configuration)) {
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(hdfs.uri("/lake/hello.txt"));
        try (OutputStream out = client.create(file)) {
          out.write("hello".getBytes(StandardCharsets.UTF_8));
        }
        try (InputStream in = client.open(file)) {
          assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello");
        }
        assertThat(client.getFileStatus(file).getReplication()).isEqualTo((short) 1);
      }
      assertThat(Listeners.addresses(port)).containsExactly("127.0.0.1");
    }
    assertThat(Listeners.accepts(port)).as("port %d still accepts", port).isFalse();
    assertThat(Files.exists(directory)).isFalse();
  }
}
