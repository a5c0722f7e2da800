package dev.weir.spring.kotlin

import dev.weir.Weir
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Tag
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.condition.EnabledForJreRange
import org.junit.jupiter.api.condition.JRE
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.test.annotation.DirtiesContext

/**
 * Guarded suspend functions on a dispatcher of virtual threads leave nothing behind: every permit
 * back, and no Weir context left entered on the threads that ran them. Needs JDK 21+; the build's
 * `virtual-threads` profile runs it on Temurin 25 (compiled for Java 17, so the executor is made
 * through reflection).
 */
@Tag("virtual-threads")
@EnabledForJreRange(
    min = JRE.JAVA_21,
    disabledReason = "virtual threads need JDK 21+; the build's virtual-threads profile runs this on Temurin 25",
)
@SpringBootTest(classes = [KotlinApplication::class], properties = ["spring.config.name=kotlin-test"])
@DirtiesContext
@Timeout(120)
class SuspendVirtualThreadTests {

    @Autowired
    lateinit var weir: Weir

    @Autowired
    lateinit var calls: KotlinCalls

    private fun virtualThreadPerTask(): ExecutorService =
        Executors::class.java.getMethod("newVirtualThreadPerTaskExecutor").invoke(null) as ExecutorService

    @Test
    fun tenThousandCallsOnVirtualThreadsLeaveNothingBehind(): Unit = runBlocking {
        val executor = virtualThreadPerTask()
        executor.asCoroutineDispatcher().use { virtual ->
            val answers = (1..10_000).map { async(virtual) { calls.io() } }.awaitAll()
            assertThat(answers).containsOnly("io")
            val stats = weir.statistics("kt.io")!!
            assertThat(stats.totalPassed()).isEqualTo(10_000)
            assertThat(stats.totalSucceeded()).isEqualTo(10_000)
            assertThat(stats.activeCalls()).isZero()
            // a threads rule of 10 on virtual threads: never more than 10 inside, read by the engine
            val limited = (1..1000).map {
                async(virtual) {
                    try {
                        calls.threads()
                    } catch (refused: dev.weir.BlockException) {
                        "refused"
                    }
                }
            }.awaitAll()
            assertThat(calls.mostInside()).isBetween(1, 10)
            assertThat(weir.statistics("kt.threads")!!.totalPassed()).isEqualTo(limited.count { it == "in" }.toLong())
            assertThat(weir.statistics("kt.threads")!!.activeCalls()).isZero()
        }
    }
}
