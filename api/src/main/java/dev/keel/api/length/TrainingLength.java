package dev.keel.api.length;

import dev.keel.api.v1.Length;
import java.util.Objects;
import java.util.Optional;

/**
 * A training length: a count in one unit. The only place that decodes the unit of a {@link Length}
 * message, so lengths cross workflow and activity boundaries with their unit and nothing re-derives
 * it from the experiment's config.
 */
public record TrainingLength(long units, LengthUnit unit) implements Comparable<TrainingLength> {
  public TrainingLength {
    if (units < 0) {
      throw new IllegalArgumentException("length must be >= 0, got " + units);
    }
    Objects.requireNonNull(unit, "unit");
  }

  /**
   * @throws IllegalArgumentException when the message sets no unit or a negative count
   */
  public static TrainingLength of(Length length) {
    LengthUnit unit =
        unitOf(length)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "length has no unit (set one of batches|records|epochs)"));
    return new TrainingLength(count(length, unit), unit);
  }

  public static TrainingLength batches(long units) {
    return new TrainingLength(units, LengthUnit.BATCHES);
  }

  public static TrainingLength zero(LengthUnit unit) {
    return new TrainingLength(0, unit);
  }

  /** The unit a message sets, if any. */
  public static Optional<LengthUnit> unitOf(Length length) {
    return Optional.ofNullable(
        switch (length.getUnitCase()) {
          case BATCHES -> LengthUnit.BATCHES;
          case RECORDS -> LengthUnit.RECORDS;
          case EPOCHS -> LengthUnit.EPOCHS;
          case UNIT_NOT_SET -> null;
        });
  }

  /**
   * What is wrong with a configured length, at which field path. Its own type rather than the
   * config package's, so lengths need nothing from the config code that uses them.
   */
  public record Problem(String path, String message) {}

  /**
   * What is wrong with a configured length at {@code path}, if anything: no unit, or a count that
   * is not positive (reported at {@code path.<unit>}).
   */
  public static Optional<Problem> problem(Length length, String path) {
    Optional<LengthUnit> unit = unitOf(length);
    if (unit.isEmpty()) {
      return Optional.of(new Problem(path, "set one of batches|records|epochs"));
    }
    long units = count(length, unit.get());
    String at = path.isEmpty() ? unit.get().label() : path + "." + unit.get().label();
    return units > 0 ? Optional.empty() : Optional.of(new Problem(at, "must be > 0, got " + units));
  }

  public Length toProto() {
    return switch (unit) {
      case BATCHES -> Length.newBuilder().setBatches(units).build();
      case RECORDS -> Length.newBuilder().setRecords(units).build();
      case EPOCHS -> Length.newBuilder().setEpochs(units).build();
    };
  }

  private TrainingLength withUnits(long newUnits) {
    return new TrainingLength(newUnits, unit);
  }

  public TrainingLength plus(TrainingLength other) {
    requireSameUnit(other);
    return withUnits(Math.addExact(units, other.units));
  }

  public TrainingLength min(TrainingLength other) {
    return compareTo(other) <= 0 ? this : other;
  }

  public TrainingLength max(TrainingLength other) {
    return compareTo(other) >= 0 ? this : other;
  }

  public boolean isShorterThan(TrainingLength other) {
    return compareTo(other) < 0;
  }

  /**
   * This length in batches of {@code batchSize} over {@code trainingRows} rows (those left after
   * the validation hold-out): records round up to whole batches, an epoch is {@code
   * ceil(trainingRows / batchSize)} batches. Only the trainer knows both numbers.
   */
  public long toBatches(long trainingRows, int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size must be >= 1, got " + batchSize);
    }
    return switch (unit) {
      case BATCHES -> units;
      case RECORDS -> ceilDiv(units, batchSize);
      case EPOCHS -> Math.multiplyExact(units, ceilDiv(trainingRows, batchSize));
    };
  }

  @Override
  public int compareTo(TrainingLength other) {
    requireSameUnit(other);
    return Long.compare(units, other.units);
  }

  @Override
  public String toString() {
    return units + " " + unit.label();
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  private static long count(Length length, LengthUnit unit) {
    return switch (unit) {
      case BATCHES -> length.getBatches();
      case RECORDS -> length.getRecords();
      case EPOCHS -> length.getEpochs();
    };
  }

  private void requireSameUnit(TrainingLength other) {
    if (unit != other.unit) {
      throw new IllegalArgumentException("lengths in different units: " + this + " and " + other);
    }
  }
}
