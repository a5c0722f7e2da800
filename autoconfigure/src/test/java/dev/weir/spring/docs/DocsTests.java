package dev.weir.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.FileSystemResource;

/**
 * The repository's documentation, the README and every page under {@code docs/}, checked by
 * {@link DocsChecker}: Java snippets are regions of compiled sources, {@code weir:} YAML binds and
 * validates, links and anchors land, and the README stays a short entry point that keeps the two
 * commands CI and the samples depend on.
 */
class DocsTests {

  private static final Path ROOT = Path.of("..");
  private static final DocsChecker DOCS = new DocsChecker(ROOT);

  /** The pages issue 30 asks for, and the pages other pages are built around. */
  private static final List<String> PAGES = List.of(
      "docs/README.md", "docs/getting-started.md", "docs/annotation.md", "docs/rules.md",
      "docs/async-and-reactive.md", "docs/routes-and-keys.md", "docs/http.md", "docs/rule-sources.md",
      "docs/shadow-mode.md", "docs/observability.md", "docs/endpoint.md", "docs/dashboard.md", "docs/cluster.md",
      "docs/adaptive.md", "docs/security.md", "docs/testing.md", "docs/performance.md", "docs/engine.md",
      "docs/design/engine.md", "docs/design/autoconfigure.md", "docs/design/choices.md", "docs/samples.md",
      "docs/outgoing-calls.md", "docs/retry-budgets.md", "docs/grpc.md", "docs/native-images.md",
      "docs/how-to/limit-an-api-per-key.md", "docs/how-to/roll-out-a-limit-dark.md",
      "docs/how-to/protect-a-slow-dependency.md", "docs/how-to/run-a-fleet-on-redis.md",
      "docs/migrating/from-sentinel.md", "docs/migrating/from-resilience4j.md", "docs/migrating/from-bucket4j.md");

  @Test
  void theReadmeIsShortLinksIntoTheReferenceAndKeepsItsTwoCommands() throws IOException {
    List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
    assertThat(readme).as("lines of the README").hasSizeLessThanOrEqualTo(300);
    assertThat(readme).as("the test command CI runs, and the sample's run command")
        .contains("mvn -B -ntp verify", "mvn -B -ntp -pl sample-app -am spring-boot:run");
    assertThat(DOCS.page(ROOT.resolve("README.md")).links()).extracting(Markdown.Link::target)
        .anySatisfy(target -> assertThat(target).startsWith("docs/getting-started.md"))
        .anySatisfy(target -> assertThat(target).startsWith("docs/migrating/from-sentinel.md"))
        .anySatisfy(target -> assertThat(target).startsWith("docs/migrating/from-resilience4j.md"))
        .anySatisfy(target -> assertThat(target).startsWith("docs/migrating/from-bucket4j.md"));
  }

