package dev.keel.search;

import dev.keel.search.sim.SimEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Facts read off a simulation transcript (events and answers), independent of the searcher's
 * internals.
 */
public record Transcript(List<SimEvent.Exchange> exchanges) {

  public List<Operation> operations() {
    List<Operation> ops = new ArrayList<>();
    exchanges.forEach(e -> ops.addAll(e.answer()));
    return ops;
  }

  public long longestRequest() {
    return operations().stream()
        .filter(o -> o instanceof ValidateAfter)
        .mapToLong(o -> ((ValidateAfter) o).length().units())
        .max()
        .orElse(0);
  }

  public Set<Long> created() {
    Set<Long> ids = new TreeSet<>();
    operations()
        .forEach(
            o -> {
              if (o instanceof Create c) {
                ids.add(c.trialId());
              }
            });
    return ids;
  }

  public Set<Long> ended() {
    Set<Long> ids = new TreeSet<>();
    exchanges.forEach(
        e -> {
          if (e.event() instanceof SimEvent.TrialClosed c) {
            ids.add(c.trialId());
          } else if (e.event() instanceof SimEvent.TrialExitedEarly x) {
            ids.add(x.trialId());
          }
        });
    return ids;
  }

  public long invalidHp() {
    return exchanges.stream()
        .filter(
            e ->
                e.event() instanceof SimEvent.TrialExitedEarly x
                    && x.reason() == ExitReason.INVALID_HP)
        .count();
  }

  /** Most trials with an outstanding ValidateAfter at any point. */
  public int maxOutstanding() {
    Set<Long> outstanding = new TreeSet<>();
    int max = 0;
    for (SimEvent.Exchange e : exchanges) {
      if (e.event() instanceof SimEvent.ValidationCompleted v) {
        outstanding.remove(v.trialId());
      } else if (e.event() instanceof SimEvent.TrialExitedEarly x) {
        outstanding.remove(x.trialId());
      }
      for (Operation op : e.answer()) {
        if (op instanceof ValidateAfter v) {
          outstanding.add(v.trialId());
        }
      }
      max = Math.max(max, outstanding.size());
    }
    return max;
  }

  public boolean endsWithShutdown() {
    List<Operation> ops = operations();
    return !ops.isEmpty()
        && ops.get(ops.size() - 1) instanceof Shutdown
        && ops.stream().filter(o -> o instanceof Shutdown).count() == 1;
  }
}
