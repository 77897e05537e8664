package dev.keel.service.security;

import dev.keel.storage.StorageRoot;
import dev.keel.tables.audit.AuditTable;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records every write request of the API in the audit table ({@code _keel/audit}): who, with which
 * role, what, on what, and how it was answered. Appends run in order on one thread of their own, so
 * a request never waits for the storage; an append that fails is logged, not retried.
 */
public final class ApiAudit implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ApiAudit.class);

  private final AuditTable table;
  private final ExecutorService appender =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "keel-api-audit");
            t.setDaemon(true);
            return t;
          });

  public ApiAudit(StorageRoot storage) {
    this.table = new AuditTable(storage);
  }

  public AuditTable table() {
    return table;
  }

  public void record(Caller caller, String action, String target, int status) {
    AuditTable.Entry entry =
        new AuditTable.Entry(
            Instant.now(), caller.name(), caller.role().label(), action, target, status);
    appender.execute(
        () -> {
          try {
            table.append(entry);
          } catch (RuntimeException e) {
            log.error(
                "audit: {} by {} (HTTP {}) not recorded in {}: {}",
                action,
                caller.name(),
                status,
                table.tableUri(),
                e.getMessage());
          }
        });
  }

  /** Writes what is queued (at most 30 s), then stops. */
  @Override
  public void close() {
    appender.shutdown();
    try {
      if (!appender.awaitTermination(30, TimeUnit.SECONDS)) {
        log.warn("audit: entries still queued after 30 s were not written to {}", table.tableUri());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
