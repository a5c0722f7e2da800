package dev.weir.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.FlowException;
import dev.weir.ParamFlowException;
import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.ai.WeirAiAutoConfiguration;
import dev.weir.spring.test.ManualTicker;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;

/**
 * Token limits on ChatClient calls ({@code weir.ai}) in a real Spring context with Spring AI's own
 * ChatClient auto-configuration, against a ChatModel of the test's own: it answers with a known
 * usage and counts the calls that reach it. No network. The clock does not move, so a rule's
 * tokens per minute are exact.
 */
class ChatTokenLimitTests {

  /** A model that answers every prompt with {@code usage} total tokens (null: no usage), in 3 chunks when streamed. */
  static final class CountingModel implements ChatModel {
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger streams = new AtomicInteger();
    volatile Integer usage = 10;
    /** Answers with a usage whose reading throws, as a provider's broken usage would. */
    volatile boolean brokenUsage;

    private ChatResponse answer(Integer total) {
      ChatResponseMetadata metadata = brokenUsage ? ChatResponseMetadata.builder().usage(new BrokenUsage()).build()
          : total == null ? new ChatResponseMetadata()
          : ChatResponseMetadata.builder().usage(new DefaultUsage(1, total - 1, total)).build();
      return new ChatResponse(List.of(new Generation(new AssistantMessage("ok"))), metadata);
    }

    @Override
    public ChatResponse call(Prompt prompt) {
      calls.incrementAndGet();
      return answer(usage);
    }

    @Override
    public Flux<ChatResponse> stream(Prompt prompt) {
      return Flux.defer(() -> {
        streams.incrementAndGet();
        return Flux.just(answer(null), answer(null), answer(usage)); // usage on the last chunk only
      });
    }
  }

  /** A usage that fails when read. */
  static final class BrokenUsage implements org.springframework.ai.chat.metadata.Usage {
    @Override
    public Integer getPromptTokens() {
      throw new IllegalStateException("no prompt tokens");
    }

    @Override
    public Integer getCompletionTokens() {
      throw new IllegalStateException("no completion tokens");
    }

    @Override
    public Integer getTotalTokens() {
      throw new IllegalStateException("no total tokens");
    }

    @Override
    public Object getNativeUsage() {
      return "broken";
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    CountingModel model() {
      return new CountingModel();
    }

    @Bean
    ManualTicker ticker() {
      return new ManualTicker();
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirAiAutoConfiguration.class,
          ChatClientAutoConfiguration.class))
      .withUserConfiguration(App.class)
      .withPropertyValues("weir.ai.estimate-tokens=100", "weir.flow[0].resource=ai:chat", "weir.flow[0].count=300",
          "weir.flow[0].interval=1m");

  /** The registry with the context's meter binders bound (Boot's metrics auto-configuration is not in this context). */
  private static MeterRegistry bound(org.springframework.context.ApplicationContext context) {
    MeterRegistry registry = context.getBean(MeterRegistry.class);
    context.getBeansOfType(io.micrometer.core.instrument.binder.MeterBinder.class).values()
        .forEach(binder -> binder.bindTo(registry));
    return registry;
  }

  private static int calls(ChatClient chat, int tries) {
    int admitted = 0;
    for (int i = 0; i < tries; i++) {
      try {
        chat.prompt("hello").call().content();
        admitted++;
      } catch (BlockException refused) {
        break;
      }
    }
    return admitted;
  }

  @Test
  void callsTakeTheEstimateAndAreSettledToTheirUsage() {
    runner.run(context -> {
      ChatClient chat = context.getBean(ChatClient.Builder.class).build();
      CountingModel model = context.getBean(CountingModel.class);
      // 100 taken, 10 used: 300 tokens a minute admit far more than 3 calls
      assertThat(calls(chat, 20)).isEqualTo(20);
      assertThat(model.calls).hasValue(20);
      MeterRegistry registry = bound(context);
      assertThat(registry.get("weir.ai.tokens").tag("result", "settled").functionCounter().count()).isEqualTo(200);
      assertThat(registry.get("weir.ai.tokens").tag("result", "admitted").functionCounter().count()).isEqualTo(2000);
    });
  }

  @Test
  void aRefusalNeverReachesTheModelAndCarriesRetryAfter() {
    runner.run(context -> {
      ChatClient chat = context.getBean(ChatClient.Builder.class).build();
      CountingModel model = context.getBean(CountingModel.class);
      model.usage = 250; // beyond the estimate: a debt
      assertThat(calls(chat, 10)).as("100 then settled to 250; 50 left < 100").isEqualTo(1);
      assertThatThrownBy(() -> chat.prompt("hello").call().content()).isInstanceOf(FlowException.class)
          .satisfies(refused -> assertThat(((BlockException) refused).retryAfter()).isPositive());
      assertThat(model.calls).as("the refused calls never reached the model").hasValue(1);
      assertThat(bound(context).get("weir.ai.tokens").tag("result", "refused")
          .functionCounter().count()).isEqualTo(200);
    });
  }

