package dev.weir.sample.quotes;

import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * {@code GET /portfolio}: the desk's holdings, from {@link Portfolio#holdings()}, a
 * {@code @RateLimited} {@code Mono} method. Its call is entered when the response subscribes to the
 * {@code Mono}, in the request's Weir context (name {@code weir_web_context}, origin from the
 * {@code X-Caller} header), which Weir's web filter put in the Reactor context: the authority rule
 * on {@code portfolio} then sees the caller.
 */
@RestController
class PortfolioController {

  private final Portfolio portfolio;

  PortfolioController(Portfolio portfolio) {
    this.portfolio = portfolio;
  }

  @GetMapping("/portfolio")
  Mono<List<String>> portfolio() {
    return portfolio.holdings();
  }
}
