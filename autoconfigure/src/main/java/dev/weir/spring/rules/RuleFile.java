package dev.weir.spring.rules;

import dev.weir.RuleRegistry;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.InputLimits;
import dev.weir.spring.properties.RuleMaps;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.TextResourceOrigin;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * The rule file, {@code weir.rules.file}: YAML ({@code .yml}, {@code .yaml}) or JSON
 * ({@code .json}) with the lists of {@code weir.*}, read by {@link RuleFileReader} within the
 * bounds of {@code InputLimits}: Spring Boot's YAML loader (a JSON document is YAML) and binder,
 * rule by rule, onto the property classes of {@code application.yml}, so that keys (kebab-case or
 * camelCase), durations and enum values are read as at start; then judged by
 * {@code WeirPropertiesValidator}. Each problem is named {@code file:/path/rules.yml:LINE field},
 * the line being where the value (or, for a missing one, its rule) is written. With write-back,
 * endpoint writes are merged into it ({@link #writeBack}).
 */
final class RuleFile implements RuleSource {

  /** How often a write-back merges again when the file keeps changing under it. */
  static final int MAX_WRITE_ATTEMPTS = 5;

  /** The most symbolic links followed from the file's path (as Linux's own limit). */
  private static final int MAX_LINKS = 40;

  private final Path path;
  private final String name;
  private final boolean json;
  private final RuleFileReader reader;
  /** The content whose rules are in force ({@link #accepted}); null before any. */
  private volatile byte @Nullable [] inForce;
  /** The stamp of content known whole (written back, or read settled); null before any. */
  private volatile Settle.@Nullable Stamp trusted;
  /** When the file's content may be trusted whole. */
  private final Settle settle;
  /** Runs after the merged file is written aside and before it replaces the file; tests use it. */
  volatile Runnable beforeMove = () -> { };

  RuleFile(Path path) {
    this(path, false, new Settle());
  }

  RuleFile(Path path, boolean shadowByDefault, Settle settle) {
    this.settle = settle;
    this.path = path.toAbsolutePath();
    this.name = "file:" + this.path;
    this.json = this.path.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json");
    this.reader = new RuleFileReader(name, json, shadowByDefault);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int rank() {
    return FILE_RANK;
  }

  @Override
  public Path path() {
    return path;
  }

  @Override
  public Read read(byte[] content, RuleRegistry engine) {
    return reader.read(content, engine);
  }

  /**
   * Returns the line of {@code field} in {@code source}, 1-based: where its value is written, else
   * where the first value under it is, else the same for its parent; null when none is written.
   */
  static @Nullable Integer line(ConfigurationPropertySource source, String field) {
    ConfigurationPropertyName name;
    try {
      name = ConfigurationPropertyName.adapt(field, '.');
    } catch (RuntimeException invalid) {
      return null;
    }
    while (!name.isEmpty()) {
      ConfigurationProperty property = source.getConfigurationProperty(name);
      Integer line = property != null ? line(property.getOrigin()) : null;
      if (line != null) {
        return line;
      }
      if (source instanceof IterableConfigurationPropertySource iterable) {
        ConfigurationPropertyName parent = name;
        Integer first = iterable.stream().filter(parent::isAncestorOf)
            .map(child -> line(iterable.getConfigurationProperty(child) == null ? null
                : iterable.getConfigurationProperty(child).getOrigin()))
            .filter(l -> l != null).min(Integer::compare).orElse(null);
        if (first != null) {
          return first;
        }
      }
      name = name.getParent();
    }
    return null;
  }

  /** The line of an origin, 1-based; null when it has none. */
  static @Nullable Integer line(@Nullable Origin origin) {
    for (Origin at = origin; at != null; at = at.getParent()) {
      if (at instanceof PropertySourceOrigin wrapper && wrapper.getOrigin() != null) {
        at = wrapper.getOrigin();
      }
      if (at instanceof TextResourceOrigin text && text.getLocation() != null) {
        return text.getLocation().getLine() + 1;
      }
    }
    return null;
  }

  /**
   * Merges an endpoint write into the file and replaces it atomically.
   *
   * <p>The merge rule: the file is read again, now, and only the entries of {@code resource} of
   * each of {@code kinds} are replaced (its rules of that kind removed from the list, the written
   * ones appended, and the kind listed under {@code cleared} when none are written); every other
   * entry, including those edited by hand since the file was last loaded, stays as it is. The
   * result is validated whole; an invalid file (a hand edit in progress, say) refuses the write.
   * It is written to a temporary file in the same directory (so that the move is a rename within
   * one file system) and moved over the file with {@code ATOMIC_MOVE}: a reader sees the old file
   * or the new one, never a part. Writes are serialized by the caller's lock.
   *
   * <p>What a hand edit (or a deploy) may do meanwhile, and what becomes of it:
   * <ul>
   *   <li>Save it in place (truncate, write, pause, write the rest): the file is read only once it
   *       has {@link Settle settled}, unchanged for {@link Settle#TIME} (at once when it is as this
   *       class last wrote or trusted it). Before, the half-written file, often valid YAML, was read,
   *       merged and renamed over the file, and the editor's remaining bytes went to the replaced
   *       inode: its edit was lost from the file and the engine. A file that does not settle within
   *       {@link Settle#MAX_ROUNDS} pauses refuses the write ({@link RuleFileChangingException},
   *       {@code 409}). A writer that pauses longer than {@link Settle#TIME} is not told apart from
   *       one that finished.
   *   <li>Save the file between the read and the move: the file (its stamp and its bytes) is
   *       compared with what was read just before the move, and on a difference the merge starts
   *       again, settling first (at most {@value #MAX_WRITE_ATTEMPTS} times, then the write is
   *       refused with {@code 409}). What remains is the instant between that comparison and the
   *       rename, which no file system lets one close.
   *   <li>Point a symbolic link on the file's path elsewhere: the file is written where the path
   *       leads now, its real path, compared before and after the move like its content; if the
   *       link moved, the merge starts again from the file it leads to now. (The file the link led
   *       to before may then hold the write too; it is no longer the rule file.) The links stay.
   *   <li>Delete the file: its rules stay in force (as without write-back), so the write recreates
   *       it from the content whose rules are in force ({@link #accepted}), plus the write, never
   *       from nothing, which would drop every other rule it gave.
   * </ul>
   * Comments and formatting of a YAML file are not kept (the file is written as the binder reads it).
   *
   * @return the bytes written and what they give
   * @throws InvalidRulesException when the merged file would be invalid, or over
   *     {@code InputLimits.MAX_BYTES}; the file is unchanged
   * @throws RuleFileChangingException when the file kept changing; the file is unchanged
   * @throws UncheckedIOException when the file cannot be read or written
   */
  Written writeBack(String resource, Set<RuleKind> kinds, RuleSet given, RuleRegistry engine) {
    try {
      for (int attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
        Path target = target();
        Settle.Stamp settled = settled(target);
        byte[] onDisk = readOrNull(target);
        if (!Settle.stamp(target).equals(settled)) {
          continue; // written again while read: settle again
        }
        byte[] inForceNow = inForce;
        byte[] before = onDisk != null ? onDisk : inForceNow != null ? inForceNow : new byte[0];
        // Judged as it is first, so that its problems are named with its own lines.
        Read current = read(before, engine);
        if (!current.violations().isEmpty()) {
          throw new InvalidRulesException(current.violations());
        }
        Map<String, Object> tree = tree(before);
        merge(tree, resource, kinds, given);
        byte[] after = write(tree);
        if (after.length > InputLimits.MAX_BYTES) {
          throw new InvalidRulesException(List.of(new RuleViolation(name, "would be " + after.length
              + " bytes with this write, over " + InputLimits.MAX_BYTES_TEXT + ", the most a rule file may hold;"
              + " nothing changed")));
        }
        Read read = read(after, engine);
        if (!read.violations().isEmpty()) {
          throw new InvalidRulesException(read.violations());
        }
        Path temp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
          Files.write(temp, after);
          copyPermissions(target, temp);
          Settle.Stamp written = Settle.stamp(temp); // a rename keeps the inode, size and time
          beforeMove.run();
          if (!target.equals(target()) || !Settle.stamp(target).equals(settled)
              || !Arrays.equals(readOrNull(target), onDisk)) {
            continue; // changed since read: merge again into what is there now
          }
          Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
          if (!target.equals(target())) {
            continue; // a link on the path moved in the instant between: merge into where it leads now
          }
          trusted = written;
          inForce = after;
          return new Written(after, read.layer(), written);
        } finally {
          Files.deleteIfExists(temp);
        }
      }
      throw new RuleFileChangingException("the rule file " + path + " changed during each of "
          + MAX_WRITE_ATTEMPTS + " attempts to merge this write into it; nothing changed, try again");
    } catch (IOException ex) {
      throw new UncheckedIOException("Cannot write the rule file " + path + ": " + ex.getMessage(), ex);
    }
  }

  /**
   * Records {@code content} as the file's content whose rules are in force: what a write-back
   * merges into when the file has been deleted. Called by the rule sources after they applied it.
   */
  void accepted(byte[] content) {
    inForce = content;
  }

  /**
   * Records {@code stamp} as that of content read whole (settled) from the file: a write-back finds
   * the file so and merges into it without waiting for it to settle again.
   */
  void trusted(Settle.Stamp stamp) {
    trusted = stamp;
  }

  /** The stamp of {@code target} once settled; refuses the write when it does not settle. */
  private Settle.Stamp settled(Path target) throws IOException {
    Settle.Stamp settled;
    try {
      settled = settle.await(target, trusted);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the rule file " + path + " to settle");
    }
    if (settled == null) {
      throw new RuleFileChangingException("the rule file " + path + " is being written: it changed within each of "
          + Settle.MAX_ROUNDS + " pauses of " + Settle.TIME.toMillis() + " ms; nothing changed, try again once it is"
          + " saved");
    }
    return settled;
  }

  /**
   * Returns where the file's path leads now, every symbolic link followed (the file's own, even
   * when its target is missing, and those of its directories): the file a write-back replaces.
   */
  private Path target() throws IOException {
    Path at = path;
    for (int hops = 0; Files.isSymbolicLink(at); hops++) {
      if (hops == MAX_LINKS) {
        throw new IOException("more than " + MAX_LINKS + " symbolic links lead from " + path);
      }
      at = at.resolveSibling(Files.readSymbolicLink(at));
    }
    Path parent = at.toAbsolutePath().getParent();
    return parent == null ? at : parent.toRealPath().resolve(at.getFileName());
  }

  /** The bytes written back, the layer they give, and the stamp of the file they are. */
  record Written(byte[] content, RuleLayer layer, Settle.Stamp stamp) {
  }

  /** The file's bytes, or null when there is no file. */
  private static byte @Nullable [] readOrNull(Path file) throws IOException {
    try {
      return BoundedFile.read(file);
    } catch (NoSuchFileException missing) {
      return null;
    }
  }

  private static void copyPermissions(Path from, Path to) {
    try {
      if (Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
        Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from));
      }
    } catch (IOException | UnsupportedOperationException ex) {
      // Not a POSIX file system: the temporary file's permissions stay.
    }
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> tree(byte[] content) {
    Object loaded;
    try {
      loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(new String(content, StandardCharsets.UTF_8));
    } catch (YAMLException ex) {
      throw new InvalidRulesException(List.of(new RuleViolation(name, "is not valid " + (json ? "JSON" : "YAML")
          + ", the write is not merged into it: " + ex.getMessage())));
    }
    if (loaded == null) {
      return new LinkedHashMap<>();
    }
    if (!(loaded instanceof Map<?, ?> map)) {
      throw new InvalidRulesException(List.of(new RuleViolation(name, "must be a mapping of flow, degrade, "
          + "param-flow, authority, system and cleared; the write is not merged into it")));
    }
    return new LinkedHashMap<>((Map<String, Object>) map);
  }

  @SuppressWarnings("unchecked")
  private static void merge(Map<String, Object> tree, String resource, Set<RuleKind> kinds, RuleSet given) {
    for (RuleKind kind : RuleLayer.RESOURCE_KINDS) {
      if (!kinds.contains(kind)) {
        continue;
      }
      String key = tree.keySet().stream().filter(k -> RuleFileReader.kind(k) == kind).findFirst().orElse(kind.tag());
      List<Object> list = tree.get(key) instanceof List<?> existing ? new ArrayList<>(existing) : new ArrayList<>();
      list.removeIf(entry -> entry instanceof Map<?, ?> rule && resource.equals(String.valueOf(rule.get("resource"))));
      List<? extends ResourceRule> written = RuleLayer.of(given, kind);
      list.addAll(RuleMaps.of(written));
      if (list.isEmpty()) {
        tree.remove(key);
      } else {
        tree.put(key, list);
      }
      Map<String, Object> cleared = tree.get("cleared") instanceof Map<?, ?> existing
          ? new LinkedHashMap<>((Map<String, Object>) existing) : new LinkedHashMap<>();
      List<Object> clearedKinds = cleared.get(resource) instanceof List<?> existing
          ? new ArrayList<>(existing) : new ArrayList<>();
      clearedKinds.removeIf(k -> RuleFileReader.kind(String.valueOf(k)) == kind);
      if (written.isEmpty()) {
        clearedKinds.add(kind.tag());
      }
      if (clearedKinds.isEmpty()) {
        cleared.remove(resource);
      } else {
        cleared.put(resource, clearedKinds);
      }
      if (cleared.isEmpty()) {
        tree.remove("cleared");
      } else {
        tree.put("cleared", cleared);
      }
    }
  }

  private byte[] write(Map<String, Object> tree) {
    if (json) {
      return RuleFileJson.write(tree);
    }
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setIndent(2);
    options.setIndicatorIndent(2);
    options.setIndentWithIndicator(true);
    String yaml = tree.isEmpty() ? "" : new Yaml(options).dump(tree);
    return ("# Weir rules; endpoint writes are merged in (weir.rules.write-back), comments are not kept\n" + yaml)
        .getBytes(StandardCharsets.UTF_8);
  }
}
