package dev.weir.spring.web;

import dev.weir.Criticality;
import java.util.Iterator;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The criticality that an inbound request claims for itself, in the header named by
 * {@code weir.web.criticality-header} (or the gRPC metadata key {@code weir.grpc.criticality-metadata}),
 * and the rule that applies it: a claim can <em>lower</em> the criticality of the calls made while
 * serving the request, never raise it. A call's own criticality is its annotation's
 * ({@code @RateLimited(criticality)}), {@link Criticality#CRITICAL} for a route; with a claim it is
 * the lower of the two ({@link #bound(Criticality, Criticality)}). A client therefore cannot make a
 * call more critical than the same request without the header would have been; code that enters a
 * context with a criticality ({@code Weir.enterContext(name, origin, criticality)}, a
 * {@code Criticality} in the Reactor context) is trusted and decides, claim or not.
 *
 * <p>The header is hostile input and never fails a request: {@link #parse(Iterator)} reads exactly
 * one value of at most {@value #MAX_LENGTH} characters naming a criticality, case-insensitively,
 * with {@code -} or {@code _} between words and surrounding blanks ignored ({@code sheddable-plus},
 * {@code SHEDDABLE_PLUS}). Anything else (an empty value, an unknown or over-long name, a list, a
 * repeated header) is no claim: the request's calls keep their own criticality.
 *
 * <p>Where the claim travels: on the thread that serves a Spring MVC request or a gRPC call's
 * callbacks ({@link #open(Criticality)}, read with {@link #current()}), copied to the tasks that
 * thread hands to Spring's task executors (Weir's {@code TaskDecorator}), and in the Reactor context
 * of a WebFlux request under the key {@code CriticalityClaim.class}.
 */
public final class CriticalityClaim {

  /** The longest header value read; a longer one is no claim. */
  public static final int MAX_LENGTH = 32;

  /** The most values of a header looked at; the second already makes the header no claim. */
  private static final int MAX_VALUES = 2;

  private static final ThreadLocal<@Nullable Criticality> CURRENT = new ThreadLocal<>();

  private CriticalityClaim() {
  }

  /**
   * Reads a header's values: the criticality that its one value names, or null when there is no
   * value, more than one, or the value names none (see the class comment). Looks at two values at
   * most, and at most {@value #MAX_LENGTH} characters of each.
   */
  public static @Nullable Criticality parse(@Nullable Iterator<String> values) {
    if (values == null || !values.hasNext()) {
      return null;
    }
    String value = values.next();
    int seen = 1;
    while (values.hasNext() && seen < MAX_VALUES) {
      values.next();
      seen++;
    }
    return seen == 1 ? parse(value) : null;
  }

  /** Reads one header value: the criticality it names, or null (see the class comment). */
  public static @Nullable Criticality parse(@Nullable String value) {
    if (value == null || value.length() > MAX_LENGTH) {
      return null;
    }
    String name = value.strip().replace('-', '_').toUpperCase(Locale.ROOT);
    for (Criticality criticality : Criticality.values()) {
      if (criticality.name().equals(name)) {
        return criticality;
      }
    }
    return null;
  }

  /** The lower of a call's own criticality and a request's claim (the own one when there is no claim). */
  public static Criticality bound(Criticality own, @Nullable Criticality claim) {
    return claim == null || claim.rank() >= own.rank() ? own : claim;
  }

  /** The lower of a call's own criticality and the claim of the request this thread serves. */
  public static Criticality bound(Criticality own) {
    return bound(own, CURRENT.get());
  }

  /** The claim of the request this thread serves, or null. */
  public static @Nullable Criticality current() {
    return CURRENT.get();
  }

  /**
   * Makes {@code claim} the current thread's until the returned scope is closed, which restores
   * the claim before it. Close it on the same thread.
   */
  public static Scope open(@Nullable Criticality claim) {
    Criticality previous = CURRENT.get();
    if (claim == previous) {
      return Scope.NOTHING;
    }
    set(claim);
    return new Scope(previous, true);
  }

  private static void set(@Nullable Criticality claim) {
    if (claim == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(claim);
    }
  }

  /** A claim made current by {@link #open(Criticality)}; closing it restores the one before. */
  public static final class Scope implements AutoCloseable {

    static final Scope NOTHING = new Scope(null, false);

    private final @Nullable Criticality previous;
    private final boolean restores;

    private Scope(@Nullable Criticality previous, boolean restores) {
      this.previous = previous;
      this.restores = restores;
    }

    @Override
    public void close() {
      if (restores) {
        set(previous);
      }
    }
  }
}
