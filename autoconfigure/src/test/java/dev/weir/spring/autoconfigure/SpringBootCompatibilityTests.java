package dev.weir.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The compatibility verifier: the supported Spring Boot versions start, others fail naming the
 * version found and the range, and the property turns the check off. The version is stubbed: a real
 * context on another Spring Boot version cannot be started in this build.
 */
class SpringBootCompatibilityTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirCompatibilityAutoConfiguration.class));

  @ParameterizedTest
  @ValueSource(strings = {"4.1.0", "4.1.1", "4.1.2-SNAPSHOT", "4.1.10"})
  void aSupportedVersionStarts(String version) {
    assertThatCode(() -> new SpringBootCompatibility(() -> version).verify()).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(strings = {"3.5.7", "4.0.0", "4.0.7", "4.2.0", "4.2.0-M1", "5.0.0", "40.1.0"})
  void anUnsupportedVersionFailsNamingItAndTheRange(String version) {
    assertThatThrownBy(() -> new SpringBootCompatibility(() -> version).verify())
        .isInstanceOf(IncompatibleSpringBootException.class)
        .hasMessage("Weir supports Spring Boot 4.1.x; this application runs on Spring Boot " + version);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "unknown", "4", "x.y.z", "99999999999.1"})
  void aVersionThatCannotBeReadIsNotRefused(String version) {
    // "4" and garbage: no major.minor to compare; nothing is known, so nothing is refused.
    assertThatCode(() -> new SpringBootCompatibility(() -> version).verify()).doesNotThrowAnyException();
    assertThatCode(() -> new SpringBootCompatibility(() -> null).verify()).doesNotThrowAnyException();
  }

  @Test
  void theAnalyzerNamesTheVersionTheRangeAndTheWayOut() {
    FailureAnalysis analysis = new IncompatibleSpringBootFailureAnalyzer()
        .analyze(new IllegalStateException("wrapped", new IncompatibleSpringBootException("4.0.7", "4.1.x")));
    assertThat(analysis.getDescription())
        .isEqualTo("This application runs on Spring Boot 4.0.7, and this version of Weir supports Spring Boot 4.1.x.");
    assertThat(analysis.getAction()).contains("docs/compatibility.md").contains("weir.compatibility-verifier.enabled=false");
  }

  @Test
  void theRunningVersionIsSupportedAndCheckedAtStart() {
    assertThat(SpringBootVersion.getVersion()).as("the Spring Boot this build runs on").startsWith("4.");
    runner.run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context).hasBean("weirSpringBootCompatibility");
    });
  }

  @Test
  void thePropertyTurnsTheCheckOff() {
    runner.withPropertyValues("weir.compatibility-verifier.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("weirSpringBootCompatibility"));
  }
}
