package dev.weir.rule;

import java.util.List;

/**
 * An allow or deny list of caller origins for one resource. A call without an origin (none given,
 * or an empty one) is refused by an allow list unless {@code allowNoOrigin} is set, and passes a
 * deny list (it is not on the list).
 *
 * <p>{@code allowNoOrigin} was added after the first release, as the last component: the
 * constructors without it, and {@link #allow} and {@link #deny}, leave it false; Sentinel's own
 * authority rules let a call without an origin through, as a rule with it set does.
 *
 * @param resource the guarded resource
 * @param strategy whether the list allows ({@code WHITE}) or denies ({@code BLACK})
 * @param limitApp the origins listed
 * @param shadow whether the rule only counts the calls it would refuse (see {@link Rule#shadow()})
 * @param allowNoOrigin whether an allow list lets a call without an origin through (no effect on a
 *     deny list, which always does)
 */
public record AuthorityRule(String resource, AuthorityStrategy strategy, List<String> limitApp, boolean shadow,
    boolean allowNoOrigin) implements ResourceRule {

  /** Replaces null components by defaults and copies the list. */
  public AuthorityRule {
    resource = resource == null ? "" : resource;
    strategy = strategy == null ? AuthorityStrategy.WHITE : strategy;
    limitApp = limitApp == null ? List.of() : List.copyOf(limitApp);
  }

  /** A list that refuses a call without an origin if it is an allow list. */
  public AuthorityRule(String resource, AuthorityStrategy strategy, List<String> limitApp, boolean shadow) {
    this(resource, strategy, limitApp, shadow, false);
  }

  /** A list that is not in shadow mode and refuses a call without an origin if it is an allow list. */
  public AuthorityRule(String resource, AuthorityStrategy strategy, List<String> limitApp) {
    this(resource, strategy, limitApp, false, false);
  }

  @Override
  public AuthorityRule withShadow(boolean shadow) {
    return shadow == this.shadow ? this : new AuthorityRule(resource, strategy, limitApp, shadow, allowNoOrigin);
  }

  /** Returns this rule letting a call without an origin through, or not (an allow list; see the class). */
  public AuthorityRule withAllowNoOrigin(boolean allowNoOrigin) {
    return allowNoOrigin == this.allowNoOrigin ? this
        : new AuthorityRule(resource, strategy, limitApp, shadow, allowNoOrigin);
  }

  /** Returns an allow list, which refuses a call without an origin. */
  public static AuthorityRule allow(String resource, String... origins) {
    return new AuthorityRule(resource, AuthorityStrategy.WHITE, List.of(origins));
  }

  /** Returns a deny list. */
  public static AuthorityRule deny(String resource, String... origins) {
    return new AuthorityRule(resource, AuthorityStrategy.BLACK, List.of(origins));
  }

  /** Returns whether a call from {@code origin} ({@code ""}: none) passes this rule. */
  public boolean permits(String origin) {
    if (origin.isEmpty()) {
      return allowNoOrigin || strategy == AuthorityStrategy.BLACK;
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
