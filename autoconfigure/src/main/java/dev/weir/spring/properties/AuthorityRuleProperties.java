package dev.weir.spring.properties;

import dev.weir.rule.AuthorityRule;
import dev.weir.rule.AuthorityStrategy;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One allow or deny list of callers, as bound from {@code weir.authority[*]} and as posted to the
 * {@code weir} endpoint under {@code authority}. A missing strategy reads as white; problems are
 * reported by {@link WeirPropertiesValidator}.
 */
public final class AuthorityRuleProperties {

  /**
   * Whether the rule is in shadow mode: evaluated with its full state, it refuses nothing and
   * counts what it would have refused (meter weir.blocks.shadow). Unset: weir.shadow.
   */
  private @Nullable Boolean shadow;

  /** The guarded resource. */
  private @Nullable String resource;

  /** white: only the listed origins may call; black: the listed origins may not. */
  private @Nullable AuthorityStrategy strategy;

  /** The origins listed. */
  private List<String> limitApp = new ArrayList<>();

  /**
   * Whether a white list lets a call without an origin through (Sentinel's behaviour); by default it
   * is refused. No effect on a black list, which a call without an origin always passes.
   */
  private boolean allowNoOrigin;

  public @Nullable String getResource() {
    return resource;
  }

  public void setResource(@Nullable String resource) {
    this.resource = resource;
  }

  public @Nullable AuthorityStrategy getStrategy() {
    return strategy;
  }

  public void setStrategy(@Nullable AuthorityStrategy strategy) {
    this.strategy = strategy;
  }

  public List<String> getLimitApp() {
    return limitApp;
  }

  public void setLimitApp(List<String> limitApp) {
    this.limitApp = limitApp;
  }

  public boolean isAllowNoOrigin() {
    return allowNoOrigin;
  }

  public void setAllowNoOrigin(boolean allowNoOrigin) {
    this.allowNoOrigin = allowNoOrigin;
  }

  public @Nullable Boolean getShadow() {
    return shadow;
  }

  public void setShadow(@Nullable Boolean shadow) {
    this.shadow = shadow;
  }

  /** Returns whether the rule is in shadow mode: its own {@code shadow}, else {@code shadowByDefault}. */
  boolean shadow(boolean shadowByDefault) {
    return shadow != null ? shadow : shadowByDefault;
  }

  /** Returns the rule; a missing strategy reads as white. */
  AuthorityRule toRule() {
    return new AuthorityRule(resource == null ? "" : resource, strategy, limitApp, false, allowNoOrigin);
  }
}
