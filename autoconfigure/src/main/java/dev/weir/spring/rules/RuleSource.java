package dev.weir.spring.rules;

import dev.weir.RuleRegistry;
import dev.weir.rule.RuleViolation;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A file rules are read from: the rule file or a Sentinel file. It turns the file's content into a
 * {@link RuleLayer}, or into every problem of it, each named with the source, the file, the line
 * where known and the field.
 */
interface RuleSource {

  /** The rank of the Sentinel files in the order of sources. */
  int SENTINEL_RANK = 1;

  /** The rank of the rule file in the order of sources. */
  int FILE_RANK = 2;

  /** The source's name in logs, health and meters: {@code file:/etc/weir/rules.yml}, {@code sentinel:flow-file}. */
  String name();

  /** Its place in the order of sources; a higher rank replaces what lower ones give. */
  int rank();

  /** The file, as configured (perhaps a symbolic link). */
  Path path();

  /**
   * Reads the file's content.
   *
   * @param content the bytes of the file
   * @param engine the registry that judges the rules
   */
  Read read(byte[] content, RuleRegistry engine);

  /**
   * The outcome of reading a file: its layer, or every problem (then no layer).
   *
   * @param layer the rules read; null when there are violations
   * @param violations every problem; empty when the content is valid
   */
  record Read(@Nullable RuleLayer layer, List<RuleViolation> violations) {

    static Read of(RuleLayer layer) {
      return new Read(layer, List.of());
    }

    static Read invalid(List<RuleViolation> violations) {
      return new Read(null, List.copyOf(violations));
    }
  }
}
