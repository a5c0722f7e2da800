package dev.weir.spring.toplevel.kotlin;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** An application whose package holds a guarded Kotlin top-level function (TopLevel.kt). */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TopLevelApplication {
}
