package dev.weir.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import org.assertj.core.api.Assertions;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.json.JsonMapper;

/**
 * Generators of hostile rule input for the fuzz tests: JSON-like trees shaped like rules (the
 * field names, kinds and values of real rules, mixed with names and values that are not), the same
 * written as JSON or YAML, valid bodies and files mutated by inserting, deleting and repeating text
 * (brackets, quotes, anchors and aliases, tags, long numbers, control characters), and text of any
 * sort. Also the check every fuzz test makes of each input: it is answered within a bound.
 */
public final class RuleInputs {

  /** How long one input may take to be read and judged. Generous for a busy machine; a hang or a blow-up takes far longer. */
  public static final Duration BOUND = Duration.ofSeconds(5);

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static final List<String> FIELDS = List.of("resource", "count", "grade", "interval", "exact",
      "controlBehavior", "control-behavior", "warmUpPeriod", "warm-up-period", "coldFactor", "maxQueueingTime",
      "max-queueing-time", "strategy", "refResource", "limitApp", "limit-app", "clusterMode", "shadow", "name",
      "threshold", "slowCallThreshold", "minRequestAmount", "statInterval", "openDuration", "paramIndex",
      "param-index", "key", "nullKey", "duration", "burst", "exceptions", "value", "minLimit", "maxLimit",
      "flow", "degrade", "paramFlow", "param-flow", "authority", "system", "cleared", "rules", "max-qps",
      "maxThreads", "maxAvgRt", "maxLoad", "maxCpuUsage", "rule", "paramIdx", "durationInSec", "burstCount",
      "paramFlowItemList", "object", "classType", "timeWindow", "slowRatioThreshold", "statIntervalMs",
      "warmUpPeriodSec", "maxQueueingTimeMs", "clusterConfig", "thresholdType", "regex", "highestSystemLoad",
      "qps", "avgRt", "maxThread", "highestCpuUsage", "id", "app", "a.b", "[0]", "", " ", "count[0]", "ÿ", "\u0000",
      "<<", "*", "&", "#", "%", "@");

  private static final List<String> TEXTS = List.of("qps", "threads", "adaptive", "reject", "warm-up", "WARM_UP",
      "queue", "warm-up-queue", "direct", "related", "chain", "default", "other", "white", "black", "slow-ratio",
      "error-ratio", "error-count", "allow", "deny", "shared", "1s", "500ms", "PT1H", "10m", "-5s", "0ms", "1d",
      "99999999999999999999h", "PT-1S", "soon", "", " ", "1e309", "-1", "0", "NaN", "Infinity", "true", "false",
      "yes", "null", "~", "#p0", "#a0.id", "#request.getHeader('X')", "a,b,c", "flow", "param-flow", "int",
      "java.lang.String", "long", "char", "\u0000", "\n", "\"", "'", "\\", "${x}", "#{1}", "T(java.lang.System)",
      "x".repeat(300));

  private static final List<String> SNIPPETS = List.of("{", "}", "[", "]", ",", ":", "\"", "'", "null", "-1",
      "1e309", "0.5", "99999999999999999999999", "\\u0000", "\u0000", "*a", "&a ", "<<: ", "\n", "\n  ", "- ",
      "!!binary ", "!!set ", "!!map ", "!!str ", "!!float ", "!!java.net.URL ", "? ", "#", "%YAML 1.1\n", "---\n",
      "...\n", "\t", "PT", "ms", "count", "flow", "\"flow\": [", "{\"count\": ", "[[[[[[[[", "]]]]]]]]", "\uFEFF",
      "\uD800", "é", "𝕏");

  private RuleInputs() {
  }

