package dev.keel.service.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.experiment.ExperimentView;
import io.micronaut.http.sse.Event;
import java.util.Map;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * The Server-Sent Events of one followed experiment: an {@code experiment} event per changed view
 * document, a {@code problem} event per failed reading (the stream goes on), a {@code gone} event
 * when nobody knows the experiment any more; the stream ends with the experiment's workflow.
 */
final class ExperimentEvents {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ExperimentEvents() {}

  static Publisher<Event<String>> of(Flux<ExperimentView.Reading> readings) {
    return readings.map(ExperimentEvents::event);
  }

  private static Event<String> event(ExperimentView.Reading r) {
    if (r instanceof ExperimentView.Changed c) {
      return Event.of(c.document().json()).name("experiment");
    }
    if (r instanceof ExperimentView.Problem p) {
      return Event.of(message(p.message())).name("problem");
    }
    return Event.of(message("the experiment is no longer known")).name("gone");
  }

  private static String message(String text) {
    try {
      return JSON.writeValueAsString(Map.of("message", text));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
