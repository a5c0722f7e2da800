package dev.weir.spring.web;

import dev.weir.BlockException;
import dev.weir.FlowException;
import dev.weir.ParamFlowException;
import dev.weir.Quota;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleNames;
import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The {@code RateLimit-Policy} and {@code RateLimit} headers of the IETF draft
 * (draft-ietf-httpapi-ratelimit-headers-11), written as structured-field lists with one item per
 * rate rule:
 * <pre>
 * RateLimit-Policy: "flow-0";q=100;w=60, "per-key";q=10;w=1
 * RateLimit: "flow-0";r=42;t=1, "per-key";r=9;t=1
 * </pre>
 * {@code q} is the rule's count (a key's own count for a param-flow exception) and {@code w} its
 * window; {@code r} is what the limiter would admit now and {@code t} the time until it will admit
 * more ({@link Quota#untilMore()}), in whole seconds rounded up, 0 when it never will. A policy is
 * named by the rule's {@code name}, else by its kind and position among the resource's rules of
 * that kind ({@code "flow-0"}). A refusal of an annotated method names the rule's {@code name},
 * else its kind only ({@code "flow"}), with {@code r=0} and {@code t} the refusal's Retry-After.
 * Names are validated when a rule is ({@link RuleNames}); one that is not valid (which a validated
 * rule never has) is not written, and the kind names the policy instead.
 */
public final class RateLimitHeaders {

  /** The policy header's name. */
  public static final String POLICY = "RateLimit-Policy";
  /** The state header's name. */
  public static final String STATE = "RateLimit";

  private RateLimitHeaders() {
  }

  /** Writes the headers for {@code quotas} through {@code header}; nothing when there are none. */
  public static void write(List<Quota> quotas, BiConsumer<String, String> header) {
    if (quotas.isEmpty()) {
      return;
    }
    StringBuilder policy = new StringBuilder();
    StringBuilder state = new StringBuilder();
    for (Quota quota : quotas) {
      String name = item(quota.name(), quota.kind().tag() + "-" + quota.index());
      append(policy, name + ";q=" + quota.limit() + ";w=" + seconds(quota.window()));
      append(state, name + ";r=" + quota.remaining() + ";t=" + seconds(quota.untilMore()));
    }
    header.accept(POLICY, policy.toString());
    header.accept(STATE, state.toString());
  }

  /**
   * Writes the headers for a refusal by a {@code qps} flow or param-flow rule through
   * {@code header}; nothing for other refusals.
   */
  public static void write(BlockException refusal, BiConsumer<String, String> header) {
    Duration window = window(refusal);
    if (window == null) {
      return;
    }
    double count;
    @Nullable String ruleName;
    if (refusal.rule() instanceof FlowRule flow) {
      count = flow.count();
      ruleName = flow.name();
    } else {
      ParamFlowRule param = (ParamFlowRule) refusal.rule();
      count = param.count();
      ruleName = param.name();
    }
    String name = item(ruleName, refusal.ruleKind().tag());
    header.accept(POLICY, name + ";q=" + (long) Math.floor(count) + ";w=" + seconds(window));
    header.accept(STATE, name + ";r=0;t=" + Math.max(1, BlockProblems.retryAfterSeconds(refusal)));
  }

  private static @Nullable Duration window(BlockException refusal) {
    if (refusal instanceof FlowException && refusal.rule() instanceof FlowRule flow && flow.grade() == FlowGrade.QPS) {
      return flow.interval();
    }
    if (refusal instanceof ParamFlowException && refusal.rule() instanceof ParamFlowRule param
        && param.grade() == FlowGrade.QPS) {
      return param.duration();
    }
    return null;
  }

  /** The policy's name as a structured-field string: the rule's {@code name} if valid, else {@code fallback}. */
  private static String item(@Nullable String name, String fallback) {
    return "\"" + (RuleNames.isValid(name) ? name : fallback) + "\"";
  }

  private static void append(StringBuilder list, String item) {
    if (!list.isEmpty()) {
      list.append(", ");
    }
    list.append(item);
  }

  /** Whole seconds, rounded up. */
  private static long seconds(Duration duration) {
    long seconds = duration.getSeconds();
    return duration.getNano() > 0 ? seconds + 1 : seconds;
  }
}
