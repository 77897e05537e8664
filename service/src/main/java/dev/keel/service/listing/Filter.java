package dev.keel.service.listing;

import com.google.protobuf.ProtocolMessageEnum;
import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

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

  /**
   * The names of a proto enum's states, without its unset value ({@code STATE_UNSPECIFIED}) and
   * UNRECOGNIZED.
   */
  public static <E extends Enum<E> & ProtocolMessageEnum> Set<String> states(Class<E> states) {
    return Arrays.stream(states.getEnumConstants())
        .filter(s -> !s.name().equals("UNRECOGNIZED") && s.getNumber() != 0)
        .map(s -> s.name().toUpperCase(Locale.ROOT))
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
