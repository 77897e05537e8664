package dev.keel.tables.testing;

import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import io.delta.kernel.engine.Engine;
import java.util.List;
import java.util.Map;

/**
 * Every row of a Delta table's latest version as column name to value (timestamps as {@link
 * java.time.Instant}).
 */
public final class KernelRows {
  private KernelRows() {}

  public static List<Map<String, Object>> read(String tableUri) throws Exception {
    Engine engine = DeltaTables.defaultEngine();
    return TableRows.read(engine, DeltaTables.latestSnapshot(engine, tableUri).orElseThrow());
  }
}
