package dev.weir.spring.test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Real HTTP requests to the application under test on {@code localhost:port}. */
public final class LocalHttp {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private LocalHttp() {
  }

  /** Sends {@code GET path} with the given header name/value pairs; returns the answer with its body as text. */
  public static HttpResponse<String> get(int port, String path, String... headers)
      throws IOException, InterruptedException {
    return send(port, "GET", path, headers);
  }

  /** Sends {@code method path} without a body, with the given header name/value pairs. */
  public static HttpResponse<String> send(int port, String method, String path, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      request.headers(headers);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
