package dev.weir.spring.test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code redis-server} process owned by a test, so that the test can kill, pause and
 * restart it.
 *
 * <p>The server listens on a free loopback port, keeps nothing on disk ({@code --save ""},
 * {@code --appendonly no}) and writes its log to {@code <build dir>/redis-server/redis-<port>.log}
 * (the build directory is the parent of the test classes folder; {@code java.io.tmpdir} when that
 * cannot be found). Commands are sent by a small RESP client over a plain {@link Socket}: this class
 * uses neither Spring nor Lettuce, so it does not depend on the code under test.
 *
 * <p>When {@code redis-server} is not installed, {@link #start()} aborts the test (it is skipped),
 * except when the environment variable {@code CI} is {@code true}: then it fails. A JVM shutdown
 * hook kills the process if a test run ends without {@link #close()}.
 */
public final class RedisServer implements AutoCloseable {

  private static final String HOST = "127.0.0.1";

  /** How long startup (and the retries of a restart on a busy port) may take. */
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Socket timeout of {@link #call(String...)}: it turns a test that talks to a server it froze (or
   * that died) into a failure instead of a hang, and is not a bound on how fast a live server
   * answers. A loaded machine took more than a second for a script over 10^5 keys; 30 s is far
   * beyond any command a test sends to a live server.
   */
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  private static final int LOG_TAIL_LINES = 30;

  private final Path executable;
  private final int port;
  private final Path logFile;
  private final List<String> extraArguments;
  private final Thread shutdownHook;

  private volatile Process process;
  private boolean paused;
  private boolean closed;

  private RedisServer(Path executable, int port, Path logFile, List<String> extraArguments) {
    this.executable = executable;
    this.port = port;
    this.logFile = logFile;
    this.extraArguments = List.copyOf(extraArguments);
    this.shutdownHook = new Thread(this::destroyOnShutdown, "redis-server-" + port + "-shutdown");
  }

  /**
   * Starts a {@code redis-server} on a free loopback port and waits until it answers PING.
   *
   * <p>Calls {@link #assumeAvailable()} first, so the test is skipped (or, in CI, fails) when
   * {@code redis-server} is not installed.
   *
   * @return the running server; close it when the test ends
   * @throws IllegalStateException with the tail of the server's log if it does not come up within
   *     10 seconds
   */
  public static RedisServer start() {
    return start(List.of());
  }

  /**
   * Starts a {@code redis-server} as {@link #start()} does, with more command-line arguments (such
   * as {@code --cluster-enabled yes}); {@code {port}} in an argument is replaced by the port.
   */
  public static RedisServer start(List<String> extraArguments) {
    assumeAvailable();
    Path executable = findRedisServer().orElseThrow();
    int port = freePort();
    List<String> arguments = extraArguments.stream().map(argument -> argument.replace("{port}", Integer.toString(port)))
        .toList();
    RedisServer server = new RedisServer(executable, port, logDirectory().resolve("redis-" + port + ".log"), arguments);
    Runtime.getRuntime().addShutdownHook(server.shutdownHook);
    try {
      synchronized (server) {
        server.launchUntilUp();
      }
    } catch (RuntimeException | Error e) {
      try {
        server.close();
      } catch (RuntimeException | Error closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    return server;
  }

  /**
   * Skips the calling test when {@code redis-server} is not installed, or fails it when the
   * environment variable {@code CI} is {@code true} (CI must run the Redis tests).
   */
  public static void assumeAvailable() {
    requireOrAbort(findRedisServer().isPresent(), System.getenv("CI"));
  }

  /** The decision of {@link #assumeAvailable()}, separate from the environment so tests can check it. */
  static void requireOrAbort(boolean installed, String ciVariable) {
    if (installed) {
      return;
    }
    if ("true".equalsIgnoreCase(ciVariable)) {
      throw new IllegalStateException(
          "redis-server is required in CI (.ci/run installs Debian's redis-server)");
    }
    Assumptions.abort(
        "redis-server not found on PATH: cluster-mode tests skipped; install Debian's redis-server"
            + " (apt-get install redis-server) to run them");
  }

  /** Where {@code redis-server} is installed: /usr/bin, /usr/local/bin, then the PATH entries. */
  static Optional<Path> findRedisServer() {
    return findExecutable(
        "redis-server",
        List.of(Path.of("/usr/bin"), Path.of("/usr/local/bin")),
        System.getenv("PATH"));
  }

  /** The first executable file {@code name} in {@code fixedDirs}, then in the entries of {@code path}. */
  static Optional<Path> findExecutable(String name, List<Path> fixedDirs, String path) {
    List<Path> dirs = new ArrayList<>(fixedDirs);
    if (path != null) {
      for (String entry : path.split(File.pathSeparator)) {
        if (!entry.isEmpty()) {
          dirs.add(Path.of(entry));
        }
      }
    }
    for (Path dir : dirs) {
      Path candidate = dir.resolve(name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** The port the server listens on; it stays the same across {@link #restart()}. */
  public int port() {
    return port;
  }

  /** The address the server listens on: always {@code 127.0.0.1}. */
  public String host() {
    return HOST;
  }

  /** The process id of the current {@code redis-server} process (a new one after {@link #restart()}). */
  public long pid() {
    return process.pid();
  }

  /** The log file the server's stdout and stderr are appended to, across restarts. */
  public Path logFile() {
    return logFile;
  }

  /**
   * Kills the server with SIGKILL and waits until its port refuses connections. Does nothing if
   * it is not running.
   *
   * @throws IllegalStateException if the process does not die, or the port still accepts
   *     connections after 10 seconds
   */
  public synchronized void kill() {
    Process current = process;
    if (current != null && current.isAlive()) {
      current.destroyForcibly();
      try {
        if (!current.waitFor(STARTUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("redis-server pid " + current.pid() + " survived SIGKILL");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while killing redis-server", e);
      }
    }
    paused = false;
    awaitPortRefuses();
  }

  /**
   * Starts a new process on the same port, after killing the current one if it still runs. The new
   * server is empty: no keys, no scripts. Retries for up to 10 seconds while the port cannot be
   * bound yet (for example in TIME_WAIT).
   *
   * @throws IllegalStateException with the tail of the server's log if it does not come up
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException("redis-server on port " + port + " is closed");
    }
    kill();
    launchUntilUp();
  }

  /** Freezes the server with SIGSTOP: connections are accepted by the kernel but never answered. */
  public synchronized void pause() {
    signal("STOP");
    paused = true;
  }

  /** Lets a server stopped by {@link #pause()} run again (SIGCONT). */
  public synchronized void resume() {
    signal("CONT");
    paused = false;
  }

  /**
   * Sends one command and returns its reply as text: {@code String.valueOf(call(args))}.
   *
   * @see #call(String...)
   */
  public String command(String... args) {
    return String.valueOf(call(args));
  }

  /**
   * Sends one command on a new connection and returns the decoded reply: a {@link String} for simple
   * and bulk strings (UTF-8), a {@link Long} for integers, {@code null} for nil, a {@code
   * List<Object>} of these for arrays (which may be nested).
   *
   * @throws IllegalStateException carrying the server's message (for example {@code "NOSCRIPT
   *     ..."}) for an error reply, anywhere in the reply
   * @throws UncheckedIOException if the connection fails or no reply comes within {@link
   *     #COMMAND_TIMEOUT} (its cause is then a {@link java.net.SocketTimeoutException})
   */
  public Object call(String... args) {
    return call(COMMAND_TIMEOUT, args);
  }

  /**
   * Sends one command as {@link #call(String...)} does, waiting at most {@code timeout} to connect
   * and for each read of the reply: for a test that expects no answer (a frozen server).
   */
  public Object call(Duration timeout, String... args) {
    try {
      return call(Math.toIntExact(Math.max(1, timeout.toMillis())), args);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "redis-server on port " + port + ": " + String.join(" ", args) + ": " + e, e);
    }
  }

  /**
   * Stops the server for good: SIGCONT if it is paused, then SIGKILL. Calling it again does
   * nothing.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (paused && process != null && process.isAlive()) {
        signal("CONT");
      }
    } finally {
      try {
        kill();
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
          // The hook runs anyway and finds the process dead.
        }
      }
    }
  }

  @Override
  public String toString() {
    Process current = process;
    return "RedisServer[" + HOST + ":" + port + (current == null ? "" : ", pid " + current.pid()) + "]";
  }

  private void destroyOnShutdown() {
    Process current = process;
    if (current != null) {
      // SIGKILL also ends a stopped process: no SIGCONT needed.
      current.destroyForcibly();
    }
  }

  /** Starts processes on {@link #port} until one answers PING, for up to 10 seconds. */
  private void launchUntilUp() {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    String lastFailure;
    while (true) {
      Process started = launch();
      process = started;
      lastFailure = awaitPong(started, deadline);
      if (lastFailure == null) {
        return;
      }
      if (started.isAlive()) {
        started.destroyForcibly();
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new IllegalStateException(
            "redis-server did not start on " + HOST + ":" + port + " within " + STARTUP_TIMEOUT
                + " (" + lastFailure + "); log " + logFile + ":\n" + logTail());
      }
      // Most likely the port is not free again yet: try a new process.
      sleep(100);
    }
  }

  private Process launch() {
    try {
      Files.createDirectories(logFile.getParent());
      Files.writeString(
          logFile,
          "--- starting redis-server on port " + port + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      List<String> command = new ArrayList<>(List.of(
              executable.toString(),
              "--port", Integer.toString(port),
              "--bind", HOST,
              "--save", "",
              "--appendonly", "no",
              "--daemonize", "no",
              "--protected-mode", "no"));
      command.addAll(extraArguments);
      return new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + executable, e);
    }
  }

  /** Polls PING until PONG; returns null when up, or why not when the process died or time ran out. */
  private String awaitPong(Process started, long deadline) {
    String failure = "no answer";
    while (System.nanoTime() - deadline < 0) {
      if (!started.isAlive()) {
        return "process exited with status " + started.exitValue();
      }
      try {
        Object reply = call(500, "PING");
        if ("PONG".equals(reply) && started.isAlive()) {
          return null;
        }
        failure = "PING answered " + reply;
      } catch (IOException | IllegalStateException e) {
        failure = "PING failed: " + e;
      }
      sleep(25);
    }
    return started.isAlive() ? failure : "process exited with status " + started.exitValue();
  }

  private void awaitPortRefuses() {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(HOST, port), 200);
      } catch (ConnectException refused) {
        return;
      } catch (IOException other) {
        // A connect timeout: try again.
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new IllegalStateException(HOST + ":" + port + " still accepts connections after kill");
      }
      sleep(20);
    }
  }

  private void signal(String signal) {
    Process current = process;
    if (current == null || !current.isAlive()) {
      throw new IllegalStateException("redis-server on port " + port + " is not running");
    }
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(current.pid()))
              .redirectErrorStream(true)
              .start();
      byte[] output = kill.getInputStream().readAllBytes();
      int status = kill.waitFor();
      if (status != 0) {
        throw new IllegalStateException(
            "kill -" + signal + " " + current.pid() + " exited with " + status + ": "
                + new String(output, StandardCharsets.UTF_8).trim());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + signal, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + signal, e);
    }
  }

  private Object call(int timeoutMillis, String... args) throws IOException {
    return call(port, timeoutMillis, args);
  }

  /** Sends one command to any Redis process on the loopback {@code port} (a sentinel, say), as {@link #call(String...)}. */
  static Object call(int port, int timeoutMillis, String... args) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(HOST, port), timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      OutputStream out = socket.getOutputStream();
      out.write(encode(args));
      out.flush();
      return readReply(new BufferedInputStream(socket.getInputStream()));
    }
  }

  /** A RESP array of bulk strings. */
  private static byte[] encode(String... args) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    writeAscii(buffer, "*" + args.length + "\r\n");
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      writeAscii(buffer, "$" + bytes.length + "\r\n");
      buffer.writeBytes(bytes);
      writeAscii(buffer, "\r\n");
    }
    return buffer.toByteArray();
  }

  private static void writeAscii(ByteArrayOutputStream buffer, String text) {
    buffer.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
  }

  private static Object readReply(InputStream in) throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException("connection closed before a reply");
    }
    String line = readLine(in);
    switch (type) {
      case '+':
        return line;
      case '-':
        throw new IllegalStateException(line);
      case ':':
        return Long.parseLong(line);
      case '$':
        {
          int length = Integer.parseInt(line);
          if (length < 0) {
            return null;
          }
          byte[] bytes = in.readNBytes(length);
          if (bytes.length < length) {
            throw new EOFException("connection closed inside a bulk string");
          }
          readLine(in); // the CRLF after the data
          return new String(bytes, StandardCharsets.UTF_8);
        }
      case '*':
        {
          int count = Integer.parseInt(line);
          if (count < 0) {
            return null;
          }
          List<Object> items = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            items.add(readReply(in));
          }
          return items;
        }
      default:
        throw new IllegalStateException("unexpected RESP type '" + (char) type + "': " + line);
    }
  }

  /** Reads up to CRLF, which it consumes but does not return. */
  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int previous = -1;
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed inside a reply line");
      }
      if (b == '\n' && previous == '\r') {
        byte[] bytes = line.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
      }
      line.write(b);
      previous = b;
    }
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + HOST, e);
    }
  }

  /** {@code <build dir>/redis-server}: the build dir holds the test classes folder. */
  static Path logDirectory() {
    try {
      Path classes =
          Path.of(RedisServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isDirectory(classes) && classes.getParent() != null) {
        return classes.getParent().resolve("redis-server");
      }
    } catch (URISyntaxException | RuntimeException e) {
      // Fall back to the temporary directory.
    }
    return Path.of(System.getProperty("java.io.tmpdir"), "weir-redis-server");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
