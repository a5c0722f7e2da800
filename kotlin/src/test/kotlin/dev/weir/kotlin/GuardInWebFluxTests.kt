package dev.weir.kotlin

import dev.weir.BlockException
import dev.weir.Criticality
import dev.weir.Weir
import dev.weir.spi.Invocation
import dev.weir.spi.ProcessorSlot
import dev.weir.spring.autoconfigure.WeirBuilderCustomizer
import dev.weir.spring.web.WebContext
import java.util.concurrent.ConcurrentLinkedQueue
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.boot.test.web.server.LocalServerPort
import org.springframework.context.annotation.Bean
import org.springframework.test.annotation.DirtiesContext
import org.springframework.test.web.reactive.server.WebTestClient
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.RestController

/**
 * [guard] inside a real Spring WebFlux application on a random port: a `suspend` controller calls a
 * service that switches to `Dispatchers.IO` and then guards a block. The entry is in the request's
 * Weir context, with the request's criticality claim (`X-Criticality`) and origin (`X-Caller`),
 * recorded by a slot of the engine.
 */
@SpringBootTest(
    classes = [GuardInWebFluxTests.App::class],
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = [
        "spring.main.web-application-type=reactive",
        "weir.web.criticality-header=X-Criticality",
        "weir.web.origin-header=X-Caller",
        "weir.flow[0].resource=guarded.report",
        "weir.flow[0].count=1000",
        "weir.flow[1].resource=guarded.closed",
        "weir.flow[1].count=0",
    ],
)
@DirtiesContext
@Timeout(60)
class GuardInWebFluxTests {

    /** What the engine saw of each call: resource, context name, origin, criticality. */
    class Seen : ProcessorSlot() {
        val calls = ConcurrentLinkedQueue<String>()

        override fun order() = 0

        override fun entry(invocation: Invocation): BlockException? {
            calls.add("${invocation.resource()}|${invocation.contextName()}|${invocation.origin()}|${invocation.criticality()}")
            return null
        }
    }

    /** Two suspend calls down from the controller, on another dispatcher. */
    open class Reports(private val weir: Weir) {
        open suspend fun report(): String = withContext(Dispatchers.IO) { build() }

        private suspend fun build(): String = weir.guard("guarded.report", criticality = Criticality.CRITICAL_PLUS) {
            "report"
        }

        open suspend fun closed(): String = withContext(Dispatchers.IO) { weir.guard("guarded.closed") { "never" } }
    }

    @RestController
    open class Endpoints(private val reports: Reports) {
        @GetMapping("/report")
        open suspend fun report(): String = reports.report()

        @GetMapping("/closed")
        open suspend fun closed(): String = reports.closed()
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    open class App {
        @Bean
        open fun seen() = Seen()

        @Bean
        open fun recording(seen: Seen) = WeirBuilderCustomizer { it.slot(seen) }

        @Bean
        open fun reports(weir: Weir) = Reports(weir)

        @Bean
        open fun endpoints(reports: Reports) = Endpoints(reports)
    }

    @LocalServerPort
    var port = 0

    @Autowired
    lateinit var seen: Seen

    @Autowired
    lateinit var weir: Weir

    private fun http() = WebTestClient.bindToServer().baseUrl("http://localhost:$port").build()

    @BeforeEach
    fun clear() {
        seen.calls.clear()
    }

    @Test
    fun theRequestsContextAndClaimReachAGuardTwoCallsDownOnAnotherDispatcher() {
        http().get().uri("/report").header("X-Criticality", "SHEDDABLE").header("X-Caller", "partner-a").exchange()
            .expectStatus().isOk.expectBody(String::class.java).isEqualTo("report")
        // the claim lowers the call's own CRITICAL_PLUS; the origin is the request's
        assertThat(seen.calls).containsExactly("guarded.report|${WebContext.NAME}|partner-a|SHEDDABLE")
        assertThat(weir.statistics("guarded.report")!!.activeCalls()).isZero()
    }

    @Test
    fun withoutAClaimTheCallKeepsItsOwnCriticality() {
        http().get().uri("/report").exchange().expectStatus().isOk
        assertThat(seen.calls).containsExactly("guarded.report|${WebContext.NAME}||CRITICAL_PLUS")
    }

    @Test
    fun aRefusalInsideTheGuardBecomesWeirsAnswer() {
        http().get().uri("/closed").exchange().expectStatus().isEqualTo(429)
        assertThat(weir.statistics("guarded.closed")!!.totalBlocked()).isEqualTo(1)
    }
}
