package dev.keel.service.pipeline;

import dev.keel.api.config.Splits;
import dev.keel.api.v1.ClassAccuracy;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.etl.LabelLimits;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code keel demo --story}: the two pipelines of {@link StoryRequests} one after the other, each
 * followed with the {@link PipelineWatcher}, then the accuracy per class before and after and the
 * versions and models involved.
 */
public final class StoryRun {
  private final WorkflowClient client;
  private final WorkflowServiceStubs stubs;
  private final PrintStream out;

  public StoryRun(WorkflowClient client, WorkflowServiceStubs stubs, PrintStream out) {
    this.client = client;
    this.stubs = stubs;
    this.out = out;
  }

  /**
   * @param first the request with label limits ({@link StoryRequests#fewOfOneClass})
   * @param startedNanos {@link System#nanoTime()} when the command started, for the wall time
   */
  public void run(PipelineRequest first, long startedNanos) throws InterruptedException {
    String limits =
        String.join(
            ", ",
            first.getSource().getLabelLimitsMap().entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .toList());
    out.println(
        "== 1. a table version with few examples of one class (label_limits: "
            + limits
            + " training rows) ==");
    PipelineResult before = follow(first, first);
    out.println();
    PipelineRequest second = StoryRequests.wholeClassFromTheChampion(first);
    out.println(
        "== 2. the same pipeline on the whole class, warm-started from the champion of "
            + second.getWarmStart().getModel().getName()
            + " ==");
    PipelineResult after = follow(second, first);
    double seconds = (System.nanoTime() - startedNanos) / 1e9;

    long v0 = before.getData().getVersion();
    long v1 = after.getData().getVersion();
    out.printf(
        Locale.ROOT,
        "%n[story]  accuracy per class on the %,d test images (the same rows in both versions)%n%n",
        after.getInference().getRows());
    for (String line :
        PerClassTable.lines(
            before.getInference(), after.getInference(), "table v" + v0, "table v" + v1)) {
      out.println("        " + line);
    }
    out.println();
    out.printf(
        Locale.ROOT,
        "        data table:   %s: version %d (%s) -> version %d (%s)%n",
        after.getData().getUri(),
        v0,
        trainRows(before),
        v1,
        trainRows(after));
    out.printf(
        Locale.ROOT,
        "        model:        %s: version %d (trained on table v%d) -> version %d (warm-started from version %d,"
            + " trained on table v%d), now %s%n",
        after.getModel().getName(),
        before.getModel().getVersion(),
        v0,
        after.getModel().getVersion(),
        after.getWarmStart().getVersion(),
        v1,
        after.getModel().getStage());
    if (after.hasComparison() && after.getComparison().hasChampion()) {
      var c = after.getComparison();
      out.printf(
          Locale.ROOT,
          "        champion:     version %d %.4f vs version %d %.4f on table v%d's %s split: %s%n",
          c.getChampion().getVersion(),
          c.getChampionValue(),
          c.getChallenger().getVersion(),
          c.getChallengerValue(),
          c.getData().getVersion(),
          c.getSplit(),
          c.getDecision().name().replace('_', ' '));
    }
    out.printf(
        Locale.ROOT,
        "        predictions:  %s @ version %d, run %s: source_table_version %d%n",
        after.getInference().getPredictions().getUri(),
        after.getInference().getPredictions().getVersion(),
        after.getInference().getRunId(),
        v1);
    out.printf(Locale.ROOT, "        wall time:    %.0f s%n", seconds);
  }

  private PipelineResult follow(PipelineRequest request, PipelineRequest first)
      throws InterruptedException {
    String id = PipelineLauncher.start(client, request);
    out.println("Started pipeline " + id);
    PipelineResult r = new PipelineWatcher(client, stubs, out, Duration.ofMillis(500)).follow(id);
    out.printf(
        Locale.ROOT,
        "[done]   %s v%d (%s), test accuracy %.4f%s%n",
        r.getModel().getName(),
        r.getModel().getVersion(),
        r.getModel().getStage(),
        r.getInference().getAccuracy(),
        limitedClasses(first, r));
    return r;
  }

  /** The limited classes' accuracy, e.g. ", Sneaker 0.0730 (73 of 1,000)". */
  private static String limitedClasses(PipelineRequest first, PipelineResult r) {
    StringBuilder sb = new StringBuilder();
    for (ClassAccuracy c : r.getInference().getClassesList()) {
      boolean limited =
          first.getSource().getLabelLimitsMap().keySet().stream()
              .anyMatch(k -> LabelLimits.names(k, c.getName(), c.getLabel()));
      if (limited) {
        sb.append(
            String.format(
                Locale.ROOT,
                ", %s %.4f (%,d of %,d)",
                c.getName(),
                c.getAccuracy(),
                c.getCorrect(),
                c.getRows()));
      }
    }
    return sb.toString();
  }

  private static String trainRows(PipelineResult r) {
    return String.format(
        Locale.ROOT, "%,d training rows", r.getIngest().getRowsPerSplitOrDefault(Splits.TRAIN, 0));
  }
}
