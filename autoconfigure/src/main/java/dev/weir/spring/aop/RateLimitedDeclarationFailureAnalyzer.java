package dev.weir.spring.aop;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link RateLimitedDeclarationException} that stopped the start. */
final class RateLimitedDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<RateLimitedDeclarationException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, RateLimitedDeclarationException cause) {
    return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
  }
}
