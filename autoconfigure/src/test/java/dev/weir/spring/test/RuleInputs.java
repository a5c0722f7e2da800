package dev.weir.spring.test;

import dev.weir.spring.properties.InputLimits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.json.JsonMapper;

/**
 * Generators of hostile rule input for the fuzz tests, each drawing from a seeded
 * {@link SplittableRandom} (see {@link Fuzz}): JSON-like trees shaped like rules (the field names,
 * kinds and values of real rules, mixed with names and values that are not), the same written as
 * JSON or YAML; valid bodies and files mutated by inserting, deleting and repeating text (brackets,
 * quotes, anchors and aliases, tags, long numbers, control characters); text of any sort; and
 * documents built to strain the bounds of {@link InputLimits}: nesting around and far past the
 * depth limit, YAML aliases (chains that expand exponentially, more aliases than allowed, aliases
 * of huge scalars, aliases that contain themselves), huge numbers, texts and names, many rules,
 * many and unknown fields, and sizes around the byte limit.
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

  private static final List<String> KINDS = List.of("flow", "degrade", "paramFlow", "param-flow", "authority",
      "system", "cleared");

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

  private static final List<String> TAGS = List.of("!!binary", "!!set", "!!map", "!!seq", "!!str", "!!int",
      "!!float", "!!bool", "!!null", "!!timestamp", "!!omap", "!!pairs", "!!java.net.URL", "!!java.io.File",
      "!!javax.script.ScriptEngineManager", "!!python/object:os.system", "!weir", "!<tag:yaml.org,2002:str>", "!");

  private RuleInputs() {
  }

  /** Index {@code i} with probability {@code weights[i] / sum(weights)}. */
  static int pick(SplittableRandom random, int... weights) {
    int total = 0;
    for (int weight : weights) {
      total += weight;
    }
    int drawn = random.nextInt(total);
    for (int i = 0; i < weights.length; i++) {
      drawn -= weights[i];
      if (drawn < 0) {
        return i;
      }
    }
    throw new IllegalStateException("unreachable");
  }

  private static <T> T oneOf(SplittableRandom random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /**
   * Characters of any sort, at most {@code maxLength}, short ones more often: printable ASCII,
   * control characters, other characters of the basic plane and of the supplementary planes.
   */
  public static String anyString(SplittableRandom random, int maxLength) {
    int length = random.nextInt(16) == 0 ? 0 : random.nextInt(maxLength + 1);
    StringBuilder out = new StringBuilder(length);
    while (out.length() < length) {
      switch (pick(random, 6, 1, 2, 1)) {
        case 0 -> out.append((char) random.nextInt(0x20, 0x7F));
        case 1 -> out.append((char) random.nextInt(0, 0x20));
        case 2 -> {
          int c = random.nextInt(0x80, 0x10000 - 0x800); // not a lone surrogate: no text can hold one
          out.append((char) (c < 0xD800 ? c : c + 0x800));
        }
        default -> out.appendCodePoint(random.nextInt(0x10000, 0x110000));
      }
    }
    return out.toString();
  }

  /** A scalar: a value real rules take, a number of any size, a boolean, null, or text of any sort. */
  public static Object scalar(SplittableRandom random) {
    return switch (pick(random, 4, 3, 1, 1, 1, 1, 1)) {
      case 0 -> oneOf(random, TEXTS);
      case 1 -> random.nextInt(-5, 21);
      case 2 -> switch (random.nextInt(6)) {
        case 0 -> Long.MIN_VALUE;
        case 1 -> Long.MAX_VALUE;
        default -> random.nextLong();
      };
      case 3 -> random.nextDouble(-1e12, 1e12);
      case 4 -> random.nextBoolean();
      case 5 -> null;
      default -> anyString(random, 12);
    };
  }

  private static String name(SplittableRandom random) {
    return pick(random, 6, 1) == 0 ? oneOf(random, FIELDS) : anyString(random, 10);
  }

  /** A value: a scalar, or a list or mapping of values, at most {@code depth} deep. */
  public static Object value(SplittableRandom random, int depth) {
    if (depth == 0) {
      return scalar(random);
    }
    return switch (pick(random, 4, 2, 3)) {
      case 0 -> scalar(random);
      case 1 -> list(random, 4, r -> value(r, depth - 1));
      default -> map(random, 5, RuleInputs::name, r -> value(r, depth - 1));
    };
  }

  /** A rule: mostly real field names, with values of any sort. */
  public static Map<String, Object> rule(SplittableRandom random) {
    return map(random, 7, RuleInputs::name, r -> pick(r, 5, 1) == 0 ? scalar(r) : value(r, 2));
  }

  /** A body or file: kinds (real and not) of lists of rules, or of anything; sometimes not a mapping at all. */
  public static Object document(SplittableRandom random) {
    if (pick(random, 8, 1) == 1) {
      return value(random, 4);
    }
    return map(random, 4, r -> pick(r, 6, 1) == 0 ? oneOf(r, KINDS) : name(r),
        r -> pick(r, 6, 1) == 0 ? list(r, 4, RuleInputs::rule) : value(r, 2));
  }

  /** Rules of one kind: a list of rule-shaped entries, or anything. */
  public static Object ruleList(SplittableRandom random) {
    return pick(random, 6, 1) == 0 ? list(random, 5, RuleInputs::rule) : value(random, 3);
  }

  private static List<Object> list(SplittableRandom random, int maxSize,
      Function<SplittableRandom, Object> element) {
    int size = random.nextInt(maxSize + 1);
    List<Object> list = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      list.add(element.apply(random));
    }
    return list;
  }

  private static Map<String, Object> map(SplittableRandom random, int maxSize,
      Function<SplittableRandom, String> key,
      Function<SplittableRandom, Object> value) {
    int size = random.nextInt(maxSize + 1);
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      map.put(key.apply(random), value.apply(random));
    }
    return map;
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

  /** One of {@code valid}, changed by one to four edits: a snippet inserted, a span deleted or repeated. */
  public static String mutated(SplittableRandom random, List<String> valid) {
    String text = oneOf(random, valid);
    int edits = random.nextInt(1, 5);
    for (int i = 0; i < edits; i++) {
      int at = (int) (random.nextDouble() * text.length());
      int end = Math.min(text.length(), at + random.nextInt(1, 41));
      text = switch (random.nextInt(3)) {
        case 0 -> text.substring(0, at) + oneOf(random, SNIPPETS) + text.substring(at);
        case 1 -> text.substring(0, at) + text.substring(end);
        default -> text.substring(0, end) + text.substring(at, end) + text.substring(end);
      };
    }
    return text;
  }

  /** Text of any sort, short: any characters, or the snippets that JSON and YAML are made of, strung together. */
  public static String text(SplittableRandom random) {
    if (pick(random, 3, 2) == 0) {
      return anyString(random, 200);
    }
    int snippets = random.nextInt(31);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < snippets; i++) {
      out.append(oneOf(random, SNIPPETS));
    }
    return out.toString();
  }

  /** What a document is for: each has its own outer shape and fields. */
  public enum Shape {
    /** A body posted to the endpoint: kinds of rules, the resource in the path, not in the rules. */
    BODY,
    /** The rule file: kinds of rules, each rule naming its resource. */
    RULE_FILE,
    /** A Sentinel file: a list of rules, each naming its resource. */
    SENTINEL_FILE
  }

  /**
   * A JSON document of {@code shape} that strains a bound: nesting near and far past
   * {@link InputLimits#MAX_DEPTH}, a huge number, text or field name, many rules, many fields and
   * unknown ones, or a size around {@link InputLimits#MAX_BYTES}. Mostly small; one in about forty
   * is large (hundreds of kilobytes, or a few bytes either side of the byte limit), so that a try
   * costs little on average.
   */
  public static String hostileJson(SplittableRandom random, Shape shape) {
    boolean large = random.nextInt(40) == 0;
    String head = shape == Shape.BODY ? "{\"count\": 1" : "{\"resource\": \"a\", \"count\": 1";
    int padTo = 0;
    String rules = switch (random.nextInt(6)) {
      case 0 -> {
        int depth = large ? random.nextInt(100, 200_000) : random.nextInt(InputLimits.MAX_DEPTH - 6,
            InputLimits.MAX_DEPTH + 4);
        String open = random.nextBoolean() ? "[" : "{\"a\":";
        String close = open.equals("[") ? "]" : "}";
        String inner = "[" + open.repeat(depth) + "1" + (random.nextInt(4) == 0 ? "" : close.repeat(depth)) + "]";
        yield random.nextBoolean() ? inner : "[" + head + ", " + json(name(random)) + ": " + inner + "}]";
      }
      case 1 -> "[" + head + ", " + json(oneOf(random, FIELDS)) + ": " + hugeNumber(random, large) + "}]";
      case 2 -> "[" + head + ", " + json(oneOf(random, FIELDS)) + ": " + quoted(random, large) + ", "
          + json(large && random.nextBoolean() ? "k".repeat(random.nextInt(10_000, InputLimits.MAX_BYTES / 4))
              : oneOf(random, FIELDS)) + ": " + quoted(random, large) + "}]";
      case 3 -> {
        int count = large ? random.nextInt(1_000, 8_000) : random.nextInt(0, 50);
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < count; i++) {
          out.append(i == 0 ? "{" : ",{").append(shape == Shape.BODY ? "" : "\"resource\": \"r" + i % 7 + "\", ")
              .append("\"count\": ").append(random.nextInt(-1, 100))
              .append(random.nextInt(8) == 0 ? ", \"limitApp\": [\"a\", \"b\"]" : "").append('}');
        }
        yield out.append(']').toString();
      }
      case 4 -> {
        int fields = large ? random.nextInt(100, 5_000) : random.nextInt(1, 80);
        StringBuilder out = new StringBuilder("[").append(head);
        for (int i = 0; i < fields; i++) {
          String field = random.nextBoolean() ? oneOf(random, FIELDS) : "unknown" + i;
          out.append(", ").append(json(field)).append(": ").append(json(scalar(random)));
        }
        yield out.append("}]").toString();
      }
      default -> {
        padTo = large ? InputLimits.MAX_BYTES + random.nextInt(-4, 5) : random.nextInt(100, 10_000);
        yield "[" + head + "}]";
      }
    };
    String document = shape == Shape.SENTINEL_FILE ? rules : "{" + json(switch (pick(random, 6, 2, 1)) {
      case 0 -> "flow";
      case 1 -> oneOf(random, KINDS);
      default -> name(random);
    }) + ": " + rules + "}";
    int bytes = document.getBytes(StandardCharsets.UTF_8).length;
    return bytes < padTo ? document + " ".repeat(padTo - bytes) : document;
  }

  /**
   * A YAML rule file that strains a bound of the parser or of what aliases expand to: alias chains
   * that expand exponentially (a "billion laughs"), more aliases than {@link InputLimits#MAX_ALIASES},
   * a huge scalar repeated by aliases, aliases and merges that contain themselves, nesting in block
   * and flow style, tags (of Java classes too), many documents, or huge keys and anchors.
   */
  public static String hostileYaml(SplittableRandom random) {
    boolean large = random.nextInt(40) == 0;
    String rule = "  - resource: a\n    count: 1\n";
    return switch (random.nextInt(8)) {
      case 0 -> {
        int levels = random.nextInt(2, large ? 14 : 10);
        int fanOut = random.nextInt(2, 10);
        StringBuilder out = new StringBuilder("a0: &a0 [lol, lol]\n");
        for (int level = 1; level < levels; level++) {
          out.append('a').append(level).append(": &a").append(level).append(" [")
              .append(String.join(", ", Collections.nCopies(fanOut, "*a" + (level - 1)))).append("]\n");
        }
        yield out.append("flow:\n").append(rule).append("    ").append(oneOf(random, FIELDS)).append(": *a")
            .append(levels - 1).append('\n').toString();
      }
      case 1 -> {
        int aliases = random.nextInt(1, large ? 2_000 : InputLimits.MAX_ALIASES + 20);
        StringBuilder out = new StringBuilder("defaults: &d {count: 1, grade: qps}\nflow:\n");
        for (int i = 0; i < aliases; i++) {
          out.append("  - {resource: r").append(i).append(random.nextBoolean() ? ", <<: *d}\n" : ", x: *d}\n");
        }
        yield out.toString();
      }
      case 2 -> {
        int length = large ? random.nextInt(10_000, 200_000) : random.nextInt(1, 5_000);
        int aliases = large ? random.nextInt(1_000, 50_000) : random.nextInt(1, 500);
        StringBuilder out = new StringBuilder("s: &s ").append("x".repeat(length)).append("\nflow:\n")
            .append(rule).append("    limit-app: [");
        for (int i = 0; i < aliases; i++) {
          out.append(i == 0 ? "*s" : ", *s");
        }
        yield out.append("]\n").toString();
      }
      case 3 -> oneOf(random, List.of("flow: &loop\n" + rule + "    limit-app: *loop\n",
          "a: &m {x: 1, <<: *m}\nflow:\n" + rule, "a: &m [*m]\n", "&top {flow: *top}\n",
          "a: &m {b: &n {c: *m, d: *n}}\nflow:\n" + rule + "    x: *m\n",
          "flow:\n  - &r {resource: a, count: 1, limit-app: [*r]}\n", "flow: *undefined\n", "flow:\n  - *\n"));
      case 4 -> {
        int depth = large ? random.nextInt(100, 100_000) : random.nextInt(InputLimits.MAX_DEPTH - 6,
            InputLimits.MAX_DEPTH + 4);
        if (random.nextBoolean()) {
          yield "flow:\n" + rule + "    limit-app: " + "[".repeat(depth) + "a" + "]".repeat(depth) + "\n";
        }
        StringBuilder out = new StringBuilder("flow:\n").append(rule).append("    x:\n");
        for (int level = 0; level < depth && out.length() < InputLimits.MAX_BYTES; level++) {
          out.append("  ".repeat(level + 3)).append(random.nextBoolean() ? "k:\n" : "-\n");
        }
        yield out.append("  ".repeat(Math.min(depth, 1000) + 3)).append("v\n").toString();
      }
      case 5 -> "flow:\n  - resource: " + oneOf(random, TAGS) + " a\n    count: " + oneOf(random, TAGS) + " "
          + oneOf(random, List.of("1", "0x7fffffffffffffffff", ".nan", "1_000", "2001-12-14", "AAAA", "[1, 2]",
              "{a: 1}", "\"http://localhost/\"", "[[\"http://localhost/\"]]")) + "\n";
      case 6 -> {
        int documents = large ? random.nextInt(1_000, 10_000) : random.nextInt(2, 20);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < documents; i++) {
          out.append("---\nflow:\n").append(rule);
        }
        yield out.toString();
      }
      default -> {
        int length = large ? random.nextInt(10_000, InputLimits.MAX_BYTES / 4) : random.nextInt(1, 2_000);
        String huge = "k".repeat(length);
        yield random.nextBoolean() ? "flow:\n  - " + huge + ": 1\n    resource: a\n"
            : "flow:\n  - &" + huge + " {resource: a, count: 1}\n  - *" + huge + "\n";
      }
    };
  }

  private static String hugeNumber(SplittableRandom random, boolean large) {
    int digits = large ? random.nextInt(1_000, 200_000) : random.nextInt(1, 400);
    StringBuilder out = new StringBuilder(random.nextBoolean() ? "-" : "");
    out.append(random.nextInt(1, 10));
    for (int i = 1; i < digits; i++) {
      out.append((char) ('0' + random.nextInt(10)));
    }
    return switch (random.nextInt(4)) {
      case 0 -> out.toString();
      case 1 -> out.append(".5").toString();
      case 2 -> out.append("e").append(random.nextBoolean() ? "-" : "").append(random.nextInt(1, 1_000_000_000))
          .toString();
      default -> "0." + out.toString().replace("-", "") + "e-999999999";
    };
  }

  private static String quoted(SplittableRandom random, boolean large) {
    int length = large ? random.nextInt(10_000, InputLimits.MAX_BYTES / 4) : random.nextInt(0, 2_000);
    return json(random.nextBoolean() ? "x".repeat(length) : anyString(random, length));
  }

  /** The sample bodies the mutations start from. */
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
