package dev.keel.search;

import dev.keel.api.v1.Length;

/** A training length: a count in the experiment's unit. */
public record TrainingLength(long units, LengthUnit unit) implements Comparable<TrainingLength> {
  public TrainingLength {
    if (units < 0) {
      throw new IllegalArgumentException("length must be >= 0, got " + units);
    }
    java.util.Objects.requireNonNull(unit, "unit");
  }

  public static TrainingLength of(Length length) {
    LengthUnit unit = LengthUnit.of(length);
    long units = switch (unit) {
      case BATCHES -> length.getBatches();
      case RECORDS -> length.getRecords();
      case EPOCHS -> length.getEpochs();
    };
    return new TrainingLength(units, unit);
  }

  public Length toProto() {
    return unit.toProto(units);
  }

  @Override
  public int compareTo(TrainingLength other) {
    if (unit != other.unit) {
      throw new IllegalArgumentException("cannot compare " + this + " with " + other);
    }
    return Long.compare(units, other.units);
  }

  @Override
  public String toString() {
    return units + " " + unit.label();
  }
}
