package dev.weir.spring.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.net.URI;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which outgoing requests a route of {@code weir.client.routes} matches, and which urls it refuses. */
class ClientRouteTests {

  private static final List<ClientRoute> ROUTES = List.of(
      ClientRoute.parse("payments", "https://Payments.Example.com/v1/**", Set.of("POST")),
      ClientRoute.parse("local", "http://127.0.0.1:8081/api/{id}", Set.of()),
      ClientRoute.parse("v6", "http://[::1]:9000", Set.of("GET")),
      ClientRoute.parse("any-path", "https://api.example.com", Set.of()),
      ClientRoute.parse("compose", "http://rates_partner:8080/**", Set.of()),
      ClientRoute.parse("k8s", "http://Quotes_Svc/**", Set.of()),
      ClientRoute.parse("fqdn", "https://fq.example.com./**", Set.of()));

  @ParameterizedTest
  @CsvSource(delimiter = '|', nullValues = "none", value = {
      "POST | https://payments.example.com/v1/charges | payments",
      "POST | https://PAYMENTS.example.com:443/v1/charges/7?x=1 | payments",
      "GET | https://payments.example.com/v1/charges | none",
      "POST | http://payments.example.com/v1/charges | none",
      "POST | https://payments.example.com:8443/v1/charges | none",
      "POST | https://payments.example.com/v2/charges | none",
      "POST | https://payments.example.com.evil.test/v1/charges | none",
      "GET | http://127.0.0.1:8081/api/42 | local",
      "GET | http://127.0.0.1:8081/api/42/more | none",
      "GET | http://127.0.0.1/api/42 | none",
      "GET | http://localhost:8081/api/42 | none",
      "GET | http://[::1]:9000/anything/at/all | v6",
      "HEAD | http://[::1]:9000/x | none",
      "DELETE | https://api.example.com | any-path",
      "DELETE | https://api.example.com/a/b%2Fc | any-path",
      "GET | http://rates_partner:8080/rates | compose",
      "GET | http://RATES_partner:8080/rates | compose",
      "GET | http://user:secret@rates_partner:8080/rates | compose",
      "GET | http://rates_partner.:8080/rates | compose",
      "GET | http://rates_partner/rates | none",
      "GET | http://rates_partner:9090/rates | none",
      "GET | http://rates_partner:x/rates | none",
      "GET | http://rates_partner.evil.test:8080/rates | none",
      "GET | http://quotes_svc/q | k8s",
      "GET | http://quotes_svc:80/q | k8s",
      "POST | https://payments.example.com./v1/charges | payments",
      "GET | https://fq.example.com/x | fqdn",
      "GET | https://fq.example.com./x | fqdn",
      "GET | https://fq.example.com../x | none"})
  void theFirstMatchingRouteGuardsARequest(String method, String uri, String resource) {
    ClientRoute route = ClientRoute.first(ROUTES, URI.create(uri), method);
    assertThat(route == null ? null : route.resource()).isEqualTo(resource);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "payments.example.com/** | must be scheme://host", "ftp://files.example.com/** | http:// or https://",
      "https:///v1/** | must name a host", "https://user@api.example.com/** | without user information",
      "https://api.example.com:0/** | port from 1 to 65535", "https://api.example.com:http/** | port from 1 to 65535",
      "https://api.example.com:123456/** | port from 1 to 65535", "https://api example.com/** | must name a host",
      "https://api.example.com/v1?x=1 | without query", "https://api.example.com/{x | no valid path pattern",
      "https://[::1/** | must name a host", "https://api..example.com/** | no empty label",
      "https://.example.com/** | no empty label", "https://example.com../** | no empty label",
      "https://./** | must name a host"})
  void anInvalidUrlIsRefusedSayingWhy(String url, String reason) {
    assertThatIllegalArgumentException().isThrownBy(() -> ClientRoute.parse("r", url, Set.of()))
        .withMessageContaining(reason);
  }
}
