package dev.weir.spring.ai;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.web.CriticalityClaim;
import dev.weir.spring.web.RequestView;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.core.Ordered;
import reactor.core.publisher.Flux;

/**
 * Weir's advisor of {@code ChatClient} calls ({@code weir.ai}): each call, and each subscription
 * of a stream, is a call of one resource whose flow and param-flow rules count tokens.
 *
 * <ul>
 *   <li><b>Estimate.</b> A call takes, before the model is asked, the request's max tokens plus an
 *       estimate of its prompt (a token per {@value #CHARACTERS_PER_TOKEN} characters, rounded up);
 *       without max tokens, {@code weir.ai.estimate-tokens}. At most {@code Integer.MAX_VALUE}.
 *   <li><b>Settled.</b> When the answer comes, the call is settled to its usage's total tokens
 *       ({@link Entry#settle}): what it did not use goes back, what it used beyond is a debt. A
 *       stream is settled once, when it completes, to the total of the last chunk that reported
 *       usage. A usage that is missing, null or negative keeps the estimate, as does a stream
 *       cancelled or failed before it completes.
 *   <li><b>Refused.</b> A refusal never reaches the model: {@code call()} throws the
 *       {@link BlockException} (with {@code retryAfter}), and a stream fails with it.
 *   <li><b>Keys.</b> The call's arguments, for param-flow rules, are {@code [key, request,
 *       principal]}: {@code #key} (argument 0, {@code param-index: 0}) is the advisor parameter
 *       {@value #KEY} ({@code .advisors(a -> a.param(WeirChatAdvisor.KEY, userId))}), else null;
 *       {@code #request} the read-only view of the servlet request the thread serves (for a tenant
 *       header), else null; {@code #principal} that request's principal's name, else null.
 *   <li><b>Criticality and origin</b> are those of the calling thread's context, as for other
 *       calls; a stream's are read when it is assembled.
 * </ul>
 * It runs before every other advisor ({@link #getOrder()}), so a refused call does no work.
 */
public final class WeirChatAdvisor implements CallAdvisor, StreamAdvisor {

  /** The advisor parameter whose value is the call's key ({@code #key}, argument 0). */
  public static final String KEY = "weir.key";

  /** The names of a call's arguments, for key expressions. */
  public static final List<String> ARGUMENT_NAMES = List.of("key", "request", "principal");

  /** The types of a call's arguments, in the order of {@link #ARGUMENT_NAMES}. */
  public static final List<Class<?>> ARGUMENT_TYPES = List.of(String.class, RequestView.class, String.class);

  static final int CHARACTERS_PER_TOKEN = 4;

  private final Supplier<Weir> weir;
  private final String resourceName;
  private final long estimateTokens;
  private final Supplier<RefusalObserver> observer;
  private final AiTokens tokens;
  private final boolean servlet;
  private volatile @Nullable Bound bound;

  private record Bound(Weir weir, Resource resource) {
  }

  /**
   * The advisor of calls of {@code resource}, each estimated at {@code estimateTokens} when its
   * request sets no max tokens.
   */
  public WeirChatAdvisor(Supplier<Weir> weir, String resource, long estimateTokens,
      Supplier<RefusalObserver> observer) {
    this.weir = weir;
    this.resourceName = resource;
    this.estimateTokens = estimateTokens;
    this.observer = observer;
    this.tokens = new AiTokens(resource);
    this.servlet = isPresent("jakarta.servlet.http.HttpServletRequest")
        && isPresent("org.springframework.web.context.request.RequestContextHolder")
        && isPresent("dev.weir.spring.webmvc.CurrentServletRequest");
  }

  private static boolean isPresent(String name) {
    return org.springframework.util.ClassUtils.isPresent(name, WeirChatAdvisor.class.getClassLoader());
  }

  /** The tokens counted so far. */
  public AiTokens tokens() {
    return tokens;
  }

