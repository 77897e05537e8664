package dev.keel.service.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.experiment.ExperimentView;
import io.micronaut.http.sse.Event;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * The Server-Sent Events of one experiment: its view document as an {@code experiment} event at once and
 * whenever it changes, then the stream ends with the experiment. A reading that fails (Temporal or the
 * storage briefly away) becomes a {@code problem} event and the stream goes on; an experiment nobody
 * knows any more ends it with a {@code gone} event.
 */
final class ExperimentEvents {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ExperimentEvents() {}

  static Publisher<Event<String>> stream(Supplier<Optional<ExperimentView.Document>> read, Duration period) {
    AtomicReference<String> last = new AtomicReference<>("");
    return Flux.interval(Duration.ZERO, period)
        .onBackpressureDrop()
        // the readings block on Temporal and the tables: not on the timer's thread
        .publishOn(Schedulers.boundedElastic(), 1)
        .handle((tick, sink) -> {
          Optional<ExperimentView.Document> document;
          try {
            document = read.get();
          } catch (RuntimeException e) {
            sink.next(Event.of(message("cannot read the experiment now: " + e.getMessage())).name("problem"));
            return;
          }
          if (document.isEmpty()) {
            sink.next(Event.of(message("the experiment is no longer known")).name("gone"));
            sink.complete();
            return;
          }
          String json = document.get().json();
          if (!json.equals(last.getAndSet(json))) {
            sink.next(Event.of(json).name("experiment"));
          }
          if (document.get().ended()) {
            sink.complete();
          }
        });
  }

  private static String message(String text) {
    try {
      return JSON.writeValueAsString(Map.of("message", text));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
