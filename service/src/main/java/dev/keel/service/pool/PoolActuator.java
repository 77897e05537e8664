package dev.keel.service.pool;

import dev.keel.api.v1.PoolInstances;
import java.util.List;

/**
 * Reads and resizes the machines of a pool: {@link AutoScalingActuator} (the Auto Scaling API) or
 * {@link TofuApplyActuator} ({@code tofu apply -var desired_capacity=N}). A request the provider
 * refuses throws {@link PoolProviderException} with the provider's reason.
 */
public interface PoolActuator extends AutoCloseable {

  /** The group's desired count and its instances. */
  PoolInstances describe();

  /** Asks for {@code desired} instances now (no cooldown). */
  void setDesired(int desired);

  /** Protects {@code instanceIds} from scale-in, or releases them. */
  void protect(List<String> instanceIds, boolean protectedFromScaleIn);

  @Override
  void close();
}