  @Test
  void aMissingUsageKeepsTheEstimate() {
    runner.run(context -> {
      ChatClient chat = context.getBean(ChatClient.Builder.class).build();
      context.getBean(CountingModel.class).usage = null;
      assertThat(calls(chat, 10)).as("100 each, kept: 3 in 300").isEqualTo(3);
    });
  }

  @Test
  void aStreamSettlesOnceOnItsLastUsageAndACancelledOneKeepsTheEstimate() {
    runner.run(context -> {
      ChatClient chat = context.getBean(ChatClient.Builder.class).build();
      CountingModel model = context.getBean(CountingModel.class);
      for (int i = 0; i < 20; i++) {
        assertThat(chat.prompt("hello").stream().chatResponse().collectList().block(Duration.ofSeconds(5))).hasSize(3);
      }
      assertThat(model.streams).as("100 taken, 10 used each").hasValue(20);
    });
  }

  @Test
  void aStreamCancelledBeforeItsUsageKeepsTheEstimate() {
    runner.run(context -> {
      ChatClient chat = context.getBean(ChatClient.Builder.class).build();
      Weir weir = context.getBean(Weir.class);
      // cancelled after its first chunk, before the usage: each keeps 100 of 300
      for (int i = 0; i < 3; i++) {
        chat.prompt("hello").stream().chatResponse().take(1).blockLast(Duration.ofSeconds(5));
      }
      assertThat(weir.statistics("ai:chat").activeCalls()).isZero();
      assertThatThrownBy(() -> chat.prompt("hello").stream().chatResponse().blockLast(Duration.ofSeconds(5)))
          .isInstanceOf(FlowException.class);
    });
  }

  @Test
  void perKeyRulesCountTokensPerAdvisorKey() {
    runner.withPropertyValues("weir.param-flow[0].resource=ai:chat", "weir.param-flow[0].param-index=0",
        "weir.param-flow[0].count=150", "weir.param-flow[0].duration=1m").run(context -> {
          ChatClient chat = context.getBean(ChatClient.Builder.class).build();
          context.getBean(CountingModel.class).usage = 100;
          chat.prompt("hello").advisors(a -> a.param(WeirChatAdvisor.KEY, "alice")).call().content();
          assertThatThrownBy(() -> chat.prompt("hello").advisors(a -> a.param(WeirChatAdvisor.KEY, "alice")).call()
              .content()).isInstanceOf(ParamFlowException.class);
          chat.prompt("hello").advisors(a -> a.param(WeirChatAdvisor.KEY, "bob")).call().content();
        });
  }

  @Test
  void aUsageThatFailsWhenReadStillGivesThePermitsBack() {
    runner.run(context -> {
      ChatClient chat = context.getBean(ChatClient.Builder.class).build();
      context.getBean(CountingModel.class).brokenUsage = true;
      Weir weir = context.getBean(Weir.class);
      assertThatThrownBy(() -> chat.prompt("hello").call().content()).hasMessage("no total tokens");
      assertThat(weir.statistics("ai:chat").activeCalls()).as("the call's place given back").isZero();
    });
  }

  @Test
  void aChainThatFailsBeforeGivingAStreamGivesThePermitsBack() {
    runner.run(context -> {
      WeirChatAdvisor advisor = context.getBean(WeirChatAdvisor.class);
      Weir weir = context.getBean(Weir.class);
      org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain broken =
          new org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain() {
            @Override
            public Flux<org.springframework.ai.chat.client.ChatClientResponse> nextStream(
                org.springframework.ai.chat.client.ChatClientRequest request) {
              throw new IllegalStateException("no stream");
            }

            @Override
            public List<org.springframework.ai.chat.client.advisor.api.StreamAdvisor> getStreamAdvisors() {
              return List.of();
            }

            @Override
            public org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain copy(
                org.springframework.ai.chat.client.advisor.api.StreamAdvisor after) {
              return this;
            }

            @Override
            public io.micrometer.observation.ObservationRegistry getObservationRegistry() {
              return io.micrometer.observation.ObservationRegistry.NOOP;
            }
          };
      var request = new org.springframework.ai.chat.client.ChatClientRequest(new Prompt("hello"), java.util.Map.of());
      assertThatThrownBy(() -> advisor.adviseStream(request, broken).blockLast(Duration.ofSeconds(5)))
          .isInstanceOf(IllegalStateException.class);
      assertThat(weir.statistics("ai:chat").activeCalls()).as("the call's place given back").isZero();
      assertThat(weir.statistics("ai:chat").totalFailed()).as("its 100 permits, failed").isEqualTo(100);
    });
  }

  @Test
  void backsOffWithoutSpringAi() {
    runner.withClassLoader(new FilteredClassLoader(ChatClient.class)).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context).doesNotHaveBean(WeirChatAdvisor.class);
    });
  }
}
