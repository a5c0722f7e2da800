package dev.weir.spring.properties;

import dev.weir.rule.RuleKind;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.util.ClassUtils;

/**
 * The one record of accepted rule changes, whatever their source: each change is logged at INFO and,
 * when Spring Boot's actuator is on the classpath and a publisher was given, published as an
 * {@code AuditApplicationEvent} of type {@value #AUDIT_TYPE} (Spring Boot's audit listener stores
 * it in the application's {@code AuditEventRepository}, if there is one). Every source of rules
 * (the {@code weir} endpoint, a rule file, a refresh) calls {@link #changed} with its own name, once
 * a change is in force; refused changes are not recorded here.
 *
 * <p>The log line, under this class's logger:
 * <pre>
 * Rules of 'createOrder' replaced (source: endpoint, principal: alice, kinds: flow): flow [..] -&gt; [..]
 * </pre>
 * The audit event's principal is the principal's name, or {@value #ANONYMOUS} when there is none
 * (an unauthenticated request, or a source without a user); its data are {@code source},
 * {@code resource} and {@code kinds} (the tags of the kinds replaced: {@code flow},
 * {@code param-flow}, ...).
 *
 * <p>The actuator is optional: nothing here refers to its classes until it is known to be present.
 * Thread-safe.
 */
public final class RuleChangeLog {

  /** The type of the audit events published. */
  public static final String AUDIT_TYPE = "WEIR_RULES_CHANGED";

  /** The principal of a change made without an authenticated user. */
  public static final String ANONYMOUS = "anonymous";

  private static final String AUDIT_EVENT = "org.springframework.boot.actuate.audit.listener.AuditApplicationEvent";

  private static final Log logger = LogFactory.getLog(RuleChangeLog.class);

  private final @Nullable ApplicationEventPublisher publisher;

  /**
   * Creates the record of changes.
   *
   * @param publisher where audit events go; null to log only. Events are published only when the
   *     actuator's {@code AuditApplicationEvent} is on the classpath.
   */
  public RuleChangeLog(@Nullable ApplicationEventPublisher publisher) {
    boolean audits = ClassUtils.isPresent(AUDIT_EVENT, RuleChangeLog.class.getClassLoader());
    this.publisher = audits ? publisher : null;
  }

  /**
   * Records a change now in force.
   *
   * @param source what made it: {@code endpoint}, {@code file}, {@code refresh}, ...
   * @param principal the name of the user who made it; null when there is none (then
   *     {@value #ANONYMOUS})
   * @param resource the resource whose rules changed
   * @param kinds the kinds of rules replaced
   * @param detail what changed, for the log line (the rules before and after)
   */
  public void changed(String source, @Nullable String principal, String resource, Collection<RuleKind> kinds,
      String detail) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(resource, "resource");
    String who = principal == null || principal.isEmpty() ? ANONYMOUS : principal;
    List<String> tags = kinds.stream().map(RuleKind::tag).toList();
    if (logger.isInfoEnabled()) {
      logger.info("Rules of '" + LogText.of(resource) + "' replaced (source: " + LogText.of(source) + ", principal: "
          + LogText.of(who) + ", kinds: " + String.join(", ", tags) + "): " + LogText.of(detail));
    }
    ApplicationEventPublisher events = publisher;
    if (events != null) {
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("source", source);
      data.put("resource", resource);
      data.put("kinds", tags);
      events.publishEvent(Audit.event(who, data));
    }
  }

  /** Touches the actuator's classes; loaded only once they are known to be present. */
  private static final class Audit {

    private Audit() {
    }

    static Object event(String principal, Map<String, Object> data) {
      return new org.springframework.boot.actuate.audit.listener.AuditApplicationEvent(principal, AUDIT_TYPE, data);
    }
  }
}
