package dev.keel.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileNotFoundException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Delta's writers do on the local file system, with the java.nio replacements of Hadoop's
 * shell calls.
 */
class NioLocalFileSystemTest {
  @TempDir java.nio.file.Path dir;

  @Test
  void permissionsMapBitForBit() {
    assertEquals(
        PosixFilePermissions.fromString("rwxr-x---"),
        NioLocalFileSystem.posix(new FsPermission((short) 0750)));
    assertEquals(
        PosixFilePermissions.fromString("rw-r--r--"),
        NioLocalFileSystem.posix(new FsPermission((short) 0644)));
    assertEquals(
        PosixFilePermissions.fromString("-w---x--x"),
        NioLocalFileSystem.posix(new FsPermission((short) 0211)));
  }

  @Test
  void createsRenamesWithoutOverwriteAndSetsPermissionsWithoutChecksumFiles() throws Exception {
    Configuration conf = conf();
    Path tmp = new Path(dir.toUri().toString(), "log/.00001.json.tmp");
    Path committed = new Path(dir.toUri().toString(), "log/00001.json");

    FileSystem fs = tmp.getFileSystem(conf);
    assertTrue(fs instanceof NioLocalFileSystem, fs.getClass().getName());
    try (FSDataOutputStream out = fs.create(tmp)) {
      out.write("{}\n".getBytes(StandardCharsets.UTF_8));
    }
    fs.setPermission(tmp, new FsPermission((short) 0640));
    assertEquals(
        PosixFilePermissions.fromString("rw-r-----"),
        Files.getPosixFilePermissions(dir.resolve("log/.00001.json.tmp")));

    // Delta's HDFSLogStore: rename without overwrite through FileContext; a second one must fail
    FileContext fc = FileContext.getFileContext(committed.toUri(), conf);
    fc.rename(tmp, committed, Options.Rename.NONE);
    try (FSDataOutputStream out = fs.create(tmp)) {
      out.write("{}\n".getBytes(StandardCharsets.UTF_8));
    }
    assertThrows(
        FileAlreadyExistsException.class, () -> fc.rename(tmp, committed, Options.Rename.NONE));
    assertThrows(
        FileNotFoundException.class,
        () -> fc.rename(new Path(dir.toUri().toString(), "nope"), committed));

    try (Stream<java.nio.file.Path> files = Files.list(dir.resolve("log"))) {
      assertEquals(
          List.of(".00001.json.tmp", "00001.json"),
          files.map(p -> p.getFileName().toString()).sorted().toList(),
          "no .crc side files");
    }
  }

  @Test
  void racingRenamesWithoutOverwriteHaveExactlyOneWinnerWhoseBytesStay() throws Exception {
    Configuration conf = conf();
    Path committed = new Path(dir.toUri().toString(), "log/00000.json");
    FileContext fc = FileContext.getFileContext(committed.toUri(), conf);
    int writers = 4;
    var pool = Executors.newFixedThreadPool(writers);
    try {
      for (int round = 0; round < 150; round++) {
        Files.deleteIfExists(dir.resolve("log/00000.json"));
        var ready = new CyclicBarrier(writers);
        List<Future<Boolean>> won = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          Path tmp = new Path(dir.toUri().toString(), "log/.00000.json." + w + ".tmp");
          Files.createDirectories(dir.resolve("log"));
          Files.writeString(dir.resolve("log/.00000.json." + w + ".tmp"), "writer " + w);
          won.add(
              pool.submit(
                  () -> {
                    ready.await();
                    try {
                      fc.rename(tmp, committed, Options.Rename.NONE);
                      return true;
                    } catch (FileAlreadyExistsException lost) {
                      Files.delete(Paths.get(tmp.toUri().getPath()));
                      return false;
                    }
                  }));
        }
        int winner = -1;
        int winners = 0;
        for (int w = 0; w < writers; w++) {
          if (won.get(w).get()) {
            winner = w;
            winners++;
          }
        }
        assertEquals(1, winners, "round " + round + ": every writer but one must be refused");
        assertEquals(
            "writer " + winner, Files.readString(dir.resolve("log/00000.json")), "round " + round);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static Configuration conf() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", NioLocalFileSystem.class.getName());
    conf.set("fs.file.impl.disable.cache", "true");
    conf.set("fs.AbstractFileSystem.file.impl", NioLocalFileSystem.Fs.class.getName());
    return conf;
  }
}
