package dev.weir.sample.forecast

import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication

/** A coroutine WebFlux forecast service, its calls guarded by Weir. */
@SpringBootApplication
class ForecastApplication

fun main(args: Array<String>) {
    runApplication<ForecastApplication>(*args)
}
