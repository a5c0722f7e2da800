package dev.weir.kotlin

import dev.weir.BlockException
import dev.weir.Ticker
import dev.weir.Criticality
import dev.weir.Weir
import dev.weir.rule.FlowRule
import dev.weir.rule.ParamFlowRule
import dev.weir.rule.RuleSet
import dev.weir.spi.Invocation
import dev.weir.spi.ProcessorSlot
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout

/**
 * [guard] on a real engine: after each kind of call, the engine's own statistics say what was
 * admitted, refused, failed and released. The engine runs on a ticker that does not move, so the
 * arithmetic is exact and no window rolls during a test.
 */
@Timeout(60)
class GuardTest {

    /** Engine time that never moves: no window rolls while a test runs. */
    private val ticker = Ticker { 1_000_000_000L }

    /** Records the criticality of each call the engine admits. */
    private class Seen : ProcessorSlot() {
        val criticality = ConcurrentHashMap.newKeySet<Criticality>()

        override fun order() = 0

        override fun entry(invocation: Invocation): BlockException? {
            criticality.add(invocation.criticality())
            return null
        }
    }

    private val seen = Seen()

    private val weir: Weir = Weir.builder().ticker(ticker).slot(seen).rules(
        RuleSet.of(
            FlowRule.qps("open", 1_000_000.0),
            FlowRule.qps("closed", 0.0),
            FlowRule.builder("tokens").count(100.0).interval(Duration.ofHours(1)).build(),
            ParamFlowRule.builder("keyed").paramIndex(0).count(1.0).duration(Duration.ofHours(1)).build(),
            FlowRule.threads("ten", 10),
        ),
    ).build()

    private fun stats(resource: String) = weir.statistics(resource)!!

    @Test
    fun anAdmittedCallReturnsWhatItsBlockReturnsAndIsReleased(): Unit = runBlocking {
        assertThat(weir.guard("open", permits = 2) { delay(1); "done" }).isEqualTo("done")
        assertThat(stats("open").totalPassed()).isEqualTo(2)
        assertThat(stats("open").totalSucceeded()).isEqualTo(2)
        assertThat(stats("open").activeCalls()).isZero()
        assertThat(seen.criticality).containsExactly(Criticality.CRITICAL)
    }

    @Test
    fun aRefusalIsThrownAndTheBlockNeverRuns(): Unit = runBlocking {
        var ran = false
        assertThatThrownBy { runBlocking { weir.guard("closed") { ran = true } } }
            .isInstanceOf(BlockException::class.java)
        assertThat(ran).isFalse()
        assertThat(stats("closed").totalBlocked()).isEqualTo(1)
        assertThat(stats("closed").activeCalls()).isZero()
    }

    @Test
    fun aFailureIsCountedAndRethrownUnchanged(): Unit = runBlocking {
        val failure = IllegalStateException("broken")
        assertThatThrownBy { runBlocking { weir.guard<String>("open") { yield(); throw failure } } }
            .isSameAs(failure)
        assertThat(stats("open").totalFailed()).isEqualTo(1)
        assertThat(stats("open").activeCalls()).isZero()
    }

    @Test
    fun aCoroutineCancelledWhileSuspendedReleasesItsEntryAsACancel(): Unit = runBlocking {
        val gate = CompletableDeferred<Unit>()
        val call = launch(Dispatchers.Default) { weir.guard("open") { gate.await() } }
        while (stats("open").activeCalls() != 1L) {
            yield()
        }
        call.cancel()
        call.join()
        assertThat(stats("open").activeCalls()).isZero()
        assertThat(stats("open").totalPassed()).isEqualTo(1)
        // counted as Entry.cancel counts it: completed in the statistics, never failed
        assertThat(stats("open").totalSucceeded()).isEqualTo(1)
        assertThat(stats("open").totalFailed()).isZero()
    }

    @Test
    fun aTimeoutAroundADelayReleasesOnTheTestDispatchersVirtualTime() = runTest {
        var timedOut = false
        try {
            withTimeout(1_000) { weir.guard("open") { delay(10_000) } }
        } catch (expected: TimeoutCancellationException) {
            timedOut = true
        }
        assertThat(timedOut).isTrue()
        assertThat(stats("open").activeCalls()).isZero()
        assertThat(stats("open").totalFailed()).isZero()
    }

