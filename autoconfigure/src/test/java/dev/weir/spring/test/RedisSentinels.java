package dev.weir.spring.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * A Redis Sentinel deployment owned by a test: one master and one replica ({@link RedisServer}s)
 * and three {@code redis-sentinel} processes on free loopback ports, each with its own config file
 * in a temporary folder, monitoring the master as {@value #MASTER_NAME} with a quorum of 2 and
 * {@code down-after-milliseconds} {@value #DOWN_AFTER_MILLIS}. {@link #start()} returns once the
 * replica is in sync and every sentinel knows the replica and the two other sentinels, so a
 * failover can begin as soon as the master dies. {@link #close()} kills every process; a JVM
 * shutdown hook does so too should a test run end without it.
 *
 * <p>Like {@link RedisServer#start()}: skipped when {@code redis-server} or {@code redis-sentinel}
 * is not installed, failed instead when the environment variable {@code CI} is {@code true}.
 */
public final class RedisSentinels implements AutoCloseable {

  /** The name the sentinels monitor the master by ({@code spring.data.redis.sentinel.master}). */
  public static final String MASTER_NAME = "weir";

  static final int DOWN_AFTER_MILLIS = 1000;
  private static final Duration READY = Duration.ofSeconds(30);

  private final List<RedisServer> servers = new ArrayList<>();
  private final List<Process> sentinels = new ArrayList<>();
  private final List<Integer> sentinelPorts = new ArrayList<>();
  private final Path dir;
  private final Thread shutdownHook = new Thread(this::killSentinels, "redis-sentinels-shutdown");

  private RedisSentinels(Path dir) {
    this.dir = dir;
  }

  /** Starts the deployment and waits until it can fail over. */
  public static RedisSentinels start() {
    assumeSentinelAvailable();
    Path dir;
    try {
      dir = Files.createTempDirectory("weir-sentinels");
      Files.createDirectories(dir.resolve("master"));
      Files.createDirectories(dir.resolve("replica"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // Replication writes an RDB file on each side: into folders of their own in the temporary
    // folder, not into the working directory.
    RedisServer master = RedisServer.start(List.of("--dir", dir.resolve("master").toString()));
    RedisSentinels deployment = new RedisSentinels(dir);
    deployment.servers.add(master);
    Runtime.getRuntime().addShutdownHook(deployment.shutdownHook);
    try {
      deployment.servers.add(RedisServer.start(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port()),
          "--dir", dir.resolve("replica").toString())));
      deployment.await("the replica is in sync", () -> master.command("INFO", "replication").contains("connected_slaves:1")
          && deployment.replica().command("INFO", "replication").contains("master_link_status:up"));
      for (int i = 0; i < 3; i++) {
        deployment.startSentinel(master.port());
      }
      deployment.await("every sentinel knows the replica and the other sentinels", deployment::sentinelsReady);
      return deployment;
    } catch (RuntimeException | Error e) {
      deployment.close();
      throw e;
    }
  }

  /** The master at start (after a failover, no longer the master). */
  public RedisServer master() {
    return servers.get(0);
  }

  /** The replica at start (the one a failover promotes). */
  public RedisServer replica() {
    return servers.get(1);
  }

  /** {@code 127.0.0.1:<port>,...} of the sentinels, for {@code spring.data.redis.sentinel.nodes}. */
  public String nodes() {
    return sentinelPorts.stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
  }

  /** The port of the master as the first sentinel that answers names it, or -1 when none answers. */
  public int masterPort() {
    for (int port : sentinelPorts) {
      try {
        Object reply = RedisServer.call(port, 500, "SENTINEL", "get-master-addr-by-name", MASTER_NAME);
        if (reply instanceof List<?> address && address.size() == 2) {
          return Integer.parseInt((String) address.get(1));
        }
      } catch (IOException | RuntimeException e) {
        // try the next sentinel
      }
    }
    return -1;
  }

  private void startSentinel(int masterPort) {
    int port = RedisServer.freePort();
    Path config = dir.resolve("sentinel-" + port + ".conf");
    Path log = RedisServer.logDirectory().resolve("sentinel-" + port + ".log");
    try {
      Files.createDirectories(log.getParent());
      Files.writeString(config, String.join("\n",
          "port " + port,
          "bind 127.0.0.1",
          "daemonize no",
          "protected-mode no",
          "dir " + dir,
          "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + masterPort + " 2",
          "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
          "sentinel failover-timeout " + MASTER_NAME + " 10000",
          "sentinel parallel-syncs " + MASTER_NAME + " 1",
          ""), StandardCharsets.UTF_8);
      Process process = new ProcessBuilder(findSentinel().orElseThrow().toString(), config.toString())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      sentinels.add(process);
      sentinelPorts.add(port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start redis-sentinel on port " + port, e);
    }
  }

  private boolean sentinelsReady() {
    for (int port : sentinelPorts) {
      try {
        Object replicas = RedisServer.call(port, 500, "SENTINEL", "replicas", MASTER_NAME);
        Object others = RedisServer.call(port, 500, "SENTINEL", "sentinels", MASTER_NAME);
        if (!(replicas instanceof List<?> r) || r.isEmpty() || !(others instanceof List<?> o) || o.size() < 2) {
          return false;
        }
      } catch (IOException | RuntimeException e) {
        return false;
      }
    }
    return true;
  }

  private void await(String what, java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + READY.toNanos();
    while (!condition.getAsBoolean()) {
      for (Process sentinel : sentinels) {
        if (!sentinel.isAlive()) {
          throw new IllegalStateException("a redis-sentinel exited with " + sentinel.exitValue() + " (logs in "
              + RedisServer.logDirectory() + ")");
        }
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("timed out after " + READY.toSeconds() + " s waiting until " + what);
      }
      try {
        Thread.sleep(50); // real processes exchanging hello messages
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** Skips the test without {@code redis-sentinel}, or fails it when {@code CI} is {@code true}. */
  static void assumeSentinelAvailable() {
    if (findSentinel().isPresent()) {
      return;
    }
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      throw new IllegalStateException("redis-sentinel is required in CI (.ci/run installs Debian's redis-sentinel)");
    }
    Assumptions.abort("redis-sentinel not found: the Sentinel failover test is skipped; install Debian's"
        + " redis-sentinel (apt-get install redis-sentinel) to run it");
  }

  private static Optional<Path> findSentinel() {
    return RedisServer.findExecutable("redis-sentinel", List.of(Path.of("/usr/bin"), Path.of("/usr/local/bin")),
        System.getenv("PATH"));
  }

  private void killSentinels() {
    for (Process sentinel : sentinels) {
      sentinel.destroyForcibly();
    }
  }

  /** Kills the sentinels, then the servers, and deletes the config folder. */
  @Override
  public void close() {
    killSentinels();
    for (Process sentinel : sentinels) {
      try {
        sentinel.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (RedisServer server : servers) {
      server.close();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs anyway
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // a temporary folder: best effort
    }
  }
}
