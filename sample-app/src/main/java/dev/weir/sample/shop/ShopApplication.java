package dev.weir.sample.shop;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small shop guarded by Weir: products, orders and a flaky shipping service. Every limit is
 * declared with {@code @RateLimited} on a service and configured in {@code application.yml}.
 */
@SpringBootApplication
public class ShopApplication {

  /** Starts the shop on port 8080 (or {@code --server.port=...}). */
  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }
}
