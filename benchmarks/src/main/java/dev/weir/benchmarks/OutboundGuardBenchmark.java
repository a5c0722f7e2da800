package dev.weir.benchmarks;

import com.sun.net.httpserver.HttpServer;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spring.client.ClientGuard;
import dev.weir.spring.client.ClientRoute;
import dev.weir.spring.client.UpstreamPauses;
import dev.weir.spring.client.WeirClientHttpRequestInterceptor;
import dev.weir.spring.client.WeirExchangeFilterFunction;
import dev.weir.spring.observation.RefusalObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * What guarding an outgoing HTTP request costs ({@code weir.client}), in two settings.
 *
 * <p><b>Over the network</b> ({@code network_*}): one GET of a {@code RestClient} (JDK
 * {@code HttpClient}) to a local JDK {@code HttpServer} answering {@code ok}: a plain
 * {@code RestClient.builder()} client; Spring Boot's auto-configured builder to a path no route
 * matches (Boot's observation and Weir's route lookup, no guard); the same builder to a path the route
 * {@code partner} guards (a rule of 2e9 per second that never refuses). The loopback round trip
 * dominates these; they show the guard beside it. The server's sockets have Nagle's algorithm off
 * ({@code sun.net.httpserver.nodelay}, set on the forks): with it on, the JDK's server writes headers
 * and body apart and every request waits for a delayed acknowledgement, about 40 ms.
 *
 * <p><b>Alone</b>: the guard's own work, without I/O. {@code interceptor_*}: Weir's
 * {@link WeirClientHttpRequestInterceptor} around an execution that answers at once with a canned
 * response (the response is then closed, which ends the call), beside the execution alone and the
 * interceptor with a request no route matches. {@code filter_*}: Weir's
 * {@link WeirExchangeFilterFunction} around an exchange function that answers at once, the response's
 * body released, beside the exchange function alone. The engine has the pause slot of
 * honour-upstream, as the auto-configured one does.
 *
 * <p>Each state's {@code @Setup} checks that guarded calls are counted by the engine and unguarded
 * ones are not. Run on demand, never in the tests: see benchmarks/README.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = "-Dsun.net.httpserver.nodelay=true")
public class OutboundGuardBenchmark {

  /** A local server and three clients of it, one of them guarded. */
  @State(Scope.Benchmark)
  public static class Network {
    HttpServer server;
    ExecutorService executor;
    ConfigurableApplicationContext context;
    RestClient plain;
    RestClient bootUnmatched;
    RestClient bootGuarded;
    Weir weir;

