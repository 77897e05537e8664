package dev.keel.tables;

import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.util.Arrays;

/** A Kernel {@link ColumnarBatch} over rows {@code [offset, offset+size)} of a {@link Columns}. */
final class ArrayBatch implements ColumnarBatch {
  private final StructType schema;
  private final Object[] arrays;
  private final int offset;
  private final int size;

  private ArrayBatch(StructType schema, Object[] arrays, int offset, int size) {
    this.schema = schema;
    this.arrays = arrays;
    this.offset = offset;
    this.size = size;
  }

  /** Checks {@code cols} against {@code schema} and returns the arrays in schema order. */
  static Object[] bind(StructType schema, Columns cols) {
    var given = cols.columns();
    for (String name : given.keySet()) {
      if (schema.indexOf(name) < 0) {
        throw new IllegalArgumentException(
            "column " + name + " is not in the table schema " + schema.fieldNames());
      }
    }
    Object[] arrays = new Object[schema.length()];
    for (int i = 0; i < schema.length(); i++) {
      StructField f = schema.at(i);
      Object a = given.get(f.getName());
      if (a == null) {
        throw new IllegalArgumentException(
            "missing column " + f.getName() + " (" + f.getDataType() + ")");
      }
      DataType t = f.getDataType();
      boolean ok =
          ((t instanceof LongType || t instanceof TimestampType)
                  && (a instanceof long[] || a instanceof Long[]))
              || (t instanceof IntegerType && a instanceof int[])
              || (t instanceof DoubleType && (a instanceof double[] || a instanceof Double[]))
              || (t instanceof FloatType && a instanceof float[])
              || (t instanceof BooleanType && a instanceof boolean[])
              || (t instanceof StringType && a instanceof String[])
              || (t instanceof BinaryType
                  && (a instanceof byte[][] || a instanceof Columns.FixedBinary))
              || (t instanceof ArrayType at
                  && at.getElementType() instanceof FloatType
                  && a instanceof float[][]);
      if (!ok) {
        throw new IllegalArgumentException(
            "column "
                + f.getName()
                + " is "
                + t
                + " but was given "
                + a.getClass().getSimpleName());
      }
      if (!f.isNullable()) {
        if ((a instanceof Object[] objs && Arrays.asList(objs).contains(null))) {
          throw new IllegalArgumentException(
              "column " + f.getName() + " is NOT NULL but has nulls");
        }
      }
      arrays[i] = a;
    }
    return arrays;
  }

  static ArrayBatch slice(StructType schema, Object[] arrays, int offset, int size) {
    return new ArrayBatch(schema, arrays, offset, size);
  }

  @Override
  public StructType getSchema() {
    return schema;
  }

  @Override
  public int getSize() {
    return size;
  }

  @Override
  public ColumnVector getColumnVector(int ordinal) {
    return new Vector(schema.at(ordinal).getDataType(), arrays[ordinal], offset, size);
  }

  private static final class Vector implements ColumnVector {
    private final DataType type;
    private final Object a;
    private final int off;
    private final int size;

    Vector(DataType type, Object a, int off, int size) {
      this.type = type;
      this.a = a;
      this.off = off;
      this.size = size;
    }

    private int idx(int row) {
      if (row < 0 || row >= size) {
        throw new IndexOutOfBoundsException("row " + row + " of " + size);
      }
      return off + row;
    }

    @Override
    public DataType getDataType() {
      return type;
    }

    @Override
    public int getSize() {
      return size;
    }

    @Override
    public void close() {}

    @Override
    public boolean isNullAt(int row) {
      int i = idx(row);
      return a instanceof Object[] objs && objs[i] == null;
    }

    @Override
    public long getLong(int row) {
      return a instanceof Long[] boxed ? boxed[idx(row)] : ((long[]) a)[idx(row)];
    }

    @Override
    public int getInt(int row) {
      return ((int[]) a)[idx(row)];
    }

    @Override
    public double getDouble(int row) {
      return a instanceof Double[] boxed ? boxed[idx(row)] : ((double[]) a)[idx(row)];
    }

    @Override
    public float getFloat(int row) {
      return ((float[]) a)[idx(row)];
    }

    @Override
    public boolean getBoolean(int row) {
      return ((boolean[]) a)[idx(row)];
    }

    @Override
    public String getString(int row) {
      return ((String[]) a)[idx(row)];
    }

    @Override
    public byte[] getBinary(int row) {
      int i = idx(row);
      if (a instanceof Columns.FixedBinary fb) {
        return Arrays.copyOfRange(fb.packed(), i * fb.width(), (i + 1) * fb.width());
      }
      return ((byte[][]) a)[i];
    }

    @Override
    public ArrayValue getArray(int row) {
      float[] values = ((float[][]) a)[idx(row)];
      if (values == null) {
        return null;
      }
      DataType element = ((ArrayType) type).getElementType();
      return new ArrayValue() {
        @Override
        public int getSize() {
          return values.length;
        }

        @Override
        public ColumnVector getElements() {
          return new Vector(element, values, 0, values.length);
        }
      };
    }
  }
}
