package dev.weir.sample.forecast

import kotlinx.coroutines.flow.Flow
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController

/** The HTTP side: `suspend` handlers and a streamed `Flow`, each calling the guarded service. */
@RestController
class ForecastController(private val forecasts: ForecastService) {

    /** 200 with a fresh forecast, or a stale one (`"fresh": false`) past the limits. */
    @GetMapping("/forecast/{city}")
    suspend fun forecast(@PathVariable city: String): Forecast = forecasts.forecast(city)

    /** The readings as a JSON array; past the `readings` limit Weir answers 429. */
    @GetMapping("/readings/{city}")
    fun readings(@PathVariable city: String, @RequestParam(defaultValue = "5") count: Int): Flow<Reading> =
        forecasts.readings(city, count.coerceIn(1, 60))
}
