package dev.weir;

import dev.weir.internal.call.CallStack;
import org.jspecify.annotations.Nullable;

/**
 * A named context with a caller origin, active on the thread that entered it until closed. Calls
 * made inside are attributed to it: {@code chain} rules match its name, {@code limit-app} and
 * authority rules match its origin. Statistics are kept per resource, whatever the context.
 * <pre>{@code
 * try (ContextScope scope = weir.enterContext("checkout", "partner-app")) {
 *   orders.create(request); // entries made here see context "checkout", origin "partner-app"
 * }
 * }</pre>
 * Scopes nest: closing one restores the context that was active when it was entered. Close it on
 * the thread that entered it, in reverse order of entering. A scope entered with a
 * {@link Criticality} gives it to the calls made inside; one entered without keeps the enclosing
 * scope's.
 */
public final class ContextScope implements AutoCloseable {

  private final CallStack stack;
  private final String name;
  private final String previousName;
  private final String previousOrigin;
  private final @Nullable Criticality previousCriticality;
  private boolean closed;

  ContextScope(CallStack stack, String name, String origin, @Nullable Criticality criticality) {
    this.stack = stack;
    this.name = name;
    this.previousName = stack.contextName;
    this.previousOrigin = stack.origin;
    this.previousCriticality = stack.criticality;
    stack.contextName = name;
    stack.origin = origin;
    if (criticality != null) {
      stack.criticality = criticality;
    }
  }

  /** Returns the context name. */
  public String name() {
    return name;
  }

  /** Restores the context that was active before this one. Idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      stack.contextName = previousName;
      stack.origin = previousOrigin;
      stack.criticality = previousCriticality;
      stack.leaveIfIdle();
    }
  }
}
