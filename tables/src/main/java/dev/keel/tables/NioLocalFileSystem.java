package dev.keel.tables;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system without its subprocesses. Without Hadoop's native library, {@link
 * RawLocalFileSystem} runs {@code chmod} for every file and directory it creates and {@code
 * readlink} twice for every rename, which is how Delta commits its log: some 50 processes per
 * catalog commit of four tables, forked from a JVM that may be training. {@link Raw} sets
 * permissions and checks for symbolic links with java.nio instead. This class stays a {@link
 * LocalFileSystem} (S3A casts {@code FileSystem.getLocal} to it for its buffer directory) but
 * writes no {@code .crc} side files, which no Delta reader needs.
 */
public class NioLocalFileSystem extends LocalFileSystem {

  public NioLocalFileSystem() {
    super(new Raw());
    setWriteChecksum(false);
  }

  /** The raw file system: java.nio for permissions and links. */
  public static class Raw extends RawLocalFileSystem {
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      Files.setPosixFilePermissions(pathToFile(p).toPath(), posix(permission));
    }

    @Override
    public FileStatus getFileLinkStatus(Path f) throws IOException {
      if (Files.isSymbolicLink(pathToFile(f).toPath())) {
        return super.getFileLinkStatus(f);
      }
      return getFileStatus(f); // not a link: its own status (FileNotFoundException when absent)
    }
  }

  /**
   * The same for Hadoop's {@code FileContext} API, which Delta's log store commits through: it
   * renames {@code .N.json.tmp} to {@code N.json} without overwrite and relies on that failing when
   * another writer committed version N first. Hadoop checks that the target is absent and then
   * calls {@code rename(2)}, which replaces a file created in between: two racing writers both
   * "commit" version N and one commit is lost. A hard link fails atomically when the target exists,
   * so a rename without overwrite is link-then-unlink here.
   */
  public static final class Fs extends DelegateToFileSystem {
    public Fs(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, new Raw(), conf, "file", false);
    }

    @Override
    public void renameInternal(Path src, Path dst, boolean overwrite) throws IOException {
      java.nio.file.Path from = local(src);
      if (overwrite || !Files.isRegularFile(from, LinkOption.NOFOLLOW_LINKS)) {
        super.renameInternal(src, dst, overwrite);
        return;
      }
      try {
        Files.createLink(local(dst), from);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        throw new FileAlreadyExistsException("rename destination " + dst + " already exists");
      } catch (NoSuchFileException e) {
        throw new FileNotFoundException(
            "rename source or destination directory missing: " + e.getFile());
      } catch (UnsupportedOperationException | FileSystemException e) {
        throw new IOException(
            "cannot commit "
                + dst
                + " atomically: this file system refuses hard links ("
                + e.getMessage()
                + "); put the storage root on a local disk or on S3",
            e);
      }
      Files.delete(from);
    }

    private static java.nio.file.Path local(Path p) {
      return Paths.get(p.toUri().getPath());
    }
  }

  static Set<PosixFilePermission> posix(FsPermission permission) {
    PosixFilePermission[] highToLow = {
      PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
          PosixFilePermission.OWNER_EXECUTE,
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_EXECUTE
    };
    Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
    int bits = permission.toShort();
    for (int i = 0; i < highToLow.length; i++) {
      if ((bits & (1 << (8 - i))) != 0) {
        set.add(highToLow[i]);
      }
    }
    return set;
  }
}