  /**
   * The README's comparison quotes only figures that docs/performance.md has, each a number of
   * nanoseconds as measured there; and its dependency snippet says to install the artifacts first,
   * since no release exists.
   */
  @Test
  void theReadmeComparesWithFiguresOfThePerformancePageAndSaysToInstallFirst() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    int from = readme.indexOf("## Why Weir");
    assertThat(from).as("the comparison section").isPositive();
    String section = readme.substring(from, readme.indexOf("\n## ", from + 1));
    assertThat(section).contains("docs/performance.md", "Resilience4j", "Bucket4j", "Sentinel", "RedisRateLimiter");
    Set<String> measured = new HashSet<>();
    Matcher number = Pattern.compile("(?<![\\w.])\\d+(?:\\.\\d+)?(?![\\w.])")
        .matcher(Files.readString(ROOT.resolve("docs/performance.md")));
    while (number.find()) {
      measured.add(number.group());
    }
    Matcher quoted = Pattern.compile("(\\d+(?:\\.\\d+)?) ns").matcher(section);
    List<String> figures = new ArrayList<>();
    while (quoted.find()) {
      figures.add(quoted.group(1));
    }
    assertThat(figures).as("figures quoted in the comparison").hasSizeGreaterThanOrEqualTo(8)
        .allSatisfy(figure -> assertThat(measured).as("docs/performance.md has " + figure).contains(figure));
    String dependency = readme.substring(readme.indexOf("## The dependency"), readme.indexOf("```xml"));
    assertThat(dependency).as("the dependency section, before its snippet").contains("mvn -B -ntp install -DskipTests");
  }

  @Test
  void everyPageOfTheReferenceExistsAndIsReachableFromTheIndex() {
    assertThat(PAGES).allSatisfy(page -> assertThat(ROOT.resolve(page)).isRegularFile());
    Path index = ROOT.resolve("docs/README.md");
    List<Path> linked = DOCS.page(index).links().stream().map(Markdown.Link::target)
        .filter(target -> !target.contains(":")).map(target -> target.replaceAll("#.*", ""))
        .filter(target -> !target.isEmpty())
        .map(target -> index.toAbsolutePath().getParent().resolve(target).normalize()).toList();
    assertThat(DOCS.pages()).as("every page under docs/ is linked from docs/README.md")
        .allSatisfy(page -> {
          if (!page.endsWith("README.md")) {
            assertThat(linked).contains(page.toAbsolutePath().normalize());
          }
        });
  }

  @Test
  void everyFenceNamesItsLanguage() {
    assertThat(all(DOCS::fenceProblems)).isEmpty();
  }

  @Test
  void everyJavaSnippetIsARegionOfACompiledSource() {
    long java = DOCS.pages().stream().flatMap(page -> DOCS.page(page).fences().stream())
        .filter(fence -> fence.language().equals("java")).count();
    assertThat(java).as("Java snippets found (the parser reads the pages)").isGreaterThan(20);
    assertThat(all(DOCS::snippetProblems)).isEmpty();
    assertThat(all(DOCS::uncheckedJava)).as("Java fences marked unchecked: none, every one is compiled").isEmpty();
  }

  @Test
  void everyWeirYamlBindsAndValidates() {
    long yaml = DOCS.pages().stream().flatMap(page -> DOCS.page(page).fences().stream())
        .filter(fence -> fence.language().equals("yaml") && fence.text().contains("weir:")).count();
    assertThat(yaml).as("weir: YAML snippets found").isGreaterThan(20);
    assertThat(all(DOCS::yamlProblems)).isEmpty();
  }

  @Test
  void everyLinkAndAnchorResolves() {
    long links = DOCS.pages().stream().mapToLong(page -> DOCS.page(page).links().size()).sum();
    assertThat(links).as("links found").isGreaterThan(150);
    assertThat(all(DOCS::linkProblems)).isEmpty();
  }

  /**
   * The URLs of the sample applications' page name the port each sample runs on, as its
   * {@code application.yml} sets it (the shop: Spring Boot's default 8080; the WebFlux sample: 8081; the
   * Kotlin sample: 8083).
   */
  @Test
  void theSamplesPageSendsEachSampleToItsOwnPort() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/samples.md"));
    int fleet = page.indexOf("## A fleet of two");
    int webflux = page.indexOf("## The WebFlux sample");
    assertThat(fleet).isPositive().isLessThan(webflux);
    assertThat(ports(page.substring(0, fleet))).isNotEmpty()
        .containsOnly(port("sample-app/src/main/resources/application.yml"));
    // The fleet's two shops: on the ports sample-app/fleet.sh starts them on, or those the section
    // says it ran them on (PORTS="..." and REDIS_PORT=...), never the WebFlux sample's.
    String section = page.substring(fleet, webflux);
    Set<Integer> fleetPorts = new HashSet<>(ports("localhost:8080 localhost:8082 localhost:6379"));
    Matcher given = Pattern.compile("(?:PORTS=\"([\\d ]+)\")|(?:REDIS_PORT=(\\d+))").matcher(section);
    while (given.find()) {
      for (String number : (given.group(1) != null ? given.group(1) : given.group(2)).trim().split(" +")) {
        fleetPorts.add(Integer.parseInt(number));
      }
    }
    assertThat(Files.readString(ROOT.resolve("sample-app/fleet.sh"))).contains("${PORTS:-8080 8082}");
    assertThat(ports(section)).isNotEmpty().isSubsetOf(fleetPorts)
        .doesNotContain(port("sample-webflux/src/main/resources/application.yml"));
    int kotlin = page.indexOf("## The Kotlin sample");
    assertThat(kotlin).isGreaterThan(webflux);
    assertThat(ports(page.substring(webflux, kotlin))).isNotEmpty()
        .containsOnly(port("sample-webflux/src/main/resources/application.yml"));
    assertThat(ports(page.substring(kotlin))).isNotEmpty()
        .containsOnly(port("sample-kotlin/src/main/resources/application.yml"));
  }

  /**
   * Where the getting-started page and the dashboard's page first send a reader to the dashboard,
   * the YAML that exposes it follows before the next heading: without it the page is a 404 in a
   * new application. The YAML's properties are read as Spring Boot reads them.
   */
  @ParameterizedTest
  @ValueSource(strings = {"docs/getting-started.md", "docs/dashboard.md"})
  void whereThePageIsFirstMentionedItsExposureIsGiven(String name) throws IOException {
    List<String> lines = Files.readAllLines(ROOT.resolve(name));
    int first = 0;
    while (first < lines.size() && !lines.get(first).contains("/actuator/weir")
        && !lines.get(first).contains("(dashboard.md")) {
      first++;
    }
    assertThat(first).as("the first mention of the page in " + name).isLessThan(lines.size());
    int next = first + 1;
    while (next < lines.size() && !lines.get(next).startsWith("#")) {
      next++;
    }
    int mention = first + 1;
    int heading = next + 1;
    Markdown.Fence exposure = DOCS.page(ROOT.resolve(name)).fences().stream()
        .filter(fence -> fence.language().equals("yaml") && fence.line() > mention && fence.line() < heading)
        .findFirst().orElseThrow(() -> new AssertionError(name + ":" + mention
            + ": the dashboard is mentioned without the YAML that exposes it before the next heading"));
    List<PropertySource<?>> sources = new YamlPropertySourceLoader().load(name,
        new ByteArrayResource(exposure.text().getBytes(StandardCharsets.UTF_8)));
    assertThat(String.valueOf(sources.get(0).getProperty("management.endpoints.web.exposure.include")).split(","))
        .as(name + ":" + exposure.line() + ": management.endpoints.web.exposure.include").contains("weir");
    assertThat(sources.get(0).getProperty("management.endpoint.weir.access")).hasToString("unrestricted");
  }

  /**
   * The samples page lists every path the shop's controllers map (a path under one the page gives
   * with {@code /**} counts), and its captured 429 of a flow rule carries the {@code RateLimit}
   * headers every such 429 has.
   */
  @Test
  void theSamplesPageListsEveryPathOfTheShopAndItsHeaders() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/samples.md"));
    String shop = page.substring(0, page.indexOf("## The WebFlux sample"));
    List<String> missing = new ArrayList<>();
    try (var sources = Files.list(ROOT.resolve("sample-app/src/main/java/dev/weir/sample/shop"))) {
      for (Path source : sources.toList()) {
        Matcher mapping = Pattern.compile("@(?:Get|Post|Put|Delete)Mapping\\(\"([^\"]+)\"\\)")
            .matcher(Files.readString(source));
        while (mapping.find()) {
          String path = mapping.group(1);
          String root = path.substring(0, path.indexOf('/', 1) < 0 ? path.length() : path.indexOf('/', 1));
          if (!Pattern.compile("`(?:GET |POST )?" + Pattern.quote(path) + "[`?]").matcher(shop).find()
              && !shop.contains(root + "/**")) {
            missing.add(source.getFileName() + ": " + path);
          }
        }
      }
    }
    assertThat(missing).as("paths of the shop the samples page does not list").isEmpty();
    int refusal = shop.indexOf("HTTP/1.1 429");
    assertThat(refusal).isPositive();
    assertThat(shop.substring(refusal, shop.indexOf("\n\n", refusal))).contains("RateLimit-Policy: ", "RateLimit: ");
  }

  private static Set<Integer> ports(String text) {
    Set<Integer> out = new HashSet<>();
    Matcher matcher = Pattern.compile("localhost:(\\d+)").matcher(text);
    while (matcher.find()) {
      out.add(Integer.parseInt(matcher.group(1)));
    }
    return out;
  }

  private static int port(String applicationYml) throws IOException {
    List<PropertySource<?>> sources = new YamlPropertySourceLoader()
        .load(applicationYml, new FileSystemResource(ROOT.resolve(applicationYml)));
    Object port = sources.get(0).getProperty("server.port");
    return port == null ? 8080 : Integer.parseInt(port.toString());
  }

  private static List<String> all(Function<Path, List<String>> check) {
    List<String> out = new ArrayList<>();
    DOCS.pages().forEach(page -> out.addAll(check.apply(page)));
    return out;
  }
}
