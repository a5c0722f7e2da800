package dev.weir.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Real HTTP requests to a gateway on a port of this machine. */
final class Http {

  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private Http() {
  }

  /** GET {@code path} from the server on {@code port}, with header {@code X-Api-Key} when {@code key} is not null. */
  static HttpResponse<String> get(int port, String path, String key) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30));
    if (key != null) {
      request.header("X-Api-Key", key);
    }
    try {
      return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static HttpResponse<String> get(int port, String path) {
    return get(port, path, null);
  }
}
