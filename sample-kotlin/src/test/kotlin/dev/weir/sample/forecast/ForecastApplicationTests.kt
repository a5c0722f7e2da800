package dev.weir.sample.forecast

import dev.weir.Weir
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.boot.test.web.server.LocalServerPort
import org.springframework.test.annotation.DirtiesContext
import org.springframework.test.web.reactive.server.WebTestClient
import org.springframework.test.web.reactive.server.expectBody
import org.springframework.test.web.reactive.server.expectBodyList

/**
 * The sample as it runs, on a random port with its own `application.yml`: the guarded suspend
 * function and its suspend blockHandler, the per-city rule, the guarded `Flow`, the actuator.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class ForecastApplicationTests {

    @LocalServerPort
    var port = 0

    @Autowired
    lateinit var weir: Weir

    private fun http() = WebTestClient.bindToServer().baseUrl("http://localhost:$port").build()

    private fun forecast(city: String): Forecast =
        http().get().uri("/forecast/{city}", city).exchange().expectStatus().isOk.expectBody<Forecast>()
            .returnResult().responseBody!!

    @Test
    fun aCityHasThreeFreshForecastsAMinuteThenStaleOnesWhileOtherCitiesStayFresh() {
        repeat(3) { assertThat(forecast("oslo").fresh).isTrue() }
        // the per-city rule refused it, and the suspend blockHandler answered
        assertThat(forecast("oslo")).isEqualTo(Forecast("oslo", null, fresh = false))
        assertThat(forecast("bergen").fresh).isTrue()
        val stats = weir.statistics("forecast")!!
        assertThat(stats.totalPassed()).isEqualTo(4)
        assertThat(stats.totalBlocked()).isEqualTo(1)
        assertThat(stats.activeCalls()).isZero()
    }

    @Test
    fun readingsStreamUntilTheirLimitThenWeirAnswers429() {
        repeat(10) {
            val readings = http().get().uri("/readings/{city}?count=5", "tromso").exchange()
                .expectStatus().isOk.expectBodyList<Reading>().returnResult().responseBody!!
            assertThat(readings.map { it.minute }).containsExactly(0, 1, 2, 3, 4)
        }
        http().get().uri("/readings/{city}", "tromso").exchange().expectStatus().isEqualTo(429)
        val stats = weir.statistics("readings")!!
        assertThat(stats.totalPassed()).isEqualTo(10)
        assertThat(stats.totalBlocked()).isEqualTo(1)
        assertThat(stats.activeCalls()).isZero()
    }

    @Test
    fun theActuatorShowsTheGuardedFunctionsAndTheirRules() {
        forecast("lima")
        http().get().uri("/actuator/weir").exchange().expectStatus().isOk.expectBody()
            .jsonPath("$.resources.forecast.rules.flow[0].count").isEqualTo(20)
            .jsonPath("$.resources.forecast.rules.paramFlow[0].count").isEqualTo(3)
            .jsonPath("$.resources.readings.rules.flow[0].count").isEqualTo(10)
    }
}
