package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.test.AutoConfigureWeirTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * The shop served on virtual threads ({@code spring.threads.virtual.enabled=true}): every request
 * on a fresh virtual thread, and the concurrency limit of orders (2) still holds over real HTTP.
 * Needs JDK 21+: disabled, with the reason, on older JDKs; the build's {@code virtual-threads} profile
 * runs it on Temurin 25 where that is installed.
 */
@Tag("virtual-threads")
@EnabledForJreRange(min = JRE.JAVA_21,
    disabledReason = "virtual threads need JDK 21+; the build's virtual-threads profile runs this on Temurin 25")
@Timeout(60)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "spring.threads.virtual.enabled=true")
@AutoConfigureWeirTest
class VirtualThreadRequestsTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @TestConfiguration
  static class GatedPayments {
    @Bean
    @Primary
    Gate gate() {
      return new Gate();
    }
  }

  /** A payment provider whose charges wait at a gate, noting whether they ran on virtual threads. */
  static final class Gate implements PaymentGateway {
    final Semaphore arrived = new Semaphore(0);
    final CountDownLatch open = new CountDownLatch(1);
    final AtomicBoolean allVirtual = new AtomicBoolean(true);

    @Override
    public String charge(String orderId, long amountCents) {
      allVirtual.compareAndSet(true, isVirtual(Thread.currentThread()));
      arrived.release();
      try {
        open.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "gated-" + orderId;
    }
  }

  static boolean isVirtual(Thread thread) {
    try {
      return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }

  @LocalServerPort
  int port;

  @Autowired
  Gate gate;

  @Autowired
  Weir weir;


  @Test
  void ordersInFlightStayLimitedToTwoOnVirtualThreads() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      responses.add(CLIENT.sendAsync(order("p-1"), HttpResponse.BodyHandlers.ofString()));
    }
    assertThat(gate.arrived.tryAcquire(2, 20, TimeUnit.SECONDS)).as("two orders at the payment gate").isTrue();
    List<CompletableFuture<HttpResponse<String>>> more = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      more.add(CLIENT.sendAsync(order("p-2"), HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> response : more) {
      assertThat(response.get(20, TimeUnit.SECONDS).statusCode()).as("while two are in flight").isEqualTo(429);
    }
    gate.open.countDown();
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    }
    assertThat(gate.allVirtual.get()).as("the orders ran on virtual threads").isTrue();
    assertThat(weir.statistics("placeOrder").activeCalls()).isZero();
    assertThat(weir.statistics("placeOrder").totalPassed()).isEqualTo(2);
    assertThat(weir.statistics("placeOrder").totalBlocked()).isEqualTo(30);
  }

  private HttpRequest order(String productId) {
    return HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/orders"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"productId\":\"" + productId + "\",\"quantity\":1}")).build();
  }
}
