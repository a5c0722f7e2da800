package dev.weir.spring.client;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.reactive.ReactiveContext;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * Guards the requests of a {@code WebClient} that a route of {@code weir.client.routes} matches (see
 * {@link ClientGuard}); others pass untouched.
 *
 * <p>Each subscription to the exchange is one call, entered when subscribed: in the
 * {@link ReactiveContext} of the subscriber's Reactor context when it has one, else in the
 * subscribing thread's context. A refusal is the exchange's error signal, the {@link BlockException}
 * as it is, and the request is never handed to the connector: nothing is sent. An admitted call lasts
 * until the response body is consumed (or released: Spring's {@code WebClient} releases a body the
 * application did not read), fails, or is cancelled. An error signal of the exchange (a connect
 * failure, {@code WebClientRequestException}) or of the body, or a status of 500 or more, marks the
 * call failed; a cancel before the response, or of the body, is an
 * {@linkplain Entry#cancel() entry cancelled}, with no outcome for circuit breakers (a
 * {@code timeout(...)} of the caller's is such a cancel).
 */
public final class WeirExchangeFilterFunction implements ExchangeFilterFunction {

  private final ClientGuard guard;

  /** Creates the filter of {@code guard}'s routes. */
  public WeirExchangeFilterFunction(ClientGuard guard) {
    this.guard = guard;
  }

  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    String method = request.method().name();
    ClientGuard.Target route = guard.route(request.url(), method);
    if (route == null) {
      return next.exchange(request);
    }
    return Mono.deferContextual(reactor -> {
      OutgoingRequestView view = new OutgoingRequestView(method, request.url(), request.headers());
      ReactiveContext context = reactor.getOrDefault(ReactiveContext.class, null);
      Entry entry;
      try {
        entry = context == null ? guard.enter(route, view)
            : guard.weir().callInContext(context.name(), context.origin(), () -> guard.enter(route, view));
      } catch (BlockException refused) {
        guard.observer().refused(refused, reactor.getOrDefault(RefusalObserver.OBSERVATION_KEY, null));
        return Mono.error(refused);
      }
      AtomicBoolean answered = new AtomicBoolean();
      Mono<ClientResponse> exchange;
      try {
        exchange = next.exchange(request);
      } catch (RuntimeException | Error failed) {
        entry.recordError(failed);
        entry.close();
        throw failed;
      }
      /*
       * Each end of the call is taken in before the signal goes on (doOnError, doOnCancel,
       * doOnSuccess, and for the body doOnComplete), never after it (doFinally): a caller that sees
       * the answer or the error finds the call's permit back already. Before the response, an error
       * or an empty exchange closes the call and a cancel cancels it; once the response is mapped,
       * its body decides (a cancel of the exchange then changes nothing: answered is set).
       */
      return exchange.doOnError(failed -> {
        entry.recordError(failed);
        entry.close();
      }).doOnCancel(() -> {
        if (!answered.get()) {
          entry.cancel();
        }
      }).map(response -> {
        answered.set(true);
        return guarded(response, route, entry);
      }).doOnSuccess(response -> {
        if (response == null) {
          entry.close();
        }
      });
    });
  }

  /** The response, with a body whose end ends the call. */
  private ClientResponse guarded(ClientResponse response, ClientGuard.Target route, Entry entry) {
    try {
      guard.answered(route, entry, response.statusCode().value(), response.headers().asHttpHeaders());
    } catch (RuntimeException | Error failed) {
      entry.recordError(failed);
      entry.close();
      throw failed;
    }
    return response.mutate().body(body -> body.doOnComplete(entry::close).doOnError(failed -> {
      entry.recordError(failed);
      entry.close();
    }).doOnCancel(entry::cancel)).build();
  }
}
