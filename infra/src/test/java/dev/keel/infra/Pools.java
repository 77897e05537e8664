package dev.keel.infra;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Inputs of the pool modules against moto: its default VPC's subnets, an AMI it knows, an instance
 * profile.
 */
final class Pools {
  private Pools() {}

  static final String STORAGE_ROOT = "s3://keel-data/keel";
  static final String JAR = "s3://keel-data/releases/keel-service.jar";

  /** The variables every pool needs; {@code more} adds to or replaces them. */
  static Map<String, Object> vars(MotoServer moto, String temporalAddress, Map<String, ?> more) {
    Map<String, Object> vars = new HashMap<>();
    vars.put("cluster", cluster(moto, temporalAddress));
    vars.put("ami_id", moto.someAmiId());
    vars.put("instance_profile_name", "keel-pool-worker");
    vars.putAll(more);
    return vars;
  }

  static Map<String, Object> cluster(MotoServer moto, String temporalAddress) {
    return Map.of(
        "temporal_address", temporalAddress,
        "storage_root", STORAGE_ROOT,
        "keel_jar_url", JAR,
        "subnet_ids", moto.defaultSubnetIds());
  }

  static List<String> list(String... items) {
    return List.of(items);
  }
}
