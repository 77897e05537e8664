package dev.keel.service.listing;

import com.google.protobuf.Descriptors.EnumDescriptor;
import dev.keel.api.config.EnumNames;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A filter of a list ({@code --state} of the CLI, {@code ?state=} of the REST API): its value must
 * be one of the values the list's items can have, in any case. An unknown value is refused, naming
 * the allowed ones, instead of matching nothing (which would read as "there are none").
 */
public final class Filter {
  private Filter() {}

  /**
   * {@code value} when it is empty or one of {@code allowed} (compared in any case).
   *
   * @param name the filter as the message names it: {@code state}, {@code stage}, {@code status}
   * @throws IllegalArgumentException {@code state: 'bogus' is not one of [ACTIVE, COMPLETED, ...]}
   */
  public static Optional<String> oneOf(
      String name, Optional<String> value, Collection<String> allowed) {
    if (value.isPresent() && allowed.stream().noneMatch(a -> a.equalsIgnoreCase(value.get()))) {
      throw new IllegalArgumentException(
          name + ": '" + value.get() + "' is not one of " + new TreeSet<>(allowed));
    }
    return value;
  }

  /** The names a proto enum's values take, sorted; not its unset value nor UNRECOGNIZED. */
  public static Set<String> states(EnumDescriptor type) {
    return new TreeSet<>(EnumNames.names(type));
  }
}
