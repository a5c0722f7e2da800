package dev.weir.spring.actuate;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** A WebFlux application with the {@code weir} endpoint, its write operation open (rule-write-webflux-test.yml). */
@SpringBootConfiguration
@EnableAutoConfiguration
class ReactiveRuleWriteTestApplication {
}
