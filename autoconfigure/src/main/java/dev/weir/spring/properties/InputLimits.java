package dev.weir.spring.properties;

/**
 * The bounds on rules that arrive from outside the application's own configuration: a body posted
 * to the {@code weir} endpoint, the rule file ({@code weir.rules.file}) and the Sentinel files
 * ({@code weir.rules.sentinel.*}). Each is checked before the input is parsed or expanded, so that
 * what an operator (or whoever holds the file or the endpoint) writes costs at most time and memory
 * linear in these numbers; what is over one of them is refused as a violation naming the limit.
 *
 * <p>One size for all: a body and a file hold the same rules written the same way, and a rule file
 * written back from endpoint writes must stay readable, so the file may not be larger than what
 * one write may post. 1 MiB holds some 20,000 flow rules in YAML, far beyond the rules an
 * application has, and is read, bound and checked well within a second.
 */
public final class InputLimits {

  /** The most bytes of a posted body, a rule file or a Sentinel file: 1 MiB. */
  public static final int MAX_BYTES = 1 << 20;

  /** {@link #MAX_BYTES} as written in messages and the documentation (docs/). */
  public static final String MAX_BYTES_TEXT = MAX_BYTES + " bytes (1 MiB)";

  /**
   * The deepest nesting of objects and lists, counted from the document (a hot-parameter rule's
   * exception, the deepest thing a rule has, is at depth 5: the body or file, a kind's list, the
   * rule, its list of exceptions, the exception).
   */
  public static final int MAX_DEPTH = 20;

  /** The most YAML aliases ({@code *name}) to a list or mapping a rule file may use. */
  public static final int MAX_ALIASES = 100;

  /**
   * The most values (scalars, lists and mappings) the aliases of a rule file may add to what is
   * written: an alias repeats its anchor's values wherever it is used, and a chain of them (the
   * "billion laughs") would repeat them exponentially.
   */
  public static final int MAX_ALIASED_VALUES = 100_000;

  /**
   * The most list entries one write to the {@code weir} endpoint may hold: its rules, and the
   * entries of their lists (exceptions of hot-parameter rules, {@code limit-app} of authority
   * rules), all kinds together. A write is for one resource, which needs a handful; this bound
   * keeps any body within {@link #MAX_BYTES} answered within a second (a megabyte of minimal rules
   * would be 87,000 of them, each bound, checked and put in force).
   */
  public static final int MAX_WRITE_ENTRIES = 5_000;

  /**
   * The most fields one object of a posted rule may have (the rule itself, or an exception of a
   * hot-parameter rule): a rule has at most 16; more are refused before the object is bound.
   */
  public static final int MAX_FIELDS = 64;

  /**
   * The most problems reading a posted body lists: binding stops there (with a last violation saying
   * so), so that a body of many bad rules costs no more than one of few.
   */
  public static final int MAX_PROBLEMS = 100;

  private InputLimits() {
  }
}
