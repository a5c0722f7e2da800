package dev.weir.rule;

import java.util.List;

/**
 * An allow or deny list of caller origins for one resource. A call without an origin always passes
 * (there is nothing to check); give every caller an origin if unknown callers must be refused.
 *
 * @param resource the guarded resource
 * @param strategy whether the list allows ({@code WHITE}) or denies ({@code BLACK})
 * @param limitApp the origins listed
 * @param shadow whether the rule only counts the calls it would refuse (see {@link Rule#shadow()})
 */
public record AuthorityRule(String resource, AuthorityStrategy strategy, List<String> limitApp, boolean shadow)
    implements ResourceRule {

  /** Replaces null components by defaults and copies the list. */
  public AuthorityRule {
    resource = resource == null ? "" : resource;
    strategy = strategy == null ? AuthorityStrategy.WHITE : strategy;
    limitApp = limitApp == null ? List.of() : List.copyOf(limitApp);
  }

  /** A list that is not in shadow mode. */
  public AuthorityRule(String resource, AuthorityStrategy strategy, List<String> limitApp) {
    this(resource, strategy, limitApp, false);
  }

  @Override
  public AuthorityRule withShadow(boolean shadow) {
    return shadow == this.shadow ? this : new AuthorityRule(resource, strategy, limitApp, shadow);
  }

  /** Returns an allow list. */
  public static AuthorityRule allow(String resource, String... origins) {
    return new AuthorityRule(resource, AuthorityStrategy.WHITE, List.of(origins));
  }

  /** Returns a deny list. */
  public static AuthorityRule deny(String resource, String... origins) {
    return new AuthorityRule(resource, AuthorityStrategy.BLACK, List.of(origins));
  }

  /** Returns whether a call from {@code origin} passes this rule. */
  public boolean permits(String origin) {
    if (origin.isEmpty()) {
      return true;
    }
    boolean listed = limitApp.contains(origin);
    return strategy == AuthorityStrategy.WHITE ? listed : !listed;
  }

  /** Returns {@link RuleKind#AUTHORITY}. */
  @Override
  public RuleKind kind() {
    return RuleKind.AUTHORITY;
  }
}
