package dev.weir.spring.aop;

import dev.weir.ContextScope;
import dev.weir.Criticality;
import dev.weir.Weir;
import dev.weir.spring.web.CriticalityClaim;
import java.util.Objects;
import org.springframework.core.task.TaskDecorator;

/**
 * Carries the criticality of the thread that hands a task to a Spring task executor over to the
 * thread that runs it, so that an {@code @Async} method (and a {@code @RateLimited} method it calls,
 * or that is {@code @Async} itself) keeps its caller's criticality: the criticality the caller's
 * context gives ({@link Weir#contextCriticality()}), run in a context of that criticality, and the
 * request's claim ({@link CriticalityClaim}). A task handed over with neither runs as it is.
 *
 * <p>The Weir auto-configuration declares one as a bean; Spring Boot applies every
 * {@link TaskDecorator} bean to the executors it configures ({@code applicationTaskExecutor}, the
 * one {@code @Async} uses by default). Set it on executors of your own with
 * {@code executor.setTaskDecorator(decorator)}. Only the criticality travels: the task's context
 * name and origin are the executor thread's, as before.
 */
public final class WeirTaskDecorator implements TaskDecorator {

  private final Weir weir;

  /**
   * Creates the decorator.
   *
   * @param weir the engine whose contexts' criticality is carried
   */
  public WeirTaskDecorator(Weir weir) {
    this.weir = Objects.requireNonNull(weir, "weir");
  }

  @Override
  public Runnable decorate(Runnable task) {
    Criticality given = weir.contextCriticality();
    Criticality claim = CriticalityClaim.current();
    if (given == null && claim == null) {
      return task;
    }
    return () -> {
      try (CriticalityClaim.Scope claimed = CriticalityClaim.open(claim)) {
        if (given == null) {
          task.run();
        } else {
          try (ContextScope scope = weir.enterContext(Weir.DEFAULT_CONTEXT, null, given)) {
            task.run();
          }
        }
      }
    };
  }
}
