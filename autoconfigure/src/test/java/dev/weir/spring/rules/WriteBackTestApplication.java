package dev.weir.spring.rules;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** A web application with the actuator and the {@code weir} endpoint, nothing of its own. */
@SpringBootConfiguration
@EnableAutoConfiguration
class WriteBackTestApplication {
}
