package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rooms of the engine, read from the main sources: each class belongs to a room by its package
 * (and, in {@code dev.weir}, by being a facade or not), and a class may name classes of its own
 * room and of the rooms below it only. The rooms, lowest first:
 * <ol>
 *   <li><b>api</b>: {@code dev.weir} but its facades, {@code dev.weir.rule}, {@code .spi},
 *       {@code .cluster}: the types users see, which name no engine class;
 *   <li><b>time</b>: {@code dev.weir.internal.time}, the engine's clock and windows;
 *   <li><b>limit</b>: {@code dev.weir.internal.limit}, limiters, circuits, the key table;
 *   <li><b>cluster</b>: {@code dev.weir.internal.cluster}, the store's guard and cluster limiters;
 *   <li><b>call</b>: {@code dev.weir.internal.call}, the call protocol: calls, slots, rules in force, statistics;
 *   <li><b>root</b>: {@code dev.weir.internal}, the composition root;
 *   <li><b>facade</b>: {@code Weir}, {@code Resource}, {@code RuleRegistry}, {@code ClusterStatus}, {@code ContextScope}.
 * </ol>
 * The table of rooms of docs/design/engine.md ("Inside the engine: the rooms") is checked against this list, and
 * the module descriptor against the API packages.
 */
class EngineRoomsTest {

  private static final Path SOURCES = Path.of("src/main/java");
  private static final List<String> ROOMS = List.of("api", "time", "limit", "cluster", "call", "root", "facade");
  private static final Set<String> FACADES = Set.of("Weir", "Resource", "RuleRegistry", "ClusterStatus", "ContextScope");
  private static final Map<String, String> PACKAGE_ROOMS = Map.of(
      "dev.weir.rule", "api", "dev.weir.spi", "api", "dev.weir.cluster", "api",
      "dev.weir.internal.time", "time", "dev.weir.internal.limit", "limit", "dev.weir.internal.cluster", "cluster",
      "dev.weir.internal.call", "call", "dev.weir.internal", "root");
  private static final Pattern IMPORT = Pattern.compile("(?m)^import (?:static )?(dev\\.weir[\\w.]*?)\\.([A-Z]\\w*)");
  private static final Pattern QUALIFIED = Pattern.compile("\\b(dev\\.weir(?:\\.[a-z]\\w*)*)\\.([A-Z]\\w*)");

  /** Every main class, by package and simple name, with its source (comments and strings removed). */
  private static final Map<String, String> code = new TreeMap<>();

