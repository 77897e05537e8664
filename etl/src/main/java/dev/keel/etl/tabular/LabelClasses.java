package dev.keel.etl.tabular;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Class names of tabular labels: integer labels that are exactly {@code 0..k-1} keep their value;
 * other labels are numbered {@code 0..k-1} by sorted distinct value (numeric order when every label
 * is a number, text order otherwise).
 */
public final class LabelClasses {
  private LabelClasses() {}

  public static List<String> of(Collection<String> labels) {
    TreeSet<String> distinct = new TreeSet<>(labels);
    boolean numeric = distinct.stream().allMatch(LabelClasses::isNumber);
    List<String> names = new ArrayList<>(distinct);
    if (numeric) {
      names.sort(Comparator.comparing(BigDecimal::new));
    }
    return List.copyOf(names);
  }

  private static boolean isNumber(String s) {
    try {
      new BigDecimal(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
