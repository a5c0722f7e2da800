package dev.weir.spring.docs.examples.gettingstarted;

// tag::application[]
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application of the getting-started page: a greeting over HTTP, two a second. */
@SpringBootApplication
public class DemoApplication {

  /** Starts the application. */
  public static void main(String[] args) {
    SpringApplication.run(DemoApplication.class, args);
  }
}
// end::application[]
