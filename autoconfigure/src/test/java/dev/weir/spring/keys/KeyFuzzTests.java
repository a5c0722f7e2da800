package dev.weir.spring.keys;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.weir.KeyExpressions.ParamKey;
import dev.weir.spring.test.CpuTime;
import dev.weir.spring.test.Fuzz;
import dev.weir.spring.web.Route;
import example.keys.Account;
import example.keys.Fixtures;
import example.keys.Order;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Property-based fuzzing of the key compiler, with a fixed seed so that every run is the same:
 * arbitrary strings and strings shaped by the grammar (then mutated), up to about 1,200 characters,
 * go into {@link KeyLanguage#compile}, which must answer a key or an {@link IllegalArgumentException}
 * (a violation) and nothing else, each within {@link #BOUND}; every key that compiles is evaluated
 * against sample arguments (nulls, an application's records, a platform object, the request view,
 * a 100,000-character header), which must never throw and answer within the bound.
 *
 * <p>Longer runs: {@code -Dweir-test.fuzz.tries=200000} (inputs per property; default {@value #TRIES}),
 * and {@code -Dweir-test.fuzz.seed=...} for other inputs (default {@value #SEED}); a failure names the
 * seed, the try and the input, so that it can be replayed ({@link Fuzz}).
 */
class KeyFuzzTests {

  static final long SEED = 0x5EED_4B45_59L;
  static final int TRIES = 10_000;
  static final Duration BOUND = Duration.ofSeconds(2);

  private static final Fuzz FUZZ = Fuzz.of(SEED, TRIES, BOUND);
  private static final long seed = FUZZ.seed();
  private static final int tries = FUZZ.tries();

  private static final List<String> NAMES = List.of("order", "apiKey", "thing", "other", "request", "principal",
      "p0", "p1", "a0", "a1", "p2", "args", "root", "this", "nope", "customerId");
  private static final List<String> MEMBERS = List.of("customerId", "lines", "region", "tags", "labels", "codes",
      "channel", "large", "getChannel", "isLarge", "label", "id", "tier", "getHeader", "getParameter", "getMethod",
      "method", "getRequestURI", "requestURI", "getRemoteAddr", "remoteAddr", "headers", "nativeRequest",
      "getNativeRequest", "getServletContext", "getAttribute", "getBean", "class", "getClass", "forName", "toLowerCase",
      "toUpperCase", "trim", "length", "substring", "matches", "repeat", "hashCode", "toString", "getFirst", "value",
      "task", "contextClassLoader", "supplier", "get", "empty", "callbacks", "secret");
  private static final String SYMBOLS = "#.?:+()[]'\",!=-*/@{}T ";

  private static Level before;
  private static Logger keyLog;

  private final KeyLanguage keys = new KeyLanguage(Map.of(
      "place", new KeyArguments(List.of("order", "apiKey"), List.of(Order.class, String.class)),
      "any", new KeyArguments(List.of("thing", "other"), List.of(Object.class, Object.class)),
      "account", new KeyArguments(List.of("account"), List.of(Account.class)),
      "route", new KeyArguments(Route.ARGUMENT_NAMES, Route.ARGUMENT_TYPES))::get);
  private final List<String> resources = List.of("place", "any", "account", "route", "unknown");

  /** Keys that fail on a call log a warning each: thousands here, of no interest to this test. */
  @BeforeAll
  static void quietKeyFailures() {
    keyLog = (Logger) LoggerFactory.getLogger(KeyLanguage.class);
    before = keyLog.getLevel();
    keyLog.setLevel(Level.OFF);
  }

  @AfterAll
  static void restoreLogging() {
    keyLog.setLevel(before);
  }

  @Test
  void arbitraryStringsCompileOrAreRefusedWithinTheBound() {
    SplittableRandom random = FUZZ.random(0);
    int compiled = 0;
    for (int i = 0; i < tries; i++) {
      String input = arbitrary(random);
      compiled += check(i, input, resources.get(random.nextInt(resources.size())), random) ? 1 : 0;
    }
    System.out.printf("arbitrary strings: %d tries, %d compiled (seed %d)%n", tries, compiled, seed);
  }

  @Test
  void grammarShapedStringsCompileOrAreRefusedAndWhatCompilesEvaluatesWithinTheBound() {
    SplittableRandom random = FUZZ.random(1);
    int compiled = 0;
    for (int i = 0; i < tries; i++) {
      StringBuilder out = new StringBuilder();
      expression(random, out, 0, random.nextInt(1, 45), random.nextInt(10, 1200));
      String input = random.nextInt(3) == 0 ? mutate(out.toString(), random) : out.toString();
      compiled += check(i, input, resources.get(random.nextInt(resources.size())), random) ? 1 : 0;
    }
    System.out.printf("grammar-shaped strings: %d tries, %d compiled (seed %d)%n", tries, compiled, seed + 1);
    assertThat(compiled).as("the generator reaches past the parser").isGreaterThan(tries / 20);
  }

  /** Compiles {@code input} and evaluates what compiles; whether it compiled. */
  private boolean check(int attempt, String input, String resource, SplittableRandom random) {
    ParamKey key;
    long start = CpuTime.current();
    try {
      key = keys.compile(resource, input);
    } catch (IllegalArgumentException refused) {
      assertThat(refused.getMessage()).as("a refusal says why").isNotBlank();
      FUZZ.withinBound(start, "compile", attempt, input);
      return false;
    } catch (Throwable other) {
      throw new AssertionError(FUZZ.describe("compile threw " + other, attempt, input), other);
    }
    FUZZ.withinBound(start, "compile", attempt, input);
    for (Object[] args : samples(resource, random)) {
      long evaluation = CpuTime.current();
      try {
        key.keyOf(args);
      } catch (Throwable other) {
        throw new AssertionError(
            FUZZ.describe("keyOf" + Arrays.deepToString(args) + " threw " + other, attempt, input), other);
      }
      FUZZ.withinBound(evaluation, "keyOf", attempt, input);
    }
    return true;
  }

  /** Arguments to evaluate a key of {@code resource} with. */
  private static List<Object[]> samples(String resource, SplittableRandom random) {
    String huge = "A".repeat(100_000);
    List<Object[]> samples = new ArrayList<>();
    samples.add(new Object[0]);
    samples.add(new Object[] {null, null});
    switch (resource) {
      case "place" -> {
        samples.add(new Object[] {Order.of("c-" + random.nextInt(100)), "k"});
        samples.add(new Object[] {Order.of(huge), huge});
      }
      case "route" -> {
        samples.add(new Object[] {new FixedView(Map.of("X-Api-Key", "key", "h", huge), Map.of("tenant", "t")), "bob"});
        samples.add(new Object[] {new FixedView(Map.of(), Map.of()), null});
      }
      case "account" -> samples.add(new Object[] {new Account.Premium("a")});
      default -> {
        Map<Object, Object> map = new HashMap<>();
        map.put("k", huge);
        map.put(0, List.of("x"));
        samples.add(new Object[] {Order.of("c"), map});
        samples.add(new Object[] {new FixedView(Map.of("X-Api-Key", huge), Map.of()), Thread.currentThread()});
        samples.add(new Object[] {Fixtures.worker(), new int[] {1, 2}});
        samples.add(new Object[] {huge, Fixtures.holder(() -> "s")});
      }
    }
    return samples;
  }

  /** Any characters: the grammar's symbols, letters, digits, white space, control and other Unicode characters. */
  private static String arbitrary(SplittableRandom random) {
    int length = random.nextInt(4) == 0 ? random.nextInt(990, 1200) : random.nextInt(0, 80);
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      int kind = random.nextInt(10);
      if (kind < 4) {
        out.append(SYMBOLS.charAt(random.nextInt(SYMBOLS.length())));
      } else if (kind < 7) {
        out.append((char) random.nextInt('a', 'z' + 1));
      } else if (kind < 8) {
        out.append((char) random.nextInt('0', '9' + 1));
      } else if (kind < 9) {
        out.append((char) random.nextInt(0, 0x20));
      } else {
        out.append((char) random.nextInt(0x80, 0x10000)); // surrogates included, paired or not
      }
    }
    return out.toString();
  }

  /** Appends an expression of the grammar, nesting up to {@code maxDepth} (past the bound, sometimes). */
  private static void expression(SplittableRandom random, StringBuilder out, int depth, int maxDepth, int budget) {
    if (depth >= maxDepth || out.length() >= budget) {
      primary(random, out, depth, maxDepth, budget);
      return;
    }
    switch (random.nextInt(6)) {
      case 0 -> {
        int parts = random.nextInt(2, 6);
        for (int i = 0; i < parts; i++) {
          if (i > 0) {
            out.append(random.nextBoolean() ? " + " : "+");
          }
          postfix(random, out, depth + 1, maxDepth, budget);
        }
      }
      case 1 -> {
        int alternatives = random.nextInt(2, 4);
        for (int i = 0; i < alternatives; i++) {
          if (i > 0) {
            out.append(" ?: ");
          }
          postfix(random, out, depth + 1, maxDepth, budget);
        }
      }
      case 2 -> {
        out.append('(');
        expression(random, out, depth + 1, maxDepth, budget);
        out.append(')');
      }
      default -> postfix(random, out, depth, maxDepth, budget);
    }
  }

  private static void postfix(SplittableRandom random, StringBuilder out, int depth, int maxDepth, int budget) {
    primary(random, out, depth, maxDepth, budget);
    int steps = random.nextInt(0, depth >= maxDepth ? 2 : 6);
    for (int i = 0; i < steps && out.length() < budget; i++) {
      if (random.nextInt(5) == 0) {
        out.append('[');
        if (random.nextBoolean()) {
          out.append(random.nextInt(0, 5));
        } else {
          text(random, out);
        }
        out.append(']');
        continue;
      }
      out.append(random.nextInt(4) == 0 ? "?." : ".");
      out.append(MEMBERS.get(random.nextInt(MEMBERS.size())));
      if (random.nextBoolean()) {
        out.append('(');
        int arguments = random.nextInt(0, 3);
        for (int a = 0; a < arguments; a++) {
          if (a > 0) {
            out.append(", ");
          }
          expression(random, out, depth + 1, maxDepth, budget);
        }
        out.append(')');
      }
    }
  }

  private static void primary(SplittableRandom random, StringBuilder out, int depth, int maxDepth, int budget) {
    switch (random.nextInt(depth >= maxDepth || out.length() >= budget ? 4 : 5)) {
      case 0, 1 -> out.append('#').append(NAMES.get(random.nextInt(NAMES.size())));
      case 2 -> text(random, out);
      case 3 -> out.append(random.nextInt(4) == 0 ? "null" : String.valueOf(random.nextInt(0, 20)));
      default -> {
        out.append('(');
        expression(random, out, depth + 1, maxDepth, budget);
        out.append(')');
      }
    }
  }

  /** A quoted text, its quotes doubled inside; sometimes a long one. */
  private static void text(SplittableRandom random, StringBuilder out) {
    char quote = random.nextBoolean() ? '\'' : '"';
    out.append(quote);
    int length = random.nextInt(8) == 0 ? random.nextInt(50, 400) : random.nextInt(0, 12);
    for (int i = 0; i < length; i++) {
      char c = random.nextInt(6) == 0 ? SYMBOLS.charAt(random.nextInt(SYMBOLS.length()))
          : (char) random.nextInt('a', 'z' + 1);
      out.append(c);
      if (c == quote) {
        out.append(quote);
      }
    }
    out.append(quote);
  }

  /** One to three edits: a range deleted, a symbol inserted, a range repeated (which may pass the length bound). */
  private static String mutate(String input, SplittableRandom random) {
    StringBuilder out = new StringBuilder(input);
    int edits = random.nextInt(1, 4);
    for (int i = 0; i < edits && out.length() > 0; i++) {
      int at = random.nextInt(out.length());
      int end = Math.min(out.length(), at + random.nextInt(1, 20));
      switch (random.nextInt(3)) {
        case 0 -> out.delete(at, end);
        case 1 -> out.insert(at, SYMBOLS.charAt(random.nextInt(SYMBOLS.length())));
        default -> out.insert(at, out.substring(at, end).repeat(random.nextInt(1, 40)));
      }
    }
    return out.toString();
  }
}
