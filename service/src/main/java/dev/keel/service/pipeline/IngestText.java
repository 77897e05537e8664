package dev.keel.service.pipeline;

import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.LabelRows;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * An ingest's rows per split and class, and its warnings, as lines a person reads (the pipeline's
 * output, status).
 */
public final class IngestText {
  private IngestText() {}

  /** {@code rows in test: Bag=3, Coat=5}, one line per split, in name order. */
  public static List<String> perSplitAndLabel(IngestResult r) {
    List<String> out = new ArrayList<>();
    perSplit(r)
        .forEach(
            (split, counts) ->
                out.add(String.format(Locale.ROOT, "%-15s %s", "rows in " + split + ":", counts)));
    return out;
  }

  /** Split name to {@code Bag=3, Coat=5}, in name order. */
  public static Map<String, String> perSplit(IngestResult r) {
    Map<String, String> out = new TreeMap<>();
    r.getRowsPerSplitLabelMap().forEach((split, labels) -> out.put(split, counts(labels)));
    return out;
  }

  private static String counts(LabelRows labels) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Long> e : new TreeMap<>(labels.getRowsPerLabelMap()).entrySet()) {
      sb.append(sb.isEmpty() ? "" : ", ").append(e.getKey()).append('=').append(e.getValue());
    }
    return sb.toString();
  }
}
