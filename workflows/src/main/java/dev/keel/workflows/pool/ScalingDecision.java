package dev.keel.workflows.pool;

import dev.keel.api.v1.PoolDecision;
import java.util.List;

/**
 * What the provisioner asks of the group after one look, and why.
 *
 * @param previousDesired the group's desired count as observed
 * @param desired the count to ask for (equal to {@code previousDesired}: no change)
 * @param protect instances to protect from scale-in (they run ranks of a live gang)
 * @param unprotect instances to release (idle, or failed to start)
 * @param reason the human reason, first the sizing, then protection and what else was noticed
 * @param heldByBackoff a change was due but the launch-error back-off holds it
 */
public record ScalingDecision(
    int previousDesired,
    int desired,
    List<String> protect,
    List<String> unprotect,
    String reason,
    boolean heldByBackoff) {

  public ScalingDecision {
    protect = List.copyOf(protect);
    unprotect = List.copyOf(unprotect);
  }

  /** Something to ask the provider for. */
  public boolean changes() {
    return desired != previousDesired || !protect.isEmpty() || !unprotect.isEmpty();
  }

  public PoolDecision toProto(long timeMillis) {
    return PoolDecision.newBuilder()
        .setTimeMillis(timeMillis)
        .setPreviousDesired(previousDesired)
        .setDesired(desired)
        .addAllProtect(protect)
        .addAllUnprotect(unprotect)
        .setReason(reason)
        .build();
  }
}
