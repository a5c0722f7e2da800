package dev.weir.spring.ai;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientCustomizer;

/** Adds {@link WeirChatAdvisor} to every {@code ChatClient.Builder} Spring AI's auto-configuration makes. */
public final class WeirChatClientCustomizer implements ChatClientCustomizer {

  private final WeirChatAdvisor advisor;

  public WeirChatClientCustomizer(WeirChatAdvisor advisor) {
    this.advisor = advisor;
  }

  @Override
  public void customize(ChatClient.Builder builder) {
    builder.defaultAdvisors(advisor);
  }
}
