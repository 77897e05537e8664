package dev.keel.search.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * A sorted sequence with positions, for rankings that grow one result at a time: insert, remove,
 * the position of an element and the element at a position, each in O(log n); and a mark per
 * element (a promoted trial), with the first unmarked element found in O(log n). A sorted {@code
 * ArrayList} costs O(n) per insert and a scan for the unmarked ones O(n) per result, which made a
 * 100,000-trial ASHA preview take minutes.
 *
 * <p>The order must be total: no two elements compare equal (break ties with an arrival counter).
 * The tree is a treap whose priorities hash the insertion count, so its shape is the same on every
 * run; only the order decides what a query answers.
 */
public final class RankedTree<E> {
  private final Comparator<? super E> order;
  private Node<E> root;
  private long insertions;

  private static final class Node<E> {
    final E value;
    final long priority;
    boolean marked;
    Node<E> left;
    Node<E> right;
    int size = 1;
    int unmarked;

    Node(E value, long priority, boolean marked) {
      this.value = value;
      this.priority = priority;
      this.marked = marked;
      this.unmarked = marked ? 0 : 1;
    }
  }

  public RankedTree(Comparator<? super E> order) {
    this.order = order;
  }

  public int size() {
    return size(root);
  }

  /** Inserts {@code e}, which must not be in the tree yet, and returns its position. */
  public int insert(E e, boolean marked) {
    Node<E> node = new Node<>(e, hash(insertions++), marked);
    int[] position = new int[1];
    root = insert(root, node, position);
    return position[0];
  }

  /** Removes {@code e}; false if it was not in the tree. */
  public boolean remove(E e) {
    int before = size();
    root = remove(root, e);
    return size() < before;
  }

  /** The element at {@code index} (0 = first in the order). */
  public E get(int index) {
    if (index < 0 || index >= size()) {
      throw new IndexOutOfBoundsException("index " + index + ", size " + size());
    }
    Node<E> t = root;
    while (true) {
      int left = size(t.left);
      if (index < left) {
        t = t.left;
      } else if (index == left) {
        return t.value;
      } else {
        index -= left + 1;
        t = t.right;
      }
    }
  }

  /** The position of {@code e}, or -1 if it is not in the tree. */
  public int indexOf(E e) {
    Node<E> t = root;
    int before = 0;
    while (t != null) {
      int c = order.compare(e, t.value);
      if (c < 0) {
        t = t.left;
      } else if (c > 0) {
        before += size(t.left) + 1;
        t = t.right;
      } else {
        return before + size(t.left);
      }
    }
    return -1;
  }

  /** Marks {@code e}, which must be in the tree. */
  public void mark(E e) {
    if (!mark(root, e)) {
      throw new IllegalArgumentException("not in the tree: " + e);
    }
  }

  /** The position of the first unmarked element, or -1 if every element is marked. */
  public int firstUnmarked() {
    Node<E> t = root;
    int before = 0;
    while (t != null && t.unmarked > 0) {
      if (unmarked(t.left) > 0) {
        t = t.left;
      } else if (!t.marked) {
        return before + size(t.left);
      } else {
        before += size(t.left) + 1;
        t = t.right;
      }
    }
    return -1;
  }

  /**
   * Every unmarked element, in order (skipping marked subtrees: O(k log n) for k unmarked
   * elements).
   */
  public void forEachUnmarked(Consumer<? super E> action) {
    forEachUnmarked(root, action);
  }

  /** Every element, in order. */
  public List<E> toList() {
    List<E> out = new ArrayList<>(size());
    collect(root, out);
    return out;
  }

  private Node<E> insert(Node<E> t, Node<E> node, int[] position) {
    if (t == null) {
      return node;
    }
    int c = order.compare(node.value, t.value);
    if (c == 0) {
      throw new IllegalArgumentException("already in the tree: " + node.value);
    }
    if (c < 0) {
      t.left = insert(t.left, node, position);
      update(t);
      if (t.left.priority > t.priority) {
        t = rotateRight(t);
      }
    } else {
      position[0] += size(t.left) + 1;
      t.right = insert(t.right, node, position);
      update(t);
      if (t.right.priority > t.priority) {
        t = rotateLeft(t);
      }
    }
    return t;
  }

  private Node<E> remove(Node<E> t, E e) {
    if (t == null) {
      return null;
    }
    int c = order.compare(e, t.value);
    if (c < 0) {
      t.left = remove(t.left, e);
    } else if (c > 0) {
      t.right = remove(t.right, e);
    } else {
      return merge(t.left, t.right);
    }
    update(t);
    return t;
  }

  private boolean mark(Node<E> t, E e) {
    if (t == null) {
      return false;
    }
    int c = order.compare(e, t.value);
    boolean found;
    if (c < 0) {
      found = mark(t.left, e);
    } else if (c > 0) {
      found = mark(t.right, e);
    } else {
      t.marked = true;
      found = true;
    }
    update(t);
    return found;
  }

  private void forEachUnmarked(Node<E> t, Consumer<? super E> action) {
    if (t == null || t.unmarked == 0) {
      return;
    }
    forEachUnmarked(t.left, action);
    if (!t.marked) {
      action.accept(t.value);
    }
    forEachUnmarked(t.right, action);
  }

  private static <E> void collect(Node<E> t, List<E> out) {
    if (t == null) {
      return;
    }
    collect(t.left, out);
    out.add(t.value);
    collect(t.right, out);
  }

  /** Joins two treaps, every element of {@code a} before every element of {@code b}. */
  private Node<E> merge(Node<E> a, Node<E> b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    if (a.priority > b.priority) {
      a.right = merge(a.right, b);
      update(a);
      return a;
    }
    b.left = merge(a, b.left);
    update(b);
    return b;
  }

  private Node<E> rotateRight(Node<E> t) {
    Node<E> l = t.left;
    t.left = l.right;
    l.right = t;
    update(t);
    update(l);
    return l;
  }

  private Node<E> rotateLeft(Node<E> t) {
    Node<E> r = t.right;
    t.right = r.left;
    r.left = t;
    update(t);
    update(r);
    return r;
  }

  private static <E> void update(Node<E> t) {
    t.size = 1 + size(t.left) + size(t.right);
    t.unmarked = (t.marked ? 0 : 1) + unmarked(t.left) + unmarked(t.right);
  }

  private static int size(Node<?> t) {
    return t == null ? 0 : t.size;
  }

  private static int unmarked(Node<?> t) {
    return t == null ? 0 : t.unmarked;
  }

  /**
   * SplitMix64's finalizer: priorities that look random to any insertion order, the same on every
   * run.
   */
  private static long hash(long z) {
    z += 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
