package dev.weir.spring.kotlin

import dev.weir.BlockException
import dev.weir.Criticality
import dev.weir.Weir
import dev.weir.annotation.RateLimited
import dev.weir.spi.Invocation
import dev.weir.spi.ProcessorSlot
import dev.weir.spring.autoconfigure.WeirBuilderCustomizer
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicLong
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.springframework.beans.factory.ObjectProvider
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.context.annotation.Bean
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.RestController

/**
 * A coroutine WebFlux application: a suspend controller calls a suspend service that switches to
 * `Dispatchers.IO` and calls the guarded suspend functions of [KotlinCalls]. The engine's calls are
 * recorded by [SeenCalls].
 */
@SpringBootConfiguration
@EnableAutoConfiguration
open class KotlinApplication {

    @Bean
    open fun seenCalls() = SeenCalls()

    @Bean
    open fun recordingSlot(seen: SeenCalls) = WeirBuilderCustomizer { it.slot(seen) }

    @Bean
    open fun kotlinCalls(weir: ObjectProvider<Weir>) = KotlinCalls(weir)

    @Bean
    open fun relay(calls: KotlinCalls) = Relay(calls)

    @Bean
    open fun endpoints(relay: Relay, calls: KotlinCalls) = Endpoints(relay, calls)
}

/** A slot of the engine recording the criticality of each call it admits, per resource. */
class SeenCalls : ProcessorSlot() {
    val criticality = ConcurrentHashMap<String, ConcurrentLinkedQueue<Criticality>>()

    /** The distinct origins of each resource's calls. */
    val origins = ConcurrentHashMap<String, MutableSet<String>>()

    /** The distinct context names of each resource's calls. */
    val contexts = ConcurrentHashMap<String, MutableSet<String>>()

    override fun order() = 0

    override fun entry(invocation: Invocation): BlockException? {
        criticality.computeIfAbsent(invocation.resource()) { ConcurrentLinkedQueue() }.add(invocation.criticality())
        origins.computeIfAbsent(invocation.resource()) { ConcurrentHashMap.newKeySet() }.add(invocation.origin())
        contexts.computeIfAbsent(invocation.resource()) { ConcurrentHashMap.newKeySet() }.add(invocation.contextName())
        return null
    }
}

/** The guarded suspend functions and flows, with each kind of handler. */
open class KotlinCalls(private val weir: ObjectProvider<Weir>) {
    /** Calls inside `kt.threads` / `kt.virtual` right now, and the most seen at once. */
    private val inside = AtomicLong()
    private val mostInside = AtomicLong()

    /** The most calls seen inside `kt.threads` at once: by this bean's count and by the engine's reading. */
    open fun mostInside(): Long = mostInside.get()

    @RateLimited("kt.ok", permits = 2)
    open suspend fun ok(id: String): String {
        delay(1)
        return "ok:$id"
    }

    @RateLimited("kt.failing")
    open suspend fun failing(id: String): String {
        delay(1)
        throw IllegalStateException("failed:$id")
    }

    @RateLimited("kt.blocked", blockHandler = "suspendBlocked")
    open suspend fun blocked(id: String): String = "never:$id"

    open suspend fun suspendBlocked(id: String, refusal: BlockException): String {
        delay(1)
        return "suspend-blocked:$id:${refusal.javaClass.simpleName}"
    }

    @RateLimited("kt.blockedPlain", blockHandler = "plainBlocked")
    open suspend fun blockedPlain(id: String): String = "never:$id"

    fun plainBlocked(id: String, refusal: BlockException): String = "plain-blocked:$id"

    @RateLimited("kt.fellBack", fallback = "suspendFallback")
    open suspend fun fellBack(id: String): String = "never:$id"

    open suspend fun suspendFallback(id: String, failure: Throwable): String {
        yield()
        return "fallback:$id:${failure.javaClass.simpleName}"
    }

    @RateLimited("kt.defaulted", defaultFallback = "plainDefault")
    open suspend fun defaulted(id: String): String = "never:$id"

    fun plainDefault(): String = "default"

    @RateLimited("kt.bare")
    open suspend fun bare(): String = "never"

    /** Suspends until [gate] completes: a call that stays inside until it is cancelled. */
    @RateLimited("kt.waiting")
    open suspend fun waiting(gate: CompletableDeferred<Unit>): String {
        gate.await()
        return "opened"
    }

    /** Suspends for [millis] of the dispatcher's time. */
    @RateLimited("kt.sleeping")
    open suspend fun sleeping(millis: Long): String {
        delay(millis)
        return "slept"
    }

    @RateLimited("kt.threads")
    open suspend fun threads(): String = counted()

    @RateLimited("kt.virtual")
    open suspend fun virtual(): String = counted()

    private suspend fun counted(): String {
        // the engine's own reading of the calls inside, taken inside one
        val now = maxOf(inside.incrementAndGet(), weirActive())
        mostInside.accumulateAndGet(now) { a, b -> maxOf(a, b) }
        try {
            yield()
            delay(1)
            return "in"
        } finally {
            inside.decrementAndGet()
        }
    }

    private fun weirActive() = weir.getObject().statistics("kt.threads")?.activeCalls() ?: 0

    /** Takes 50 permits, settled to the answer's length once the coroutine completes. */
    @RateLimited("kt.settled", permits = 50, settle = "#result.length()")
    open suspend fun settled(text: String): String {
        delay(1)
        return text
    }

    /** A call on Dispatchers.IO (or whatever the caller's dispatcher is), suspending once. */
    @RateLimited("kt.io")
    open suspend fun io(): String {
        yield()
        return "io"
    }

    /** A member extension function: a method of the bean whose first argument is the receiver. */
    @RateLimited("kt.extension")
    open suspend fun String.shout(): String {
        yield()
        return uppercase()
    }

    @RateLimited("kt.crit")
    open suspend fun critical(): String = withContext(Dispatchers.Default) { "crit" }

    @RateLimited("kt.flow")
    open fun numbers(count: Int): Flow<Int> = flow {
        for (i in 1..count) {
            emit(i)
        }
    }

    /** Endless: only a collector that stops (take, first, a cancel) ends its collection. */
    @RateLimited("kt.flowEndless")
    open fun endless(): Flow<Int> = flow {
        var i = 0
        while (true) {
            emit(i++)
        }
    }

    @RateLimited("kt.flowFailing", fallback = "flowFallback")
    open fun failingNumbers(): Flow<Int> = flow {
        emit(1)
        throw IllegalStateException("broken")
    }

    fun flowFallback(failure: Throwable): Flow<Int> = flow { emit(-1) }
}

/** A suspend service between the controller and the guarded call, switching dispatchers. */
open class Relay(private val calls: KotlinCalls) {
    open suspend fun relay(): String = withContext(Dispatchers.IO) { calls.critical() }
}

@RestController
open class Endpoints(private val relay: Relay, private val calls: KotlinCalls) {
    @GetMapping("/crit")
    open suspend fun crit(): String = relay.relay()

    @GetMapping("/ok")
    open suspend fun ok(): String = calls.ok("http")

    @GetMapping("/bare")
    open suspend fun bare(): String = calls.bare()

    @GetMapping("/numbers")
    open fun numbers(): Flow<Int> = calls.numbers(3)
}
