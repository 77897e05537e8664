package dev.keel.search.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every query of a {@link RankedTree} answers as the sorted list it replaces would, through
 * thousands of random inserts, removals and marks (many equal keys, told apart by an arrival
 * counter as ASHA's rungs do).
 */
class RankedTreeAnswersAsASortedListWouldTest {
  private record Item(int key, long arrival) {}

  private static final Comparator<Item> ORDER =
      Comparator.comparingInt(Item::key).thenComparingLong(Item::arrival);

  @Test
  void randomOperationsMatchASortedListWithMarks() {
    Prng rng = new Prng(7);
    RankedTree<Item> tree = new RankedTree<>(ORDER);
    List<Item> list = new ArrayList<>();
    List<Boolean> marks = new ArrayList<>();
    long arrivals = 0;
    for (int step = 0; step < 20_000; step++) {
      int op = rng.nextInt(10);
      if (op < 6 || list.isEmpty()) {
        Item item = new Item(rng.nextInt(50), arrivals++);
        boolean marked = rng.nextInt(4) == 0;
        int at = 0;
        while (at < list.size() && ORDER.compare(list.get(at), item) < 0) {
          at++;
        }
        list.add(at, item);
        marks.add(at, marked);
        assertEquals(at, tree.insert(item, marked));
      } else if (op < 8) {
        int at = rng.nextInt(list.size());
        assertTrue(tree.remove(list.get(at)));
        assertFalse(tree.remove(list.get(at)));
        list.remove(at);
        marks.remove(at);
      } else {
        int at = rng.nextInt(list.size());
        tree.mark(list.get(at));
        marks.set(at, true);
      }
      assertEquals(list.size(), tree.size());
      assertEquals(marks.indexOf(false), tree.firstUnmarked());
      if (!list.isEmpty()) {
        int at = rng.nextInt(list.size());
        assertEquals(list.get(at), tree.get(at));
        assertEquals(at, tree.indexOf(list.get(at)));
      }
      if (step % 500 == 0) {
        assertEquals(list, tree.toList());
        List<Item> unmarked = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
          if (!marks.get(i)) {
            unmarked.add(list.get(i));
          }
        }
        List<Item> visited = new ArrayList<>();
        tree.forEachUnmarked(visited::add);
        assertEquals(unmarked, visited);
      }
    }
    assertEquals(-1, tree.indexOf(new Item(-1, -1)));
  }
}
