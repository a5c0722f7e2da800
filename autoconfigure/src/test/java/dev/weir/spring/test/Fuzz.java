package dev.weir.spring.test;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The seeded plumbing of the fuzz tests ({@code *FuzzTests}), which use no fuzzing library: a run
 * seed and a number of tries, each with a default and overridable by a system property, one
 * {@link SplittableRandom} per property (a test method) derived from the seed, so that a run with
 * the same seed and tries generates the same inputs in the same order, and failure messages that
 * name the seed, the try and the input, so that a failure can be replayed.
 *
 * <ul>
 *   <li>{@value #SEED_PROPERTY}: the run's seed; property {@code k} of a class draws from
 *       {@code new SplittableRandom(seed + k)}. Default: the class's own.
 *   <li>{@value #TRIES_PROPERTY}: inputs per property, for every fuzz test of the run. Default: the
 *       class's own (a few seconds a class in the test command).
 * </ul>
 *
 * <p>The bound of one input is on CPU time, of the thread that answers it: a busy machine (two
 * cores shared by several builds) stretches wall-clock time without end, but not the work an input
 * costs. A call that waits (a deadlock, a lost wake-up) uses no CPU; {@link #answered} stops it at
 * a wall-clock hang guard, {@link #HANG_GUARD} unless given, far over any answer's time.
 *
 * <p>A failure is replayed by running the same test with the seed it names and at least the try it
 * names plus one as tries: the inputs before it are generated again (and, where a test keeps state
 * from one input to the next, applied again).
 */
public final class Fuzz {

  /** The system property of the run's seed. */
  public static final String SEED_PROPERTY = "weir-test.fuzz.seed";

  /** The system property of the number of inputs per property. */
  public static final String TRIES_PROPERTY = "weir-test.fuzz.tries";

  /** Inputs longer than this are shown in a failure message by their start and their length. */
  private static final int SHOWN = 10_000;

  /** How long {@link #answered} waits, by the wall clock, for an answer that uses no CPU. */
  public static final Duration HANG_GUARD = Duration.ofSeconds(60);

  /** How often {@link #answered} reads the CPU time of the thread that answers. */
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final long seed;
  private final int tries;
  private final Duration bound;
  private final Duration hangGuard;

  private Fuzz(long seed, int tries, Duration bound, Duration hangGuard) {
    this.seed = seed;
    this.tries = tries;
    this.bound = bound;
    this.hangGuard = hangGuard;
  }

  /**
   * The plumbing of one test class.
   *
   * @param defaultSeed the seed unless {@value #SEED_PROPERTY} is set
   * @param defaultTries the inputs per property unless {@value #TRIES_PROPERTY} is set
   * @param bound how much CPU time one input may take to be answered
   */
  public static Fuzz of(long defaultSeed, int defaultTries, Duration bound) {
    return of(defaultSeed, defaultTries, bound, HANG_GUARD);
  }

  /** As {@link #of(long, int, Duration)}, with a hang guard of {@code hangGuard} instead of {@link #HANG_GUARD}. */
  public static Fuzz of(long defaultSeed, int defaultTries, Duration bound, Duration hangGuard) {
    return new Fuzz(Long.getLong(SEED_PROPERTY, defaultSeed), Integer.getInteger(TRIES_PROPERTY, defaultTries),
        bound, hangGuard);
  }

  /** The run's seed. */
  public long seed() {
    return seed;
  }

  /** Inputs per property. */
  public int tries() {
    return tries;
  }

  /** How much CPU time one input may take to be answered. */
  public Duration bound() {
    return bound;
  }

  /** The generator of property {@code property} of the class (0, 1, ...): the same on every run with this seed. */
  public SplittableRandom random(int property) {
    return new SplittableRandom(seed + property);
  }

  /** One try of a property: generates its input from {@code random} and checks it. */
  @FunctionalInterface
  public interface Try {

    /**
     * Generates the input of try {@code attempt} from {@code random} and checks it; fails with
     * {@link #describe} if it does not hold.
     *
     * @return whether the input was accepted (rules read or applied), as opposed to refused
     */
    boolean run(int attempt, SplittableRandom random);
  }

  /**
   * Runs {@link #tries()} tries of property {@code property}, all drawing from {@link #random} of it
   * in turn, and prints how many were accepted.
   *
   * @param name what the inputs are, for the printed line
   * @return how many tries the check accepted
   */
  public int forEachTry(int property, String name, Try check) {
    SplittableRandom random = random(property);
    int accepted = 0;
    for (int attempt = 0; attempt < tries; attempt++) {
      accepted += check.run(attempt, random) ? 1 : 0;
    }
    System.out.printf("%s: %d tries, %d accepted (seed %d, property %d)%n", name, tries, accepted, seed, property);
    return accepted;
  }

  /** {@code problem}, with the seed, the try and the input (its start, if long) that replay it. */
  public String describe(String problem, int attempt, String input) {
    String shown = input.length() <= SHOWN ? input : input.substring(0, SHOWN) + "...";
    return problem + " (seed " + seed + ", try " + attempt + ", " + input.length() + " characters; replay with -D"
        + SEED_PROPERTY + "=" + seed + " -D" + TRIES_PROPERTY + "=" + (attempt + 1) + "): " + shown;
  }

  /**
   * Fails if the calling thread used more than {@link #bound()} of CPU time since
   * {@code startCpuNanos} (a reading of {@link CpuTime#current()} on this thread).
   */
  public void withinBound(long startCpuNanos, String what, int attempt, String input) {
    long took = CpuTime.current() - startCpuNanos;
    if (took > bound.toNanos()) {
      throw new AssertionError(describe(what + " took " + Duration.ofNanos(took) + " of CPU time", attempt, input));
    }
  }

  /**
   * Runs {@code call} on a thread of its own and returns what it returns; fails, naming the try and
   * the input, if it throws anything (an {@link Error} included), returns null, uses more than
   * {@link #bound()} of CPU time, or has not returned within the hang guard (wall-clock time, for a
   * call that waits). A call past either is interrupted and left to end on its own (the thread is a
   * daemon), so that a hang fails the test instead of stopping it. Only the CPU time of that thread
   * is bounded: work the call hands to other threads (a server's) is bounded by the hang guard.
   */
  public <T> T answered(String what, int attempt, String input, Supplier<T> call) {
    FutureTask<T> task = new FutureTask<>(call::get);
    Thread worker = new Thread(task, "weir-fuzz-try-" + attempt);
    worker.setDaemon(true);
    worker.start();
    long hangAt = System.nanoTime() + hangGuard.toNanos();
    T answer;
    try {
      while (true) {
        try {
          answer = task.get(POLL_NANOS, TimeUnit.NANOSECONDS);
          break;
        } catch (TimeoutException notYet) {
          long cpu = CpuTime.of(worker);
          if (cpu > bound.toNanos()) {
            worker.interrupt();
            throw new AssertionError(describe(what + " took more than " + bound + " of CPU time", attempt, input));
          }
          if (System.nanoTime() - hangAt >= 0) {
            worker.interrupt();
            throw new AssertionError(describe(what + " gave no answer within " + hangGuard, attempt, input));
          }
        }
      }
    } catch (ExecutionException thrown) {
      throw new AssertionError(describe(what + " threw " + thrown.getCause(), attempt, input), thrown.getCause());
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      worker.interrupt();
      throw new AssertionError(describe(what + " was interrupted", attempt, input), interrupted);
    }
    if (answer == null) {
      throw new AssertionError(describe(what + " answered null", attempt, input));
    }
    return answer;
  }
}
