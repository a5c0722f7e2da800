package dev.weir.sample.shop;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.resilience.annotation.EnableResilientMethods;

/**
 * A small shop guarded by Weir: products, orders, a flaky shipping service, a flaky warehouse whose
 * {@code @Retryable} stock checks run under a retry budget ({@code @EnableResilientMethods}), and a
 * catalog over gRPC on its own port. Every limit is declared with {@code @RateLimited} on a service
 * (or guards a route, a retry or a gRPC method) and configured in {@code application.yml}.
 */
// tag::application[]
@SpringBootApplication
@EnableResilientMethods
public class ShopApplication {

  /** Starts the shop on port 8080 (or {@code --server.port=...}). */
  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }
}
// end::application[]
