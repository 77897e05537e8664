package dev.keel.search;

import dev.keel.api.v1.Length;

/** The unit of every length in one experiment: the unit of {@code searcher.max_length}. */
public enum LengthUnit {
  BATCHES, RECORDS, EPOCHS;

  public static LengthUnit of(Length length) {
    return switch (length.getUnitCase()) {
      case BATCHES -> BATCHES;
      case RECORDS -> RECORDS;
      case EPOCHS -> EPOCHS;
      case UNIT_NOT_SET -> throw new IllegalArgumentException("length has no unit");
    };
  }

  public Length toProto(long units) {
    return switch (this) {
      case BATCHES -> Length.newBuilder().setBatches(units).build();
      case RECORDS -> Length.newBuilder().setRecords(units).build();
      case EPOCHS -> Length.newBuilder().setEpochs(units).build();
    };
  }

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