  @Override
  public String getName() {
    return "weir";
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  private Resource resource() {
    Weir engine = weir.get();
    Bound known = bound;
    if (known == null || known.weir != engine) {
      known = new Bound(engine, engine.resource(resourceName));
      bound = known;
    }
    return known.resource;
  }

  @Override
  public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
    int estimate = estimate(request);
    Entry entry = enter(estimate, arguments(request), CriticalityClaim.bound(Criticality.CRITICAL));
    ChatClientResponse response;
    try {
      response = chain.nextCall(request);
    } catch (RuntimeException | Error failure) {
      entry.recordError(failure);
      entry.close();
      throw failure;
    }
    try {
      settle(entry, response == null ? null : totalTokens(response.chatResponse()));
    } finally {
      entry.close(); // a usage that fails when read leaves with the estimate kept, never with the permits
    }
    return response;
  }

  @Override
  public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
    int estimate = estimate(request);
    Object[] arguments = arguments(request);
    Criticality criticality = CriticalityClaim.bound(Criticality.CRITICAL);
    return Flux.defer(() -> {
      Entry entry;
      try {
        entry = enter(estimate, arguments, criticality);
      } catch (BlockException refused) {
        return Flux.error(refused);
      }
      AtomicReference<@Nullable Long> total = new AtomicReference<>();
      Flux<ChatClientResponse> answers;
      try {
        answers = chain.nextStream(request);
      } catch (RuntimeException | Error failure) { // the chain failed before it gave a stream: give the place back
        entry.recordError(failure);
        entry.close();
        throw failure;
      }
      return answers
          .doOnNext(chunk -> {
            Long reported = chunk == null ? null : totalTokens(chunk.chatResponse());
            if (reported != null) {
              total.set(reported);
            }
          })
          .doOnComplete(() -> {
            try {
              settle(entry, total.get());
            } finally {
              entry.close();
            }
          })
          .doOnError(failure -> {
            entry.recordError(failure);
            entry.close();
          })
          .doOnCancel(entry::cancel); // closed already after a complete or an error: nothing then
    });
  }

  private Entry enter(int estimate, Object[] arguments, Criticality criticality) {
    try {
      Entry entry = resource().asyncEntry(EntryType.OUT, estimate, criticality, arguments);
      tokens.admitted(estimate);
      return entry;
    } catch (BlockException refused) {
      tokens.refused(estimate);
      observer.get().refused(refused);
      throw refused;
    }
  }

  private void settle(Entry entry, @Nullable Long total) {
    if (total == null || total < 0 || !entry.isOpen()) {
      return; // no usage: the call keeps its estimate
    }
    try {
      entry.settle(total);
      tokens.settled(total);
    } catch (IllegalStateException settledOrClosed) {
      // a cancel raced the completion: the call keeps its estimate
    }
  }

  /** The total tokens of {@code response}'s usage, or null when it reports none. */
  static @Nullable Long totalTokens(@Nullable ChatResponse response) {
    if (response == null || response.getMetadata() == null) {
      return null;
    }
    Usage usage = response.getMetadata().getUsage();
    if (usage instanceof org.springframework.ai.chat.metadata.EmptyUsage) {
      return null; // what Spring AI reports when the model reported none
    }
    Integer total = usage == null ? null : usage.getTotalTokens();
    return total == null ? null : total.longValue();
  }

  /** The tokens a call of {@code request} takes before it runs; see the class comment. */
  int estimate(ChatClientRequest request) {
    ChatOptions options = request.prompt() == null ? null : request.prompt().getOptions();
    Integer maxTokens = options == null ? null : options.getMaxTokens();
    if (maxTokens == null || maxTokens < 0) {
      return (int) Math.min(estimateTokens, Integer.MAX_VALUE);
    }
    String contents = request.prompt().getContents();
    long prompt = contents == null ? 0 : (contents.length() + CHARACTERS_PER_TOKEN - 1) / CHARACTERS_PER_TOKEN;
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxTokens + prompt));
  }

  private Object[] arguments(ChatClientRequest request) {
    Map<String, Object> context = request.context();
    Object key = context == null ? null : context.get(KEY);
    RequestView view = null;
    String principal = null;
    if (servlet) {
      view = dev.weir.spring.webmvc.CurrentServletRequest.view();
      principal = dev.weir.spring.webmvc.CurrentServletRequest.principal();
    }
    return new Object[] {key == null ? null : String.valueOf(key), view, principal};
  }
}
