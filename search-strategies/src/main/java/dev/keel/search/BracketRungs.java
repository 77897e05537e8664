package dev.keel.search;

import java.util.List;

/**
 * One bracket of a searcher that trains trials in rungs ({@code adaptive_asha}, {@code hyperband}):
 * its group as {@link Searcher#trialGroup} names it, and each rung, shortest first, with the trials
 * the searcher placed there and what it decided for each. Brackets are separate races: a trial is
 * only ever ranked against the trials of its own bracket, so rungs of different brackets with the
 * same length are different rungs.
 *
 * @param group e.g. {@code bracket 2 (3 rungs)}
 * @param rungs shortest first; a rung no trial has reached yet has no trials
 */
public record BracketRungs(String group, List<Rung> rungs) {

  public BracketRungs {
    rungs = List.copyOf(rungs);
  }

  /**
   * @param length in the experiment's unit
   * @param trials best first where the searcher ranks them, then the trials still training toward
   *     the rung
   */
  public record Rung(long length, List<Member> trials) {
    public Rung {
      trials = List.copyOf(trials);
    }
  }

  /** One trial in a rung and the searcher's decision for it there. */
  public record Member(long trialId, Outcome outcome) {}

  /** What became of a trial at a rung. */
  public enum Outcome {
    /** Still training toward this rung's length. */
    TRAINING,
    /** Reached the rung and waits: the searcher may still promote it as more results arrive. */
    WAITING,
    /** Sent on to the bracket's next rung. */
    PROMOTED,
    /** Ended here: not promoted, or it failed before a result (then it has no metric here). */
    STOPPED,
    /** Reached the bracket's last rung: trained to the end. */
    COMPLETED
  }
}
