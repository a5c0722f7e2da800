package dev.weir.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Puts the Weir engine of a Spring Boot test under the test's control. On a {@code @SpringBootTest}
 * class (or on an annotation of yours that such a class carries, or an enclosing class of a
 * {@code @Nested} test):
 *
 * <ul>
 *   <li>Time is driven: a {@link DrivenTicker} bean is declared, and the auto-configured engine uses
 *       it as its {@code Ticker} and its {@code Sleeper}. Inject it ({@code @Autowired DrivenTicker})
 *       and advance it to move windows, warm-up and circuit breakers; queued calls advance it
 *       instead of waiting. The bean is not declared when the context already has a
 *       {@code Ticker} or a {@code Sleeper} bean (a {@code DrivenTicker} of your own is one): then
 *       yours is used, as without this annotation.
 *   <li>Each test method starts from a clean engine: before each test method (and before its
 *       {@code @BeforeEach} methods) every {@code Weir} bean of the context is
 *       {@linkplain dev.weir.Weir#reset() reset}: statistics, window counts, queues, warm-up
 *       progress and circuit states are forgotten; the rules in force stay, including rules a
 *       test changed at runtime. The ticker is not reset: time only goes forward.
 * </ul>
 *
 * <p>Test classes without this annotation are left alone, even when they share the application.
 * The annotation is part of the test context's configuration, so annotated and unannotated classes
 * never share a cached application context.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureWeirTest {
}
