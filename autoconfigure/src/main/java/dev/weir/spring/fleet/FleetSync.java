package dev.weir.spring.fleet;

import dev.weir.spring.properties.LogText;
import dev.weir.spring.rules.RuleSources;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * One instance's following of the rules store: it applies the store's current version, and
 * announces what it applies in a heartbeat.
 *
 * <p>One daemon thread, {@code weir-rules-store}, does everything that talks to Redis for the
 * instance: every {@link #POLL} it reads the version (one bounded {@code GETRANGE}), and when it
 * differs from the version applied it reads that version's document and hands it to the
 * {@link Applier}, which checks it as an endpoint write is checked and puts it in force in one
 * step; every {@link #HEARTBEAT} it writes the heartbeat. A message on the store's channel only
 * wakes the thread early ("look now"): pub/sub loses messages while disconnected, so the poll is
 * what guarantees that a new version is applied within {@code POLL} plus one read once Redis
 * answers. A flood of messages costs at most one version read per {@link #MIN_GAP}: a message
 * sets one permit, whatever it says, and is never queued.
 *
 * <p>A version the applier refuses is refused on this instance: it keeps the version it had, the
 * error is in its heartbeat, its health and the rule sources' status, and it is logged once, not
 * on every poll (the same version is not read again; a newer one is). The store's version may go
 * back (a failover that lost the newest writes, a hand-made change): the instance follows it, as
 * the store is the fleet's truth, and says so in the log. An empty store (a {@code FLUSHALL}, a
 * new Redis) changes nothing here: the instance keeps its rules and reports {@code store empty}.
 * While Redis is unreachable nothing changes either, and the time since when is reported.
 *
 * <p>Nothing here runs on a thread of the application or of the engine: a Redis that hangs
 * stalls this thread alone, for at most {@link RulesStore#TIMEOUT} per command.
 */
public final class FleetSync implements SmartLifecycle {

  /** How often the version is read. */
  public static final Duration POLL = Duration.ofMillis(250);

  /** How often the heartbeat is written; it lives {@link RulesStore#INSTANCE_TTL}. */
  public static final Duration HEARTBEAT = Duration.ofSeconds(1);

  /** The least time between two reads of the version, however many messages arrive. */
  static final Duration MIN_GAP = Duration.ofMillis(20);

  /** How often a pub/sub subscription that is not listening is started again. */
  private static final Duration RESUBSCRIBE = Duration.ofSeconds(5);

  private static final Log logger = LogFactory.getLog(FleetSync.class);

  /** Checks a version's document and puts it in force, or refuses it. */
  @FunctionalInterface
  public interface Applier {

    /**
     * Checks {@code document} as an endpoint write is checked and puts it in force in one step.
     *
     * @param version the version
     * @param document its JSON, at most {@code InputLimits.MAX_BYTES} and one byte (more: too large)
     * @throws Refused when it cannot be applied; nothing changed then
     */
    void apply(long version, byte[] document);
  }

  /** A version cannot be applied; its message says why. */
  public static final class Refused extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the refusal.
     *
     * @param reason why, naming the field when there is one
     */
    public Refused(String reason) {
      super(reason, null, false, false);
    }
  }

  private final RulesStore store;
  private final Applier applier;
  private final @Nullable RuleSources sources;
  private final @Nullable RedisConnectionFactory pubSub;
  private final String id;
  private final String host;
  private final Semaphore wake = new Semaphore(0);
  private final AtomicLong messages = new AtomicLong();
  private final Object lifecycle = new Object();
  private @Nullable Thread thread;
  private @Nullable RedisMessageListenerContainer container;
  private volatile boolean running;

  private volatile long applied = -1;
  private volatile byte @Nullable [] appliedDocument;
  private volatile long refused = -1;
  private volatile @Nullable String error;
  private volatile boolean empty;
  private volatile boolean reachable;
  private volatile @Nullable Instant unreachableSince;
  private volatile @Nullable String unreachableReason;
  private volatile long highestSeen;
  private volatile long lastVersionSeen = -1;
  private volatile @Nullable String garbage;
  private long lastHeartbeat; // sync thread only
  private boolean beatNow = true; // sync thread only
  private long lastSubscribe; // sync thread only

  /**
   * Creates the follower; it starts with the application context.
   *
   * @param store the store
   * @param applier checks and applies a version
   * @param sources the rule sources, whose status shows a refused version; null to leave them out
   * @param pubSub the connection factory to subscribe to the store's channel with; null to poll only
   */
  public FleetSync(RulesStore store, Applier applier, @Nullable RuleSources sources,
      @Nullable RedisConnectionFactory pubSub) {
    this.store = store;
    this.applier = applier;
    this.sources = sources;
    this.pubSub = pubSub;
    this.host = hostName();
    this.id = host + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** This instance's id in the store. */
  public String id() {
    return id;
  }

  /** The version this instance applies; -1 before it applied one. */
  public long appliedVersion() {
    return applied;
  }

  /** The document of the version applied, as read; null before it applied one. */
  public byte @Nullable [] appliedDocument() {
    return appliedDocument;
  }

  /** Why the last version read was refused here; null when it was applied. */
  public @Nullable String error() {
    return error;
  }

  /** Whether Redis answered the last read of the version with an empty store. */
  public boolean storeEmpty() {
    return empty;
  }

  /** Whether Redis answered the last read of the version. */
  public boolean reachable() {
    return reachable;
  }

  /** Since when Redis has not answered; null while it answers. */
  public @Nullable Instant unreachableSince() {
    return unreachableSince;
  }

  /** Why Redis did not answer the last time; null while it answers. */
  public @Nullable String unreachableReason() {
    return unreachableReason;
  }

  /** What the version key held when it held no version; null when it holds one or none. */
  public @Nullable String garbage() {
    return garbage;
  }

  /** The highest version this instance saw in the store or applied: writes are numbered above it. */
  public long highestKnown() {
    return Math.max(highestSeen, applied);
  }

  /** How many messages arrived on the store's channel since start (each only wakes the thread). */
  public long messages() {
    return messages.get();
  }

  /** Wakes the thread to read the version now (a message on the channel, a write made here). */
  public void lookNow() {
    if (wake.availablePermits() == 0) {
      wake.release();
    }
  }

  @Override
  public void start() {
    synchronized (lifecycle) {
      if (running) {
        return;
      }
      running = true;
      Thread started = new Thread(this::run, "weir-rules-store");
      started.setDaemon(true);
      thread = started;
      started.start();
    }
  }

  @Override
  public void stop() {
    Thread stopping;
    synchronized (lifecycle) {
      if (!running) {
        return;
      }
      running = false;
      stopping = thread;
      thread = null;
    }
    if (stopping != null) {
      stopping.interrupt();
      try {
        stopping.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    RedisMessageListenerContainer listening = container;
    container = null;
    if (listening != null) {
      try {
        listening.destroy();
      } catch (Exception e) {
        // closing anyway
      }
    }
    store.close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** After the rule sources (which start at the default phase) and before the web server. */
  @Override
  public int getPhase() {
    return SmartLifecycle.DEFAULT_PHASE - 1024;
  }

  private void run() {
    while (running) {
      try {
        cycle();
      } catch (Throwable failure) {
        // Whatever failed (untrusted input reaching a parser, a bug), the thread goes on: a
        // follower that ended would leave every later version unapplied, silently.
        logger.error("The rules store's follower failed; it goes on with the next poll", failure);
      }
      try {
        Thread.sleep(MIN_GAP.toMillis());
        if (wake.tryAcquire(POLL.toMillis() - MIN_GAP.toMillis(), TimeUnit.MILLISECONDS)) {
          wake.drainPermits();
        }
      } catch (InterruptedException e) {
        if (!running) {
          return;
        }
      }
    }
  }

  /** One poll: connect if needed, follow the version, beat, keep the subscription. */
  void cycle() {
    try {
      store.connectIfNeeded();
      long version = store.version();
      answered();
      follow(version);
    } catch (RedisUnreachable e) {
      unreachable(e.getMessage());
    } catch (RulesStore.Garbage e) {
      answered();
      if (!String.valueOf(e.getMessage()).equals(garbage)) {
        garbage = e.getMessage();
        logger.warn("The rules store holds no valid version (" + LogText.of(String.valueOf(e.getMessage()))
            + "); this instance keeps the rules of version " + applied);
      }
    }
    long now = System.nanoTime();
    if (reachable && (beatNow || now - lastHeartbeat >= HEARTBEAT.toNanos())) {
      beatNow = false;
      lastHeartbeat = now;
      try {
        store.heartbeat(id, host, applied, state());
      } catch (RedisUnreachable | RulesStore.Garbage e) {
        // the next poll reports it
      }
    }
    if (pubSub != null && now - lastSubscribe >= RESUBSCRIBE.toNanos()) {
      lastSubscribe = now;
      subscribe();
    }
  }

  /** What the heartbeat says besides the version: the refusal, else the store's state; '' for nothing. */
  String state() {
    String refusal = error;
    if (refusal != null) {
      return refusal;
    }
    if (empty) {
      return applied < 0 ? "store empty" : "store empty: keeps the rules of version " + applied;
    }
    String bad = garbage;
    return bad != null ? bad : "";
  }

  private void follow(long version) {
    garbage = null;
    if (version == 0) {
      if (!empty) {
        empty = true;
        if (applied < 0) {
          logger.info("The rules store is empty; this instance runs on its local rule sources until a first write");
        } else {
          logger.warn("The rules store is empty (flushed, or a new Redis); this instance keeps the rules of version "
              + applied + ", and the next write starts the store again from them");
        }
      }
      return;
    }
    empty = false;
    highestSeen = Math.max(highestSeen, version);
    long previous = lastVersionSeen;
    lastVersionSeen = version;
    if (version == applied || version == refused) {
      return;
    }
    if (version < applied && previous != version) {
      logger.warn("The rules store's version went back from " + applied + " to " + version
          + " (a failover that lost writes, or a change by hand); this instance follows the store");
    }
    byte[] document = store.document(version);
    if (document == null) {
      refuse(version, "version " + version + " has no document in the store");
      return;
    }
    try {
      applier.apply(version, document);
    } catch (Refused refusal) {
      refuse(version, refusal.getMessage());
      return;
    } catch (RuntimeException | StackOverflowError failure) {
      refuse(version, "could not be checked: " + failure);
      return;
    }
    applied = version;
    appliedDocument = document;
    refused = -1;
    error = null;
    beatNow = true; // announce the new version with this cycle's heartbeat, not up to a second later
    if (sources != null) {
      sources.storeProblem(null);
    }
    if (logger.isInfoEnabled()) {
      logger.info("Rules of the store's version " + version + " applied");
    }
  }

  private void refuse(long version, @Nullable String reason) {
    refused = version;
    beatNow = true; // announce the refusal with this cycle's heartbeat
    String problem = "version " + version + " refused, keeps version " + applied + ": " + reason;
    error = problem;
    if (sources != null) {
      sources.storeProblem(problem);
    }
    logger.warn("The rules store's " + LogText.of(problem));
  }

  private void answered() {
    if (!reachable) {
      if (unreachableSince != null) {
        logger.info("The rules store answers again (unreachable since " + unreachableSince + ")");
      }
      reachable = true;
      unreachableSince = null;
      unreachableReason = null;
    }
  }

  private void unreachable(@Nullable String reason) {
    unreachableReason = reason;
    if (reachable || unreachableSince == null) {
      reachable = false;
      unreachableSince = Instant.now();
      logger.warn("The rules store is unreachable (" + LogText.of(String.valueOf(reason))
          + "); this instance keeps the rules of version " + applied + " and catches up when Redis answers");
    }
  }

  private void subscribe() {
    RedisMessageListenerContainer listening = container;
    if (listening != null && listening.isRunning() && listening.isListening()) {
      return;
    }
    try {
      if (listening != null) {
        listening.destroy();
      }
      RedisMessageListenerContainer fresh = new RedisMessageListenerContainer();
      fresh.setConnectionFactory(pubSub);
      // Run on the thread that received the message: the listener only sets a permit, and a flood
      // of messages must not become a flood of threads or of queued tasks.
      fresh.setTaskExecutor(new SyncTaskExecutor());
      fresh.addMessageListener((message, pattern) -> {
        messages.incrementAndGet();
        lookNow();
      }, new ChannelTopic(store.channel()));
      fresh.afterPropertiesSet();
      container = fresh;
      fresh.start();
    } catch (Exception e) {
      // The poll covers what pub/sub misses; subscribing is tried again later.
    }
  }

  private static String hostName() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env.length() > 100 ? env.substring(0, 100) : env;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "unknown";
    }
  }
}
