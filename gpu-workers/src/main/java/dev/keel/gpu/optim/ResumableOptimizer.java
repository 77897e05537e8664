package dev.keel.gpu.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.training.optimizer.Optimizer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An {@link Optimizer} that owns its per-parameter state (step count + state arrays) and can {@link
 * #saveState save} and {@link #loadState load} it. Not thread-safe; one per trial.
 *
 * <p>State is keyed by the {@code parameterId} passed to {@link #update}: pass a name that is
 * stable across processes (the parameter's path in the block), not DJL's {@code Parameter.getId()},
 * which is a random UUID per instance. State arrays are created on the weight's manager; {@link
 * #close()} frees them.
 */
public abstract class ResumableOptimizer extends Optimizer implements AutoCloseable {
  private static final String MAGIC = "KEEL-OPTIMIZER";
  private static final int VERSION = 1;

  private final Map<String, ParameterState> states = new TreeMap<>();

  protected ResumableOptimizer(float weightDecay) {
    super(new Settings().optWeightDecays(weightDecay));
  }

  /** Short name written into the state file, e.g. {@code adam}. */
  public abstract String kind();

  /** How many state arrays each parameter has (Adam: 2, SGD with momentum: 1). */
  protected abstract int stateArrays();

  /**
   * Applies one update; {@code state} has {@link #stateArrays()} arrays, {@code step} starts at 1.
   */
  protected abstract void update(NDArray weight, NDArray grad, NDArray[] state, int step);

  @Override
  public final void update(String parameterId, NDArray weight, NDArray grad) {
    ParameterState st = states.get(parameterId);
    if (st == null) {
      NDArray[] arrays = new NDArray[stateArrays()];
      for (int i = 0; i < arrays.length; i++) {
        arrays[i] = weight.zerosLike();
      }
      st = new ParameterState(arrays);
      states.put(parameterId, st);
    }
    st.steps++;
    update(weight, grad, st.arrays, st.steps);
  }

  /** Updates applied so far to {@code parameterId} (0 if never). */
  public int steps(String parameterId) {
    ParameterState st = states.get(parameterId);
    return st == null ? 0 : st.steps;
  }

  /** Writes every parameter's step count and state arrays (raw, bit-exact). */
  public void saveState(DataOutputStream out) throws IOException {
    out.writeUTF(MAGIC);
    out.writeInt(VERSION);
    out.writeUTF(kind());
    out.writeInt(states.size());
    for (Map.Entry<String, ParameterState> e : states.entrySet()) {
      out.writeUTF(e.getKey());
      out.writeInt(e.getValue().steps);
      out.writeInt(e.getValue().arrays.length);
      for (NDArray a : e.getValue().arrays) {
        byte[] bytes = a.encode();
        out.writeInt(bytes.length);
        out.write(bytes);
      }
    }
  }

  /**
   * Replaces the state with one written by {@link #saveState}; arrays go to {@code manager} (the
   * manager of the model's parameters).
   *
   * @throws IOException if the stream is not an optimizer state of this kind
   */
  public void loadState(NDManager manager, DataInputStream in) throws IOException {
    String magic = in.readUTF();
    int version = in.readInt();
    if (!MAGIC.equals(magic) || version != VERSION) {
      throw new IOException(
          "not a Keel optimizer state (magic " + magic + ", version " + version + ")");
    }
    String kind = in.readUTF();
    if (!kind.equals(kind())) {
      throw new IOException(
          "optimizer state is for '" + kind + "' but this trial uses '" + kind() + "'");
    }
    Map<String, ParameterState> loaded = new TreeMap<>();
    int count = in.readInt();
    for (int i = 0; i < count; i++) {
      String id = in.readUTF();
      int steps = in.readInt();
      int n = in.readInt();
      if (n != stateArrays()) {
        throw new IOException(
            "optimizer state of " + id + " has " + n + " arrays, expected " + stateArrays());
      }
      NDArray[] arrays = new NDArray[n];
      for (int j = 0; j < n; j++) {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        arrays[j] = manager.decode(bytes);
      }
      ParameterState st = new ParameterState(arrays);
      st.steps = steps;
      loaded.put(id, st);
    }
    close();
    states.putAll(loaded);
  }

  /** Parameter ids that have state, sorted. */
  public Set<String> parameterIds() {
    return Collections.unmodifiableSet(states.keySet());
  }

  /** Frees the state arrays. */
  @Override
  public void close() {
    for (ParameterState st : states.values()) {
      for (NDArray a : st.arrays) {
        a.close();
      }
    }
    states.clear();
  }

  private static final class ParameterState {
    final NDArray[] arrays;
    int steps;

    ParameterState(NDArray[] arrays) {
      this.arrays = arrays;
    }
  }

  /** DJL's optimizer constructor wants a builder; this one only carries the weight decay. */
  private static final class Settings extends OptimizerBuilder<Settings> {
    @Override
    protected Settings self() {
      return this;
    }
  }
}
