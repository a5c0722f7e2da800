package dev.weir.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.test.DrivenTicker;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What both flavours of the gateway must do, asserted over real HTTP against the gateway on
 * {@code port} in front of {@code backend}: the same scenarios, each flavour's routes passed in.
 */
final class GatewayScenarios {

  private GatewayScenarios() {
  }

  /**
   * A route limited to 3 a minute ({@code per-minute}): exactly 3 in any span of a minute on the
   * driven ticker, the RateLimit headers on each answer, and no refusal reaching the backend.
   *
   * @return the refused answer, for a flavour's own further checks
   */
  static HttpResponse<String> exactlyThreeAMinute(int port, Backend backend, DrivenTicker ticker, String path) {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> admitted = Http.get(port, path);
      assertThat(admitted.statusCode()).isEqualTo(200);
      assertThat(admitted.body()).isEqualTo("ok");
      assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"per-minute\";q=3;w=60");
      String left = "\"per-minute\";r=" + (2 - i) + ";";
      assertThat(admitted.headers().firstValue("RateLimit")).hasValueSatisfying(value -> assertThat(value).startsWith(left));
    }
    HttpResponse<String> refused = Http.get(port, path);
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"per-minute\";q=3;w=60");
    assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"per-minute\";r=0;t=60");
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("60");
    assertThat(backend.received(path)).as("the refusal never reached the backend").isEqualTo(3);

    ticker.advance(Duration.ofSeconds(60).minusNanos(1));
    assertThat(Http.get(port, path).statusCode()).as("any span of a minute").isEqualTo(429);
    ticker.advanceNanos(1);
    assertThat(Http.get(port, path).statusCode()).isEqualTo(200);
    assertThat(backend.received(path)).isEqualTo(4);
    return refused;
  }

  /** A route limited to 2 a minute per key ({@code per-key}, the key a header): each key its own quota. */
  static void eachKeyItsOwnQuota(int port, Backend backend, String path) {
    assertThat(Http.get(port, path, "alice").statusCode()).isEqualTo(200);
    assertThat(Http.get(port, path, "alice").statusCode()).isEqualTo(200);
    HttpResponse<String> refused = Http.get(port, path, "alice");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"per-key\";q=2;w=60");
    assertThat(Http.get(port, path, "bob").statusCode()).as("another key").isEqualTo(200);
    assertThat(Http.get(port, path, "bob").statusCode()).isEqualTo(200);
    assertThat(Http.get(port, path, "bob").statusCode()).isEqualTo(429);
    assertThat(backend.received(path)).isEqualTo(4);
  }
}
