package dev.weir.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports an {@link IncompatibleSpringBootException}: the version found, the range supported, the ways out. */
final class IncompatibleSpringBootFailureAnalyzer extends AbstractFailureAnalyzer<IncompatibleSpringBootException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, IncompatibleSpringBootException cause) {
    return new FailureAnalysis("This application runs on Spring Boot " + cause.found() + ", and this version of Weir"
        + " supports Spring Boot " + cause.supported() + ".",
        "Use a Spring Boot version in that range, or a Weir version that supports Spring Boot " + cause.found()
            + " (see Weir's docs/compatibility.md). To start anyway, at your own risk, set"
            + " weir.compatibility-verifier.enabled=false.",
        cause);
  }
}
