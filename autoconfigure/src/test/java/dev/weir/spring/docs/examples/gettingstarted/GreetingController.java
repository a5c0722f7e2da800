package dev.weir.spring.docs.examples.gettingstarted;

// tag::controller[]
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class GreetingController {

  private final GreetingService greetings;

  public GreetingController(GreetingService greetings) {
    this.greetings = greetings;
  }

  @GetMapping("/hello")
  public String hello(@RequestParam(name = "name", defaultValue = "world") String name) {
    return greetings.greet(name);
  }
}
// end::controller[]