  @BeforeAll
  static void readSources() throws IOException {
    try (Stream<Path> files = Files.walk(SOURCES.resolve("dev/weir"))) {
      for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
        String name = file.getFileName().toString().replace(".java", "");
        if (name.equals("package-info")) {
          continue;
        }
        String pkg = SOURCES.relativize(file.getParent()).toString().replace('/', '.');
        code.put(pkg + "." + name, strip(Files.readString(file)));
      }
    }
  }

  private static String strip(String source) {
    return source.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "")
        .replaceAll("\"(?:\\\\.|[^\"\\\\])*\"", "\"\"");
  }

  private static String roomOf(String className) {
    int dot = className.lastIndexOf('.');
    String pkg = className.substring(0, dot);
    if (pkg.equals("dev.weir")) {
      return FACADES.contains(className.substring(dot + 1)) ? "facade" : "api";
    }
    String room = PACKAGE_ROOMS.get(pkg);
    if (room == null) {
      throw new AssertionError("package " + pkg + " is in no room: add it to EngineRoomsTest and docs/design/engine.md");
    }
    return room;
  }

  /** The engine classes {@code className} names: imported, qualified, or (in its own package) by simple name. */
  private static Set<String> references(String className) {
    String source = code.get(className);
    String pkg = className.substring(0, className.lastIndexOf('.'));
    Set<String> out = new TreeSet<>();
    for (Pattern pattern : List.of(IMPORT, QUALIFIED)) {
      Matcher matcher = pattern.matcher(source);
      while (matcher.find()) {
        String referenced = matcher.group(1) + "." + matcher.group(2);
        if (code.containsKey(referenced)) {
          out.add(referenced);
        }
      }
    }
    for (String other : code.keySet()) {
      if (other.startsWith(pkg + ".") && other.indexOf('.', pkg.length() + 1) < 0 && !other.equals(className)
          && Pattern.compile("(?<![\\w.])" + other.substring(pkg.length() + 1) + "\\b").matcher(source).find()) {
        out.add(other);
      }
    }
    return out;
  }

  @Test
  void theSourcesWereReadAndEveryClassHasARoom() {
    assertThat(code).containsKeys("dev.weir.Weir", "dev.weir.Entry", "dev.weir.internal.call.Call",
        "dev.weir.internal.time.EngineClock", "dev.weir.internal.limit.WindowLimiter",
        "dev.weir.internal.cluster.ClusterGuard", "dev.weir.internal.Engine");
    code.keySet().forEach(EngineRoomsTest::roomOf);
    assertThat(references("dev.weir.Weir")).contains("dev.weir.internal.Engine", "dev.weir.internal.call.CallStack");
  }

  @Test
  void noClassNamesARoomAboveItsOwn() {
    List<String> upward = new ArrayList<>();
    for (String className : code.keySet()) {
      int room = ROOMS.indexOf(roomOf(className));
      for (String referenced : references(className)) {
        if (ROOMS.indexOf(roomOf(referenced)) > room) {
          upward.add(className + " (" + roomOf(className) + ") -> " + referenced + " (" + roomOf(referenced) + ")");
        }
      }
    }
    assertThat(upward).as("references from a room to a room above it").isEmpty();
  }

  @Test
  void devWeirHoldsPublicApiOnly() throws IOException {
    List<String> notPublic = code.entrySet().stream()
        .filter(e -> e.getKey().startsWith("dev.weir.") && e.getKey().indexOf('.', "dev.weir.".length()) < 0)
        .filter(e -> !Pattern.compile("(?m)^public (?:abstract |final |sealed |non-sealed )*(?:class|interface|enum|record|@interface) "
            + e.getKey().substring("dev.weir.".length()) + "\\b").matcher(e.getValue()).find())
        .map(Map.Entry::getKey).toList();
    assertThat(notPublic).as("top-level types of dev.weir that are not public API").isEmpty();
  }

  @Test
  void theModuleExportsTheApiPackagesOnly() throws IOException {
    // Beside Weir's own class file, wherever the build wrote it (weir-build.target moves the folder).
    Path classes;
    try {
      classes = Path.of(Weir.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
      ModuleDescriptor module = ModuleDescriptor.read(in);
      assertThat(module.name()).isEqualTo("dev.weir");
      assertThat(module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
          .containsExactlyInAnyOrder("dev.weir", "dev.weir.rule", "dev.weir.spi", "dev.weir.cluster");
      assertThat(module.exports()).allSatisfy(export -> assertThat(export.isQualified()).isFalse());
      assertThat(module.uses()).containsExactly("dev.weir.spi.ProcessorSlot");
    }
  }

  /** The design page's room table names each room with its packages, lowest first, as this test does. */
  @Test
  void theDesignPagesTableOfRoomsAgrees() throws IOException {
    String readme = Files.readString(Path.of("../docs/design/engine.md"));
    int at = readme.indexOf("## Inside the engine: the rooms");
    assertThat(at).as("the design page's section on the rooms").isNotNegative();
    String section = readme.substring(at, readme.indexOf("\n## ", at + 1));
    List<String> rows = section.lines().filter(line -> line.startsWith("| **")).toList();
    assertThat(rows.stream().map(row -> row.substring(4, row.indexOf("**", 4))).toList())
        .as("the rooms in the design page's table, lowest first").containsExactlyElementsOf(ROOMS);
    for (Map.Entry<String, String> room : PACKAGE_ROOMS.entrySet()) {
      String row = rows.get(ROOMS.indexOf(room.getValue()));
      assertThat(row).as("the design page's row of room %s names package %s", room.getValue(), room.getKey())
          .contains("`" + room.getKey() + "`");
    }
    for (String facade : FACADES) {
      assertThat(rows.get(ROOMS.indexOf("facade"))).contains("`" + facade + "`");
    }
  }
}
