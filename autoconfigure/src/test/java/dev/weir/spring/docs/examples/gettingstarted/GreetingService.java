package dev.weir.spring.docs.examples.gettingstarted;

// tag::service[]
import dev.weir.annotation.RateLimited;
import org.springframework.stereotype.Service;

@Service
public class GreetingService {

  @RateLimited("greeting")
  public String greet(String name) {
    return "Hello, " + name + "!";
  }
}
// end::service[]
