package dev.weir.test.boot;

import dev.weir.test.AutoConfigureWeirTest;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;

/** An application's own test annotation that carries {@link AutoConfigureWeirTest}. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest
@AutoConfigureWeirTest
@interface GreetingTest {
}
