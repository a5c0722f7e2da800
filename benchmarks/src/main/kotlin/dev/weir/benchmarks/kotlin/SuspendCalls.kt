package dev.weir.benchmarks.kotlin

import dev.weir.annotation.RateLimited
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.startCoroutine
import kotlinx.coroutines.Dispatchers
import reactor.core.publisher.Mono

/** Marks the methods that a pass-through interceptor proxies: the unguarded side of each pair. */
@Target(AnnotationTarget.FUNCTION)
@Retention(AnnotationRetention.RUNTIME)
annotation class PassThrough

/**
 * The same work as a `suspend` function and as a `Mono` method, each guarded by `@RateLimited` or
 * proxied by a pass-through interceptor only, so the proxy and Spring's coroutine bridge cost the
 * same on both sides and the difference is Weir's.
 */
open class SuspendCalls {

    @RateLimited("suspend-qps")
    open suspend fun guarded(name: String): String = name

    @PassThrough
    open suspend fun passThrough(name: String): String = name

    @RateLimited("mono-qps")
    open fun guardedMono(name: String): Mono<String> = Mono.just(name)

    @PassThrough
    open fun passThroughMono(name: String): Mono<String> = Mono.just(name)
}

/**
 * Calls a suspend function from Java the way a WebFlux handler's coroutine does: it starts the call
 * as a coroutine in the caller's thread on `Dispatchers.Unconfined` (what Spring WebFlux runs suspend
 * handlers on), and reads its result. Spring's bridge runs the proxied call in the caller's context,
 * so the call and its `Mono` complete in place and the result is there when the start returns; a
 * call that resumed elsewhere fails the benchmark rather than measure a wait.
 */
object SuspendDriver {

    @JvmStatic
    fun guarded(calls: SuspendCalls, name: String): String = complete(name) { calls.guarded(it) }

    @JvmStatic
    fun passThrough(calls: SuspendCalls, name: String): String = complete(name) { calls.passThrough(it) }

    private inline fun complete(name: String, crossinline call: suspend (String) -> String): String {
        val done = Done()
        suspend { call(name) }.startCoroutine(done)
        return done.value()
    }

    /** The coroutine's completion: its result, set before [complete] reads it. */
    private class Done : Continuation<String> {
        private var result: Result<String>? = null

        // as Spring WebFlux runs a suspend handler: Spring's bridge runs the proxied call in the
        // caller's context, and with no dispatcher there it would hop to Dispatchers.Default
        override val context: CoroutineContext
            get() = Dispatchers.Unconfined

        override fun resumeWith(result: Result<String>) {
            this.result = result
        }

        fun value(): String =
            (result ?: throw IllegalStateException("the call suspended: it resumes on another thread")).getOrThrow()
    }
}
