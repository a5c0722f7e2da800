package dev.weir.spring.aop;

import dev.weir.Entry;
import dev.weir.KeyExpressions.ParamKey;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The {@code settle} expression of a {@code @RateLimited} method, compiled at startup: after a call
 * completes with a result, it reads the call's actual cost and settles the call's entry to it
 * ({@link Entry#settle}). A cost it cannot read (a null result, an evaluation that failed, a value
 * that is not a whole number of 0 or more) keeps the estimate and counts in
 * {@code weir.settle.failures}; nothing is thrown to the caller.
 *
 * <p>Cost of a settle: one array of the arguments and the result, and the expression's evaluation,
 * linear in its length and in the values it reads ({@link dev.weir.spring.keys.KeyLanguage}).
 */
final class Settlement {

  private final ParamKey cost;
  private final String source;
  /** Whether the method has a result: a null one then keeps the estimate; without one, only the arguments count. */
  private final boolean hasResult;
  private volatile @Nullable LongAdder failures;

  Settlement(ParamKey cost, String source, boolean hasResult) {
    this.cost = cost;
    this.source = source;
    this.hasResult = hasResult;
  }

  /** Counts this method's failures in {@code counter} (its resource's); until then they are not counted. */
  void countIn(LongAdder counter) {
    failures = counter;
  }

  /**
   * Settles {@code entry}, still open, to the cost of {@code result}; keeps the estimate when there
   * is none (a null result of a method that has one, or no cost). Never throws: an entry closed
   * meanwhile (a cancel that won) keeps its estimate too.
   */
  void settle(Entry entry, Object[] args, @Nullable Object result) {
    long permits = result == null && hasResult ? -1 : permits(evaluate(args, result));
    if (permits < 0) {
      LongAdder counter = failures;
      if (counter != null) {
        counter.increment();
      }
      return;
    }
    try {
      entry.settle(permits);
    } catch (IllegalStateException closedMeanwhile) {
      // cancelled from another thread before the result came: nothing to settle
    }
  }

  private @Nullable Object evaluate(Object[] args, @Nullable Object result) {
    Object[] withResult = Arrays.copyOf(args, args.length + 1);
    withResult[args.length] = result;
    return cost.keyOf(withResult); // null when it failed, logged by the key language
  }

  /**
   * The permits {@code value} stands for, or -1 when it is none: a whole number of 0 or more (a
   * fraction rounds up, as a partial token is a token spent; not a finite one, none); over
   * {@link Long#MAX_VALUE}, that.
   */
  static long permits(@Nullable Object value) {
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      long whole = ((Number) value).longValue();
      return whole < 0 ? -1 : whole;
    }
    if (value instanceof BigInteger big) {
      return big.signum() < 0 ? -1 : big.bitLength() < 64 ? big.longValue() : Long.MAX_VALUE;
    }
    if (value instanceof Double || value instanceof Float) {
      double real = ((Number) value).doubleValue();
      if (!Double.isFinite(real) || real < 0) {
        return -1;
      }
      return real >= 0x1p63 ? Long.MAX_VALUE : (long) Math.ceil(real);
    }
    if (value instanceof BigDecimal decimal) {
      return permits(decimal.doubleValue()); // read as a double: a huge exponent never becomes a huge integer
    }
    return -1;
  }

  @Override
  public String toString() {
    return "settle " + source;
  }
}
