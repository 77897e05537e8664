package dev.keel.service.pipeline;

import dev.keel.api.v1.ClassAccuracy;
import dev.keel.api.v1.InferenceResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Accuracy per class of two runs side by side, aligned for a terminal: class, before, after,
 * change.
 */
public final class PerClassTable {
  private PerClassTable() {}

  /**
   * One line per class of {@code after} (matched to {@code before}'s by label), then the overall
   * accuracy.
   */
  public static List<String> lines(
      InferenceResult before, InferenceResult after, String beforeHeader, String afterHeader) {
    int nameWidth = "all classes".length();
    for (ClassAccuracy c : after.getClassesList()) {
      nameWidth = Math.max(nameWidth, name(c).length());
    }
    int w = Math.max(8, Math.max(beforeHeader.length(), afterHeader.length()));
    String row = "%-" + nameWidth + "s  %" + w + "s  %" + w + "s  %8s";
    List<String> out = new ArrayList<>();
    out.add(String.format(Locale.ROOT, row, "class", beforeHeader, afterHeader, "change"));
    for (ClassAccuracy a : after.getClassesList()) {
      // by label, not by position: a class without scored rows is absent from a result
      ClassAccuracy b =
          before.getClassesList().stream()
              .filter(c -> c.getLabel() == a.getLabel())
              .findFirst()
              .orElse(ClassAccuracy.getDefaultInstance());
      out.add(
          String.format(
              Locale.ROOT,
              row,
              name(a),
              fraction(b.getAccuracy()),
              fraction(a.getAccuracy()),
              change(a.getAccuracy() - b.getAccuracy())));
    }
    out.add(
        String.format(
            Locale.ROOT,
            row,
            "all classes",
            fraction(before.getAccuracy()),
            fraction(after.getAccuracy()),
            change(after.getAccuracy() - before.getAccuracy())));
    return out;
  }

  private static String name(ClassAccuracy c) {
    return c.getName().isEmpty() ? "label " + c.getLabel() : c.getName();
  }

  private static String fraction(double x) {
    return String.format(Locale.ROOT, "%.4f", x);
  }

  private static String change(double d) {
    return String.format(Locale.ROOT, "%+.4f", d);
  }
}
