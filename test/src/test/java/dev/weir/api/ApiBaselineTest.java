package dev.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.test.DrivenTicker;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The exported API against its committed baseline in {@code api/} at the repository root: weir-core's
 * exported packages (read from its module descriptor), {@code dev.weir.annotation}, weir-test's
 * public types, weir-kotlin's {@code dev.weir.kotlin} and the {@code weir.*} properties. A type, member or property that changed or
 * disappeared fails the build, named in the message, and so does one that appeared: every change of
 * the API is seen in review. An intended change updates the baseline in the same commit
 * ({@code mvn -B -ntp -pl test -am verify -Dweir.api.update=true} rewrites it) with a line in
 * {@code CHANGELOG.md}; a removal goes through a deprecation first (docs/compatibility.md).
 */
class ApiBaselineTest {

  /** Surefire runs in the module's folder: the baseline is beside it. */
  private static final Path BASELINE = Path.of("..", "api");

  @Test
  void weirCoresExportedPackages() throws Exception {
    Path core = location(Weir.class);
    Set<String> exported;
    try (Classes classes = Classes.of(core)) {
      ModuleDescriptor descriptor = ModuleFinder.of(core).findAll().iterator().next().descriptor();
      exported = descriptor.exports().stream().filter(export -> !export.isQualified())
          .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
      assertThat(exported).as("weir-core's exports").contains("dev.weir", "dev.weir.rule");
      compare("weir-core.api", ApiSignatures.of(classes.names(exported)));
    }
  }

  @Test
  void theAnnotation() throws Exception {
    try (Classes classes = Classes.of(location(RateLimited.class))) {
      compare("weir-annotation.api", ApiSignatures.of(classes.names(Set.of("dev.weir.annotation"))));
    }
  }

  @Test
  void weirTest() throws Exception {
    try (Classes classes = Classes.of(location(DrivenTicker.class))) {
      compare("weir-test.api", ApiSignatures.of(classes.names(Set.of("dev.weir.test"))));
    }
  }

  @Test
  void weirKotlin() throws Exception {
    try (Classes classes = Classes.of(location(Class.forName("dev.weir.kotlin.GuardKt")))) {
      compare("weir-kotlin.api", ApiSignatures.of(classes.names(Set.of("dev.weir.kotlin"))));
    }
  }

  @Test
  void theWeirProperties() throws Exception {
    compare("weir-properties.api", PropertySignatures.of("weir", WeirProperties.class));
  }

  private static Path location(Class<?> type) throws URISyntaxException {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  private static void compare(String file, List<String> actual) throws IOException {
    Path baseline = BASELINE.resolve(file);
    if (Boolean.getBoolean("weir.api.update")) {
      Files.createDirectories(BASELINE);
      Files.write(baseline, actual, StandardCharsets.UTF_8);
      return;
    }
    assertThat(baseline).as("the API baseline " + baseline.toAbsolutePath()).exists();
    List<String> expected = Files.readAllLines(baseline, StandardCharsets.UTF_8);
    Set<String> removed = new TreeSet<>(expected);
    removed.removeAll(actual);
    Set<String> added = new TreeSet<>(actual);
    added.removeAll(expected);
    if (!removed.isEmpty() || !added.isEmpty()) {
      StringBuilder message = new StringBuilder("The exported API differs from its baseline api/" + file + ".\n");
      removed.forEach(line -> message.append("  changed or removed: ").append(line).append('\n'));
      added.forEach(line -> message.append("  changed or added:   ").append(line).append('\n'));
      message.append("If the change is intended: run with -Dweir.api.update=true to rewrite the baseline, add a line to"
          + " CHANGELOG.md, and deprecate before removing (docs/compatibility.md).");
      throw new AssertionError(message.toString());
    }
  }

  /** The class files of a jar or a classes folder. */
  private static final class Classes implements AutoCloseable {

    private final Path root;
    private final FileSystem jar;

    private Classes(Path root, FileSystem jar) {
      this.root = root;
      this.jar = jar;
    }

    static Classes of(Path location) throws IOException {
      if (Files.isDirectory(location)) {
        return new Classes(location, null);
      }
      FileSystem jar = FileSystems.newFileSystem(location);
      return new Classes(jar.getPath("/"), jar);
    }

    /** The binary names of the classes of {@code packages} (not of their sub-packages). */
    List<String> names(Set<String> packages) throws IOException {
      List<String> names = new ArrayList<>();
      for (String pkg : packages) {
        Path folder = root.resolve(pkg.replace('.', '/'));
        if (!Files.isDirectory(folder)) {
          continue;
        }
        try (Stream<Path> files = Files.list(folder)) {
          files.map(path -> path.getFileName().toString())
              .filter(name -> name.endsWith(".class") && !name.equals("package-info.class")
                  && !name.equals("module-info.class"))
              .forEach(name -> names.add(pkg + "." + name.substring(0, name.length() - ".class".length())));
        }
      }
      return names;
    }

    @Override
    public void close() throws IOException {
      if (jar != null) {
        jar.close();
      }
    }
  }

  /** A public static final field's value is part of the API: callers compile it in. */
  static String constant(Field field) {
    int modifiers = field.getModifiers();
    if (!Modifier.isStatic(modifiers) || !Modifier.isFinal(modifiers)
        || !(field.getType().isPrimitive() || field.getType() == String.class)) {
      return "";
    }
    try {
      Object value = field.get(null);
      return " = " + (value instanceof String text ? '"' + text + '"' : String.valueOf(value));
    } catch (IllegalAccessException unreadable) {
      return "";
    }
  }
}
