package dev.weir.spring.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server on a random local port (the JDK's), standing for the partner an application
 * calls: it counts the requests that reach it, by path, and answers each path as a test told it
 * (status, headers, body), optionally holding the answer until the test lets it go (at most 10 s).
 * Requests to paths it was told nothing of are answered 200 "ok".
 */
final class PartnerServer implements AutoCloseable {

  /** How a path is answered. */
  record Answer(int status, List<String> headers, String body, CountDownLatch release) {
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(8);
  private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();
  private final Map<String, Answer> answers = new ConcurrentHashMap<>();
  private final Map<String, String> lastHeaders = new ConcurrentHashMap<>();

  private PartnerServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  static PartnerServer start() throws IOException {
    return new PartnerServer();
  }

  int port() {
    return server.getAddress().getPort();
  }

  /** {@code http://127.0.0.1:<port>} followed by {@code path}. */
  String url(String path) {
    return "http://127.0.0.1:" + port() + path;
  }

  /** Answers {@code path} with {@code status}, the header name/value pairs and {@code body}. */
  void answer(String path, int status, String body, String... headers) {
    answers.put(path, new Answer(status, List.of(headers), body, new CountDownLatch(0)));
  }

  /** Holds the answers to {@code path} until {@code release} is counted down (at most 10 s). */
  void hold(String path, CountDownLatch release) {
    answers.put(path, new Answer(200, List.of(), "late", release));
  }

  /** How many requests to {@code path} reached the server. */
  int hits(String path) {
    AtomicInteger count = hits.get(path);
    return count == null ? 0 : count.get();
  }

  /** The value of header {@code name} of the last request to {@code path}, or null. */
  String lastHeader(String path, String name) {
    return lastHeaders.get(path + " " + name.toLowerCase(java.util.Locale.ROOT));
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    hits.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
    exchange.getRequestHeaders().forEach((name, values) ->
        lastHeaders.put(path + " " + name.toLowerCase(java.util.Locale.ROOT), values.get(0)));
    Answer answer = answers.getOrDefault(path, new Answer(200, List.of(), "ok", new CountDownLatch(0)));
    try {
      answer.release().await(10, TimeUnit.SECONDS);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
    byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i + 1 < answer.headers().size(); i += 2) {
      exchange.getResponseHeaders().add(answer.headers().get(i), answer.headers().get(i + 1));
    }
    try {
      exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
      if (body.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    } catch (IOException clientWentAway) {
      // the client gave up (a timeout or a cancel): nothing to answer
    } finally {
      exchange.close();
    }
  }

  @Override
  public void close() {
    answers.values().forEach(answer -> {
      while (answer.release().getCount() > 0) {
        answer.release().countDown();
      }
    });
    server.stop(0);
    executor.shutdownNow();
  }
}
