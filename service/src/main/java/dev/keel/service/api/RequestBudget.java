package dev.keel.service.api;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * How long one expensive request may compute: a preview's simulation stops at its deadline and the
 * request answers 503 naming the budget. {@code keel.api.request-budget} (a system property, or
 * {@code KEEL_API_REQUEST_BUDGET}), default 10 s. Keel's config limits keep the worst preview near
 * a second, so the budget is a backstop.
 */
@Singleton
public class RequestBudget {
  private final Duration limit;

  public RequestBudget(@Value("${keel.api.request-budget:10s}") Duration limit) {
    this.limit = limit;
  }

  /** A deadline starting now. */
  public Deadline start() {
    return new Deadline(System.nanoTime() + limit.toNanos());
  }

  /** The answer when {@code what} ran past the budget. */
  public String exceeded(String what) {
    return what
        + " needed more than "
        + describe(limit)
        + ", the most one request may compute"
        + " (keel.api.request-budget): lower searcher.max_trials";
  }

  private static String describe(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /** When a request's budget runs out. */
  public record Deadline(long nanos) {
    public boolean passed() {
      return System.nanoTime() - nanos >= 0;
    }
  }
}
