package dev.weir.spring.kotlin

import dev.weir.BlockException
import dev.weir.Criticality
import dev.weir.Weir
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withContext
import kotlinx.coroutines.reactor.asCoroutineContext
import kotlinx.coroutines.yield
import dev.weir.spring.reactive.ReactiveContext
import dev.weir.spring.web.WebContext
import reactor.util.context.Context
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.boot.test.web.server.LocalServerPort
import org.springframework.test.annotation.DirtiesContext
import org.springframework.test.web.reactive.server.WebTestClient

/**
 * `@RateLimited` suspend functions and `Flow` results in a real coroutine WebFlux application on a
 * random port: each call's permits and statistics read from the engine after it.
 */
@SpringBootTest(
    classes = [KotlinApplication::class], webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = ["spring.config.name=kotlin-test"],
)
@DirtiesContext
@Timeout(120)
class SuspendFunctionTests {

    @LocalServerPort
    var port = 0

    @Autowired
    lateinit var weir: Weir

    @Autowired
    lateinit var calls: KotlinCalls

    @Autowired
    lateinit var seen: SeenCalls

    private fun stats(resource: String) = weir.statistics(resource)!!

    private fun http() = WebTestClient.bindToServer().baseUrl("http://localhost:$port").build()

    @Test
    fun anAdmittedCallTakesItsPermitsUntilTheCoroutineCompletes(): Unit = runBlocking {
        assertThat(calls.ok("a")).isEqualTo("ok:a")
        assertThat(stats("kt.ok").totalPassed()).isEqualTo(2) // permits = 2
        assertThat(stats("kt.ok").totalSucceeded()).isEqualTo(2)
        assertThat(stats("kt.ok").activeCalls()).isZero()
    }

    @Test
    fun aFailureIsThrownIntoTheCallerAndCounted(): Unit = runBlocking {
        assertThatThrownBy { runBlocking { calls.failing("f") } }
            .isInstanceOf(IllegalStateException::class.java).hasMessage("failed:f")
        assertThat(stats("kt.failing").totalFailed()).isEqualTo(1)
        assertThat(stats("kt.failing").activeCalls()).isZero()
    }

    @Test
    fun eachKindOfHandlerAnswersARefusal(): Unit = runBlocking {
        assertThat(calls.blocked("b")).isEqualTo("suspend-blocked:b:FlowException")
        assertThat(calls.blockedPlain("p")).isEqualTo("plain-blocked:p")
        assertThat(calls.fellBack("f")).isEqualTo("fallback:f:FlowException")
        assertThat(calls.defaulted("d")).isEqualTo("default")
        for (resource in listOf("kt.blocked", "kt.blockedPlain", "kt.fellBack", "kt.defaulted")) {
            assertThat(stats(resource).totalBlocked()).describedAs(resource).isEqualTo(1)
            assertThat(stats(resource).activeCalls()).describedAs(resource).isZero()
        }
    }

    @Test
    fun aRefusalWithoutHandlersIsThrownIntoTheCallersCoroutine(): Unit = runBlocking {
        assertThatThrownBy { runBlocking { calls.bare() } }.isInstanceOf(BlockException::class.java)
        http().get().uri("/bare").exchange().expectStatus().isEqualTo(429)
        assertThat(stats("kt.bare").totalBlocked()).isEqualTo(2)
    }

    @Test
    fun aCoroutineCancelledWhileSuspendedReleasesItsPermits(): Unit = runBlocking {
        val gate = CompletableDeferred<Unit>()
        val call = launch(Dispatchers.Default, start = CoroutineStart.DEFAULT) { calls.waiting(gate) }
        while (weir.statistics("kt.waiting")?.activeCalls() != 1L) {
            yield()
        }
        call.cancel()
        call.join()
        assertThat(stats("kt.waiting").activeCalls()).isZero()
        // a cancel is counted in the statistics as a close (Entry.cancel), never as a failure
        assertThat(stats("kt.waiting").totalPassed()).isEqualTo(1)
        assertThat(stats("kt.waiting").totalFailed()).isZero()
    }

    @Test
    fun aTimeoutAroundADelayReleasesOnTheTestDispatchersTime(): Unit = runTest {
        // the delay and the timeout both run on the test dispatcher's virtual clock: no wall time
        var timedOut = false
        try {
            withTimeout(1_000) { calls.sleeping(10_000) }
        } catch (expected: TimeoutCancellationException) {
            timedOut = true
        }
        assertThat(timedOut).isTrue()
        assertThat(stats("kt.sleeping").activeCalls()).isZero()
        assertThat(stats("kt.sleeping").totalFailed()).isZero()
        assertThat(calls.sleeping(5)).isEqualTo("slept")
        assertThat(stats("kt.sleeping").totalPassed()).isEqualTo(2)
    }

