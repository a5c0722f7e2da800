package dev.weir.spring.docs;

import dev.weir.Weir;
import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterLimit;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.keys.KeyArguments;
import dev.weir.spring.keys.KeyLanguage;
import dev.weir.spring.properties.ClientRouteProperties;
import dev.weir.spring.properties.RouteProperties;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import dev.weir.spring.web.Route;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * The checks that keep the documentation true to the code: every Java snippet is a region of a
 * compiled source file of this repository, every {@code weir:} YAML snippet binds and validates as
 * {@code application.yml} would, and every relative link and anchor lands. A page names what a
 * snippet is checked against on the line just before its fence:
 * <ul>
 *   <li>{@code [Catalog.java](../sample-app/src/main/java/.../Catalog.java) <!-- snippet: search -->}:
 *       the fence is the region between {@code tag::search[]} and {@code end::search[]} in that file
 *       (lines holding other {@code tag::}/{@code end::} markers left out), compared after common
 *       indentation and trailing white space are stripped. A Java fence must have one; any other
 *       fence may (a YAML region of an {@code application.yml}, say);
 *   <li>{@code <!-- yaml: invalid -->}: the YAML must <em>not</em> bind or validate (a page that
 *       shows an error);
 *   <li>{@code <!-- yaml: rule-file -->}, {@code <!-- json: rule-file -->}: the fence is a rule file
 *       ({@code weir.rules.file}), read by a real context at start;
 *   <li>{@code <!-- json: sentinel-flow-file -->} (and {@code degrade}, {@code param-flow},
 *       {@code authority}, {@code system}): the fence is that Sentinel rule file, read likewise.
 * </ul>
 * Every other YAML fence with a top-level {@code weir:} key is bound onto {@link WeirProperties}
 * with Spring Boot's {@link Binder} (an unknown key under {@code weir} is an error, placeholders
 * resolve to their defaults) and judged by {@link WeirPropertiesValidator}: it must have no
 * violation. Every fence must name its language, so that no Java hides in an unnamed one.
 */
final class DocsChecker {

  private static final Pattern SOURCE_LINE = Pattern.compile(
      "\\[[^]]*]\\(([^)\\s#]+)\\).*<!--\\s*snippet:\\s*([\\w.-]+)\\s*-->");
  private static final Pattern UNCHECKED = Pattern.compile("<!--\\s*unchecked-java:\\s*(\\S.*?)\\s*-->");
  private static final Pattern CHECK = Pattern.compile("<!--\\s*(yaml|json):\\s*([\\w-]+)\\s*-->");
  private static final Pattern TOP_LEVEL_WEIR = Pattern.compile("(?m)^weir:");
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
  private static final List<String> SENTINEL_KINDS = List.of("flow", "degrade", "param-flow", "authority", "system");

  private final Path root;
  private final Map<Path, Markdown> parsed = new HashMap<>();