  /** A scalar: a value real rules take, a number of any size, a boolean, null, or text of any sort. */
  public static Arbitrary<Object> scalars() {
    return Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.of(TEXTS)),
        Tuple.of(3, Arbitraries.integers().between(-5, 20)),
        Tuple.of(1, Arbitraries.longs()),
        Tuple.of(1, Arbitraries.doubles().between(-1e12, 1e12)),
        Tuple.of(1, Arbitraries.of(true, false)),
        Tuple.of(1, Arbitraries.just(null)),
        Tuple.of(1, Arbitraries.strings().ofMaxLength(12)));
  }

  private static Arbitrary<String> names() {
    return Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.of(FIELDS)),
        Tuple.of(1, Arbitraries.strings().ofMaxLength(10)));
  }

  /** A value: a scalar, or a list or mapping of values, at most {@code depth} deep. */
  public static Arbitrary<Object> values(int depth) {
    if (depth == 0) {
      return scalars();
    }
    Arbitrary<Object> inner = values(depth - 1);
    return Arbitraries.frequencyOf(
        Tuple.of(4, scalars()),
        Tuple.of(2, inner.list().ofMaxSize(4).map(list -> (Object) list)),
        Tuple.of(3, Arbitraries.maps(names(), inner).ofMaxSize(5).map(map -> (Object) map)));
  }

  /** A rule: mostly real field names, with values of any sort. */
  public static Arbitrary<Map<String, Object>> rules() {
    return Arbitraries.maps(names(), Arbitraries.frequencyOf(Tuple.of(5, scalars()), Tuple.of(1, values(2))))
        .ofMaxSize(7);
  }

  /** A body or file: kinds (real and not) of lists of rules, or of anything; sometimes not a mapping at all. */
  public static Arbitrary<Object> documents() {
    Arbitrary<Object> kindValue = Arbitraries.frequencyOf(
        Tuple.of(6, rules().list().ofMaxSize(4).map(list -> (Object) list)),
        Tuple.of(1, values(2)));
    Arbitrary<Object> shaped = Arbitraries.maps(Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.of("flow", "degrade", "paramFlow", "param-flow", "authority", "system", "cleared")),
        Tuple.of(1, names())), kindValue).ofMaxSize(4).map(map -> (Object) map);
    return Arbitraries.frequencyOf(Tuple.of(8, shaped), Tuple.of(1, values(4)));
  }

  /** Rules of one kind: a list of rule-shaped entries, or anything. */
  public static Arbitrary<Object> ruleLists() {
    return Arbitraries.frequencyOf(Tuple.of(6, rules().list().ofMaxSize(5).map(list -> (Object) list)),
        Tuple.of(1, values(3)));
  }

  /** {@code value} as JSON text. */
  public static String json(Object value) {
    return JSON.writeValueAsString(value);
  }

  /** {@code value} as YAML text, block style. */
  public static String yaml(Object value) {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    return new Yaml(options).dump(value);
  }

  /** Text of {@code valid} changed by one to four edits: a snippet inserted, a span deleted or repeated. */
  public static Arbitrary<String> mutated(List<String> valid) {
    Arbitrary<Edit> edits = Combinators.combine(Arbitraries.integers().between(0, 2),
        Arbitraries.doubles().between(0, 1), Arbitraries.integers().between(1, 40), Arbitraries.of(SNIPPETS))
        .as(Edit::new);
    return Combinators.combine(Arbitraries.of(valid), edits.list().ofMinSize(1).ofMaxSize(4))
        .as((text, list) -> {
          String out = text;
          for (Edit edit : list) {
            out = edit.apply(out);
          }
          return out;
        });
  }

  /** Text of any sort, short. */
  public static Arbitrary<String> texts() {
    return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.strings().ofMaxLength(200)),
        Tuple.of(2, Arbitraries.of(SNIPPETS).list().ofMaxSize(30).map(list -> String.join("", list))));
  }

  private record Edit(int kind, double at, int length, String snippet) {
    String apply(String text) {
      int position = (int) (at * text.length());
      int end = Math.min(text.length(), position + length);
      return switch (kind) {
        case 0 -> text.substring(0, position) + snippet + text.substring(position);
        case 1 -> text.substring(0, position) + text.substring(end);
        default -> text.substring(0, end) + text.substring(position, end) + text.substring(end);
      };
    }
  }

  /**
   * Runs {@code read} on another thread and returns its outcome; fails if it takes longer than
   * {@link #BOUND} (the thread is then abandoned, not stopped) or throws anything.
   */
  public static <T> T answeredInTime(String input, Supplier<T> read) {
    AtomicReference<T> outcome = new AtomicReference<>();
    Assertions.assertThatCode(() -> org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(BOUND,
        () -> outcome.set(read.get()))).as("input: %s", abbreviated(input)).doesNotThrowAnyException();
    assertThat(outcome.get()).as("input: %s", abbreviated(input)).isNotNull();
    return outcome.get();
  }

  private static String abbreviated(String input) {
    return input.length() <= 2000 ? input : input.substring(0, 2000) + "... (" + input.length() + " chars)";
  }

  /** The sample bodies and files the mutations start from. */
  public static List<String> validJsonBodies() {
    List<String> bodies = new ArrayList<>();
    bodies.add("{\"flow\": [{\"count\": 7, \"interval\": \"1m\", \"controlBehavior\": \"warm-up\"}]}");
    bodies.add("{\"degrade\": [{\"strategy\": \"error-ratio\", \"threshold\": 0.5, \"minRequestAmount\": 5}],"
        + " \"authority\": [{\"strategy\": \"white\", \"limitApp\": [\"a\", \"b\"]}]}");
    bodies.add("{\"paramFlow\": [{\"paramIndex\": 0, \"count\": 5, \"exceptions\": [{\"value\": \"vip\", \"count\": 50}]},"
        + " {\"key\": \"#p0\", \"count\": 3, \"nullKey\": \"deny\"}]}");
    bodies.add("{\"flow\": \"[{\\\"count\\\": 3}]\", \"degrade\": []}");
    bodies.add("{\"rules\": \"{\\\"flow\\\": [{\\\"count\\\": 2}]}\"}");
    return bodies;
  }

  /** Rule files in YAML and JSON, valid, for the mutations. */
  public static List<String> validRuleFiles() {
    Map<String, Object> cleared = new LinkedHashMap<>();
    cleared.put("c", List.of("flow"));
    return List.of("""
        flow:
          - resource: a
            count: 5
            control-behavior: queue
            max-queueing-time: 200ms
          - &b {resource: b, count: 2, grade: threads}
          - {<<: *b, resource: c}
        degrade:
          - resource: a
            strategy: error-count
            threshold: 3
        param-flow:
          - resource: p
            param-index: 0
            count: 4
            exceptions: [{value: x, count: 9}]
        authority:
          - {resource: adm, strategy: white, limit-app: [ops, dev]}
        system:
          max-qps: 100
        cleared:
          d: [flow, paramFlow]
        """, "{\"flow\": [{\"resource\": \"a\", \"count\": 5, \"interval\": \"PT1H\"}], \"cleared\": "
        + json(cleared) + ", \"system\": {\"maxThreads\": 8}}");
  }

  /** Sentinel files, valid, for the mutations. */
  public static List<String> validSentinelFiles() {
    return List.of("[{\"resource\": \"a\", \"count\": 12, \"grade\": 1, \"controlBehavior\": 1,"
        + " \"warmUpPeriodSec\": 20, \"limitApp\": \"default\", \"strategy\": 0, \"clusterMode\": false}]",
        "[{\"resource\": \"b\", \"grade\": 0, \"count\": 300, \"slowRatioThreshold\": 0.5, \"timeWindow\": 10,"
            + " \"minRequestAmount\": 5, \"statIntervalMs\": 1000}]",
        "[{\"resource\": \"p\", \"paramIdx\": 0, \"count\": 5, \"paramFlowItemList\": [{\"object\": \"7\", \"count\": 9,"
            + " \"classType\": \"int\"}]}]",
        "[{\"rule\": {\"resource\": \"adm\", \"strategy\": 0, \"limitApp\": \"a,b\"}, \"app\": \"x\"}]",
        "[{\"qps\": 100, \"maxThread\": -1, \"avgRt\": 50, \"highestSystemLoad\": 4.5, \"highestCpuUsage\": 0.9}]");
  }
}
