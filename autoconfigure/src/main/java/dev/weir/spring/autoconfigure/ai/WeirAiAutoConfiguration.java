package dev.weir.spring.autoconfigure.ai;

import dev.weir.Weir;
import dev.weir.spring.ai.AiTokens;
import dev.weir.spring.ai.WeirChatAdvisor;
import dev.weir.spring.ai.WeirChatClientCustomizer;
import dev.weir.spring.autoconfigure.ResourcesInUse;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.observation.RefusalObserver;
import dev.weir.spring.properties.WeirProperties;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Set;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.function.SingletonSupplier;

/**
 * Spring AI token limits ({@code weir.ai}): with Spring AI's {@code ChatClient} on the class path,
 * every {@code ChatClient.Builder} that Spring AI auto-configures gets {@link WeirChatAdvisor}
 * (through a {@code ChatClientCustomizer}), so each call is a call of {@code weir.ai.resource} whose
 * rules count tokens. With Micrometer, the counter {@code weir.ai.tokens} (tag {@code result} =
 * {@code admitted}, {@code settled}, {@code refused}).
 */
@AutoConfiguration(after = WeirAutoConfiguration.class,
    beforeName = "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration")
@ConditionalOnClass(ChatClient.class)
@ConditionalOnBean(Weir.class)
public final class WeirAiAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  WeirChatAdvisor weirChatAdvisor(ObjectProvider<Weir> weir, ObjectProvider<RefusalObserver> observer,
      WeirProperties properties) {
    return new WeirChatAdvisor(SingletonSupplier.of(weir::getObject), properties.getAi().getResource(),
        properties.getAi().getEstimateTokens(), SingletonSupplier.of(() -> observer.getIfAvailable(RefusalObserver::none)));
  }

  @Bean
  @ConditionalOnMissingBean
  WeirChatClientCustomizer weirChatClientCustomizer(WeirChatAdvisor advisor) {
    return new WeirChatClientCustomizer(advisor);
  }

  @Bean
  ResourcesInUse.DeclaredResources weirAiResource(WeirProperties properties) {
    return () -> Set.of(properties.getAi().getResource());
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class Meters {

    @Bean
    MeterBinder weirAiTokenMeters(WeirChatAdvisor advisor, WeirProperties properties) {
      List<Tag> tags = properties.getMetrics().getTags().entrySet().stream()
          .map(tag -> Tag.of(tag.getKey(), tag.getValue())).toList();
      return registry -> {
        AiTokens tokens = advisor.tokens();
        counter(registry, tokens, tags, "admitted", AiTokens::admitted);
        counter(registry, tokens, tags, "settled", AiTokens::settled);
        counter(registry, tokens, tags, "refused", AiTokens::refused);
      };
    }

    private static void counter(MeterRegistry registry, AiTokens tokens, List<Tag> tags, String result,
        java.util.function.ToDoubleFunction<AiTokens> count) {
      FunctionCounter.builder("weir.ai.tokens", tokens, count)
          .description("Tokens of ChatClient calls: estimates admitted, usage settled, estimates refused")
          .tags(tags).tag("resource", tokens.resource()).tag("result", result).register(registry);
    }
  }
}