    @Setup
    public void setUp() throws IOException {
      executor = Executors.newFixedThreadPool(4);
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
      server.setExecutor(executor);
      byte[] ok = "ok".getBytes(StandardCharsets.UTF_8);
      server.createContext("/", exchange -> {
        exchange.getRequestBody().readAllBytes();
        exchange.sendResponseHeaders(200, ok.length);
        try (OutputStream body = exchange.getResponseBody()) {
          body.write(ok);
        }
      });
      server.start();
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF)
          .logStartupInfo(false)
          .properties("weir.client.routes[0].resource=partner", "weir.client.routes[0].url=" + base + "/guarded/**",
              "weir.flow[0].resource=partner", "weir.flow[0].count=2000000000", "logging.level.root=warn")
          .run();
      weir = context.getBean(Weir.class);
      plain = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory()).baseUrl(base).build();
      bootUnmatched = context.getBean(RestClient.Builder.class).requestFactory(new JdkClientHttpRequestFactory())
          .baseUrl(base).build();
      bootGuarded = context.getBean(RestClient.Builder.class).requestFactory(new JdkClientHttpRequestFactory())
          .baseUrl(base).build();
      for (int i = 0; i < 10; i++) {
        check("ok".equals(plain.get().uri("/plain/x").retrieve().body(String.class)), "plain answered");
        check("ok".equals(bootUnmatched.get().uri("/plain/x").retrieve().body(String.class)), "unmatched answered");
        check("ok".equals(bootGuarded.get().uri("/guarded/x").retrieve().body(String.class)), "guarded answered");
      }
      ResourceStatistics partner = weir.statistics("partner");
      check(partner != null && partner.totalPassed() == 10, "the guarded client's calls are partner's, and only they");
    }

    @TearDown
    public void tearDown() {
      context.close();
      server.stop(0);
      executor.shutdownNow();
    }
  }

  /** The auto-configured application: Boot's RestClient.Builder with Weir's customizer. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {
  }

  /** The interceptor and the filter of one guard, with canned requests and answers. */
  @State(Scope.Benchmark)
  public static class Alone {
    Weir weir;
    WeirClientHttpRequestInterceptor interceptor;
    WeirExchangeFilterFunction filter;
    HttpRequest guardedRequest;
    HttpRequest unmatchedRequest;
    ClientHttpRequestExecution execution;
    ClientRequest guardedClientRequest;
    ExchangeFunction exchange;
    final byte[] body = new byte[0];

    @Setup
    public void setUp() throws IOException {
      UpstreamPauses pauses = new UpstreamPauses();
      weir = Weir.builder().slot(pauses.slot()).rules(RuleSet.of(FlowRule.qps("partner", 2_000_000_000))).build();
      ClientGuard guard = new ClientGuard(weir,
          List.of(ClientRoute.parse("partner", "https://partner.example.com/v1/**", Set.of())), pauses,
          RefusalObserver.none(), System::currentTimeMillis);
      interceptor = new WeirClientHttpRequestInterceptor(guard);
      filter = new WeirExchangeFilterFunction(guard);
      guardedRequest = new Request(URI.create("https://partner.example.com/v1/rates/EUR"));
      unmatchedRequest = new Request(URI.create("https://other.example.com/v1/rates/EUR"));
      ClientHttpResponse canned = new Canned();
      execution = (request, requestBody) -> canned;
      guardedClientRequest = ClientRequest.create(HttpMethod.GET, guardedRequest.getURI()).build();
      ClientResponse answer = ClientResponse.create(HttpStatus.OK).build();
      exchange = request -> Mono.just(answer);
      for (int i = 0; i < 10; i++) {
        interceptor.intercept(guardedRequest, body, execution).close();
        interceptor.intercept(unmatchedRequest, body, execution).close();
        filter.filter(guardedClientRequest, exchange).flatMap(ClientResponse::releaseBody).block();
      }
      ResourceStatistics partner = weir.statistics("partner");
      check(partner != null && partner.totalPassed() == 20 && partner.activeCalls() == 0,
          "the guarded requests are partner's calls, closed");
    }

    @TearDown
    public void tearDown() {
      weir.close();
    }
  }

  @Benchmark
  public String network_plainRestClient(Network state) {
    return state.plain.get().uri("/plain/x").retrieve().body(String.class);
  }

  @Benchmark
  public String network_bootRestClient_unmatched(Network state) {
    return state.bootUnmatched.get().uri("/plain/x").retrieve().body(String.class);
  }

  @Benchmark
  public String network_bootRestClient_guarded(Network state) {
    return state.bootGuarded.get().uri("/guarded/x").retrieve().body(String.class);
  }

  @Benchmark
  public HttpStatusCode interceptor_executionAlone(Alone state) throws IOException {
    ClientHttpResponse response = state.execution.execute(state.guardedRequest, state.body);
    response.close();
    return response.getStatusCode();
  }

  @Benchmark
  public HttpStatusCode interceptor_unmatched(Alone state) throws IOException {
    ClientHttpResponse response = state.interceptor.intercept(state.unmatchedRequest, state.body, state.execution);
    response.close();
    return response.getStatusCode();
  }

  @Benchmark
  public HttpStatusCode interceptor_guarded(Alone state) throws IOException {
    ClientHttpResponse response = state.interceptor.intercept(state.guardedRequest, state.body, state.execution);
    response.close();
    return response.getStatusCode();
  }

  @Benchmark
  public Object filter_exchangeAlone(Alone state) {
    return state.exchange.exchange(state.guardedClientRequest).flatMap(ClientResponse::releaseBody).block();
  }

  @Benchmark
  public Object filter_guarded(Alone state) {
    return state.filter.filter(state.guardedClientRequest, state.exchange).flatMap(ClientResponse::releaseBody)
        .block();
  }

  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new IllegalStateException("setup check failed: " + what);
    }
  }

  /** A GET request to a URI, with no headers. */
  private static final class Request implements HttpRequest {
    private final URI uri;
    private final HttpHeaders headers = new HttpHeaders();
    private final Map<String, Object> attributes = new HashMap<>();

    Request(URI uri) {
      this.uri = uri;
    }

    @Override
    public HttpMethod getMethod() {
      return HttpMethod.GET;
    }

    @Override
    public URI getURI() {
      return uri;
    }

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public Map<String, Object> getAttributes() {
      return attributes;
    }
  }

  /** A 200 answer with no headers and an empty body. */
  private static final class Canned implements ClientHttpResponse {
    private final HttpHeaders headers = new HttpHeaders();

    @Override
    public HttpStatusCode getStatusCode() {
      return HttpStatus.OK;
    }

    @Override
    public String getStatusText() {
      return "OK";
    }

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public InputStream getBody() {
      return new ByteArrayInputStream(new byte[0]);
    }

    @Override
    public void close() {
    }
  }
}
