package dev.keel.tables;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A group of rows given as one array per column, for {@link DeltaTableWriter}. Supported arrays:
 * {@code long[]} (long, or timestamp as microseconds since the epoch), {@code Long[]} (long or
 * timestamp, null entries allowed), {@code int[]} (integer), {@code double[]} (double), {@code
 * Double[]} (double, null entries allowed), {@code float[]} (float), {@code boolean[]} (boolean),
 * {@code String[]} (string, null entries allowed), {@code byte[][]} (binary, null entries allowed)
 * fixed-width binary packed in one {@code byte[]} ({@link #addFixedBinary}) and {@code float[][]}
 * (array of non-null floats, one {@code float[]} per row; labeled feature vectors). Arrays are not
 * copied.
 */
public final class Columns {
  private final int rows;
  private final Map<String, Object> columns = new LinkedHashMap<>();

  private Columns(int rows) {
    if (rows < 0) {
      throw new IllegalArgumentException("negative row count " + rows);
    }
    this.rows = rows;
  }

  /** An empty group of {@code rows} rows; add one array per table column. */
  public static Columns of(int rows) {
    return new Columns(rows);
  }

  public Columns add(String name, long[] values) {
    return put(name, values, values.length);
  }

  /** Long or timestamp values; {@code null} entries are SQL NULLs (nullable columns only). */
  public Columns add(String name, Long[] values) {
    return put(name, values, values.length);
  }

  public Columns add(String name, int[] values) {
    return put(name, values, values.length);
  }

  public Columns add(String name, double[] values) {
    return put(name, values, values.length);
  }

  /** Double values; {@code null} entries are SQL NULLs (nullable columns only). */
  public Columns add(String name, Double[] values) {
    return put(name, values, values.length);
  }

  public Columns add(String name, float[] values) {
    return put(name, values, values.length);
  }

  public Columns add(String name, boolean[] values) {
    return put(name, values, values.length);
  }

  public Columns add(String name, String[] values) {
    return put(name, values, values.length);
  }

  public Columns add(String name, byte[][] values) {
    return put(name, values, values.length);
  }

  /**
   * Arrays of floats, one per row ({@code array<float>} columns); {@code null} rows are SQL NULLs.
   */
  public Columns add(String name, float[][] values) {
    return put(name, values, values.length);
  }

  /** Binary values of {@code width} bytes each, row {@code i} at {@code packed[i*width ..]}. */
  public Columns addFixedBinary(String name, byte[] packed, int width) {
    if (width <= 0 || packed.length % width != 0) {
      throw new IllegalArgumentException(
          "column " + name + ": " + packed.length + " bytes is not a multiple of width " + width);
    }
    return put(name, new FixedBinary(packed, width), packed.length / width);
  }

  public int rows() {
    return rows;
  }

  /** Column name to array (or {@link FixedBinary}), in insertion order. */
  Map<String, Object> columns() {
    return Collections.unmodifiableMap(columns);
  }

  private Columns put(String name, Object values, int length) {
    Objects.requireNonNull(name, "name");
    if (length != rows) {
      throw new IllegalArgumentException(
          "column " + name + " has " + length + " values, expected " + rows);
    }
    if (columns.putIfAbsent(name, values) != null) {
      throw new IllegalArgumentException("column " + name + " given twice");
    }
    return this;
  }

  /** Fixed-width binary values packed in one array. */
  record FixedBinary(byte[] packed, int width) {}
}
