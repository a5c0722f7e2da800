package dev.weir.kotlin

import dev.weir.BlockException
import dev.weir.Weir
import dev.weir.rule.FlowRule
import dev.weir.rule.RuleSet
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicLong
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Tag
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.condition.EnabledForJreRange
import org.junit.jupiter.api.condition.JRE

/**
 * [guard] on a dispatcher of virtual threads leaves nothing behind, and a threads rule holds there.
 * Needs JDK 21+; the build's `virtual-threads` profile runs it on Temurin 25 (compiled for Java 17,
 * so the executor is made through reflection).
 */
@Tag("virtual-threads")
@EnabledForJreRange(
    min = JRE.JAVA_21,
    disabledReason = "virtual threads need JDK 21+; the build's virtual-threads profile runs this on Temurin 25",
)
@Timeout(60)
class GuardVirtualThreadTest {

    private val weir = Weir.builder().rules(RuleSet.of(FlowRule.qps("open", 1_000_000_000.0), FlowRule.threads("ten", 10)))
        .build()

    private fun virtualThreadPerTask(): ExecutorService =
        Executors::class.java.getMethod("newVirtualThreadPerTaskExecutor").invoke(null) as ExecutorService

    @Test
    fun tenThousandGuardedCallsOnVirtualThreadsLeaveNothingBehind(): Unit = runBlocking {
        virtualThreadPerTask().asCoroutineDispatcher().use { virtual ->
            val answers = (1..10_000).map { i -> async(virtual) { weir.guard("open") { yield(); i } } }.awaitAll()
            assertThat(answers.sum()).isEqualTo((1..10_000).sum())
            val open = weir.statistics("open")!!
            assertThat(open.totalPassed()).isEqualTo(10_000)
            assertThat(open.totalSucceeded()).isEqualTo(10_000)
            assertThat(open.activeCalls()).isZero()

            val mostInside = AtomicLong()
            (1..1000).map {
                async(virtual) {
                    try {
                        weir.guard("ten") {
                            mostInside.accumulateAndGet(weir.statistics("ten")!!.activeCalls()) { a, b -> maxOf(a, b) }
                            delay(1)
                        }
                    } catch (refused: BlockException) {
                        // counted by the engine
                    }
                }
            }.awaitAll()
            assertThat(mostInside.get()).isBetween(1L, 10L)
            assertThat(weir.statistics("ten")!!.activeCalls()).isZero()
        }
    }
}
