package dev.weir.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Criticality;
import dev.weir.spring.test.Fuzz;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link CriticalityClaim} reading hostile header values: any string of any length parses without
 * throwing, to a criticality only when it is one name (any case, '-' or '_', blanks around) within
 * the length cap; a claim only ever lowers; the thread's claim is restored by its scope.
 */
class CriticalityClaimFuzzTests {

  private static final Fuzz FUZZ = Fuzz.of(2027, 5_000, Duration.ofSeconds(1));
  private static final String ALPHABET = "SHEDABLCRITPUhedablcritpu_- ,\t\u00ff\u0130\u017f0";

  @Test
  void anyValueParsesWithoutThrowingAndOnlyANameIsAClaim() {
    FUZZ.forEachTry(0, "criticality header values", (attempt, random) -> {
      String value = value(random);
      Criticality parsed = CriticalityClaim.parse(value);
      String name = value.strip().replace('-', '_').toUpperCase(Locale.ROOT);
      boolean isName = value.length() <= CriticalityClaim.MAX_LENGTH
          && Stream.of(Criticality.values()).anyMatch(c -> c.name().equals(name));
      if (isName != (parsed != null) || parsed != null && !parsed.name().equals(name)) {
        throw new AssertionError(FUZZ.describe("read as " + parsed, attempt, value));
      }
      return parsed != null;
    });
  }

  private static String value(SplittableRandom random) {
    if (random.nextInt(4) == 0) { // a name, dressed up
      String name = Criticality.values()[random.nextInt(4)].name();
      name = random.nextBoolean() ? name.toLowerCase(Locale.ROOT) : name;
      name = random.nextBoolean() ? name.replace('_', '-') : name;
      return " ".repeat(random.nextInt(20)) + name + " ".repeat(random.nextInt(20));
    }
    int length = random.nextInt(10) == 0 ? random.nextInt(100_000) : random.nextInt(40);
    StringBuilder value = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      value.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    return value.toString();
  }

  @Test
  void oneValueIsReadAndSeveralAreNoClaim() {
    assertThat(CriticalityClaim.parse(List.of("sheddable").iterator())).isEqualTo(Criticality.SHEDDABLE);
    assertThat(CriticalityClaim.parse(List.of("sheddable", "sheddable").iterator())).isNull();
    assertThat(CriticalityClaim.parse(List.<String>of().iterator())).isNull();
    assertThat(CriticalityClaim.parse((Iterator<String>) null)).isNull();
    // an endless header list is looked at twice, not walked to its end
    Iterator<String> endless = Stream.generate(() -> "SHEDDABLE").iterator();
    assertThat(CriticalityClaim.parse(endless)).isNull();
  }

  @Test
  void aClaimOnlyLowers() {
    for (Criticality own : Criticality.values()) {
      assertThat(CriticalityClaim.bound(own, null)).isEqualTo(own);
      for (Criticality claim : Criticality.values()) {
        Criticality bound = CriticalityClaim.bound(own, claim);
        assertThat(bound.rank()).isEqualTo(Math.min(own.rank(), claim.rank()));
      }
    }
  }

  @Test
  void scopesRestoreTheClaimBeforeThem() {
    assertThat(CriticalityClaim.current()).isNull();
    try (CriticalityClaim.Scope outer = CriticalityClaim.open(Criticality.SHEDDABLE_PLUS)) {
      assertThat(CriticalityClaim.bound(Criticality.CRITICAL_PLUS)).isEqualTo(Criticality.SHEDDABLE_PLUS);
      try (CriticalityClaim.Scope inner = CriticalityClaim.open(null)) {
        assertThat(CriticalityClaim.current()).isNull();
      }
      try (CriticalityClaim.Scope same = CriticalityClaim.open(Criticality.SHEDDABLE_PLUS)) {
        assertThat(CriticalityClaim.current()).isEqualTo(Criticality.SHEDDABLE_PLUS);
      }
      assertThat(CriticalityClaim.current()).isEqualTo(Criticality.SHEDDABLE_PLUS);
    }
    assertThat(CriticalityClaim.current()).isNull();
  }
}
