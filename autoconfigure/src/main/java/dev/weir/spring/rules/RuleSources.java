package dev.weir.spring.rules;

import dev.weir.RuleRegistry;
import dev.weir.Weir;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import dev.weir.rule.SystemRule;
import dev.weir.spring.properties.LogText;
import dev.weir.spring.properties.RuleChangeLog;
import dev.weir.spring.properties.RuleLists;
import dev.weir.spring.properties.RuleMaps;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import dev.weir.spring.rules.RuleLayer.Given;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * The rule sources of one engine, and the one place that decides which of them wins. In order,
 * each replacing the rules of a resource and kind given before it: {@code application.yml}, the
 * Sentinel files ({@code weir.rules.sentinel.*}), the rule file ({@code weir.rules.file}), and
 * rules written through the {@code weir} endpoint. A source gives a resource and kind when it has
 * rules of that kind for the resource (or, in the rule file, lists it under {@code cleared}); the
 * rules in force for it are those of the last source that gives it, and none once every source
 * that gave it stopped giving it. A resource and kind no source ever gave keeps whatever the
 * application put in the engine itself. The system rule is one more kind, without a resource.
 *
 * <p>Every change of a source is validated before anything changes: a source whose content is
 * invalid changes nothing; its problems are logged, counted ({@link #failures(String)}) and shown
 * by {@link #status()} until a valid version arrives. A rule file or Sentinel file that is deleted
 * leaves the rules last read from it in force (shown by {@link #status()}); an empty file removes
 * them. Accepted changes are logged at INFO with the source's name: {@code application.yml},
 * {@code sentinel:flow-file}, {@code file:/path/rules.yml}.
 *
 * <p>As a {@link SmartLifecycle}, it watches the files while the application context runs (one
 * daemon thread, {@link FileWatcher}) and re-applies a file when its content changes.
 */
public final class RuleSources implements SmartLifecycle, AutoCloseable {

  /** The name of the {@code weir.*} rules of the application's configuration. */
  public static final String APPLICATION = "application.yml";

  /** The name of rules written through the {@code weir} endpoint (without write-back). */
  public static final String ENDPOINT = "endpoint";

  /** The name of the fleet's rules read from the rules store ({@code weir.rules-store}). */
  public static final String STORE = "store";

  private static final int APPLICATION_RANK = 0;
  private static final int ENDPOINT_RANK = 3;
  private static final int STORE_RANK = 4;

  private static final Log logger = LogFactory.getLog(RuleSources.class);

  private final WeirProperties properties;
  private final RuleChangeLog changeLog;
  private volatile @Nullable Weir weir;
  private final List<Watched> watched;
  private final @Nullable RuleFile ruleFile;
  private final boolean writeBack;
  /** When a watched file's content may be trusted whole: for the watcher and the write-back alike. */
  final Settle settle = new Settle();

  /** Serializes every change of the engine's rules made here: file changes and endpoint writes. */
  private final Object lock = new Object();
  /** Guarded by lock: the layer of each source by name, and their ranks. */
  private final Map<String, RuleLayer> layers = new HashMap<>();
  private final Map<String, Integer> ranks = new HashMap<>();
  /** Guarded by lock: every resource and kind some source has given; it is theirs from then on. */
  private final Set<Given> owned = new HashSet<>();
  private boolean systemOwned;

  private final Map<String, String> problems = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> failures = new LinkedHashMap<>();
  private @Nullable FileWatcher watcher;
  private volatile boolean running;

  /**
   * Creates the sources configured by {@code weir.rules.*}; nothing is read before {@link #attach}.
   *
   * @param properties the configuration, already validated
   */
  public RuleSources(WeirProperties properties) {
    this(properties, new RuleChangeLog(null));
  }

  /**
   * Creates the sources configured by {@code weir.rules.*}, recording accepted changes in
   * {@code changeLog}; nothing is read before {@link #attach}.
   *
   * @param properties the configuration, already validated
   * @param changeLog where every accepted change of a file or of {@code application.yml} is logged
   *     (and audited)
   */
  public RuleSources(WeirProperties properties, RuleChangeLog changeLog) {
    this.changeLog = changeLog;
    WeirProperties.Rules config = properties.getRules();
    List<RuleSource> sources = new ArrayList<>(SentinelFile.configured(config.getSentinel(), properties.isShadow()));
    this.ruleFile = config.getFile() == null ? null : new RuleFile(config.getFile(), properties.isShadow(), settle);
    if (ruleFile != null) {
      sources.add(ruleFile);
    }
    this.properties = properties;
    this.watched = sources.stream().map(Watched::new).toList();
    this.writeBack = config.isWriteBack();
    failures.put(APPLICATION, new AtomicLong());
    for (RuleSource source : sources) {
      failures.put(source.name(), new AtomicLong());
    }
    failures.put(ENDPOINT, new AtomicLong());
    if (properties.getRulesStore().isEnabled()) {
      failures.put(STORE, new AtomicLong());
    }
    ranks.put(APPLICATION, APPLICATION_RANK);
    ranks.put(ENDPOINT, ENDPOINT_RANK);
    ranks.put(STORE, STORE_RANK);
    sources.forEach(source -> ranks.put(source.name(), source.rank()));
  }

  /**
   * Loads the rules of every source into {@code weir}, in order: the {@code weir.*} rules (already
   * validated), the Sentinel files, then the rule file; once.
   *
   * @throws InvalidRulesException with every problem of every file, each named with its source,
   *     file, line and field; a missing file is such a problem (unless write-back will create it)
   */
  public void attach(Weir weir) {
    List<RuleViolation> violations = new ArrayList<>();
    synchronized (lock) {
      if (this.weir != null) {
        throw new IllegalStateException("already attached to an engine");
      }
      this.weir = weir;
      RuleLists lists = RuleLists.of(properties);
      apply(APPLICATION, new RuleLayer(lists.toRuleSet(properties.isShadow()), Set.of(),
          properties.getSystem().toRule(properties.isShadow())), false);
      for (Watched source : watched) {
        violations.addAll(loadAtStart(source));
      }
    }
    if (!violations.isEmpty()) {
      throw new InvalidRulesException(violations);
    }
  }

  /** Whether {@link #attach} loaded the rules into an engine. */
  public boolean isAttached() {
    return weir != null;
  }

  private Weir engine() {
    Weir current = weir;
    if (current == null) {
      throw new IllegalStateException("RuleSources.attach(Weir) was not called");
    }
    return current;
  }

  private List<RuleViolation> loadAtStart(Watched source) {
    byte[] content;
    try {
      source.stamp = Settle.stamp(source.source.path());
      content = BoundedFile.read(source.source.path());
    } catch (BoundedFile.TooLargeException tooLarge) {
      return List.of(new RuleViolation(source.source.name(), tooLarge.getMessage()));
    } catch (NoSuchFileException missing) {
      if (source.source == ruleFile && writeBack) {
        source.last = new byte[0];
        return List.of();
      }
      return List.of(new RuleViolation(source.source.name(), "the file " + source.source.path()
          + " does not exist" + (source.source == ruleFile ? " (with weir.rules.write-back it is created by the first"
          + " endpoint write)" : "")));
    } catch (IOException ex) {
      return List.of(new RuleViolation(source.source.name(), "cannot read " + source.source.path() + ": " + ex));
    }
    RuleSource.Read read;
    try {
      read = source.source.read(content, engine().rules());
    } catch (RuntimeException | StackOverflowError failure) {
      return List.of(couldNotBeChecked(source, failure));
    }
    if (!read.violations().isEmpty()) {
      return read.violations();
    }
    source.last = content;
    apply(source.source.name(), read.layer(), false);
    if (source.source == ruleFile) {
      ruleFile.accepted(content);
      trustAtStart(source);
    }
    return List.of();
  }

  /**
   * Trusts the rule file as read at start when it is still as it was stamped before that read:
   * unchanged since, for the whole start, so the first write-back need not wait for it to settle.
   */
  private void trustAtStart(Watched source) {
    try {
      Settle.Stamp now = Settle.stamp(source.source.path());
      if (now.equals(source.stamp) && ruleFile != null) {
        ruleFile.trusted(now);
      }
    } catch (IOException ex) {
      // Not trusted: the first write-back waits for the file to settle.
    }
  }

  private static RuleViolation couldNotBeChecked(Watched source, Throwable failure) {
    return new RuleViolation(source.source.name(),
        "could not be checked: " + WeirPropertiesValidator.describe(failure));
  }

  /**
   * Writes the rules of {@code resource} of the given kinds, as the {@code weir} endpoint does: the
   * kinds given are replaced by the rules of that kind in {@code given} (removed when it has none),
   * other kinds and resources are kept. Without write-back they are the source {@value #ENDPOINT},
   * above every other and kept in memory only; with write-back they are merged into the rule file
   * (see {@link RuleFile#writeBack}) and are from then on what that file gives.
   *
   * @return the rules of the resource in force before and after the write, read in the same step
   *     of the engine as the write
   * @throws InvalidRulesException when the rules, or the rule file they are merged into, are
   *     invalid; nothing changed then
   * @throws RuleFileChangingException when the rule file kept changing under the write-back; nothing
   *     changed then
   * @throws UncheckedIOException when the rule file cannot be written; nothing changed then
   */
  public RuleRegistry.Change write(String resource, Set<RuleKind> kinds, RuleSet given) {
    List<RuleViolation> foreign = new ArrayList<>();
    for (RuleKind kind : RuleLayer.RESOURCE_KINDS) {
      List<? extends ResourceRule> rules = RuleLayer.of(given, kind);
      for (int i = 0; i < rules.size(); i++) {
        if (!rules.get(i).resource().equals(resource)) {
          foreign.add(new RuleViolation(kind.tag() + "[" + i + "].resource", "must be '" + resource + "' here, was '"
              + rules.get(i).resource() + "'"));
        }
      }
    }
    if (!foreign.isEmpty()) {
      throw new InvalidRulesException(foreign);
    }
    synchronized (lock) {
      Map<String, RuleRegistry.Change> changes;
      if (writeBack && ruleFile != null) {
        RuleFile.Written written = ruleFile.writeBack(resource, kinds, given, engine().rules());
        Watched source = watched(ruleFile);
        source.last = written.content();
        source.stamp = written.stamp();
        source.deleted = false;
        problems.remove(ruleFile.name());
        changes = apply(ruleFile.name(), written.layer(), true);
      } else {
        RuleLayer current = layers.getOrDefault(ENDPOINT, RuleLayer.EMPTY);
        changes = apply(ENDPOINT, current.with(resource, kinds, given), true);
      }
      RuleRegistry.Change change = changes.get(resource);
      if (change != null) {
        return change;
      }
      RuleSet unchanged = engine().rules().rules(resource); // under the lock: no source changed it since
      return new RuleRegistry.Change(unchanged, unchanged);
    }
  }

  /**
   * Makes the rules of the store's current version the source {@value #STORE}, the last of all: for
   * each resource, the kinds it gives replace what every other source gives (an empty list clears
   * that kind); resources and kinds it no longer gives fall back to the sources before it. Checked
   * whole before anything changes, and put in force in one step of the engine.
   *
   * @param kinds the kinds given, by resource
   * @param rules the rules given, by resource (each naming its resource)
   * @param recordedAs the name changes are recorded under ({@code store v12})
   * @throws InvalidRulesException when the engine refuses the rules; nothing changed then
   */
  public void applyStore(Map<String, Set<RuleKind>> kinds, Map<String, RuleSet> rules, String recordedAs) {
    RuleLayer layer = RuleLayer.EMPTY;
    for (Map.Entry<String, Set<RuleKind>> entry : kinds.entrySet()) {
      layer = layer.with(entry.getKey(), entry.getValue(), rules.getOrDefault(entry.getKey(), RuleSet.empty()));
    }
    synchronized (lock) {
      apply(STORE, layer, false, recordedAs); // the caller reports a refusal (once per version)
      problems.remove(STORE);
    }
  }

  /**
   * Shows {@code problem} as what is wrong with the source {@value #STORE} now (the health details),
   * or clears it when null; counted as a failure when not null.
   */
  public void storeProblem(@Nullable String problem) {
    if (problem == null) {
      problems.remove(STORE);
    } else {
      problems.put(STORE, problem);
      AtomicLong count = failures.get(STORE);
      if (count != null) {
        count.incrementAndGet();
      }
    }
  }

  /** The source name under which a refreshed configuration's changes are recorded. */
  public static final String REFRESH = "refresh";

  /**
   * Re-applies the {@code weir.*} rules of a refreshed configuration (Spring Cloud's
   * {@code EnvironmentChangeEvent}) as the source {@value #APPLICATION}: validated first, with the
   * messages of the start and {@code bindingViolations} (values that could not be bound); when
   * invalid nothing changes, and the problems are logged, counted and shown by {@link #status()}
   * under {@value #APPLICATION} until a valid configuration arrives. Only the rules are
   * re-applied; other settings ({@code max-resources}, {@code weir.cluster.*}, ...) keep the values
   * the engine was built with. Changes are recorded under {@value #REFRESH}.
   *
   * @return whether the rules were accepted
   */
  public boolean refreshApplication(WeirProperties fresh, List<RuleViolation> bindingViolations) {
    synchronized (lock) {
      List<RuleViolation> violations = new ArrayList<>(bindingViolations);
      if (violations.isEmpty()) {
        violations.addAll(WeirPropertiesValidator.validate(fresh, engine().rules(), engine().cluster() != null));
      }
      if (violations.isEmpty()) {
        try {
          RuleLists lists = RuleLists.of(fresh);
          apply(APPLICATION, new RuleLayer(lists.toRuleSet(fresh.isShadow()), Set.of(),
              fresh.getSystem().toRule(fresh.isShadow())), false, REFRESH);
          problems.remove(APPLICATION);
          return true;
        } catch (InvalidRulesException ex) {
          violations.addAll(ex.violations());
        }
      }
      refuse(APPLICATION, violations);
      return false;
    }
  }

  /** Whether endpoint writes are saved to the rule file. */
  public boolean writesBack() {
    return writeBack && ruleFile != null;
  }

  /**
   * Returns every source by name, in order, with {@code ok} or what is wrong with it now: the
   * problems of its last, refused content, or that its file was deleted.
   */
  public Map<String, String> status() {
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : sourceNames()) {
      out.put(name, problems.getOrDefault(name, "ok"));
    }
    return out;
  }

  /** Returns the names of the sources, in order: {@code application.yml}, Sentinel files, the rule file, {@code endpoint}. */
  public List<String> sourceNames() {
    return failures.keySet().stream().sorted(Comparator.comparingInt(name -> ranks.getOrDefault(name, 0))).toList();
  }

  /** Returns how many times content of the source {@code name} was refused since the start. */
  public long failures(String name) {
    AtomicLong count = failures.get(name);
    return count == null ? 0 : count.get();
  }

  /**
   * Re-reads every watched file whose content changed since it was last read, and applies it; what
   * the watcher runs after file events.
   */
  void check() {
    for (Watched source : watched) {
      // Settled outside the lock: a write waits for no file it does not write. A file still
      // changing is left as it is: its last change raises an event of its own, and the check after
      // that one finds it settled.
      Settle.@Nullable Stamp stamp;
      try {
        stamp = settle.await(source.source.path(), source.stamp);
        if (stamp == null) {
          continue; // still being written
        }
      } catch (IOException unreadable) {
        stamp = null; // the read reports it
      } catch (InterruptedException closing) {
        Thread.currentThread().interrupt();
        return;
      }
      synchronized (lock) {
        try {
          check(source, stamp);
        } catch (Throwable failure) {
          failed(source, failure);
        }
      }
    }
  }

  /**
   * What the watcher does when checking a file threw instead of accepting or refusing it, whatever
   * it threw (the file is untrusted input, and whatever reads it, a parser or a key compiler an
   * application replaced, may fail on it in ways nobody listed): the file is refused as if invalid,
   * with the failure as its problem in the log (at ERROR, with the stack trace), the failure count
   * and the health details, and the next version of it is read as usual. Its content is remembered
   * as read, so the same bytes are not tried again on every event.
   *
   * <p>That includes errors of the virtual machine. A {@code StackOverflowError} has unwound its
   * stack by now. After an {@code OutOfMemoryError} the memory the check held is garbage again;
   * if the application as a whole is out of memory, a watcher that goes on waiting for events costs
   * nothing, while one that ended would leave every later edit ignored, silently, until a restart.
   */
  private void failed(Watched source, Throwable failure) {
    String name = source.source.name();
    try {
      logger.error("Checking the rules of " + name + " failed; they are refused and the rules in force stay as they"
          + " were", failure);
      refuse(name, List.of(couldNotBeChecked(source, failure)));
    } catch (Throwable alsoFailed) {
      problems.put(name, "could not be checked: " + failure.getClass().getName());
    }
  }

  /**
   * Reads the file of {@code source}, settled with {@code stamp} (null when it could not be
   * stamped), and applies it if its bytes changed. A file whose stamp changed since it settled is
   * left as it is: it is being written again, and that write's event brings another check.
   */
  private void check(Watched source, Settle.@Nullable Stamp stamp) {
    String name = source.source.name();
    byte[] content;
    try {
      content = BoundedFile.read(source.source.path());
      if (stamp != null && !Settle.stamp(source.source.path()).equals(stamp)) {
        return;
      }
    } catch (BoundedFile.TooLargeException tooLarge) {
      source.stamp = stamp;
      if (!source.oversized) { // refused once, not on every event while it stays so
        source.oversized = true;
        source.last = null;
        refuse(name, List.of(new RuleViolation(name, tooLarge.getMessage())));
      }
      return;
    } catch (NoSuchFileException missing) {
      source.oversized = false;
      source.stamp = stamp;
      if (!source.deleted) {
        source.deleted = true;
        String problem = "the file " + source.source.path() + " was deleted; the rules last read from it stay in force";
        problems.put(name, problem);
        logger.warn("Rules from " + name + ": " + problem);
      }
      return;
    } catch (IOException ex) {
      refuse(name, List.of(new RuleViolation(name, "cannot read " + source.source.path() + ": " + ex)));
      return;
    }
    source.oversized = false;
    source.stamp = stamp;
    if (stamp != null && source.source == ruleFile) {
      ruleFile.trusted(stamp); // read whole: a write-back merges into it without settling again
    }
    if (!source.deleted && Arrays.equals(content, source.last)) {
      return;
    }
    source.deleted = false;
    source.last = content;
    RuleSource.Read read = source.source.read(content, engine().rules());
    if (!read.violations().isEmpty()) {
      refuse(name, read.violations());
      return;
    }
    try {
      apply(name, read.layer(), false);
      problems.remove(name);
      if (source.source == ruleFile) {
        ruleFile.accepted(content);
      }
    } catch (InvalidRulesException ex) {
      refuse(name, ex.violations());
    }
  }

  private void refuse(String name, List<RuleViolation> violations) {
    String problem = "invalid, nothing changed: " + violations.stream().map(RuleViolation::toString)
        .collect(Collectors.joining("; "));
    problems.put(name, problem);
    failures.get(name).incrementAndGet();
    logger.warn("Rules from " + LogText.of(name) + " refused, the rules in force stay as they were:\n\t"
        + violations.stream().map(LogText::of).collect(Collectors.joining("\n\t")));
  }

  /**
   * Makes {@code layer} the layer of source {@code name} and brings the engine in line: each
   * resource that layer gives or gave gets, per kind, the rules of the highest source giving it.
   * Everything is computed and validated first; then each resource is replaced atomically (the
   * engine keeps the state of rules left equal), one resource after the other. Caller holds lock.
   */
  private Map<String, RuleRegistry.Change> apply(String name, RuleLayer layer, boolean fromEndpoint) {
    return apply(name, layer, fromEndpoint, name);
  }

  /** As {@link #apply(String, RuleLayer, boolean)}, recording the changes under {@code recordedAs}. */
  private Map<String, RuleRegistry.Change> apply(String name, RuleLayer layer, boolean fromEndpoint, String recordedAs) {
    RuleLayer old = layers.getOrDefault(name, RuleLayer.EMPTY);
    Map<String, RuleLayer> next = new HashMap<>(layers);
    next.put(name, layer);
    List<RuleLayer> ordered = next.entrySet().stream()
        .sorted(Comparator.comparingInt((Map.Entry<String, RuleLayer> e) -> ranks.getOrDefault(e.getKey(), 0))
            .reversed())
        .map(Map.Entry::getValue).toList();
    Set<Given> nowOwned = new HashSet<>(owned);
    nowOwned.addAll(layer.given());
    Set<String> touched = new LinkedHashSet<>();
    old.given().forEach(given -> touched.add(given.resource()));
    layer.given().forEach(given -> touched.add(given.resource()));

    boolean systemGiven = layer.system() != null || old.system() != null;
    SystemRule system = null;
    if (systemGiven || systemOwned) {
      system = ordered.stream().map(RuleLayer::system).filter(s -> s != null).findFirst().orElse(SystemRule.NONE);
      if (system.equals(engine().rules().systemRule())) {
        system = null;
      } else {
        List<RuleViolation> invalid = engine().rules().validate(system);
        if (!invalid.isEmpty()) {
          throw new InvalidRulesException(invalid.stream().map(v -> v.under("system.")).toList());
        }
      }
    }
    // One step of the engine: each resource's kinds that some source gives are merged into the
    // rules in force as they are at that moment, under the engine's own lock, so a change made
    // meanwhile by code to a kind no source gives is read and kept, never overwritten.
    Map<String, RuleRegistry.Change> changes = engine().rules().update(touched, (resource, current) -> {
      RuleSet rules = current;
      for (RuleKind kind : RuleLayer.RESOURCE_KINDS) {
        Given given = new Given(resource, kind);
        if (nowOwned.contains(given)) {
          rules = RuleLayer.withKind(rules, kind, top(ordered, given));
        }
      }
      return rules;
    });
    boolean changed = false;
    if (!fromEndpoint) {
      for (Map.Entry<String, RuleRegistry.Change> entry : changes.entrySet()) {
        changed |= logAccepted(recordedAs, entry.getKey(), entry.getValue().before(), entry.getValue().after());
      }
    }
    if (system != null) {
      if (!fromEndpoint) {
        changeLog.changed(recordedAs, null, "system", List.of(RuleKind.SYSTEM),
            "system " + RuleMaps.of(engine().rules().systemRule()) + " -> " + RuleMaps.of(system));
        changed = true;
      }
      engine().rules().replaceSystemRule(system);
    }
    layers.put(name, layer);
    owned.addAll(layer.given());
    systemOwned |= systemGiven;
    if (!fromEndpoint && !changed && logger.isInfoEnabled()) {
      logger.info("Rules from " + recordedAs + " accepted: no change in force");
    }
    return changes;
  }

  private static List<? extends ResourceRule> top(List<RuleLayer> ordered, Given given) {
    for (RuleLayer layer : ordered) {
      if (layer.gives(given)) {
        return layer.rules(given);
      }
    }
    return List.of();
  }

  /**
   * Records the accepted change of {@code resource} by a source in the {@link RuleChangeLog} (log
   * line and audit event), the kinds that changed with their rules before and after; returns
   * whether any kind changed. Changes made through the endpoint are recorded by the endpoint
   * itself, with the principal.
   */
  private boolean logAccepted(String source, String resource, RuleSet before, RuleSet after) {
    List<RuleKind> kinds = new ArrayList<>();
    List<String> details = new ArrayList<>();
    for (RuleKind kind : RuleLayer.RESOURCE_KINDS) {
      List<? extends ResourceRule> was = RuleLayer.of(before, kind);
      List<? extends ResourceRule> is = RuleLayer.of(after, kind);
      if (!was.equals(is)) {
        kinds.add(kind);
        details.add(kind.tag() + " " + RuleMaps.of(was) + " -> " + RuleMaps.of(is));
      }
    }
    if (!kinds.isEmpty()) {
      changeLog.changed(source, null, resource, kinds, String.join("; ", details));
    }
    return !kinds.isEmpty();
  }

  private Watched watched(RuleSource source) {
    return watched.stream().filter(w -> w.source == source).findFirst().orElseThrow();
  }

  /** Starts watching the files, if any; a change made since they were loaded is applied at once. */
  @Override
  public void start() {
    if (watched.isEmpty() || running || weir == null) {
      running = true;
      return;
    }
    List<Path> files = watched.stream().map(source -> source.source.path()).toList();
    try {
      watcher = new FileWatcher(files, this::check);
    } catch (IOException ex) {
      throw new UncheckedIOException("Cannot watch the rule files " + files, ex);
    }
    running = true;
    check();
  }

  /** Stops watching; the thread has ended when this returns (or after five seconds). */
  @Override
  public void stop() {
    FileWatcher current = watcher;
    watcher = null;
    if (current != null) {
      current.close();
    }
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Stops watching, as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }

  /** The rule file, if configured; for tests. */
  @Nullable RuleFile ruleFile() {
    return ruleFile;
  }

  /** Whether the watcher thread runs; for tests. */
  boolean watching() {
    FileWatcher current = watcher;
    return current != null && current.isAlive();
  }

  /** A watched file and what was last read from it. Fields guarded by lock. */
  private static final class Watched {
    final RuleSource source;
    byte @Nullable [] last;
    boolean deleted;
    /** Whether the file was last seen larger than the limit (refused without being read). */
    boolean oversized;
    /** The stamp of the file when {@link #last} was read (read without the lock by the settle). */
    volatile Settle.@Nullable Stamp stamp;

    Watched(RuleSource source) {
      this.source = source;
    }
  }
}
