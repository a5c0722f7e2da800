package dev.weir.spring.client;

import java.time.Duration;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The three clients an application builds from Spring Boot's builders, each making one request to the
 * partner and returning the answer's body; a refusal, or the client's own exception for an error
 * status or an I/O failure, is thrown as the client throws it.
 */
enum Client {

  REST_CLIENT {
    @Override
    String call(ApplicationContext context, String base, HttpMethod method, String path, String... headers) {
      RestClient client = context.getBean(RestClient.Builder.class).baseUrl(base)
          .requestFactory(factory()).build();
      return client.method(method).uri(path).headers(h -> add(h, headers)).retrieve().body(String.class);
    }
  },

  REST_TEMPLATE {
    @Override
    String call(ApplicationContext context, String base, HttpMethod method, String path, String... headers) {
      return context.getBean(RestTemplateBuilder.class).rootUri(base).requestFactory(Client::factory)
          .defaultHeader("X-Client", "rest-template").build()
          .execute(path, method, request -> add(request.getHeaders(), headers),
              response -> new String(response.getBody().readAllBytes()));
    }
  },

  WEB_CLIENT {
    @Override
    String call(ApplicationContext context, String base, HttpMethod method, String path, String... headers) {
      WebClient client = context.getBean(WebClient.Builder.class).baseUrl(base).build();
      return client.method(method).uri(path).headers(h -> add(h, headers)).retrieve().bodyToMono(String.class)
          .block(Duration.ofSeconds(10));
    }
  };

  /** How long a blocking client waits for an answer. */
  static final Duration READ_TIMEOUT = Duration.ofMillis(500);

  /** Makes a {@code method} request to {@code base + path} with the header name/value pairs. */
  abstract String call(ApplicationContext context, String base, HttpMethod method, String path, String... headers);

  /** Makes a GET request. */
  String get(ApplicationContext context, String base, String path, String... headers) {
    return call(context, base, HttpMethod.GET, path, headers);
  }

  private static JdkClientHttpRequestFactory factory() {
    JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory();
    factory.setReadTimeout(READ_TIMEOUT);
    return factory;
  }

  private static void add(org.springframework.http.HttpHeaders target, String... headers) {
    for (int i = 0; i + 1 < headers.length; i += 2) {
      target.add(headers[i], headers[i + 1]);
    }
  }
}
