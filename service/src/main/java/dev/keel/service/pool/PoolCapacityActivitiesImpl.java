package dev.keel.service.pool;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.HeartbeatTicker;
import dev.keel.activities.pool.PoolCapacityActivities;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.PoolInstances;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.ResizePoolRequest;
import dev.keel.api.v1.ResizePoolResult;
import dev.keel.workflows.pool.PoolSpecs;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PoolCapacityActivities} through the actuator a spec names, one per actuator kept for the
 * worker's life (its AWS clients are reused). The provider's refusals fail without retries ({@code
 * PoolProviderRefused}, the provider's reason as message); an unreachable or throttling provider
 * fails retryably, and the workflow backs off after its attempts.
 */
public final class PoolCapacityActivitiesImpl implements PoolCapacityActivities, AutoCloseable {
  /** A failure that another attempt may not meet (throttling, a 5xx, a network error). */
  static final String PROVIDER_UNAVAILABLE = "PoolProviderUnavailable";

  private static final Logger log = LoggerFactory.getLogger(PoolCapacityActivitiesImpl.class);

  private final Function<PoolSpec, PoolActuator> actuators;
  private final Map<Object, PoolActuator> open = new ConcurrentHashMap<>();

  /** Actuators as the spec says, with tofu run in the worker's own environment. */
  public PoolCapacityActivitiesImpl() {
    this(Map.of());
  }

  /**
   * @param tofuEnvironment added to the worker's environment for tofu runs (a test's
   *     TF_CLI_CONFIG_FILE)
   */
  public PoolCapacityActivitiesImpl(Map<String, String> tofuEnvironment) {
    this.actuators =
        spec ->
            spec.hasTofu()
                ? new TofuApplyActuator(
                    spec.getTofu(),
                    new AutoScalingActuator(spec.getTofu().getAwsAsg()),
                    tofuEnvironment)
                : new AutoScalingActuator(spec.getAwsAsg());
  }

  @Override
  public PoolInstances describe(PoolSpec spec) {
    return provider(() -> actuator(spec).describe());
  }

  @Override
  public ResizePoolResult resize(ResizePoolRequest request) {
    PoolActuator actuator = actuator(request.getSpec());
    try (HeartbeatTicker ignored = HeartbeatTicker.start()) {
      provider(
          () -> {
            // protect the busy ones before anything can go away
            if (request.getProtectCount() > 0) {
              actuator.protect(request.getProtectList(), true);
            }
            if (request.getUnprotectCount() > 0) {
              actuator.protect(request.getUnprotectList(), false);
            }
            if (request.hasDesired()) {
              actuator.setDesired(request.getDesired());
            }
            return null;
          });
    }
    log.info("pool {}: {}", request.getSpec().getName(), request.getReason());
    return ResizePoolResult.getDefaultInstance();
  }

  private PoolActuator actuator(PoolSpec submitted) {
    List<ConfigProblem> problems = PoolSpecs.validate(submitted);
    if (!problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          new ConfigValidationException(PoolSpecs.SPEC, problems).getMessage(),
          FailureTypes.INVALID_POOL_SPEC);
    }
    PoolSpec spec = PoolSpecs.withDefaults(submitted);
    Object key = spec.hasTofu() ? spec.getTofu() : spec.getAwsAsg();
    return provider(() -> open.computeIfAbsent(key, k -> actuators.apply(spec)));
  }

  private static <T> T provider(Supplier<T> call) {
    try {
      return call.get();
    } catch (PoolProviderException e) {
      log.warn("{}", e.getMessage());
      throw e.retryable()
          ? ApplicationFailure.newFailure(e.getMessage(), PROVIDER_UNAVAILABLE)
          : ApplicationFailure.newNonRetryableFailure(
              e.getMessage(), FailureTypes.POOL_PROVIDER_REFUSED);
    }
  }

  @Override
  public void close() {
    open.values().forEach(PoolActuator::close);
    open.clear();
  }
}
