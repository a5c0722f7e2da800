package dev.weir.test.boot;

import dev.weir.annotation.RateLimited;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

/** A tiny application for the {@code @SpringBootTest} classes: one guarded service, rules in application.yml. */
@SpringBootApplication
class GreetingApplication {

  /** Greets, at most twice a second (the {@code greet} rule of application.yml). */
  @Service
  public static class Greeter {
    @RateLimited("greet")
    public String greet(String name) {
      return "hello " + name;
    }
  }
}