  /** Checks the pages of the repository at {@code root}. */
  DocsChecker(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  /** The pages checked: the README and every Markdown file under {@code docs/}. */
  List<Path> pages() {
    List<Path> out = new ArrayList<>();
    if (Files.exists(root.resolve("README.md"))) {
      out.add(root.resolve("README.md"));
    }
    Path docs = root.resolve("docs");
    if (Files.isDirectory(docs)) {
      try (Stream<Path> files = Files.walk(docs)) {
        files.filter(path -> path.toString().endsWith(".md")).sorted().forEach(out::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  Markdown page(Path page) {
    return parsed.computeIfAbsent(page.toAbsolutePath().normalize(), path -> Markdown.parse(read(path)));
  }

  private String name(Path page) {
    return root.relativize(page.toAbsolutePath().normalize()).toString();
  }

  /** Fences without a language, and fences never closed. */
  List<String> fenceProblems(Path page) {
    List<String> out = new ArrayList<>();
    page(page).structureProblems().forEach(problem -> out.add(name(page) + ": " + problem));
    for (Markdown.Fence fence : page(page).fences()) {
      if (fence.language().isEmpty()) {
        out.add(name(page) + ":" + fence.line() + ": a fence without a language (```java, ```yaml, ```text, ...)");
      }
    }
    return out;
  }

  /** Snippets that are not their source's region, Java and Kotlin fences without a source, sources that are not compiled. */
  List<String> snippetProblems(Path page) {
    List<String> out = new ArrayList<>();
    for (Markdown.Fence fence : page(page).fences()) {
      String at = name(page) + ":" + fence.line();
      Matcher source = SOURCE_LINE.matcher(fence.lineBefore());
      if (!source.find()) {
        if (fence.language().equals("java") && !UNCHECKED.matcher(fence.lineBefore()).find()) {
          out.add(at + ": a Java snippet without its source: put [File.java](path) <!-- snippet: tag --> on the line"
              + " before the fence, and tag::tag[] / end::tag[] comments around the region in the file");
        }
        if (fence.language().equals("kotlin")) {
          out.add(at + ": a Kotlin snippet without its source: put [File.kt](path) <!-- snippet: tag --> on the line"
              + " before the fence, and tag::tag[] / end::tag[] comments around the region in the file");
        }
        continue;
      }
      Path file = page.toAbsolutePath().getParent().resolve(decode(source.group(1))).normalize();
      if (!file.startsWith(root) || !Files.isRegularFile(file)) {
        out.add(at + ": the snippet's source " + source.group(1) + " is no file of this repository");
        continue;
      }
      String sourceName = root.relativize(file).toString();
      if (fence.language().equals("java") && !(sourceName.endsWith(".java")
          && (sourceName.contains("/src/main/java/") || sourceName.contains("/src/test/java/")))) {
        out.add(at + ": a Java snippet must come from a compiled source (src/main/java or src/test/java), not "
            + sourceName);
        continue;
      }
      if (fence.language().equals("kotlin") && !(sourceName.endsWith(".kt")
          && (sourceName.contains("/src/main/kotlin/") || sourceName.contains("/src/test/kotlin/")))) {
        out.add(at + ": a Kotlin snippet must come from a compiled source (src/main/kotlin or src/test/kotlin), not "
            + sourceName);
        continue;
      }
      List<String> region = region(read(file), source.group(2));
      if (region == null) {
        out.add(at + ": " + sourceName + " has no single region tag::" + source.group(2) + "[] ... end::"
            + source.group(2) + "[]");
        continue;
      }
      List<String> shown = normalize(fence.lines());
      if (!shown.equals(region)) {
        out.add(at + ": the snippet differs from " + sourceName + "#" + source.group(2) + difference(shown, region));
      }
    }
    return out;
  }

  /**
   * Java fences marked {@code <!-- unchecked-java: reason -->} on the line before (the reason is
   * required), as {@code page:line: reason}: shown without a compiled source, so a test keeps their
   * number to the few it allows.
   */
  List<String> uncheckedJava(Path page) {
    List<String> out = new ArrayList<>();
    for (Markdown.Fence fence : page(page).fences()) {
      Matcher unchecked = UNCHECKED.matcher(fence.lineBefore());
      if (fence.language().equals("java") && unchecked.find()) {
        out.add(name(page) + ":" + fence.line() + ": " + unchecked.group(1));
      }
    }
    return out;
  }

  /** YAML and JSON fences that do not bind, validate or start as their marker says. */
  List<String> yamlProblems(Path page) {
    List<String> out = new ArrayList<>();
    for (Markdown.Fence fence : page(page).fences()) {
      String at = name(page) + ":" + fence.line();
      Matcher check = CHECK.matcher(fence.lineBefore());
      String kind = check.find() ? check.group(2) : null;
      String text = fence.text();
      if ("rule-file".equals(kind)) {
        startProblem(fence.language().equals("json") ? "rules.json" : "rules.yml", text, "weir.rules.file")
            .ifPresent(problem -> out.add(at + ": the rule file does not start: " + problem));
      } else if (kind != null && kind.startsWith("sentinel-") && kind.endsWith("-file")) {
        String sentinelKind = kind.substring("sentinel-".length(), kind.length() - "-file".length());
        if (!SENTINEL_KINDS.contains(sentinelKind)) {
          out.add(at + ": unknown Sentinel file kind '" + sentinelKind + "'");
        } else {
          startProblem(sentinelKind + "-rules.json", text, "weir.rules.sentinel." + sentinelKind + "-file")
              .ifPresent(problem -> out.add(at + ": the Sentinel file does not start: " + problem));
        }
      } else if (fence.language().equals("yaml") || fence.language().equals("yml")) {
        if (!TOP_LEVEL_WEIR.matcher(text).find()) {
          if ("invalid".equals(kind)) {
            out.add(at + ": marked invalid, but has no top-level weir: to check");
          }
          parseProblem(text).ifPresent(problem -> out.add(at + ": is not valid YAML: " + problem));
          continue;
        }
        List<String> problems = weirProblems(text);
        if ("invalid".equals(kind) && problems.isEmpty()) {
          out.add(at + ": marked invalid, but binds and validates");
        } else if (kind == null && !problems.isEmpty()) {
          out.add(at + ": " + String.join("; ", problems));
        } else if (kind != null && !kind.equals("invalid")) {
          out.add(at + ": unknown check '" + kind + "'");
        }
      } else if (kind != null) {
        out.add(at + ": a " + kind + " check on a " + fence.language() + " fence");
      } else if (fence.language().equals("json")) {
        parseProblem(text).ifPresent(problem -> out.add(at + ": is not valid JSON: " + problem));
      }
    }
    return out;
  }

  /** Links that lead to no file of the repository, and anchors that no heading of their page has. */
  List<String> linkProblems(Path page) {
    List<String> out = new ArrayList<>();
    for (Markdown.Link link : page(page).links()) {
      String target = link.target();
      String at = name(page) + ":" + link.line() + ": " + target;
      if (SCHEME.matcher(target).find() || target.startsWith("//")) {
        continue;
      }
      int hash = target.indexOf('#');
      String path = decode(hash < 0 ? target : target.substring(0, hash));
      String anchor = hash < 0 ? null : target.substring(hash + 1);
      Path file;
      if (path.isEmpty()) {
        file = page.toAbsolutePath().normalize();
      } else if (path.startsWith("/")) {
        out.add(at + ": write links relative to the page");
        continue;
      } else {
        file = page.toAbsolutePath().getParent().resolve(path).normalize();
      }
      if (!file.startsWith(root) || !Files.exists(file)) {
        out.add(at + ": no such file");
        continue;
      }
      if (anchor != null && file.toString().endsWith(".md") && !page(file).anchors().contains(anchor)) {
        out.add(at + ": " + name(file) + " has no heading or anchor '" + anchor + "'");
      }
    }
    return out;
  }

  /** The problems of a {@code weir:} document: binding failures, then the validator's violations. */
  static List<String> weirProblems(String yaml) {
    WeirProperties properties = new WeirProperties();
    try {
      List<PropertySource<?>> sources = new YamlPropertySourceLoader()
          .load("snippet", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
      Binder binder = new Binder(ConfigurationPropertySources.from(sources),
          new PropertySourcesPlaceholdersResolver(sources), ApplicationConversionService.getSharedInstance());
      binder.bind("weir", Bindable.ofInstance(properties), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
    } catch (IOException | RuntimeException bind) {
      return List.of("does not bind: " + messages(bind));
    }
    Set<String> routes = new HashSet<>();
    properties.getWeb().getRoutes().stream().map(RouteProperties::getResource).forEach(routes::add);
    properties.getClient().getRoutes().stream().map(ClientRouteProperties::getResource).forEach(routes::add);
    KeyLanguage keys = new KeyLanguage(resource -> routes.contains(resource)
        ? new KeyArguments(Route.ARGUMENT_NAMES, Route.ARGUMENT_TYPES) : null);
    Weir.Builder builder = Weir.builder().keyExpressions(keys);
    boolean cluster = properties.getCluster().isEnabled();
    if (cluster) {
      try {
        builder.cluster(new NoStore(), properties.getCluster().toOptions());
      } catch (IllegalArgumentException invalid) {
        // the validator names the property
      }
    }
    try (Weir weir = builder.build()) {
      return WeirPropertiesValidator.validate(properties, weir.rules(), cluster).stream()
          .map(RuleViolation::toString).toList();
    }
  }

  /**
   * Why {@code text} does not parse as YAML (JSON is YAML), if it does not: the check of a YAML or
   * JSON fence that nothing binds (Spring Boot's own {@code management:} keys, another library's).
   */
  static java.util.Optional<String> parseProblem(String text) {
    try {
      new YamlPropertySourceLoader().load("snippet", new ByteArrayResource(text.getBytes(StandardCharsets.UTF_8)));
      return java.util.Optional.empty();
    } catch (IOException | RuntimeException invalid) {
      return java.util.Optional.of(messages(invalid));
    }
  }

  /** Starts a context of Weir's auto-configuration with {@code content} in a file named by {@code property}. */
  private static java.util.Optional<String> startProblem(String fileName, String content, String property) {
    try {
      Path directory = Files.createTempDirectory("weir-docs");
      Path file = Files.writeString(directory.resolve(fileName), content);
      AtomicReference<String> problem = new AtomicReference<>();
      try {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
            .withPropertyValues(property + "=" + file)
            .run(context -> {
              if (context.getStartupFailure() != null) {
                problem.set(messages(context.getStartupFailure()));
              }
            });
      } finally {
        Files.deleteIfExists(file);
        Files.deleteIfExists(directory);
      }
      return java.util.Optional.ofNullable(problem.get());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The messages of a failure and its causes, each once (a wrapper that repeats its cause's message is left out). */
  private static String messages(Throwable failure) {
    List<String> all = new ArrayList<>();
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getMessage() != null) {
        all.add(t.getMessage().replace('\n', ' ').strip());
      }
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      String message = all.get(i);
      if (all.subList(i + 1, all.size()).stream().noneMatch(message::contains)) {
        out.add(message);
      }
    }
    return String.join(" <- ", out);
  }

  /**
   * The lines between {@code tag::name[]} and {@code end::name[]}, normalized; null unless the file
   * has exactly one such region.
   */
  static List<String> region(String source, String name) {
    List<String> lines = List.of(source.split("\n", -1));
    String open = "tag::" + name + "[]";
    String close = "end::" + name + "[]";
    int start = -1;
    int end = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(open)) {
        if (start >= 0) {
          return null;
        }
        start = i;
      } else if (lines.get(i).contains(close)) {
        if (end >= 0) {
          return null;
        }
        end = i;
      }
    }
    if (start < 0 || end <= start) {
      return null;
    }
    return normalize(lines.subList(start + 1, end).stream()
        .filter(line -> !line.contains("tag::") && !line.contains("end::")).toList());
  }

  /** Trailing white space stripped, blank lines at either end dropped, common indentation removed. */
  static List<String> normalize(List<String> lines) {
    List<String> out = new ArrayList<>(lines.stream().map(String::stripTrailing).toList());
    while (!out.isEmpty() && out.get(0).isEmpty()) {
      out.remove(0);
    }
    while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
      out.remove(out.size() - 1);
    }
    int indent = out.stream().filter(line -> !line.isEmpty())
        .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
    return out.stream().map(line -> line.isEmpty() ? line : line.substring(indent)).toList();
  }

  private static String difference(List<String> shown, List<String> source) {
    for (int i = 0; i < Math.max(shown.size(), source.size()); i++) {
      String a = i < shown.size() ? shown.get(i) : "<nothing>";
      String b = i < source.size() ? source.get(i) : "<nothing>";
      if (!a.equals(b)) {
        return " at its line " + (i + 1) + ": the page has [" + a + "], the source [" + b + "]";
      }
    }
    return "";
  }

  private static String decode(String path) {
    return URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static String read(Path path) {
    try {
      return Files.readString(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A cluster store for checking rules only: its presence tells the validator that cluster-mode
   * rules have a store (as a Redis connection would at start). Nothing is loaded into an engine
   * that has it, so it is never asked to count.
   */
  private static final class NoStore implements ClusterClient {

    @Override
    public ClusterCounter counter(ClusterLimit limit) {
      throw new UnsupportedOperationException("the documentation check loads no rule");
    }

    @Override
    public CompletableFuture<?> ping() {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public String description() {
      return "none (documentation check)";
    }
  }
}