    @Test
    fun aSettledCallIsChargedItsRealCost(): Unit = runBlocking {
        assertThat(weir.guard("tokens", permits = 50, settle = { answer: String -> answer.length.toLong() }) { "abc" })
            .isEqualTo("abc")
        assertThat(weir.quotas("tokens").single().remaining()).isEqualTo(97)
        // a call that cost more than its estimate owes the rest
        weir.guard("tokens", permits = 10, settle = { _: Unit -> 40L }) { }
        assertThat(weir.quotas("tokens").single().remaining()).isEqualTo(57)
        assertThat(stats("tokens").activeCalls()).isZero()
    }

    @Test
    fun aSettleThatThrowsKeepsTheEstimateClosesTheEntryAndIsThrown(): Unit = runBlocking {
        val broken = IllegalArgumentException("no usage")
        assertThatThrownBy {
            runBlocking { weir.guard("tokens", permits = 50, settle = { _: String -> throw broken }) { "abc" } }
        }.isSameAs(broken)
        assertThatThrownBy { runBlocking { weir.guard("tokens", permits = 10, settle = { _: String -> -1L }) { "x" } } }
            .isInstanceOf(IllegalArgumentException::class.java)
        assertThat(weir.quotas("tokens").single().remaining()).isEqualTo(40)
        assertThat(stats("tokens").activeCalls()).isZero()
        assertThat(stats("tokens").totalSucceeded()).isEqualTo(60)
    }

    @Test
    fun perKeyRulesReadTheArguments(): Unit = runBlocking {
        assertThat(weir.guard("keyed", args = arrayOf("a")) { 1 }).isEqualTo(1)
        assertThat(weir.guard("keyed", args = arrayOf("b")) { 2 }).isEqualTo(2)
        assertThatThrownBy { runBlocking { weir.guard("keyed", args = arrayOf("a")) { 3 } } }
            .isInstanceOf(BlockException::class.java)
        assertThat(stats("keyed").totalPassed()).isEqualTo(2)
        assertThat(stats("keyed").totalBlocked()).isEqualTo(1)
    }

    @Test
    fun theGivenCriticalityIsTheCallsOwnWithoutARequest(): Unit = runBlocking {
        weir.guard(weir.resource("open"), criticality = Criticality.SHEDDABLE) { }
        assertThat(seen.criticality).containsExactly(Criticality.SHEDDABLE)
    }

    @Test
    fun aThousandCoroutinesOnAThreadsRuleOfTenNeverHaveMoreThanTenInside(): Unit = runBlocking {
        val mostInside = AtomicLong()
        val admitted = AtomicInteger()
        (1..1000).map {
            async(Dispatchers.Default) {
                try {
                    weir.guard("ten") {
                        // the engine's own reading of the calls inside, taken inside one
                        mostInside.accumulateAndGet(stats("ten").activeCalls()) { a, b -> maxOf(a, b) }
                        admitted.incrementAndGet()
                        yield()
                        delay(1)
                    }
                } catch (refused: BlockException) {
                    // counted by the engine
                }
            }
        }.awaitAll()
        assertThat(mostInside.get()).isBetween(1L, 10L)
        assertThat(stats("ten").totalPassed()).isEqualTo(admitted.get().toLong())
        assertThat(stats("ten").totalPassed() + stats("ten").totalBlocked()).isEqualTo(1000)
        assertThat(stats("ten").activeCalls()).isZero()
    }

    @Test
    fun tenThousandCallsOnDispatchersIoLeaveNothingOnTheirThreads(): Unit = runBlocking {
        val handle = weir.resource("open")
        val answers = (1..10_000).map { i -> async(Dispatchers.IO) { weir.guard(handle) { yield(); i } } }.awaitAll()
        assertThat(answers.sum()).isEqualTo((1..10_000).sum())
        assertThat(stats("open").totalPassed()).isEqualTo(10_000)
        assertThat(stats("open").totalSucceeded()).isEqualTo(10_000)
        assertThat(stats("open").activeCalls()).isZero()
        // a plain call on each IO thread afterwards has no parent left behind: it is in the default
        // context, as one on a fresh thread is
        val fresh = ThreadCalls.contextOfAPlainCall(weir)
        val onIo = (1..200).map { async(Dispatchers.IO) { ThreadCalls.contextOfAPlainCall(weir) } }.awaitAll()
        assertThat(onIo).containsOnly(fresh)
    }
}

/** A plain entry's context, as the calling thread holds it. */
internal object ThreadCalls {
    fun contextOfAPlainCall(weir: Weir): String = weir.entry("open").use { "${it.contextName()}|${it.origin()}" }
}
