package dev.weir.spring.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import dev.weir.spring.test.CpuTime;
import dev.weir.spring.test.Fuzz;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.http.HttpHeaders;

/**
 * What {@link UpstreamHeaders} reads from an answer's headers: the delay of {@code Retry-After} (both
 * forms) and of {@code RateLimit} per draft-ietf-httpapi-ratelimit-headers-11, capped at an hour, and
 * nothing at all, never an exception, from values that are not exactly valid.
 */
class UpstreamHeadersTests {

  private static final long NOW = Instant.parse("2030-01-02T03:04:05Z").toEpochMilli();

  private static long pause(int status, String... headers) {
    HttpHeaders answer = new HttpHeaders();
    for (int i = 0; i + 1 < headers.length; i += 2) {
      answer.add(headers[i], headers[i + 1]);
    }
    return UpstreamHeaders.pauseMillis(status, answer, NOW);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "429 | 2 | 2000", "503 | 0 | 0", "503 | 120 | 120000", "429 | 3600 | 3600000", "429 | 3601 | 3600000",
      "429 | 99999999999999999999999999999 | 3600000", "429 | ' 7 ' | 7000",
      "503 | Wed, 02 Jan 2030 03:04:15 GMT | 10000", "503 | Wednesday, 02-Jan-30 03:04:15 GMT | 10000",
      "503 | Wed Jan  2 03:04:15 2030 | 10000", "503 | Wed, 02 Jan 2030 03:04:04 GMT | 0",
      "503 | Fri, 02 Jan 2032 03:04:05 GMT | 3600000"})
  void retryAfterInSecondsOrAsADate(int status, String retryAfter, long millis) {
    assertThat(pause(status, "Retry-After", retryAfter)).isEqualTo(millis);
  }

  @Test
  void aRetryAfterDateCountsFromTheAnswersDateWhenItHasAValidOne() {
    assertThat(pause(503, "Date", "Sat, 01 Jan 2000 00:00:00 GMT", "Retry-After", "Sat, 01 Jan 2000 00:00:30 GMT"))
        .as("from the answer's Date, whatever this host's clock says").isEqualTo(30_000);
    assertThat(pause(503, "Date", "yesterday", "Retry-After", "Wed, 02 Jan 2030 03:04:35 GMT"))
        .as("an invalid Date: from this host's clock").isEqualTo(30_000);
  }

  @Test
  void retryAfterCountsOnTooManyRequestsAndServiceUnavailableOnly() {
    assertThat(pause(200, "Retry-After", "5")).isZero();
    assertThat(pause(301, "Retry-After", "5")).isZero();
    assertThat(pause(500, "Retry-After", "5")).isZero();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "'\"x\";r=0;t=3' | 3000", "'\"x\";r=1;t=3' | 0", "'\"x\";r=0' | 0", "'\"x\";r=0;t=0' | 0",
      "'\"a\";r=0;t=30, \"b\";r=0;t=4, \"c\";r=9;t=1' | 4000", "'  \"x\";r=0;t=3  ' | 3000",
      "'\"x\";t=3;r=0' | 3000", "'\"x\";r=0;t=3;pk=:cHJpdmF0ZQ==:' | 3000", "'default;r=0;t=5' | 5000",
      "'(\"a\" \"b\");r=0;t=6' | 6000", "'\"x\";r=0;t=7200' | 3600000", "'\"x\";r=0;t=999999999999999' | 3600000",
      "'\"x\";r=0;t=3;r=4' | 0", "'\"x\";q=0;w=3' | 0", "'\"x\";r=0;t=3,\t\"y\";r=0;t=2' | 2000",
      "'\"x\\\\\";r=0;t=3' | 3000", "'?1;r=0;t=2' | 2000", "'@1700000000;r=0;t=2' | 2000", "'1.5;r=0;t=2' | 2000"})
  void rateLimitTheSmallestResetOfThePoliciesWithNothingLeft(String rateLimit, long millis) {
    assertThat(pause(200, "RateLimit", rateLimit)).isEqualTo(millis);
  }

  @Test
  void rateLimitFieldLinesAreOneList() {
    assertThat(pause(200, "RateLimit", "\"a\";r=0;t=9", "RateLimit", "\"b\";r=0;t=8")).isEqualTo(8000);
    assertThat(pause(200, "RateLimit", "\"a\";r=0;t=9", "RateLimit", "\"b\";r=0;t=")).as("one invalid line").isZero();
  }

  @Test
  void retryAfterWinsOverRateLimitOnATooManyRequests() {
    assertThat(pause(429, "Retry-After", "2", "RateLimit", "\"x\";r=0;t=50")).isEqualTo(2000);
    assertThat(pause(429, "Retry-After", "soon", "RateLimit", "\"x\";r=0;t=50")).as("an invalid Retry-After")
        .isEqualTo(50_000);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "-1", "2.5", "1e3", "+3", "0x10", "3 s", "Tue, 32 Foo 2099 99:00:00 GMT", "Wed, 02 Jan 2030 03:04:15 UTC",
      "Thu, 02 Jan 2030 03:04:15 GMT", "''", "'   '"})
  void anInvalidRetryAfterAsksForNothing(String retryAfter) {
    assertThat(pause(429, "Retry-After", retryAfter)).isZero();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "'\"x\";r=0;t=-5'", "'\"x\";r=0;t=3.5'", "'\"x\";r=0;t=9999999999999999'", "'\"x\";r=0;t=3,'",
      "'\"x\";r=0;t=3 trailing'", "'\"unterminated;r=0;t=3'", "'\"x\";R=0;T=3'", "'\"x\";r=\"0\";t=3'",
      "'(\"x\";r=0;t=3'", "'\"x\";r=0;;t=3'", "',\"x\";r=0;t=3'", "'\"x\";r=0;t=3,,\"y\"'", "'\"x\\q\";r=0;t=3'",
      "'\"x\";r=0;t=3;Key=1'", "'\"x\" ;r=0;t=3'", "':abc;r=0;t=3'", "'?2;r=0;t=3'", "'\"é\";r=0;t=3'",
      "'\"x\";r=0;t=1.2345'", "'\"x\";r=0;t=-'", "'\"x\";r=00000000000000001;t=3'", "''"})
  void anInvalidRateLimitAsksForNothing(String rateLimit) {
    assertThat(pause(200, "RateLimit", rateLimit)).isZero();
  }

  @Test
  void valuesOverTheirBoundAreIgnoredWhole() {
    String longRetryAfter = "0".repeat(UpstreamHeaders.MAX_RETRY_AFTER_LENGTH) + "5";
    assertThat(pause(429, "Retry-After", longRetryAfter)).isZero();
    String policies = "\"y\";r=5;t=1, ".repeat(UpstreamHeaders.MAX_RATE_LIMIT_LENGTH / 13 + 1);
    assertThat(pause(200, "RateLimit", policies + "\"z\";r=0;t=3")).isZero();
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      lines.add("\"p" + i + "\";r=0;t=3");
    }
    HttpHeaders many = new HttpHeaders();
    many.put("RateLimit", lines);
    assertThat(UpstreamHeaders.pauseMillis(200, many, NOW)).as("more field lines than read").isZero();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "1s | 1000000000", "6m0s | 360000000000", "20ms | 20000000", "0h2m3.5s | 123500000000", "0 | 0",
      "1h0m0.001s | 3600000000000", "0s | 0", "1.5ms | 1500000", "250us | 250000", "250\u00b5s | 250000",
      "250\u03bcs | 250000", "7ns | 7", ".5s | 500000000", "5.s | 5000000000", "1m1m | 120000000000",
      "2h | 3600000000000", "99999999999999999999999h | 3600000000000", "59m59.999999999999999s | 3600000000000",
      "59m59.5s | 3599500000000", "0.0000000001s | 1"})
  void providerDurationsAreRead(String value, long nanos) {
    assertThat(UpstreamHeaders.durationNanos(value)).isEqualTo(nanos);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "''", "s", "1", "-1s", "+1s", "1 s", "1S", "1sec", "1d", "1..5s", ".s", "'1s x'", "1e3s", "1h-2m", "00", "5.",
      "1\u00b5", "NaNs"})
  void invalidProviderDurationsAreNone(String value) {
    assertThat(UpstreamHeaders.durationNanos(value)).isEqualTo(-1);
  }

  @Test
  void aSpentProviderBudgetPausesUntilItsReset() {
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "6m0s")).isEqualTo(360_000);
    assertThat(pause(200, "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "20ms"))
        .isEqualTo(20);
    assertThat(pause(200, "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "1500us"))
        .as("rounded up to a whole millisecond").isEqualTo(2);
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "12", "x-ratelimit-reset-tokens", "6m0s"))
        .as("tokens left").isZero();
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "0")).as("no reset").isZero();
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "soon")).isZero();
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "-0", "x-ratelimit-reset-tokens", "1s")).isZero();
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-requests", "1s"))
        .as("the reset of the other budget").isZero();
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "3h"))
        .as("capped at an hour").isEqualTo(3_600_000);
  }

  @Test
  void theLatestResetOfTheSpentBudgetsAndRateLimitIsHonoured() {
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "2s",
        "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "5s")).isEqualTo(5000);
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "2s",
        "RateLimit", "\"x\";r=0;t=3")).isEqualTo(3000);
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "4s",
        "RateLimit", "\"x\";r=0;t=3")).isEqualTo(4000);
    assertThat(pause(429, "Retry-After", "1", "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "4s"))
        .as("a valid Retry-After wins").isEqualTo(1000);
  }

  @Test
  void anthropicBudgetsPauseUntilTheirResetTime() {
    assertThat(pause(200, "anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset",
        "2030-01-02T03:04:35Z")).isEqualTo(30_000);
    assertThat(pause(200, "anthropic-ratelimit-output-tokens-remaining", "0",
        "anthropic-ratelimit-output-tokens-reset", "2030-01-02T04:04:35.5+01:00")).isEqualTo(30_500);
    assertThat(pause(200, "Date", "Sat, 01 Jan 2000 00:00:00 GMT", "anthropic-ratelimit-requests-remaining", "0",
        "anthropic-ratelimit-requests-reset", "2000-01-01T00:00:07Z")).as("from the answer's Date").isEqualTo(7000);
    assertThat(pause(200, "anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset",
        "2030-01-02T03:04:00Z")).as("in the past").isZero();
    assertThat(pause(200, "anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset",
        "2031-01-02T03:04:00Z")).as("capped at an hour").isEqualTo(3_600_000);
    assertThat(pause(200, "anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset",
        "tomorrow")).isZero();
    assertThat(pause(200, "anthropic-ratelimit-tokens-remaining", "5", "anthropic-ratelimit-tokens-reset",
        "2030-01-02T03:04:35Z")).isZero();
  }

  @Test
  void budgetValuesOverTheirBoundAreIgnoredWhole() {
    String longReset = "0".repeat(UpstreamHeaders.MAX_RETRY_AFTER_LENGTH) + "5s";
    assertThat(pause(200, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", longReset)).isZero();
    String longRemaining = "0".repeat(UpstreamHeaders.MAX_RETRY_AFTER_LENGTH + 1);
    assertThat(pause(200, "x-ratelimit-remaining-tokens", longRemaining, "x-ratelimit-reset-tokens", "5s")).isZero();
  }

  /**
   * The duration parser on random and mutated values (a fixed seed, {@link Fuzz}): never an exception,
   * never a duration over the cap or below -1, each read within a CPU-time bound, and the whole
   * header path as well on the same values.
   */
  @Test
  @Timeout(60)
  void noProviderDurationThrowsOrTakesLong() {
    Fuzz fuzz = Fuzz.of(0x5EED_0039L, 20_000, Duration.ofMillis(200));
    String alphabet = "0123456789.hmsunµμ -+eE\t\u0000";
    String[] seeds = {"1h2m3.5s", "6m0s", "20ms", "1.5us", "0", "999999999999h"};
    int read = fuzz.forEachTry(0, "provider durations", (attempt, random) -> {
      StringBuilder value = new StringBuilder(seeds[random.nextInt(seeds.length)]);
      int edits = random.nextInt(1, 10);
      for (int e = 0; e < edits; e++) {
        int at = random.nextInt(value.length() + 1);
        switch (random.nextInt(3)) {
          case 0 -> value.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
          case 1 -> { if (at < value.length()) { value.deleteCharAt(at); } }
          default -> value.insert(at, String.valueOf(value).repeat(random.nextInt(1, 8)));
        }
      }
      String text = value.length() > 2000 ? value.substring(0, 2000) : value.toString();
      long start = CpuTime.current();
      long nanos = UpstreamHeaders.durationNanos(text);
      long millis = pause(200, "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", text);
      fuzz.withinBound(start, "reading the duration", attempt, text);
      if (nanos < -1 || nanos > UpstreamHeaders.MAX_PAUSE.toNanos()) {
        throw new AssertionError(fuzz.describe("a duration of " + nanos + " ns", attempt, text));
      }
      if (millis < 0 || millis > UpstreamHeaders.MAX_PAUSE.toMillis()) {
        throw new AssertionError(fuzz.describe("a pause of " + millis + " ms", attempt, text));
      }
      return nanos >= 0;
    });
    assertThat(read).as("some mutated values are still durations").isPositive();
  }

  /**
   * Random and mutated values of both headers: never an exception, never a pause over the cap, and
   * each read within a bound that linear work keeps (a few milliseconds for 4 KiB). The bound is on
   * the CPU time of this thread, which a busy machine does not stretch as it does wall-clock time.
   */
  @Test
  @Timeout(60)
  void noValueThrowsOrTakesLong() {
    SplittableRandom random = new SplittableRandom(Long.getLong("weir-test.fuzz.seed", 29L));
    String alphabet = "\"();,=: \t?*-.@0123456789rtqwpkabcXYZ\\é\u0000\u007f";
    String[] seeds = {"\"x\";r=0;t=3", "(\"a\" \"b\");r=0;t=6, \"c\";r=1", "Wed, 02 Jan 2030 03:04:15 GMT", "120"};
    long slowest = 0;
    for (int i = 0; i < 20_000; i++) {
      StringBuilder value = new StringBuilder(seeds[random.nextInt(seeds.length)]);
      int edits = random.nextInt(1, 12);
      for (int e = 0; e < edits; e++) {
        int at = random.nextInt(value.length() + 1);
        switch (random.nextInt(3)) {
          case 0 -> value.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
          case 1 -> { if (at < value.length()) { value.deleteCharAt(at); } }
          default -> {
            String repeated = String.valueOf(value).repeat(random.nextInt(1, 40));
            value.insert(at, repeated, 0, Math.min(4200, repeated.length()));
          }
        }
      }
      String text = value.length() > 5000 ? value.substring(0, 5000) : value.toString();
      long start = CpuTime.current();
      long rateLimit = pause(200, "RateLimit", text);
      long retryAfter = pause(429, "Retry-After", text, "Date", text);
      slowest = Math.max(slowest, CpuTime.current() - start);
      assertThat(rateLimit).isBetween(0L, UpstreamHeaders.MAX_PAUSE.toMillis());
      assertThat(retryAfter).isBetween(0L, UpstreamHeaders.MAX_PAUSE.toMillis());
    }
    assertThat(Duration.ofNanos(slowest)).as("the slowest read, CPU time").isLessThan(Duration.ofMillis(200));
  }
}