    @Test
    fun aThousandCoroutinesOnAThreadsRuleOfTenNeverHaveMoreThanTenInside(): Unit = runBlocking {
        val answers = (1..1000).map {
            async(Dispatchers.Default) {
                try {
                    calls.threads()
                } catch (refused: BlockException) {
                    "refused"
                }
            }
        }.awaitAll()
        val admitted = answers.count { it == "in" }.toLong()
        assertThat(calls.mostInside()).isBetween(1, 10)
        assertThat(stats("kt.threads").totalPassed()).isEqualTo(admitted)
        assertThat(stats("kt.threads").totalBlocked()).isEqualTo(1000 - admitted)
        assertThat(stats("kt.threads").activeCalls()).isZero()
    }

    @Test
    fun aFlowIsGuardedPerCollection(): Unit = runBlocking {
        val numbers = calls.numbers(3)
        assertThat(numbers.toList()).containsExactly(1, 2, 3)
        assertThat(numbers.toList()).containsExactly(1, 2, 3)
        assertThatThrownBy { runBlocking { numbers.toList() } }.isInstanceOf(BlockException::class.java)
        assertThat(stats("kt.flow").totalPassed()).isEqualTo(2)
        assertThat(stats("kt.flow").totalBlocked()).isEqualTo(1)
        assertThat(stats("kt.flow").activeCalls()).isZero()
        assertThat(calls.failingNumbers().toList()).containsExactly(1, -1)
    }

    @Test
    fun theCriticalityHeaderReachesAGuardedSuspendFunctionAcrossDispatchers() {
        seen.criticality.clear()
        http().get().uri("/crit").header("X-Criticality", "SHEDDABLE").exchange()
            .expectStatus().isOk.expectBody(String::class.java).isEqualTo("crit")
        assertThat(seen.criticality["kt.crit"]).containsExactly(Criticality.SHEDDABLE)
        // and the call is in the request's Weir context, which the same Reactor context carried
        assertThat(seen.contexts["kt.crit"]).containsExactly(WebContext.NAME)
    }

    @Test
    fun aSuspendFunctionsResultSettlesItsCost(): Unit = runBlocking {
        assertThat(calls.settled("abc")).isEqualTo("abc")
        // 50 permits taken when the coroutine started, settled to 3 when it completed
        assertThat(weir.quotas("kt.settled").single().remaining()).isEqualTo(97)
        assertThat(stats("kt.settled").activeCalls()).isZero()
    }

    @Test
    fun callsOnDispatchersIoLeaveNothingOnTheThreadsTheyRanOn(): Unit = runBlocking {
        val calls = 10_000
        val request = Context.of(ReactiveContext::class.java, ReactiveContext("kt-request", "kt-origin"))
        withContext(request.asCoroutineContext()) {
            (1..calls).map { async(Dispatchers.IO) { this@SuspendFunctionTests.calls.io() } }.awaitAll()
        }
        assertThat(stats("kt.io").totalPassed()).isEqualTo(calls.toLong())
        assertThat(stats("kt.io").totalSucceeded()).isEqualTo(calls.toLong())
        assertThat(stats("kt.io").activeCalls()).isZero()
        assertThat(seen.origins["kt.io"]).containsOnly("kt-origin")
        // a plain entry on each IO thread afterwards is in no request's context: none was left entered
        val outside = probeContext()
        val probes = (1..200).map { async(Dispatchers.IO) { probeContext() } }.awaitAll()
        assertThat(probes).containsOnly(outside)
    }

    private fun probeContext(): String = weir.entry("kt.probe").use { "${it.contextName()}|${it.origin()}" }

    @Test
    fun aMemberExtensionFunctionIsGuardedWithItsReceiverAsTheFirstArgument(): Unit = runBlocking {
        with(calls) {
            assertThat("a".shout()).isEqualTo("A")
            assertThat("b".shout()).isEqualTo("B")
            // one call per receiver value: the hot-parameter rule reads the receiver as param-index 0
            assertThatThrownBy { runBlocking { "a".shout() } }.isInstanceOf(BlockException::class.java)
        }
        assertThat(stats("kt.extension").totalPassed()).isEqualTo(2)
        assertThat(stats("kt.extension").totalBlocked()).isEqualTo(1)
    }

    @Test
    fun aCollectorThatStopsEarlyReleasesTheCollectionsEntry(): Unit = runBlocking {
        assertThat(calls.endless().take(3).toList()).containsExactly(0, 1, 2)
        assertThat(calls.endless().first()).isEqualTo(0)
        val collecting = launch(Dispatchers.Default) { calls.endless().collect { yield() } }
        while (stats("kt.flowEndless").activeCalls() != 1L) {
            yield()
        }
        collecting.cancel()
        collecting.join()
        assertThat(stats("kt.flowEndless").totalPassed()).isEqualTo(3)
        assertThat(stats("kt.flowEndless").activeCalls()).isZero()
        assertThat(stats("kt.flowEndless").totalFailed()).isZero()
    }
}
