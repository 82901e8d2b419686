package dev.floe.iceberg.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system (checksum files included, so files read and written by other Hadoop
 * clients stay the same), whose permission changes go through {@code java.nio} instead of a {@code
 * chmod} child process. See {@link HadoopConf}.
 */
public final class ForklessLocalFileSystem extends LocalFileSystem {

  public ForklessLocalFileSystem() {
    super(new Raw());
  }

  /** The raw local file system beneath the checksums, setting permissions in process. */
  static final class Raw extends RawLocalFileSystem {

    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      java.nio.file.Path file = pathToFile(path).toPath();
      if (Files.getFileAttributeView(file, PosixFileAttributeView.class) == null) {
        super.setPermission(path, permission); // not a POSIX file system: Hadoop's own way
        return;
      }
      Files.setPosixFilePermissions(file, posix(permission.toShort()));
    }
  }

  /**
   * The nine permission bits of a Unix mode as java.nio permissions (sticky and set-id dropped).
   */
  static Set<PosixFilePermission> posix(int mode) {
    Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] bits = {
      PosixFilePermission.OTHERS_EXECUTE,
      PosixFilePermission.OTHERS_WRITE,
      PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.GROUP_WRITE,
      PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE,
      PosixFilePermission.OWNER_WRITE,
      PosixFilePermission.OWNER_READ
    };
    for (int bit = 0; bit < bits.length; bit++) {
      if ((mode & (1 << bit)) != 0) {
        permissions.add(bits[bit]);
      }
    }
    return permissions;
  }
}
