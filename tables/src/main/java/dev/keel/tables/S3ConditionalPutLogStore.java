package dev.keel.tables;

import dev.keel.storage.S3Clients;
import dev.keel.storage.S3Objects;
import dev.keel.storage.S3Settings;
import dev.keel.storage.S3Uri;
import dev.keel.storage.StoreGuarantees;
import io.delta.storage.HadoopFileSystemLogStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A Delta log store for S3 that is safe with several writers in several processes: a commit file
 * ({@code _delta_log/N.json}) is created with one conditional PUT ({@code If-None-Match: *}), so of
 * two writers racing for version N exactly one wins and the other gets {@link
 * FileAlreadyExistsException}, which makes Delta Kernel re-check conflicts and retry at N+1.
 *
 * <p>Delta's default for S3 ({@code S3SingleDriverLogStore}) only locks within one JVM: two
 * processes can both "create" N.json and one commit is silently lost. Reads and listings are Hadoop
 * S3A's (S3 is strongly consistent). Wired by {@link DeltaTables#newEngine} through Kernel's {@code
 * io.delta.kernel.logStore.<scheme>.impl} setting; the S3 client comes from the same {@code
 * fs.s3a.*} settings ({@link S3Settings#fromHadoopProperties}).
 */
public final class S3ConditionalPutLogStore extends HadoopFileSystemLogStore {
  private static final int CONFLICT_RETRIES = 5;
  private static final AtomicLong CONFLICTS = new AtomicLong();

  public S3ConditionalPutLogStore(Configuration conf) {
    super(conf);
  }

  @Override
  public void write(
      Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
      throws IOException {
    S3Uri target = S3Uri.of(path.toUri());
    StringBuilder sb = new StringBuilder();
    while (actions.hasNext()) {
      sb.append(actions.next()).append('\n');
    }
    byte[] body = sb.toString().getBytes(StandardCharsets.UTF_8);
    S3Settings settings = S3Settings.fromHadoopProperties(hadoopConf::get);
    S3Client s3 = S3Clients.get(settings);
    if (!overwrite && unprotected(settings, S3Uri.of(path.getParent().getParent().toUri()))) {
      // single-writer mode on a store that would overwrite: refuse at least a commit that is
      // already there
      if (exists(s3, target)) {
        throw new FileAlreadyExistsException(path.toString());
      }
    }
    for (int attempt = 1; ; attempt++) {
      try {
        s3.putObject(
            b -> {
              b.bucket(target.bucket()).key(target.key());
              if (!overwrite) {
                b.ifNoneMatch("*");
              }
            },
            RequestBody.fromBytes(body));
        return;
      } catch (S3Exception e) {
        if (!overwrite && e.statusCode() == 412) {
          CONFLICTS.incrementAndGet();
          throw new FileAlreadyExistsException(path.toString());
        }
        if (!overwrite && e.statusCode() == 409 && attempt < CONFLICT_RETRIES) {
          // ConditionalRequestConflict: another conditional write to the key is in flight; S3 says
          // retry
          sleep(50L * attempt);
          continue;
        }
        throw new IOException("writing " + path + ": " + e.getMessage(), e);
      } catch (SdkException e) {
        throw new IOException("writing " + path + ": " + e.getMessage(), e);
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
    }
  }

  /**
   * Commits this process lost to another writer so far (the store refused their {@code N.json};
   * Delta Kernel then checked for conflicts and committed at a later version).
   */
  public static long conflictsSeen() {
    return CONFLICTS.get();
  }

  /**
   * Whether commits to {@code target} go to a store without conditional PUT in single-writer mode.
   *
   * @throws IOException the store ignores conditional PUT and single-writer mode is off
   */
  private static boolean unprotected(S3Settings settings, S3Uri table) throws IOException {
    try {
      return StoreGuarantees.requireSafeCommits(settings, table);
    } catch (StoreGuarantees.UnsafeStoreException e) {
      throw new IOException(e.getMessage(), e);
    } catch (SdkException e) {
      throw new IOException("probing " + table + " for conditional PUT: " + e.getMessage(), e);
    }
  }

  private static boolean exists(S3Client s3, S3Uri target) throws IOException {
    try {
      return S3Objects.exists(s3, target.bucket(), target.key());
    } catch (SdkException e) {
      throw new IOException("checking " + target + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Boolean isPartialWriteVisible(Path path, Configuration hadoopConf) {
    return false; // one PUT: an object is all there or not there
  }

  private static void sleep(long millis) throws InterruptedIOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while committing");
    }
  }
}
