package dev.keel.api.config;

import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import java.util.List;

/**
 * The names a config may give a proto enum field: every value but the zero one, which stands for
 * "not set". Keel's contract enums are named as their JSON and YAML spellings ({@code csv}, {@code
 * champion_challenger}), so these are the words users write.
 */
public final class EnumNames {
  private EnumNames() {}

  /** The accepted names in declaration order. */
  public static List<String> names(EnumDescriptor type) {
    return type.getValues().stream()
        .filter(v -> v.getNumber() != 0)
        .map(EnumValueDescriptor::getName)
        .toList();
  }

  /** The accepted names in declaration order, separated by {@code |}: {@code append|overwrite}. */
  public static String expected(EnumDescriptor type) {
    return String.join("|", names(type));
  }

  /**
   * A number the enum does not name: it arrives only from a client built against newer protos (or a
   * hand-made binary payload), since JSON and YAML are checked by name.
   */
  public static String unrecognized(int number, EnumDescriptor type) {
    return "unknown value " + number + " (expected " + expected(type) + ")";
  }
}
