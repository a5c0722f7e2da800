package dev.weir.spring.cluster;

import dev.weir.ClusterStatus;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.RuleSet;
import dev.weir.spring.redis.RedisClusterClient;
import dev.weir.spring.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Instances of an application for lease tests: each its own engine, its own {@link RedisClusterClient}
 * with leases on, and its own Lettuce connection to the test's real {@code redis-server}, as separate
 * processes would have. Closing closes them all (each engine gives back what its leases did not spend).
 */
final class LeasedInstances implements AutoCloseable {

  final List<Weir> engines = new ArrayList<>();
  private final List<RedisClusterClient> clients = new ArrayList<>();
  private final List<LettuceConnectionFactory> factories = new ArrayList<>();

  /** Starts an instance with leases on against {@code redis}; returns its engine once its client connected. */
  Weir start(RedisServer redis, String prefix, ClusterOptions options, RuleSet rules) {
    RedisClusterClient client = client(redis, prefix);
    Weir weir = Weir.builder().cluster(client, options.withLease(true)).rules(rules).build();
    engines.add(weir);
    return weir;
  }

  /** A Redis client with leases on, on a connection of its own, once connected. */
  RedisClusterClient client(RedisServer redis, String prefix) {
    LettuceConnectionFactory factory =
        new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
    factory.afterPropertiesSet();
    factory.start();
    factories.add(factory);
    RedisClusterClient client = new RedisClusterClient(factory, prefix, false, true);
    clients.add(client);
    ClusterFaults.await("the Redis client connects", client::connected);
    return client;
  }

  /** Options with a generous deadline and {@code fallback}. */
  static ClusterOptions options(ClusterFallback fallback, Duration timeout) {
    return new ClusterOptions(timeout, fallback, 5, Duration.ofMillis(200), 256, true);
  }

  static ClusterStatus status(Weir weir) {
    return Objects.requireNonNull(weir.cluster());
  }

  /** One call of {@code resource}; whether it was admitted. Never throws for a refusal. */
  static boolean call(Weir weir, String resource) {
    Entry entry = weir.tryEntry(resource, EntryType.IN, 1);
    if (entry == null) {
      return false;
    }
    entry.close();
    return true;
  }

  /**
   * The most of {@code times} (sorted or not, nanoseconds) that lie in one half-open span
   * {@code [t, t + span)}, over every {@code t}: it is enough to try the spans starting at each time.
   */
  static int mostInAnySpan(long[] times, long span) {
    long[] sorted = times.clone();
    Arrays.sort(sorted);
    int most = 0;
    int end = 0;
    for (int start = 0; start < sorted.length; start++) {
      while (end < sorted.length && sorted[end] - sorted[start] < span) {
        end++;
      }
      most = Math.max(most, end - start);
    }
    return most;
  }

  /** Admission times of one thread, grown as needed. */
  static final class Times {
    private long[] times = new long[1024];
    private int size;

    void add(long time) {
      if (size == times.length) {
        times = Arrays.copyOf(times, size * 2);
      }
      times[size++] = time;
    }

    long[] toArray() {
      return Arrays.copyOf(times, size);
    }

    /** The times in [from, to). */
    int between(long from, long to) {
      int count = 0;
      for (int i = 0; i < size; i++) {
        if (times[i] - from >= 0 && times[i] - to < 0) {
          count++;
        }
      }
      return count;
    }

    static long[] all(List<Times> each) {
      return each.stream().flatMapToLong(t -> Arrays.stream(t.toArray())).toArray();
    }
  }

  /** The calls of EVALSHA and EVAL since the last {@code CONFIG RESETSTAT}: the round trips clients sent. */
  static long scriptCalls(RedisServer redis) {
    String info = redis.command("INFO", "commandstats");
    long calls = 0;
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
        String field = line.substring(line.indexOf("calls=") + 6);
        calls += Long.parseLong(field.substring(0, field.indexOf(',')));
      }
    }
    return calls;
  }

  @Override
  public void close() {
    engines.forEach(Weir::close);
    clients.forEach(RedisClusterClient::close);
    factories.forEach(LettuceConnectionFactory::destroy);
  }
}
