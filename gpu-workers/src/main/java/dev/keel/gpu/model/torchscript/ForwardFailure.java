package dev.keel.gpu.model.torchscript;

/**
 * PyTorch's own words for a failure inside a TorchScript module: libtorch's message is a
 * TorchScript traceback whose telling line ({@code RuntimeError: mat1 and mat2 shapes cannot be
 * multiplied (8x784 and 4x16)}) comes last.
 */
public final class ForwardFailure {
  private ForwardFailure() {}

  public static String firstLine(Throwable e) {
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    String first = null;
    for (String line : message.split("\\R")) {
      String l = line.strip();
      if (l.matches("^[A-Za-z_.]*(Error|Exception): .*")) {
        return l;
      }
      if (first == null && !l.isEmpty()) {
        first = l;
      }
    }
    return first == null ? e.getClass().getSimpleName() : first;
  }
}
