package dev.weir.spring.autoconfigure;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The Spring Boot versions this Weir supports ({@value #SUPPORTED}, docs/compatibility.md), and the
 * check at start that the application runs on one of them. A version that cannot be read (an
 * application repackaged without Spring Boot's manifest, or one without a major.minor) is not
 * refused: nothing is known about it.
 */
final class SpringBootCompatibility {

  /** The supported range, as written in messages and in docs/compatibility.md. */
  static final String SUPPORTED = "4.1.x";

  /**
   * The lowest supported major.minor, inclusive. Not 4.0: on 4.0.7 the build compiles, but refusals
   * recorded on MVC and client observations break the response, and tab-indented JSON rule files are
   * refused (docs/compatibility.md, "Spring Boot 4.0").
   */
  private static final int[] LOWEST = {4, 1};

  /** The lowest unsupported major.minor: the next minor may change what Weir builds on. */
  private static final int[] BEYOND = {4, 2};

  private final Supplier<@Nullable String> version;

  /** @param version the running Spring Boot's version, e.g. {@code SpringBootVersion::getVersion} */
  SpringBootCompatibility(Supplier<@Nullable String> version) {
    this.version = version;
  }

  /**
   * Returns normally when the running version is supported or unknown.
   *
   * @throws IncompatibleSpringBootException naming the version found and the supported range
   */
  void verify() {
    String found = version.get();
    if (found == null || found.isBlank()) {
      return;
    }
    int[] majorMinor = majorMinor(found);
    if (majorMinor == null) {
      return; // no major.minor to compare: nothing is known of it
    }
    if (compare(majorMinor, LOWEST) < 0 || compare(majorMinor, BEYOND) >= 0) {
      throw new IncompatibleSpringBootException(found, SUPPORTED);
    }
  }

  /** The major and minor of {@code version} ({@code 4.1.1}, {@code 4.2.0-M1}), or null when it has none. */
  static int @Nullable [] majorMinor(String version) {
    String[] parts = version.split("[.-]", 3);
    if (parts.length < 2 || parts[0].length() > 4 || parts[1].length() > 4) {
      return null;
    }
    try {
      return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    } catch (NumberFormatException notANumber) {
      return null;
    }
  }

  private static int compare(int[] a, int[] b) {
    return a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]);
  }
}
