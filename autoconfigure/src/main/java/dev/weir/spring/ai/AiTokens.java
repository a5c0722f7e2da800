package dev.weir.spring.ai;

import java.util.concurrent.atomic.LongAdder;

/**
 * Tokens of the ChatClient calls of one resource, since start: estimates admitted (taken before
 * the call), totals settled (the answers' usage), estimates refused. Read by the meter
 * {@code weir.ai.tokens}.
 */
public final class AiTokens {

  private final String resource;
  private final LongAdder admitted = new LongAdder();
  private final LongAdder settled = new LongAdder();
  private final LongAdder refused = new LongAdder();

  AiTokens(String resource) {
    this.resource = resource;
  }

  /** The resource of the calls counted. */
  public String resource() {
    return resource;
  }

  /** Tokens taken as estimates by admitted calls. */
  public long admitted() {
    return admitted.sum();
  }

  /** Tokens the answers used, as their usage reported and calls were settled to. */
  public long settled() {
    return settled.sum();
  }

  /** Tokens of the estimates of refused calls. */
  public long refused() {
    return refused.sum();
  }

  void admitted(long tokens) {
    admitted.add(tokens);
  }

  void settled(long tokens) {
    settled.add(tokens);
  }

  void refused(long tokens) {
    refused.add(tokens);
  }
}
