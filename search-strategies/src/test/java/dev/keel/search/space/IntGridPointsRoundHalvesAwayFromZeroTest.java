package dev.keel.search.space;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Value;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Int grid points round like Determined's grid (Go's math.Round: halves away from zero), negative
 * ranges included.
 */
class IntGridPointsRoundHalvesAwayFromZeroTest {

  private static List<Double> grid(long min, long max, int count) {
    return new IntDimension("n", min, max, count)
        .grid().stream().map(Value::getNumberValue).toList();
  }

  @Test
  void aNegativeHalfRoundsAwayFromZero() {
    // -5 + 1 * 5 / 2 = -2.5: Determined -3 (Math.round would give -2)
    assertEquals(List.of(-5.0, -3.0, 0.0), grid(-5, 0, 3));
    assertEquals(List.of(-3.0), grid(-5, 0, 1), "the midpoint of a one-point grid too");
  }

  @Test
  void positiveRangesAreUnchanged() {
    assertEquals(List.of(0.0, 3.0, 5.0), grid(0, 5, 3));
    assertEquals(List.of(3.0), grid(0, 5, 1));
    assertEquals(List.of(1.0, 2.0, 3.0, 4.0), grid(1, 4, 10), "at most one point per integer");
  }

  @Test
  void roundingIsExactAroundHalves() {
    assertEquals(0, IntDimension.roundHalfAwayFromZero(0.49999999999999994));
    assertEquals(-1, IntDimension.roundHalfAwayFromZero(-0.5));
    assertEquals(2, IntDimension.roundHalfAwayFromZero(1.5));
    assertEquals(-2, IntDimension.roundHalfAwayFromZero(-1.5000000000000002));
  }
}
