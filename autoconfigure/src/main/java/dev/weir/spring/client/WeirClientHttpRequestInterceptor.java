package dev.weir.spring.client;

import dev.weir.BlockException;
import dev.weir.Entry;
import java.io.IOException;
import java.io.InputStream;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Guards the requests of a {@code RestClient} or {@code RestTemplate} that a route of
 * {@code weir.client.routes} matches (see {@link ClientGuard}); others pass untouched.
 *
 * <p>A refused request is not executed: the {@link BlockException} is thrown from the interceptor
 * before the request reaches the rest of the chain, so nothing is sent; {@code RestClient} and
 * {@code RestTemplate} let it reach the caller as it is (they wrap only {@code IOException}s). An
 * admitted one lasts until its response is closed, which both clients do once the body is read or the
 * status handler has thrown: the response returned here closes the call when it is closed (once,
 * whoever closes it). An {@code IOException} or other failure of the execution (a connect or read
 * timeout among them), or of reading the body, marks the call failed, as does a status of 500 or more.
 */
public final class WeirClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

  private final ClientGuard guard;

  /** Creates the interceptor of {@code guard}'s routes. */
  public WeirClientHttpRequestInterceptor(ClientGuard guard) {
    this.guard = guard;
  }

  @Override
  public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
      throws IOException {
    String method = request.getMethod().name();
    ClientGuard.Target route = guard.route(request.getURI(), method);
    if (route == null) {
      return execution.execute(request, body);
    }
    Entry entry;
    try {
      entry = guard.enter(route, new OutgoingRequestView(method, request.getURI(), request.getHeaders()));
    } catch (BlockException refused) {
      guard.observer().refused(refused);
      throw refused;
    }
    ClientHttpResponse response;
    try {
      response = execution.execute(request, body);
      guard.answered(route, entry, response.getStatusCode().value(), response.getHeaders());
    } catch (IOException | RuntimeException | Error failed) {
      entry.recordError(failed);
      entry.close();
      throw failed;
    }
    return new GuardedResponse(response, entry);
  }

  /** A response whose close completes the call; a failure reading its body marks the call failed. */
  private static final class GuardedResponse implements ClientHttpResponse {
    private final ClientHttpResponse response;
    private final Entry entry;

    GuardedResponse(ClientHttpResponse response, Entry entry) {
      this.response = response;
      this.entry = entry;
    }

    @Override
    public HttpStatusCode getStatusCode() throws IOException {
      return response.getStatusCode();
    }

    @Override
    public String getStatusText() throws IOException {
      return response.getStatusText();
    }

    @Override
    public HttpHeaders getHeaders() {
      return response.getHeaders();
    }

    @Override
    public InputStream getBody() throws IOException {
      try {
        return new GuardedBody(response.getBody(), entry);
      } catch (IOException | RuntimeException failed) {
        entry.recordError(failed);
        throw failed;
      }
    }

    @Override
    public void close() {
      try {
        response.close();
      } finally {
        entry.close(); // an asynchronous entry: idempotent, from any thread
      }
    }
  }

  /** The body of a guarded response: a failure reading it marks the call failed. */
  private static final class GuardedBody extends InputStream {
    private final InputStream body;
    private final Entry entry;

    GuardedBody(InputStream body, Entry entry) {
      this.body = body;
      this.entry = entry;
    }

    @Override
    public int read() throws IOException {
      try {
        return body.read();
      } catch (IOException failed) {
        entry.recordError(failed);
        throw failed;
      }
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      try {
        return body.read(buffer, offset, length);
      } catch (IOException failed) {
        entry.recordError(failed);
        throw failed;
      }
    }

    @Override
    public long skip(long n) throws IOException {
      return body.skip(n);
    }

    @Override
    public int available() throws IOException {
      return body.available();
    }

    @Override
    public void close() throws IOException {
      body.close();
    }
  }
}
