package dev.weir.gateway;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The backend the gateways route to: a real HTTP server on a random loopback port (the JDK's),
 * counting the requests it received by path, answering {@code 200 ok}.
 */
final class Backend implements AutoCloseable {

  private final HttpServer server;
  private final ConcurrentHashMap<String, AtomicLong> received = new ConcurrentHashMap<>();

  private Backend(HttpServer server) {
    this.server = server;
  }

  static Backend start() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      Backend backend = new Backend(server);
      server.createContext("/", exchange -> {
        backend.received.computeIfAbsent(exchange.getRequestURI().getPath(), path -> new AtomicLong()).incrementAndGet();
        byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      });
      server.start();
      return backend;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** How many requests for {@code path} this backend received. */
  long received(String path) {
    AtomicLong count = received.get(path);
    return count == null ? 0 : count.get();
  }

  void forget() {
    received.clear();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
