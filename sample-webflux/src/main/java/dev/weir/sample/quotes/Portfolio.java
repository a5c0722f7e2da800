package dev.weir.sample.quotes;

import dev.weir.annotation.RateLimited;
import java.util.List;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/** The desk's holdings; only the desk may read them (the authority rule on resource {@code portfolio}). */
@Service
public class Portfolio {

  /** Returns the holdings; a caller other than the desk gets a 403 when the response subscribes. */
  @RateLimited("portfolio")
  public Mono<List<String>> holdings() {
    return Mono.fromSupplier(() -> List.of("ACME", "INITECH"));
  }
}
