package dev.weir.sample.forecast

import dev.weir.BlockException
import dev.weir.annotation.RateLimited
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import org.springframework.stereotype.Service

/**
 * Forecasts from a slow upstream (a `delay` stands in for it). Each guarded function is a
 * `suspend` function or returns a `Flow`; the rules are in `application.yml`.
 */
@Service
class ForecastService {

    // tag::forecast[]
    /** A forecast, at most as often as the `forecast` rules allow, per city too; else a stale one. */
    @RateLimited("forecast", blockHandler = "stale")
    suspend fun forecast(city: String): Forecast {
        delay(20) // the upstream call: the permit is held until the coroutine completes
        return Forecast(city, celsius(city, 0), fresh = true)
    }

    /** The answer to a refused call: a suspend function too, with the same parameters and the refusal. */
    suspend fun stale(city: String, refusal: BlockException): Forecast = Forecast(city, null, fresh = false)
    // end::forecast[]

    // tag::readings[]
    /** A city's last readings, streamed: each collection is one call of `readings`. */
    @RateLimited("readings")
    fun readings(city: String, count: Int): Flow<Reading> = flow {
        for (minute in 0 until count) {
            delay(5)
            emit(Reading(city, minute, celsius(city, minute)))
        }
    }
    // end::readings[]

    private fun celsius(city: String, minute: Int) = (city.hashCode() and 0xF) + minute % 3
}
