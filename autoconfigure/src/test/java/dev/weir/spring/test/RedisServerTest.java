package dev.weir.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/** Proves that {@link RedisServer} really owns a redis-server it can kill, pause and restart. */
class RedisServerTest {

  private RedisServer redis;

  @BeforeEach
  void startRedis() {
    redis = RedisServer.start();
  }

  @AfterEach
  void closeRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void startsOnLoopbackAndAnswersPing() {
    assertThat(redis.host()).isEqualTo("127.0.0.1");
    assertThat(redis.port()).isBetween(1, 65535);
    assertThat(ProcessHandle.of(redis.pid())).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
    assertThat(redis.call("PING")).isEqualTo("PONG");
    assertThat(redis.command("PING")).isEqualTo("PONG");
    assertThat(redis.call("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
    assertThat(redis.call("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
  }

  @Test
  void decodesEveryReplyType() {
    assertThat(redis.call("SET", "k", "v")).isEqualTo("OK");
    assertThat(redis.call("GET", "k")).isEqualTo("v");
    assertThat(redis.call("GET", "missing")).isNull();
    assertThat(redis.command("GET", "missing")).isEqualTo("null");
    assertThat(redis.call("INCR", "counter")).isEqualTo(1L);
    assertThat(redis.call("INCRBY", "counter", "41")).isEqualTo(42L);

    // Bulk strings are read by length: CRLF inside and multi-byte UTF-8 survive.
    String tricky = "a\r\nb é ☃";
    redis.call("SET", "tricky", tricky);
    assertThat(redis.call("GET", "tricky")).isEqualTo(tricky);

    // Nested arrays, with integers, bulk strings and nil (Lua false) inside.
    assertThat(redis.call("EVAL", "return {1, {'a', 2}, false, 'z'}", "0"))
        .isEqualTo(Arrays.asList(1L, List.of("a", 2L), null, "z"));
    assertThat(redis.command("EVAL", "return {1, {'a', 2}}", "0")).isEqualTo("[1, [a, 2]]");
  }

  @Test
  void surfacesErrorRepliesWithTheServersMessage() {
    assertThatThrownBy(() -> redis.call("INCR"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("ERR wrong number of arguments");
    assertThatThrownBy(() -> redis.call("EVALSHA", "0123456789012345678901234567890123456789", "0"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("NOSCRIPT");
    // The server is still fine afterwards.
    assertThat(redis.call("PING")).isEqualTo("PONG");
  }

  @Test
  void killMakesThePortRefuseConnections() {
    long pid = redis.pid();
    redis.kill();

    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThatThrownBy(() -> new Socket(redis.host(), redis.port()).close())
        .isInstanceOf(ConnectException.class);
    assertThatThrownBy(() -> redis.call("PING"))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(ConnectException.class);
  }

  @Test
  void restartGivesAnEmptyServerOnTheSamePort() {
    int port = redis.port();
    long oldPid = redis.pid();
    redis.call("SET", "k", "v");
    String sha = (String) redis.call("SCRIPT", "LOAD", "return 7");
    assertThat(redis.call("EVALSHA", sha, "0")).isEqualTo(7L);

    redis.kill();
    redis.restart();

    assertThat(redis.port()).isEqualTo(port);
    assertThat(redis.pid()).isNotEqualTo(oldPid);
    assertThat(redis.call("PING")).isEqualTo("PONG");
    assertThat(redis.call("GET", "k")).isNull();
    assertThatThrownBy(() -> redis.call("EVALSHA", sha, "0"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("NOSCRIPT");
  }

  @Test
  void restartOfARunningServerReplacesIt() {
    long oldPid = redis.pid();
    redis.call("SET", "k", "v");

    redis.restart();

    assertThat(ProcessHandle.of(oldPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(redis.call("GET", "k")).isNull();
  }

  @Test
  void restartRetriesWhileThePortCannotBeBound() throws Exception {
    redis.kill();
    // Something else holds the port for a moment, bound but not listening (so the port refuses
    // connections, like a port in TIME_WAIT): restart retries until it can bind again.
    Socket squatter = new Socket();
    squatter.setReuseAddress(false);
    squatter.bind(new InetSocketAddress(redis.host(), redis.port()));
    Thread release =
        new Thread(
            () -> {
              try {
                Thread.sleep(500);
                squatter.close();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    release.start();
    try {
      redis.restart();
      // The port could be bound only once the squatter let it go, half a second after it started.
      assertThat(squatter.isClosed()).as("the squatter closed before the server came up").isTrue();
      assertThat(redis.call("PING")).isEqualTo("PONG");
      assertThat(Files.readString(redis.logFile())).contains("Address already in use");
    } finally {
      release.join();
      squatter.close();
    }
  }

  /**
   * A frozen server answers nothing: the command fails once its timeout has passed, not before (a
   * socket timeout cannot fire early), and not only after the default timeout of 30 s, which the
   * test's own timeout of 10 s would stop first.
   */
  @Test
  @Timeout(10)
  void pauseMakesCommandsTimeOutAndResumeAnswersAgain() {
    redis.call("SET", "k", "v");
    redis.pause();

    long started = System.nanoTime();
    assertThatThrownBy(() -> redis.call(Duration.ofMillis(500), "GET", "k"))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(SocketTimeoutException.class);
    long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
    assertThat(elapsedMillis).isGreaterThanOrEqualTo(450L);

    redis.resume();
    assertThat(redis.call("GET", "k")).isEqualTo("v");
  }

  @Test
  void closeIsIdempotentAndEndsAPausedServer() throws IOException {
    long pid = redis.pid();
    redis.pause();

    redis.close();
    redis.close();

    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThatThrownBy(() -> new Socket(redis.host(), redis.port()).close())
        .isInstanceOf(ConnectException.class);
    assertThatThrownBy(redis::restart).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void logsToAFile() throws IOException {
    assertThat(redis.logFile()).exists();
    assertThat(Files.readString(redis.logFile())).contains("Ready to accept connections");
  }

  @Test
  void missingRedisServerSkipsLocallyAndFailsInCi() {
    RedisServer.requireOrAbort(true, "true"); // installed: nothing happens

    assertThatThrownBy(() -> RedisServer.requireOrAbort(false, null))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("redis-server not found on PATH: cluster-mode tests skipped");
    assertThatThrownBy(() -> RedisServer.requireOrAbort(false, "false"))
        .isInstanceOf(TestAbortedException.class);
    assertThatThrownBy(() -> RedisServer.requireOrAbort(false, "TRUE"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("redis-server is required in CI (.ci/run installs Debian's redis-server)");
  }

  @Test
  void findsTheExecutableOnThePath(@TempDir Path dir) throws IOException {
    Path empty = Files.createDirectory(dir.resolve("empty"));
    Path bin = Files.createDirectory(dir.resolve("bin"));
    Path fake =
        Files.createFile(
            bin.resolve("redis-server"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    Path notExecutable = Files.createDirectory(dir.resolve("noexec"));
    Files.createFile(notExecutable.resolve("redis-server"));

    assertThat(RedisServer.findExecutable("redis-server", List.of(), empty + ":" + notExecutable))
        .isEmpty();
    assertThat(RedisServer.findExecutable("redis-server", List.of(), null)).isEmpty();
    assertThat(RedisServer.findExecutable("redis-server", List.of(), empty + "::" + bin))
        .contains(fake);
    assertThat(RedisServer.findExecutable("redis-server", List.of(empty, bin), "")).contains(fake);
  }
}
