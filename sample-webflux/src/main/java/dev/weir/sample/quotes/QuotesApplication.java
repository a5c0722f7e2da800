package dev.weir.sample.quotes;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A reactive quote service guarded by Weir, on Spring WebFlux and Reactor Netty. Its limits are in
 * {@code application.yml}; refused requests get Weir's {@code application/problem+json} answers.
 */
@SpringBootApplication
public class QuotesApplication {

  /** Starts the service on port 8081 (or {@code --server.port=...}). */
  public static void main(String[] args) {
    SpringApplication.run(QuotesApplication.class, args);
  }
}
